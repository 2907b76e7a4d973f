/** 64-bit simhash over word shingles, for seed 000's fixpoint check (similarity ≥ 0.95). Pure. */
import { sha256 } from '../state/digest';

const hash64 = (text: string): bigint => BigInt(`0x${sha256(text).slice(0, 16)}`);

export function simhash(text: string): bigint {
  const words = text.toLowerCase().match(/[a-z0-9_]+/g) ?? [];
  const shingles = words.length < 3 ? [words.join(' ')] : words.slice(0, -2).map((_, i) => words.slice(i, i + 3).join(' '));
  const weights = new Array<number>(64).fill(0);
  for (const shingle of shingles) {
    const h = hash64(shingle);
    for (let bit = 0; bit < 64; bit++) weights[bit]! += (h >> BigInt(bit)) & 1n ? 1 : -1;
  }
  let out = 0n;
  for (let bit = 0; bit < 64; bit++) if (weights[bit]! > 0) out |= 1n << BigInt(bit);
  return out;
}

/** 1 − hamming distance / 64. */
export function similarity(a: string, b: string): number {
  let x = simhash(a) ^ simhash(b);
  let distance = 0;
  while (x) {
    distance += Number(x & 1n);
    x >>= 1n;
  }
  return 1 - distance / 64;
}
