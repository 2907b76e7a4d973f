// The straightforward Layer-0 as it was before the fast paths (a copy of src/checks/layer0/simhash64.ts at that
// time): the reference test/unit/layer0-fast-paths.test.ts compares the real checks with. Not used by src.
/**
 * A fast 64-bit simhash over word 3-shingles (the features of src/review/simhash.ts, which hashes each
 * shingle with sha256 and is far too slow for megabytes). Words are hashed while they are read, without
 * substrings; the 64 per-bit counts are kept bit-sliced (one 32-bit word per counter bit and half), so
 * adding a shingle costs a few bitwise operations instead of 64 additions. Returned as two 32-bit halves.
 */

/** Bit planes of the per-bit counters: 2^PLANES − 1 shingles fit before they are added up. */
const PLANES = 4;
const FLUSH_EVERY = (1 << PLANES) - 1;
const hiPlanes = new Int32Array(PLANES);
const loPlanes = new Int32Array(PLANES);
const ones = new Float64Array(64);

const fmix = (h: number): number => {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
};

function addTo(planes: Int32Array, x: number): void {
  let carry = x;
  for (let p = 0; carry !== 0 && p < PLANES; p++) {
    const t = planes[p]! & carry;
    planes[p]! ^= carry;
    carry = t;
  }
}

function flush(): void {
  for (let p = 0; p < PLANES; p++) {
    const weight = 1 << p;
    // Only the set bits: the higher planes are sparse.
    for (let h = hiPlanes[p]!; h !== 0; h &= h - 1) ones[31 - Math.clz32(h & -h)]! += weight;
    for (let l = loPlanes[p]!; l !== 0; l &= l - 1) ones[63 - Math.clz32(l & -l)]! += weight;
  }
  hiPlanes.fill(0);
  loPlanes.fill(0);
}

/** Word characters, case-folded: [A-Za-z0-9_] → its lower-case code, anything else → 0. */
const WORD = new Uint8Array(128);
for (let c = 0x30; c <= 0x39; c++) WORD[c] = c;
for (let c = 0x61; c <= 0x7a; c++) WORD[c] = c;
for (let c = 0x41; c <= 0x5a; c++) WORD[c] = c | 0x20;
WORD[0x5f] = 0x5f;

export interface Hashed {
  /** The paragraph is text[index, end). */
  index: number;
  end: number;
  hi: number;
  lo: number;
  words: number;
}

/**
 * The simhash of every paragraph (text between blank lines) of text[from, to) with at least `minWords`
 * words, in one pass. Words: runs of [A-Za-z0-9_], case-folded; features: word 3-shingles.
 */
export function paragraphHashes(text: string, minWords = 0, from = 0, to = text.length): Hashed[] {
  const out: Hashed[] = [];
  /** The paragraph's first and one-past-last non-blank characters (start −1: none yet). */
  let start = -1;
  let end = from;
  let lineHasText = false;
  let words = 0;
  let shingles = 0;
  let pending = 0;
  let w0 = 0;
  let w1 = 0;
  const finish = (): void => {
    if (words > 0 && words < 3) {
      // Too short for a shingle: the words themselves.
      const hi = fmix(Math.imul(w0, 0x9e3779b1) ^ Math.imul(w1, 0x85ebca6b));
      addTo(hiPlanes, hi);
      addTo(loPlanes, Math.imul(hi ^ (hi >>> 15), 0x2c1b3c6d));
      shingles = 1;
    }
    flush();
    if (words > 0 && words >= minWords) {
      // A bit is set when more than half of the shingles set it (a positive ±1 sum).
      let hi = 0;
      let lo = 0;
      for (let bit = 0; bit < 32; bit++) {
        if (ones[bit]! * 2 > shingles) hi |= 1 << bit;
        if (ones[bit + 32]! * 2 > shingles) lo |= 1 << bit;
      }
      out.push({ index: start, end, hi: hi >>> 0, lo: lo >>> 0, words });
    }
    ones.fill(0);
    start = -1;
    words = shingles = pending = w0 = w1 = 0;
  };
  let i = from;
  while (i < to) {
    let code = text.charCodeAt(i);
    let c = code < 128 ? WORD[code]! : 0;
    if (c !== 0) {
      // A word: hashed in a tight loop, then one shingle of it and the two before.
      if (start < 0) start = i;
      let h = 0x811c9dc5 | 0;
      do {
        h = Math.imul(h ^ c, 0x01000193);
        i += 1;
        code = i < to ? text.charCodeAt(i) : 0x0a;
        c = code < 128 ? WORD[code]! : 0;
      } while (c !== 0);
      words += 1;
      if (words >= 3) {
        const hi = fmix(Math.imul(w0, 0x9e3779b1) ^ Math.imul(w1, 0x85ebca6b) ^ h);
        addTo(hiPlanes, hi);
        const lo = Math.imul(hi ^ (hi >>> 15), 0x2c1b3c6d);
        addTo(loPlanes, lo ^ (lo >>> 12));
        shingles += 1;
        if (++pending === FLUSH_EVERY) {
          flush();
          pending = 0;
        }
      }
      w0 = w1;
      w1 = h;
      lineHasText = true;
      end = i;
      if (i >= to) break;
    }
    if (code === 0x0a) {
      if (!lineHasText && start >= 0) finish();
      lineHasText = false;
    } else if (code !== 0x20 && code !== 0x09 && code !== 0x0d) {
      if (start < 0) start = i;
      lineHasText = true;
      end = i + 1;
    }
    i += 1;
  }
  if (start >= 0) finish();
  return out;
}

/** The simhash of all of text[from, to) as one paragraph. */
export function simhash64(text: string, from = 0, to = text.length): { hi: number; lo: number; words: number } {
  const flat = text.slice(from, to).replace(/\n[ \t\r]*\n/g, '\n');
  return paragraphHashes(flat)[0] ?? { hi: 0, lo: 0, words: 0 };
}

const popcount = (x: number): number => {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) & 0xff;
};

/** 1 − hamming distance / 64. */
export const similarity64 = (a: { hi: number; lo: number }, b: { hi: number; lo: number }): number => 1 - (popcount(a.hi ^ b.hi) + popcount(a.lo ^ b.lo)) / 64;
