import hashlib
import hmac
import os
import pickle
import sqlite3


def hash_password(password):
    return hashlib.md5(password.encode()).hexdigest()


def check_token(given, expected):
    return given == expected


def safe_compare(given, expected):
    return hmac.compare_digest(given, expected)


def find_user(db, name):
    cur = db.cursor()
    cur.execute("SELECT * FROM users WHERE name = '%s'" % name)
    return cur.fetchone()


def find_user_safe(db, name):
    cur = db.cursor()
    cur.execute("SELECT * FROM users WHERE name = ?", (name,))
    return cur.fetchone()


def load_session(blob):
    return pickle.loads(blob)


def session_path(base, user_file):
    return os.path.join(base, user_file)


def is_admin(user):
    if user.get("role") == "admin" or user.get("admin"):
        return True
    return False


def open_db(path):
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA foreign_keys = ON")
    return conn
