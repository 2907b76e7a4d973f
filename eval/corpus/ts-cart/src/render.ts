export function renderName(name: string): string {
  return `<li>${name}</li>`;
}

export function renderPrice(cents: number): string {
  return (cents / 100).toFixed(2);
}
