/**
 * Seed 000's Layer-0 output contract, on one changed file: each check reports only what the fix
 * introduced (text already there before it is never reported). Pure, O(n).
 */
import { balance, worseBalance } from './delimiters';
import { copyState, headingsIn, KnownMarks, Marks, repeatedHeadings, sameState, startState, type Heading } from './headings';
import { breaksJson, parsesAsJson } from './json';
import type { Layer0Hit } from './hit';
import { paragraphHashes, paragraphTable, popcount64, type Hashed, type ProseScan } from './simhash64';
import { changedRegion, linesOf, clipLine, introducedLines, lexerFor, lineAround, pattern, regionOf, type Lexer, type Region } from './text';

const PLACEHOLDER = pattern(/\b(?:TODO|FIXME|XXX|TBD)\b|[Ll]orem [Ii]psum|\b[Ii]mplement me\b|\?\?\?|\bTITLE GOES HERE\b|\bAuthor Name\b|\b[Tt]o be filled\b/g, [
  'TODO',
  'FIXME',
  'XXX',
  'TBD',
  'psum',
  'mplement me',
  '???',
  'TITLE GOES HERE',
  'Author Name',
  'o be filled',
]);

/** `scan`: a new prose file's, whose placeholder lines are the only ones tried. */
export function noPlaceholder(path: string, before: string | null, after: string, region?: Region, scan?: ProseScan): Layer0Hit[] {
  // A prose scan finds the lines with a placeholder's word; ??? has none, so a text holding it is read whole.
  return introducedLines(PLACEHOLDER, before, after, region, after.includes('???') ? undefined : scan?.placeholderLines).map((m) => {
    PLACEHOLDER.re.lastIndex = 0;
    const marker = PLACEHOLDER.re.exec(m.evidence)?.[0] ?? 'TODO';
    return { check: 'no_placeholder', path, line: m.line, evidence: m.evidence, detail: { marker } };
  });
}

export function balancedDelimiters(path: string, before: string | null, after: string, lexer: Lexer, region?: Region): Layer0Hit[] {
  // Lexed whole when the file is new; else only as far as the change can make a difference.
  const worse = before === null ? { now: balance(after, lexer), then: 0 } : worseBalance(before, after, region ?? changedRegion(before, after), lexer);
  if (!worse || worse.now.problems <= worse.then || !worse.now.first) return [];
  const { now, then } = worse;
  const first = now.first!;
  const line = linesOf(after).lineAt(first.index);
  return [{ check: 'balanced_delimiters', path, line, evidence: lineAround(after, first.index), detail: { problems: now.problems, before: then, kind: first.kind, char: first.char } }];
}

const jsonError = (text: string): { message: string; index: number } | null => {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  // Most files parse: checked without building their values, JSON.parse only for the error message.
  if (parsesAsJson(body)) return null;
  try {
    JSON.parse(body);
    return null;
  } catch (err) {
    return { message: (err as Error).message.replace(/\s+/g, ' '), index: jsonErrorIndex(body) + (body === text ? 0 : 1) };
  }
};

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** Where JSON text goes wrong (JSON.parse does not always say): one pass, a stack of open containers. */
export function jsonErrorIndex(s: string): number {
  const n = s.length;
  const stack: string[] = [];
  let i = 0;
  let state: 'value' | 'key' | 'first-key' | 'after' = 'value';
  const ws = (): void => {
    while (i < n && (s[i] === ' ' || s[i] === '\t' || s[i] === '\n' || s[i] === '\r')) i += 1;
  };
  /** Past a string at i; false when it is not one. */
  const string = (): boolean => {
    if (s[i] !== '"') return false;
    for (i += 1; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c === 0x22) {
        i += 1;
        return true;
      }
      if (c < 0x20) return false;
      if (c === 0x5c) {
        const e = s[i + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(s.slice(i + 2, i + 6))) return false;
          i += 5;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i += 1;
        else return false;
      }
    }
    return false;
  };
  for (;;) {
    ws();
    if (state === 'value') {
      const c = s[i];
      if (c === '{') {
        stack.push('}');
        i += 1;
        state = 'first-key';
      } else if (c === '[') {
        i += 1;
        ws();
        if (s[i] === ']') {
          i += 1;
          state = 'after';
        } else {
          stack.push(']');
          state = 'value';
        }
      } else if (c === '"') {
        if (!string()) return i;
        state = 'after';
      } else if (c === 't' || c === 'f' || c === 'n') {
        const word = c === 't' ? 'true' : c === 'f' ? 'false' : 'null';
        if (!s.startsWith(word, i)) return i;
        i += word.length;
        state = 'after';
      } else {
        NUMBER.lastIndex = i;
        if (!NUMBER.test(s)) return i;
        i = NUMBER.lastIndex;
        state = 'after';
      }
    } else if (state === 'key' || state === 'first-key') {
      if (state === 'first-key' && s[i] === '}') {
        stack.pop();
        i += 1;
        state = 'after';
        continue;
      }
      if (!string()) return i;
      ws();
      if (s[i] !== ':') return i;
      i += 1;
      state = 'value';
    } else {
      const close = stack[stack.length - 1];
      if (close === undefined) return i === n ? -1 : i;
      if (s[i] === ',') {
        i += 1;
        state = close === '}' ? 'key' : 'value';
      } else if (s[i] === close) {
        stack.pop();
        i += 1;
      } else return i;
    }
  }
}

/** A .json file that parsed before the fix and does not now (a JSONC file that never parsed is left alone). */
export function jsonValid(path: string, before: string | null, after: string, region?: Region): Layer0Hit[] {
  // A change (without a byte-order mark): scanned as far as it can make a difference.
  if (before !== null && region && before.charCodeAt(0) !== 0xfeff && after.charCodeAt(0) !== 0xfeff && !breaksJson(before, after, region)) return [];
  const now = jsonError(after);
  if (!now || (before !== null && jsonError(before) !== null)) return [];
  const index = Math.max(0, Math.min(now.index, after.length));
  return [{ check: 'json_valid', path, line: linesOf(after).lineAt(index), evidence: lineAround(after, index) || '(empty file)', detail: { error: now.message } }];
}

/** The same heading twice under the same parent (a section written twice), more often than before the fix. */
const HEADING_LINE = /^(?:#|```|~~~)/m;

/** `scan`: a new file's prose scan, whose mark lines are the only ones read. */
export function noDuplicateHeadings(path: string, before: string | null, after: string, known?: Region, scan?: ProseScan): Layer0Hit[] {
  // A new file: its headings grouped by key (no key built for a heading without a twin).
  if (before === null) return duplicateHits(path, after, repeatedHeadings(after, scan ? new KnownMarks(scan.markLines) : new Marks(after)), new Map());
  const r = known ?? changedRegion(before, after);
  // No heading or fence changed: the headings, their parents and so their duplicates are what they were.
  if (!HEADING_LINE.test(after.slice(r.start, r.afterEnd)) && !HEADING_LINE.test(before.slice(r.start, r.beforeEnd))) return [];
  // After the fix: every heading, and the state where the change starts and where it ends.
  const state = startState();
  const marks = new Marks(after);
  const head = headingsIn(after, 0, r.start, state, marks);
  const atStart = copyState(state);
  const changed = headingsIn(after, r.start, r.afterEnd, state, marks);
  const atEnd = copyState(state);
  const now = [...head, ...changed, ...headingsIn(after, r.afterEnd, after.length, state, marks)];
  const counts = new Map<string, Heading[]>();
  for (const h of now) {
    const same = counts.get(h.key);
    if (same) same.push(h);
    else counts.set(h.key, [h]);
  }
  const repeated = [...counts.values()].filter((hs) => hs.length > 1);
  if (repeated.length === 0) return [];
  const then = new Map<string, number>();
  const beforeState = copyState(atStart);
  const beforeMarks = new Marks(before);
  const was = headingsIn(before, r.start, r.beforeEnd, beforeState, beforeMarks);
  if (sameState(beforeState, atEnd)) {
    // The same state after the change on both sides: the headings after it have the same keys, and
    // before the fix there were the counts now, less the change's headings, plus the ones it replaced.
    for (const [key, hs] of counts) then.set(key, hs.length);
    for (const h of changed) then.set(h.key, then.get(h.key)! - 1);
    for (const h of was) then.set(h.key, (then.get(h.key) ?? 0) + 1);
  } else for (const h of headingsIn(before, 0, before.length, startState(), beforeMarks)) then.set(h.key, (then.get(h.key) ?? 0) + 1);
  return duplicateHits(path, after, repeated, then);
}

/** The groups of headings with one key that have more members than `then` counts for their key, as findings (the first five, by their second heading). */
function duplicateHits(path: string, after: string, repeated: readonly Heading[][], then: ReadonlyMap<string, number>): Layer0Hit[] {
  const lines = linesOf(after);
  const hits: Layer0Hit[] = [];
  for (const hs of repeated.filter((hs) => hs.length > (then.get(hs[0]!.key) ?? 0)).sort((a, b) => a[1]!.index - b[1]!.index)) {
    const last = hs[hs.length - 1]!;
    const firstLine = lines.lineAt(hs[0]!.index);
    hits.push({ check: 'no_duplicate_headings', path, line: lines.lineAt(last.index), evidence: lineAround(after, last.index), detail: { heading: last.title, count: hs.length, firstLine } });
  }
  return hits.slice(0, 5);
}

const LOOP_SIMILARITY = 0.85;
/** The largest hamming distance of two 64-bit hashes at that similarity (1 − distance / 64 ≥ LOOP_SIMILARITY). */
const LOOP_DISTANCE = Array.from({ length: 65 }, (_, d) => d).filter((d) => 1 - d / 64 >= LOOP_SIMILARITY).pop()!;
export const LOOP_MIN_WORDS = 20;
/** 10 bands of the 64 bits, five per half: two hashes within 9 bits of each other (≥ 0.85) agree on at least one band. */
const BANDS = [6, 6, 6, 7, 7];
const BAND_SHIFTS = [0, 6, 12, 18, 25];
/** Each paragraph is compared with this many earlier ones per band (the latest): linear, and a loop repeats. A power of 2 (a ring). */
const PER_BUCKET = 4;

/** Paragraphs (text between blank lines) of text[from, to), as ranges. */
const paragraphRanges = (text: string, from: number, to: number): { index: number; end: number }[] => paragraphHashes(text, 0, from, to);

const flat = (text: string, p: { index: number; end: number }): string => text.slice(p.index, p.end).replace(/\s+/g, ' ').toLowerCase();

/** Per band (10): the shift and the mask of its bits in its half. */
const SHIFT = Int32Array.from([...BAND_SHIFTS, ...BAND_SHIFTS]);
const MASK = Int32Array.from([...BANDS, ...BANDS], (bits) => (1 << bits) - 1);
/** The bucket of a hash in one of the 10 bands. */
const bucketOf = (band: number, hi: number, lo: number): number => band * 128 + (((band < BANDS.length ? hi : lo) >>> SHIFT[band]!) & MASK[band]!);

/**
 * The paragraphs (of 20+ words) around the fresh ones that decide what the bands compare them with:
 * each fresh paragraph is compared with the last PER_BUCKET before it in each of its buckets, and with
 * the next PER_BUCKET after it (it leaves their ring then). The paragraphs of `near` (text[from, to),
 * both at blank lines) are widened, doubling, to blank lines further out until every fresh paragraph
 * has that many on both sides in each of its buckets, or the text ends: the bands run over these give
 * what they give over the whole file.
 */
function around(text: string, near: Hashed[], freshAt: ReadonlySet<number>, from: number, to: number): Hashed[] {
  let all = near;
  for (let step = 64 * 1024; ; step *= 2) {
    if (enoughAround(all, freshAt, from === 0, to === text.length)) return all;
    const start = from - step - 1 < 0 ? 0 : text.lastIndexOf('\n\n', from - step - 1) + 1;
    const next = to === text.length ? -1 : text.indexOf('\n\n', to + step);
    const end = next === -1 ? text.length : next;
    all = [...paragraphHashes(text, LOOP_MIN_WORDS, start, from), ...all, ...paragraphHashes(text, LOOP_MIN_WORDS, to, end)];
    [from, to] = [start, end];
  }
}

/** Every fresh paragraph has PER_BUCKET others in each of its buckets before it (or the start is the text's) and after it (or the end is). */
function enoughAround(all: readonly Hashed[], freshAt: ReadonlySet<number>, atStart: boolean, atEnd: boolean): boolean {
  if (atStart && atEnd) return true;
  const counts = new Int32Array(2 * BANDS.length * 128);
  const total = new Int32Array(counts.length);
  for (const p of all) for (let band = 0; band < 2 * BANDS.length; band++) total[bucketOf(band, p.hi, p.lo)]! += 1;
  for (const p of all) {
    const fresh = freshAt.has(p.index);
    for (let band = 0; band < 2 * BANDS.length; band++) {
      const b = bucketOf(band, p.hi, p.lo);
      // counts[b]: how many of the bucket come before p.
      if (fresh && ((!atStart && counts[b]! < PER_BUCKET) || (!atEnd && total[b]! - counts[b]! - 1 < PER_BUCKET))) return false;
      counts[b]! += 1;
    }
  }
  return true;
}

/** Paragraphs of 20 words or more that repeat another (simhash similarity ≥ 0.85), one of them written by the fix. `scan`: a new file's prose scan. */
export function noTextLoop(path: string, before: string | null, after: string, known?: Region, scan?: ProseScan): Layer0Hit[] {
  if (before === null) {
    // A new file: every paragraph is fresh.
    const all = scan?.paragraphs ?? paragraphTable(after, LOOP_MIN_WORDS);
    return loopHits(path, after, all.index, loopsInNewText(all.count, all.hi, all.lo));
  }
  const region = known ?? regionOf(before, after);
  // The paragraphs around the change first (from the blank line before it to the one after it): only a
  // fresh one there can start a loop, and most fixes write none of 20 words.
  const from = after.lastIndexOf('\n\n', Math.max(0, region.start - 1)) + 1;
  const next = after.indexOf('\n\n', region.afterEnd);
  const to = next === -1 ? after.length : next;
  const near = paragraphHashes(after, LOOP_MIN_WORDS, from, to);
  // New: a paragraph in the changed region whose text is not among the region's paragraphs before the fix
  // (outside the region both sides are the same text).
  const old = new Map<string, number>();
  for (const p of paragraphRanges(before, region.start, region.beforeEnd)) old.set(flat(before, p), (old.get(flat(before, p)) ?? 0) + 1);
  const freshAt = new Set<number>();
  for (const p of near) {
    if (p.end <= region.start || p.index >= region.afterEnd) continue;
    const key = flat(after, p);
    const left = old.get(key) ?? 0;
    if (left > 0) old.set(key, left - 1);
    else freshAt.add(p.index);
  }
  if (freshAt.size === 0) return [];
  const all = around(after, near, freshAt, from, to);
  const n = all.length;
  const index = new Int32Array(n);
  const his = new Int32Array(n);
  const los = new Int32Array(n);
  const fresh = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const p = all[i]!;
    index[i] = p.index;
    his[i] = p.hi;
    los[i] = p.lo;
    fresh[i] = freshAt.has(p.index) ? 1 : 0;
  }
  return loopHits(path, after, index, loopsAmong(n, his, los, fresh));
}

/** What the bands found: other[i], the paragraph fresh paragraph i repeats (−1: none), at percent[i] similarity. */
interface Loops {
  other: Int32Array;
  percent: Uint8Array;
}

const BUCKETS = 2 * BANDS.length * 128;

/**
 * Candidate pairs through the bands; each fresh paragraph is reported once, with the one it repeats.
 * Each bucket keeps its latest PER_BUCKET members in a ring.
 */
function loopsAmong(n: number, his: Int32Array, los: Int32Array, fresh: Uint8Array): Loops {
  const other = new Int32Array(n).fill(-1);
  const percent = new Uint8Array(n);
  const ring = new Int32Array(BUCKETS * PER_BUCKET);
  const filled = new Int32Array(BUCKETS);
  for (let i = 0; i < n; i++) {
    const hi = his[i]!;
    const lo = los[i]!;
    const mineIsI = fresh[i] === 1;
    for (let band = 0; band < 2 * BANDS.length; band++) {
      const bucket = bucketOf(band, hi, lo);
      const count = filled[bucket]!;
      const base = bucket * PER_BUCKET;
      if (!(mineIsI && other[i] !== -1)) {
        for (let m = count > PER_BUCKET ? count - PER_BUCKET : 0; m < count; m++) {
          const j = ring[base + (m & (PER_BUCKET - 1))]!;
          const mine = mineIsI ? i : j;
          if (fresh[mine] !== 1 || other[mine] !== -1) continue;
          const distance = popcount64(hi ^ his[j]!, lo ^ los[j]!);
          if (distance <= LOOP_DISTANCE) {
            other[mine] = mine === i ? j : i;
            percent[mine] = Math.round((1 - distance / 64) * 100);
            if (mineIsI) break;
          }
        }
      }
      ring[base + (count & (PER_BUCKET - 1))] = i;
      filled[bucket] = count + 1;
    }
  }
  return { other, percent };
}

/**
 * loopsAmong when every paragraph is fresh (a new file): then each one's repeat is an earlier one, found
 * while it is read, so the scan stops at the fifth repeat (only five are reported). The rings hold the
 * members' halves beside their numbers: no look-up of a member's hash.
 */
function loopsInNewText(n: number, his: Int32Array, los: Int32Array): Loops {
  const other = new Int32Array(n).fill(-1);
  const percent = new Uint8Array(n);
  const ring = new Int32Array(BUCKETS * PER_BUCKET);
  const ringHi = new Int32Array(BUCKETS * PER_BUCKET);
  const ringLo = new Int32Array(BUCKETS * PER_BUCKET);
  const filled = new Int32Array(BUCKETS);
  let found = 0;
  for (let i = 0; i < n && found < 5; i++) {
    const hi = his[i]!;
    const lo = los[i]!;
    let looking = true;
    for (let band = 0; band < 2 * BANDS.length; band++) {
      const bucket = bucketOf(band, hi, lo);
      const count = filled[bucket]!;
      const base = bucket * PER_BUCKET;
      if (looking) {
        for (let m = count > PER_BUCKET ? count - PER_BUCKET : 0; m < count; m++) {
          const slot = base + (m & (PER_BUCKET - 1));
          const distance = popcount64(hi ^ ringHi[slot]!, lo ^ ringLo[slot]!);
          if (distance <= LOOP_DISTANCE) {
            other[i] = ring[slot]!;
            percent[i] = Math.round((1 - distance / 64) * 100);
            looking = false;
            found += 1;
            break;
          }
        }
      }
      const slot = base + (count & (PER_BUCKET - 1));
      ring[slot] = i;
      ringHi[slot] = hi;
      ringLo[slot] = lo;
      filled[bucket] = count + 1;
    }
  }
  return { other, percent };
}

/** The first five fresh paragraphs that repeat another, as findings (index: where each paragraph starts). */
function loopHits(path: string, after: string, index: Int32Array, { other, percent }: Loops): Layer0Hit[] {
  const lines = linesOf(after);
  const hits: Layer0Hit[] = [];
  for (let i = 0; i < other.length && hits.length < 5; i++) {
    const o = other[i]!;
    if (o === -1) continue;
    const [first, second] = [index[Math.min(i, o)]!, index[Math.max(i, o)]!].map((at) => lines.lineAt(at));
    hits.push({ check: 'no_text_loop', path, line: i < o ? first! : second!, evidence: lineAround(after, index[i]!), detail: { similarTo: i < o ? second! : first!, percent: percent[i]! } });
  }
  return hits;
}

const GROWTH = 2.5;
/** Growth below this many bytes is not a runaway (a short file that doubles is ordinary work). */
export const MIN_GROWTH_BYTES = 16 * 1024;

export function fileSizeDelta(path: string, beforeBytes: number | null, afterBytes: number): Layer0Hit[] {
  if (beforeBytes === null || beforeBytes === 0) return [];
  if (afterBytes <= beforeBytes * GROWTH || afterBytes - beforeBytes < MIN_GROWTH_BYTES) return [];
  return [{ check: 'file_size_delta', path, line: null, evidence: `${path} grew more than ${GROWTH}×`, detail: { before: beforeBytes, after: afterBytes } }];
}

export { lexerFor };
