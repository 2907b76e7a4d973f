/**
 * The plugin's one simhash: 64 bits over word 3-shingles, for Layer-0's repeated paragraphs and for the
 * fixpoint rule's near-identical fix summaries (similarity). Words are hashed while they are read, without
 * substrings; the 64 per-bit counts are kept bit-sliced (one 32-bit word per counter bit and half, held
 * in local variables), so adding a shingle costs a few bitwise operations instead of 64 additions.
 * Returned as two 32-bit halves.
 */

/**
 * The per-bit counts of the current paragraph, bit-sliced: ACC[half * PLANES + k] holds bit k of the
 * 32 counters of that half. Shingles are first counted in six planes in local variables; every 63 they
 * are added here (a ripple-carry adder over the planes), and a paragraph's bits are read off with one
 * bit-parallel comparison per half. 2^PLANES − 1 shingles fit in one paragraph: more than 10 MB of text.
 */
const PLANES = 26;
const ACC = new Int32Array(2 * PLANES);
/** The number of planes of ACC that may be non-zero. */
let used = 0;

const fmix = (h: number): number => {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
};

/** Adds six bit planes (weights 1 to 32) of 32 counters into one half of ACC. */
function addPlanes(base: number, p0: number, p1: number, p2: number, p3: number, p4: number, p5: number): void {
  let carry = 0;
  for (let k = 0; k < PLANES; k++) {
    const a = ACC[base + k]!;
    const b = k === 0 ? p0 : k === 1 ? p1 : k === 2 ? p2 : k === 3 ? p3 : k === 4 ? p4 : k === 5 ? p5 : 0;
    ACC[base + k] = a ^ b ^ carry;
    carry = (a & b) | (carry & (a ^ b));
    if (k >= 5 && carry === 0) {
      if (k + 1 > used) used = k + 1;
      return;
    }
  }
}

/** The counters of one half of ACC that exceed `limit`, as a bit mask (a bit-parallel comparison). */
function above(base: number, limit: number): number {
  let gt = 0;
  let eq = -1;
  for (let k = Math.max(used, 32 - Math.clz32(limit)) - 1; k >= 0; k--) {
    const plane = ACC[base + k]!;
    if ((limit >>> k) & 1) eq &= plane;
    else {
      gt |= eq & plane;
      eq &= ~plane;
    }
  }
  return gt >>> 0;
}

/** above() for counters still all in six local planes (fewer than 64 shingles, none added to ACC). */
function aboveInPlanes(limit: number, p0: number, p1: number, p2: number, p3: number, p4: number, p5: number): number {
  let gt = 0;
  let eq = -1;
  // From the highest plane down: a counter is above the limit where it first has a 1 the limit has not.
  if ((limit >>> 5) & 1) eq &= p5;
  else (gt |= eq & p5), (eq &= ~p5);
  if ((limit >>> 4) & 1) eq &= p4;
  else (gt |= eq & p4), (eq &= ~p4);
  if ((limit >>> 3) & 1) eq &= p3;
  else (gt |= eq & p3), (eq &= ~p3);
  if ((limit >>> 2) & 1) eq &= p2;
  else (gt |= eq & p2), (eq &= ~p2);
  if ((limit >>> 1) & 1) eq &= p1;
  else (gt |= eq & p1), (eq &= ~p1);
  if (!(limit & 1)) gt |= eq & p0;
  return gt >>> 0;
}

/** Word characters, case-folded, by byte: [A-Za-z0-9_] → its lower-case code, anything else → 0. */
const WORD = new Uint8Array(256);
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
 * Paragraphs and their simhashes as columns, without an object per paragraph (a 10 MB file has tens of
 * thousands, which the garbage collector would copy): paragraph k is text[index[k], end[k]), its
 * halves hi[k] and lo[k] (as signed 32-bit integers).
 */
export class ParagraphTable {
  count = 0;
  index = new Int32Array(256);
  end = new Int32Array(256);
  hi = new Int32Array(256);
  lo = new Int32Array(256);
  words = new Int32Array(256);

  push(index: number, end: number, hi: number, lo: number, words: number): void {
    const k = this.count;
    if (k === this.index.length) {
      const grow = (a: Int32Array): Int32Array<ArrayBuffer> => {
        const b = new Int32Array(2 * a.length);
        b.set(a);
        return b;
      };
      [this.index, this.end, this.hi, this.lo, this.words] = [grow(this.index), grow(this.end), grow(this.hi), grow(this.lo), grow(this.words)];
    }
    this.index[k] = index;
    this.end[k] = end;
    this.hi[k] = hi;
    this.lo[k] = lo;
    this.words[k] = words;
    this.count = k + 1;
  }

  toHashed(): Hashed[] {
    return Array.from({ length: this.count }, (_, k) => ({ index: this.index[k]!, end: this.end[k]!, hi: this.hi[k]! >>> 0, lo: this.lo[k]! >>> 0, words: this.words[k]! }));
  }
}

/** The second half's bits of a shingle, from the first's. */
const second = (hi: number): number => {
  const lo = Math.imul(hi ^ (hi >>> 15), 0x2c1b3c6d);
  return lo ^ (lo >>> 12);
};

/** A word's hash as the loop computes it: FNV-1a over its case-folded characters. */
const wordHash = (word: string): number => {
  let h = 0x811c9dc5 | 0;
  for (let k = 0; k < word.length; k++) h = Math.imul(h ^ WORD[word.charCodeAt(k)]!, 0x01000193);
  return h;
};
/**
 * The words that may make a placeholder (TODO, FIXME, XXX, TBD, implement me, TITLE GOES HERE, Author Name, to be filled), by hash: a bit per
 * hash's low 10 bits, then the hashes themselves. Lorem ipsum is looked for as an i after "m ".
 */
const PLACEHOLDER_WORDS = Int32Array.from(['todo', 'fixme', 'xxx', 'tbd', 'implement', 'title', 'author', 'filled'], wordHash);
const PLACEHOLDER_BITS = new Uint8Array(1024);
for (const h of PLACEHOLDER_WORDS) PLACEHOLDER_BITS[h & 1023] = 1;
const isPlaceholderWord = (h: number): boolean => PLACEHOLDER_WORDS.includes(h);
/** [Ll]orem [Ii]psum around the i at `i` (the codes end in newlines: each one read after a letter is there). */
const isLoremIpsum = (codes: Uint8Array, i: number): boolean =>
  codes[i - 3] === 0x65 && codes[i - 4] === 0x72 && codes[i - 5] === 0x6f && (codes[i - 6]! | 0x20) === 0x6c && codes[i + 1] === 0x70 && codes[i + 2] === 0x73 && codes[i + 3] === 0x75 && codes[i + 4] === 0x6d;

/**
 * What one pass over a whole prose text finds: its paragraphs' simhashes and, for the other checks of a
 * new file (which then need no pass of their own), the lines where a heading or fence may be and those
 * where a placeholder may start.
 */
export interface ProseScan {
  paragraphs: ParagraphTable;
  /** The starts of the lines that start with #, ``` or ~~~, in order. */
  markLines: number[];
  /**
   * In order, the starts of lines where a word may start a placeholder: every line holding a match of
   * \b(?:TODO|FIXME|XXX|TBD)\b|[Ll]orem [Ii]psum|\b[Ii]mplement me\b, and a few others (the pattern decides).
   */
  placeholderLines: number[];
}

/**
 * The simhash of every paragraph (text between blank lines) of text[from, to) with at least `minWords`
 * words, in one pass. Words: runs of [A-Za-z0-9_], case-folded; features: word 3-shingles.
 */
export function paragraphHashes(text: string, minWords = 0, from = 0, to = text.length): Hashed[] {
  return paragraphTable(text, minWords, from, to).toHashed();
}

/** paragraphHashes as a table. */
export function paragraphTable(text: string, minWords = 0, from = 0, to = text.length): ParagraphTable {
  return hashParagraphs(codesOf(text, from, to), minWords, from).paragraphs;
}

/** The paragraphs of a whole text (minWords as in paragraphHashes), its heading lines and its possible placeholder lines. */
export function proseScan(text: string, minWords: number): ProseScan {
  const scan = hashParagraphs(codesOf(text, 0, text.length), minWords, 0);
  if (/^(?:#|```|~~~)/.test(text)) scan.markLines.unshift(0);
  return scan;
}

/** Reused by codesOf: a fresh buffer of 10 MB per call costs page faults and garbage collections (its memory counts as the heap's). */
let scratch = Buffer.allocUnsafe(0);

/**
 * The characters of text[from, to) as bytes, which read faster than charCodeAt: one per UTF-16 code
 * unit, its code when ASCII, else 0x80 (all the hashing tells apart: neither a word character nor a
 * blank). Two newlines follow them: they end the last line and paragraph as the text's end does, so
 * the loop needs no end check. A view of a shared buffer, valid until the next call.
 */
function codesOf(text: string, from: number, to: number): Uint8Array {
  const part = from === 0 && to === text.length ? text : text.slice(from, to);
  const n = part.length;
  if (scratch.length < n + 2) scratch = Buffer.allocUnsafe(Math.max(n + 2, 2 * scratch.length, 4096));
  const bytes = scratch;
  bytes.write(part, 0, 'latin1');
  if (Buffer.byteLength(part, 'utf8') !== n) for (const m of part.matchAll(/[^\x00-\x7f]+/g)) bytes.fill(0x80, m.index, m.index + m[0].length);
  bytes[n] = bytes[n + 1] = 0x0a;
  return new Uint8Array(bytes.buffer, bytes.byteOffset, n + 2);
}

/** The paragraphs of the codes of text[offset, offset + codes.length − 2) and the two newlines after them, and its marked lines (ProseScan, but for a line at the start). */
function hashParagraphs(codes: Uint8Array, minWords: number, offset: number): ProseScan {
  const out = new ParagraphTable();
  const markLines: number[] = [];
  const placeholderLines: number[] = [];
  const word = WORD;
  /** The last newline: the text's end. */
  const last = codes.length - 1;
  /** The paragraph's first and one-past-last non-blank characters (start −1: none yet). */
  let start = -1;
  let end = 0;
  let lineStart = 0;
  let lineHasText = false;
  let words = 0;
  let shingles = 0;
  let pending = 0;
  let w0 = 0;
  let w1 = 0;
  // The bit planes of the counters not yet added to ACC: h for the high half, l for the low.
  let h0 = 0, h1 = 0, h2 = 0, h3 = 0, h4 = 0, h5 = 0, l0 = 0, l1 = 0, l2 = 0, l3 = 0, l4 = 0, l5 = 0; // prettier-ignore
  for (let i = 0; ; i++) {
    let code = codes[i]!;
    let c = word[code]!;
    if (c !== 0) {
      // A word: hashed in a tight loop (a newline follows the text: no end check), then one shingle of it and the two before.
      if (start < 0) start = i;
      // [Ll]orem [Ii]psum, its second word here.
      if (c === 0x69 && codes[i - 1] === 0x20 && codes[i - 2] === 0x6d && i >= 6 && isLoremIpsum(codes, i) && placeholderLines[placeholderLines.length - 1] !== lineStart + offset) placeholderLines.push(lineStart + offset);
      let h = 0x811c9dc5 | 0;
      do {
        h = Math.imul(h ^ c, 0x01000193);
        code = codes[++i]!;
        c = word[code]!;
      } while (c !== 0);
      if (PLACEHOLDER_BITS[h & 1023] !== 0 && isPlaceholderWord(h) && placeholderLines[placeholderLines.length - 1] !== lineStart + offset) placeholderLines.push(lineStart + offset);
      words += 1;
      if (words >= 3) {
        const hi = fmix(Math.imul(w0, 0x9e3779b1) ^ Math.imul(w1, 0x85ebca6b) ^ h);
        const lo = second(hi);
        // Adds one to each counter whose bit is set: a ripple carry through the planes.
        let t = h0 & hi;
        h0 ^= hi;
        let t2 = h1 & t;
        h1 ^= t;
        t = h2 & t2;
        h2 ^= t2;
        t2 = h3 & t;
        h3 ^= t;
        t = h4 & t2;
        h4 ^= t2;
        h5 ^= t;
        t = l0 & lo;
        l0 ^= lo;
        t2 = l1 & t;
        l1 ^= t;
        t = l2 & t2;
        l2 ^= t2;
        t2 = l3 & t;
        l3 ^= t;
        t = l4 & t2;
        l4 ^= t2;
        l5 ^= t;
        shingles += 1;
        if (++pending === 63) {
          addPlanes(0, h0, h1, h2, h3, h4, h5);
          addPlanes(PLANES, l0, l1, l2, l3, l4, l5);
          h0 = h1 = h2 = h3 = h4 = h5 = l0 = l1 = l2 = l3 = l4 = l5 = pending = 0;
        }
      }
      w0 = w1;
      w1 = h;
      lineHasText = true;
      end = i;
    }
    if (code === 0x0a) {
      if (!lineHasText && start >= 0) {
        if (words > 0 && words < 3) {
          // Too short for a shingle: the words themselves.
          const hi = fmix(Math.imul(w0, 0x9e3779b1) ^ Math.imul(w1, 0x85ebca6b));
          // Planes are empty here (fewer than 3 words added none): the shingle is plane 0.
          h0 = hi;
          l0 = Math.imul(hi ^ (hi >>> 15), 0x2c1b3c6d);
          shingles = 1;
        }
        // A bit is set when more than half of the shingles set it (a positive ±1 sum).
        const limit = shingles >>> 1;
        if (used === 0) {
          // Fewer than 64 shingles: all still in the local planes.
          if (words > 0 && words >= minWords) out.push(start + offset, end + offset, aboveInPlanes(limit, h0, h1, h2, h3, h4, h5), aboveInPlanes(limit, l0, l1, l2, l3, l4, l5), words);
        } else {
          addPlanes(0, h0, h1, h2, h3, h4, h5);
          addPlanes(PLANES, l0, l1, l2, l3, l4, l5);
          if (words > 0 && words >= minWords) out.push(start + offset, end + offset, above(0, limit), above(PLANES, limit), words);
          ACC.fill(0, 0, used);
          ACC.fill(0, PLANES, PLANES + used);
          used = 0;
        }
        h0 = h1 = h2 = h3 = h4 = h5 = l0 = l1 = l2 = l3 = l4 = l5 = pending = 0;
        start = -1;
        words = shingles = w0 = w1 = 0;
      }
      if (i === last) return { paragraphs: out, markLines, placeholderLines };
      lineHasText = false;
      lineStart = i + 1;
      // A line starting with #, ``` or ~~~ (the codes end with two newlines: i + 3 is in them).
      const next = codes[i + 1]!;
      if (next === 0x23 || ((next === 0x60 || next === 0x7e) && codes[i + 2] === next && codes[i + 3] === next)) markLines.push(i + 1 + offset);
    } else if (code !== 0x20 && code !== 0x09 && code !== 0x0d) {
      if (start < 0) start = i;
      lineHasText = true;
      end = i + 1;
    }
  }
}

/** The simhash of all of text[from, to) as one paragraph. */
export function simhash64(text: string, from = 0, to = text.length): { hi: number; lo: number; words: number } {
  const flat = text.slice(from, to).replace(/\n[ \t\r]*\n/g, '\n');
  return paragraphHashes(flat)[0] ?? { hi: 0, lo: 0, words: 0 };
}

export const popcount = (x: number): number => {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) & 0xff;
};

/** popcount(a) + popcount(b) (the hamming distance of two 64-bit hashes, given as the XORs of their halves), in one pass. */
export const popcount64 = (a: number, b: number): number => {
  a -= (a >>> 1) & 0x55555555;
  b -= (b >>> 1) & 0x55555555;
  // Per 4 bits of both: at most 8.
  a = (a & 0x33333333) + ((a >>> 2) & 0x33333333) + (b & 0x33333333) + ((b >>> 2) & 0x33333333);
  return Math.imul((a & 0x0f0f0f0f) + ((a >>> 4) & 0x0f0f0f0f), 0x01010101) >>> 24;
};

/** 1 − hamming distance / 64. */
export const similarity64 = (a: { hi: number; lo: number }, b: { hi: number; lo: number }): number => 1 - (popcount(a.hi ^ b.hi) + popcount(a.lo ^ b.lo)) / 64;

/** How alike two texts read, each hashed whole (simhash64): 1 − hamming distance / 64. The fixpoint rule's measure. */
export const similarity = (a: string, b: string): number => similarity64(simhash64(a), simhash64(b));
