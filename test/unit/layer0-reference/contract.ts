// The straightforward Layer-0 as it was before the fast paths (a copy of src/checks/layer0/contract.ts at that
// time): the reference test/unit/layer0-fast-paths.test.ts compares the real checks with. Not used by src.
/**
 * Seed 000's Layer-0 output contract, on one changed file: each check reports only what the fix
 * introduced (text already there before it is never reported). Pure, O(n).
 */
import { balance } from './delimiters';
import type { Layer0Hit } from '../../../src/checks/layer0/hit';
import { paragraphHashes, similarity64 } from './simhash64';
import { changedRegion, linesOf, clipLine, introducedLines, lexerFor, lineAround, type Lexer } from './text';

const PLACEHOLDER = /\b(?:TODO|FIXME|XXX|TBD)\b|[Ll]orem [Ii]psum|\b[Ii]mplement me\b|\?\?\?|\bTITLE GOES HERE\b|\bAuthor Name\b|\b[Tt]o be filled\b/g;

export function noPlaceholder(path: string, before: string | null, after: string): Layer0Hit[] {
  return introducedLines(PLACEHOLDER, before, after).map((m) => {
    PLACEHOLDER.lastIndex = 0;
    const marker = PLACEHOLDER.exec(m.evidence)?.[0] ?? 'TODO';
    return { check: 'no_placeholder', path, line: m.line, evidence: m.evidence, detail: { marker } };
  });
}

export function balancedDelimiters(path: string, before: string | null, after: string, lexer: Lexer): Layer0Hit[] {
  const now = balance(after, lexer);
  if (now.problems === 0 || !now.first) return [];
  const then = before === null ? 0 : balance(before, lexer).problems;
  if (now.problems <= then) return [];
  const line = linesOf(after).lineAt(now.first.index);
  return [{ check: 'balanced_delimiters', path, line, evidence: lineAround(after, now.first.index), detail: { problems: now.problems, before: then, kind: now.first.kind, char: now.first.char } }];
}

const jsonError = (text: string): { message: string; index: number } | null => {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
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
export function jsonValid(path: string, before: string | null, after: string): Layer0Hit[] {
  const now = jsonError(after);
  if (!now || (before !== null && jsonError(before) !== null)) return [];
  const index = Math.max(0, Math.min(now.index, after.length));
  return [{ check: 'json_valid', path, line: linesOf(after).lineAt(index), evidence: lineAround(after, index) || '(empty file)', detail: { error: now.message } }];
}

const HEADING = /^(#{1,6})(?:[ \t]+(.*?))?[ \t#]*$/;

interface Heading {
  key: string;
  title: string;
  index: number;
}

/**
 * ATX headings (a line starting with #) outside code fences, each keyed by its level, its text and its
 * parent headings. Only lines starting with #, ``` or ~~~ are looked at: three indexOf scans.
 */
function headings(text: string): Heading[] {
  const starts: number[] = [];
  for (const mark of ['#', '```', '~~~']) {
    if (text.startsWith(mark)) starts.push(0);
    for (let i = text.indexOf(`\n${mark}`); i !== -1; i = text.indexOf(`\n${mark}`, i + 1)) starts.push(i + 1);
  }
  starts.sort((a, b) => a - b);
  const out: Heading[] = [];
  const parents: string[] = [];
  let fence: string | null = null;
  for (const index of starts) {
    const end = text.indexOf('\n', index);
    const line = text.slice(index, end === -1 ? text.length : end).replace(/\r$/, '');
    if (line.startsWith('```') || line.startsWith('~~~')) {
      if (fence === null) fence = line.slice(0, 3);
      else if (line.startsWith(fence)) fence = null;
      continue;
    }
    const m = fence === null ? HEADING.exec(line) : null;
    if (!m) continue;
    const level = m[1]!.length;
    const title = (m[2] ?? '').replace(/\s+/g, ' ').trim();
    parents.length = Math.min(parents.length, level - 1);
    while (parents.length < level - 1) parents.push('');
    out.push({ key: `${parents.join('\u0001')}\u0000${level}\u0000${title.toLowerCase()}`, title, index });
    parents.push(title.toLowerCase());
  }
  return out;
}

/** The same heading twice under the same parent (a section written twice), more often than before the fix. */
const HEADING_LINE = /^(?:#|```|~~~)/m;

export function noDuplicateHeadings(path: string, before: string | null, after: string): Layer0Hit[] {
  if (before !== null) {
    // No heading or fence changed: the headings, their parents and so their duplicates are what they were.
    const r = changedRegion(before, after);
    if (!HEADING_LINE.test(after.slice(r.start, r.afterEnd)) && !HEADING_LINE.test(before.slice(r.start, r.beforeEnd))) return [];
  }
  const now = headings(after);
  const counts = new Map<string, Heading[]>();
  for (const h of now) counts.set(h.key, [...(counts.get(h.key) ?? []), h]);
  const repeated = [...counts.values()].filter((hs) => hs.length > 1);
  if (repeated.length === 0) return [];
  const then = new Map<string, number>();
  if (before !== null) for (const h of headings(before)) then.set(h.key, (then.get(h.key) ?? 0) + 1);
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
const LOOP_MIN_WORDS = 20;
/** 10 bands of the 64 bits, five per half: two hashes within 9 bits of each other (≥ 0.85) agree on at least one band. */
const BANDS = [6, 6, 6, 7, 7];
const BAND_SHIFTS = [0, 6, 12, 18, 25];
/** Each paragraph is compared with this many earlier ones per band (the latest): linear, and a loop repeats. */
const PER_BUCKET = 4;

/** Paragraphs (text between blank lines) of text[from, to), as ranges. */
const paragraphRanges = (text: string, from: number, to: number): { index: number; end: number }[] => paragraphHashes(text, 0, from, to);

const flat = (text: string, p: { index: number; end: number }): string => text.slice(p.index, p.end).replace(/\s+/g, ' ').toLowerCase();

/** Paragraphs of 20 words or more that repeat another (simhash similarity ≥ 0.85), one of them written by the fix. */
export function noTextLoop(path: string, before: string | null, after: string): Layer0Hit[] {
  const region = before === null ? { start: 0, beforeEnd: 0, afterEnd: after.length } : changedRegion(before, after);
  // The paragraphs around the change first (from the blank line before it to the one after it): only a
  // fresh one there can start a loop, and most fixes write none of 20 words.
  const from = before === null ? 0 : after.lastIndexOf('\n\n', Math.max(0, region.start - 1)) + 1;
  const next = after.indexOf('\n\n', region.afterEnd);
  const to = before === null || next === -1 ? after.length : next;
  const near = paragraphHashes(after, LOOP_MIN_WORDS, from, to);
  // New: a paragraph in the changed region whose text is not among the region's paragraphs before the fix
  // (outside the region both sides are the same text).
  const old = new Map<string, number>();
  if (before !== null) for (const p of paragraphRanges(before, region.start, region.beforeEnd)) old.set(flat(before, p), (old.get(flat(before, p)) ?? 0) + 1);
  const freshAt = new Set<number>();
  for (const p of near) {
    if (p.end <= region.start || p.index >= region.afterEnd) continue;
    if (before !== null) {
      const key = flat(after, p);
      const left = old.get(key) ?? 0;
      if (left > 0) {
        old.set(key, left - 1);
        continue;
      }
    }
    freshAt.add(p.index);
  }
  if (freshAt.size === 0) return [];
  const all = from === 0 && to === after.length ? near : paragraphHashes(after, LOOP_MIN_WORDS);
  const fresh = Uint8Array.from(all, (p) => (freshAt.has(p.index) ? 1 : 0));
  // Candidate pairs through the bands; each fresh paragraph is reported once, with the one it repeats.
  // Each bucket keeps its latest PER_BUCKET members in a ring.
  const repeats = new Map<number, { other: number; percent: number }>();
  const BUCKETS = 2 * BANDS.length * 128;
  const ring = new Int32Array(BUCKETS * PER_BUCKET);
  const filled = new Int32Array(BUCKETS);
  all.forEach((p, i) => {
    for (let band = 0; band < 2 * BANDS.length; band++) {
      const half = band < BANDS.length ? p.hi : p.lo;
      const k = band % BANDS.length;
      const bucket = band * 128 + ((half >>> BAND_SHIFTS[k]!) & ((1 << BANDS[k]!) - 1));
      const count = filled[bucket]!;
      const done = fresh[i] && repeats.has(i);
      for (let m = Math.max(0, count - PER_BUCKET); m < count && !done; m++) {
        const j = ring[bucket * PER_BUCKET + (m % PER_BUCKET)]!;
        const mine = fresh[i] ? i : j;
        if (!fresh[mine] || repeats.has(mine)) continue;
        const s = similarity64(p, all[j]!);
        if (s >= LOOP_SIMILARITY) repeats.set(mine, { other: mine === i ? j : i, percent: Math.round(s * 100) });
      }
      ring[bucket * PER_BUCKET + (count % PER_BUCKET)] = i;
      filled[bucket] = count + 1;
    }
  });
  const lines = linesOf(after);
  return [...repeats.entries()]
    .sort((a, b) => a[0] - b[0])
    .slice(0, 5)
    .map(([i, { other, percent }]) => {
      const p = all[i]!;
      const [first, second] = [all[Math.min(i, other)]!.index, all[Math.max(i, other)]!.index].map((index) => lines.lineAt(index));
      return { check: 'no_text_loop', path, line: i < other ? first! : second!, evidence: lineAround(after, p.index), detail: { similarTo: i < other ? second! : first!, percent } };
    });
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
