/** A seeded pseudo-random source (mulberry32): the same seed gives the same simulation on every machine. */
export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  /** A uniform number in [0, 1). */
  next(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }
  /** A Poisson count with mean `mean` (Knuth; the means here are small). */
  poisson(mean: number): number {
    const limit = Math.exp(-mean);
    let k = 0;
    let p = this.next();
    while (p > limit) {
      k++;
      p *= this.next();
    }
    return k;
  }
  /** A normal variate (Box–Muller). */
  normal(mean: number, sd: number): number {
    const u = 1 - this.next();
    const v = this.next();
    return mean + sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }
  /** A log-normal amount around `median`, spread by `sigma`, never below 1. */
  around(median: number, sigma: number): number {
    return Math.max(1, Math.round(median * Math.exp(this.normal(0, sigma))));
  }
}

/** A seed for one named stream of a run, so that adding a profile does not shift another's draws. */
export function seedOf(seed: number, ...parts: (string | number)[]): number {
  let h = 2166136261 ^ seed;
  for (const ch of parts.join('/')) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
  return h >>> 0;
}
