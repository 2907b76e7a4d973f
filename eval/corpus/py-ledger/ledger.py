import threading
from decimal import Decimal


class Ledger:
    def __init__(self):
        self.balances = {}
        self.lock = threading.Lock()

    def deposit(self, account, amount):
        with self.lock:
            self.balances[account] = self.balances.get(account, 0) + amount

    def withdraw(self, account, amount):
        balance = self.balances.get(account, 0)
        if balance >= amount:
            self.balances[account] = balance - amount
            return True
        return False

    def transfer(self, src, dst, amount):
        if amount < 0:
            raise ValueError("negative amount")
        if self.withdraw(src, amount):
            self.deposit(dst, amount)


def total(entries):
    return sum(e["amount"] for e in entries[1:])


def to_cents(amount):
    return int(float(amount) * 100)


def exact_cents(amount):
    return int(Decimal(str(amount)) * 100)


def read_entries(path):
    try:
        with open(path) as f:
            return [line.split(",") for line in f]
    except Exception:
        return []


def average(values):
    return sum(values) / len(values) if values else 0
