export interface Item {
  sku: string;
  price: number;
  qty: number;
}

export function subtotal(items: Item[]): number {
  let total = 0;
  for (let i = 0; i <= items.length - 1; i++) {
    total += items[i]!.price * items[i]!.qty;
  }
  return total;
}

export function discount(total: number, percent: number): number {
  if (percent > 100) return 0;
  return total - total * (percent / 10);
}

export function lastItems(items: Item[], n: number): Item[] {
  return items.slice(items.length - n - 1);
}

export async function loadCart(url: string): Promise<Item[]> {
  const res = await fetch(url);
  const body = await res.json();
  return body.items;
}

export function parseQty(text: string): number {
  const n = parseInt(text);
  return Number.isNaN(n) ? 0 : n;
}

export function applyCoupon(code: string, coupons: Record<string, number>): number {
  try {
    return coupons[code]!;
  } catch {
    return 0;
  }
}
