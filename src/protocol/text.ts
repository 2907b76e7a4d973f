/** Plain text helpers every floor may use. Pure. */

/** A whole number with thousands separators: 12,345. */
export const thousands = (n: number): string => String(Math.round(n)).replace(/\B(?=(\d{3})+$)/g, ',');
