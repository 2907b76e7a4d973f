/** Text helpers for the Layer-0 checks: file kinds, line numbers, the changed region, introduced matches. All O(n). */

/** One side of a changed file: absent, text, or not read as text (binary or too large). */
export type Side = { kind: 'absent' } | { kind: 'text'; text: string } | { kind: 'opaque'; bytes: number; reason: 'binary' | 'too large' };

/** A file the fixer changed: its text before the fix and after it. */
export interface FileChange {
  path: string;
  before: Side;
  after: Side;
}

export const textOf = (side: Side): string | null => (side.kind === 'text' ? side.text : null);
export const bytesOf = (side: Side): number => (side.kind === 'text' ? side.text.length : side.kind === 'opaque' ? side.bytes : 0);

const ext = (path: string): string => /\.([A-Za-z0-9]+)$/.exec(path)?.[1]?.toLowerCase() ?? '';

export type Lexer = 'js' | 'c' | 'py' | 'hash';
const LEXERS: Record<string, Lexer> = {
  js: 'js', jsx: 'js', mjs: 'js', cjs: 'js', ts: 'js', tsx: 'js', mts: 'js', cts: 'js',
  c: 'c', h: 'c', cc: 'c', cpp: 'c', cxx: 'c', hpp: 'c', hh: 'c', cs: 'c', java: 'c', kt: 'c', kts: 'c', scala: 'c',
  swift: 'c', go: 'c', rs: 'c', dart: 'c', php: 'c', css: 'c', scss: 'c', less: 'c',
  py: 'py', pyi: 'py',
  rb: 'hash',
};

/** The delimiter lexer for a code file, or null when the file is not code the check knows. */
export const lexerFor = (path: string): Lexer | null => LEXERS[ext(path)] ?? null;
export const isCode = (path: string): boolean => lexerFor(path) !== null || ['sh', 'bash', 'zsh', 'ex', 'exs', 'lua', 'pl', 'r'].includes(ext(path));
export const isJson = (path: string): boolean => ext(path) === 'json';
export const isMarkdown = (path: string): boolean => ['md', 'markdown', 'mdx'].includes(ext(path));
export const isProse = (path: string): boolean => isMarkdown(path) || ['txt', 'rst', 'adoc'].includes(ext(path));

const TEST_PATH = /(?:^|\/)(?:__tests__|tests?|spec|specs)\/|[._-](?:test|spec)s?\.[A-Za-z0-9]+$|(?:^|\/)test_[^/]*\.py$|_test\.(?:go|py|rb|exs?)$/i;
/** A test file by its path (Rust keeps tests in any .rs file: those count too). */
export const isTestFile = (path: string): boolean => TEST_PATH.test(path) || ext(path) === 'rs';

/** 1-based line numbers of a text's positions: its newline offsets are found once, on first use. */
export class LineCounter {
  private offsets: Int32Array | null = null;
  constructor(private readonly text: string) {}

  lineAt(index: number): number {
    if (!this.offsets) {
      const found: number[] = [];
      for (let i = this.text.indexOf('\n'); i !== -1; i = this.text.indexOf('\n', i + 1)) found.push(i);
      this.offsets = Int32Array.from(found);
    }
    // The number of newlines before index, by binary search.
    let lo = 0;
    let hi = this.offsets.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.offsets[mid]! < index) lo = mid + 1;
      else hi = mid;
    }
    return lo + 1;
  }
}

/** The line counter of a text, shared by the checks of one file (the last few texts are kept). */
const counters: { text: string; lines: LineCounter }[] = [];
export function linesOf(text: string): LineCounter {
  const found = counters.find((c) => c.text.length === text.length && c.text === text);
  if (found) return found.lines;
  const lines = new LineCounter(text);
  counters.unshift({ text, lines });
  counters.length = Math.min(counters.length, 2);
  return lines;
}

/** The whole line around a position, trimmed and cut to 200 characters (a finding's evidence). */
export function lineAround(text: string, index: number): string {
  const start = text.lastIndexOf('\n', index - 1) + 1;
  const end = text.indexOf('\n', index);
  return clipLine(text.slice(start, end === -1 ? text.length : end));
}

export const clipLine = (line: string): string => {
  const trimmed = line.trim();
  return trimmed.length > 200 ? `${trimmed.slice(0, 199)}…` : trimmed;
};

/**
 * Where two texts differ, at whole lines: after[start, afterEnd) replaced before[start, beforeEnd).
 * Compared in chunks (string equality is a memcmp), so a small edit in a large file costs little.
 */
export function changedRegion(before: string, after: string): { start: number; beforeEnd: number; afterEnd: number } {
  const CHUNK = 4096;
  const max = Math.min(before.length, after.length);
  let prefix = 0;
  while (prefix + CHUNK <= max && before.slice(prefix, prefix + CHUNK) === after.slice(prefix, prefix + CHUNK)) prefix += CHUNK;
  while (prefix < max && before.charCodeAt(prefix) === after.charCodeAt(prefix)) prefix += 1;
  let suffix = 0;
  const room = max - prefix;
  while (suffix + CHUNK <= room && before.slice(before.length - suffix - CHUNK, before.length - suffix) === after.slice(after.length - suffix - CHUNK, after.length - suffix)) suffix += CHUNK;
  while (suffix < room && before.charCodeAt(before.length - 1 - suffix) === after.charCodeAt(after.length - 1 - suffix)) suffix += 1;
  // Widen to whole lines: from the start of the first changed line to the first newline in the common
  // suffix, the same stretch of identical text on both sides.
  const start = prefix === 0 ? 0 : after.lastIndexOf('\n', prefix - 1) + 1;
  const nl = after.indexOf('\n', after.length - suffix);
  const into = nl === -1 ? suffix : nl - (after.length - suffix);
  const afterEnd = Math.max(after.length - suffix + into, start);
  const beforeEnd = Math.max(before.length - suffix + into, start);
  return { start, beforeEnd, afterEnd };
}

/** Where two texts differ (changedRegion), or all of `after` when there was no text before. */
export type Region = ReturnType<typeof changedRegion>;
export const regionOf = (before: string | null, after: string): Region => (before === null ? { start: 0, beforeEnd: 0, afterEnd: after.length } : changedRegion(before, after));

/**
 * A global pattern and what makes it fast to look for in megabytes of text. `needles`: literal strings
 * of which every match has one on the line where it starts, at or after the match's start (null: none
 * known). A match never starts at a newline.
 */
export interface Pattern {
  re: RegExp;
  needles: readonly Needle[] | null;
  /** The first match of re on one line, from lastIndex to the line's end (sticky): `re` is group 1. */
  onLine: RegExp;
}

/**
 * A needle's text, the few characters of it looked for with indexOf (found fastest when they start with
 * a rare character), how far before it a match it is part of can start (its line's start if unknown),
 * and optionally a cheap test of an occurrence: false only where no match can have this needle there.
 */
interface Needle {
  text: string;
  key: string;
  offset: number;
  back: number;
  could: ((text: string, at: number) => boolean) | null;
}

/** A needle: its text, or its text and how far before it its matches can start, and a cheap test of where it is found. */
export type NeedleSpec = string | readonly [string, number] | readonly [string, number, (text: string, at: number) => boolean];

/** Lower-case letters, the most frequent in text first; a space is as frequent, anything else is rarer. */
const FREQUENT = ' etaoinshrdlcumwfgypbvkjxqz';
const rarity = (ch: string): number => (FREQUENT.includes(ch) ? FREQUENT.indexOf(ch) : FREQUENT.length);
const needle = (spec: NeedleSpec): Needle => {
  const [text, back, could] = typeof spec === 'string' ? [spec, Infinity, null] : [spec[0], spec[1], spec[2] ?? null];
  let offset = 0;
  for (let k = 1; k < text.length; k++) if (rarity(text[k]!) > rarity(text[offset]!)) offset = k;
  return { text, key: text.slice(offset, offset + 6), offset, back, could };
};

/** A pattern with its needles (see NeedleSpec). */
export const pattern = (re: RegExp, needles: readonly NeedleSpec[] | null): Pattern => ({
  re,
  needles: needles?.map(needle) ?? null,
  onLine: new RegExp(`[^\\n]*?(${re.source})`, `${re.flags.replace('g', '')}y`),
});

/**
 * The matches of a pattern that start in text[from, to), one after another: each is the match
 * re.exec(text) finds from the position asked for (matches may run past `to`). Unlike re.exec it never
 * searches past the line of `to`, so a small region of a large file costs little; with needles only
 * the lines holding one are tried.
 */
export class Matches {
  private readonly head: string;
  /** Per needle: its next occurrence in head from where it was last looked for, −1 when there is none, −2 not looked for yet. */
  private readonly next: Int32Array;

  constructor(
    private readonly p: Pattern,
    private readonly text: string,
    private readonly to: number,
  ) {
    const nl = to >= text.length ? -1 : text.indexOf('\n', to);
    this.head = nl === -1 ? text : text.slice(0, nl);
    this.next = new Int32Array(p.needles?.length ?? 0).fill(-2);
  }

  /** The match re.exec finds from lastIndex `pos`, if it starts before `to`. */
  from(pos: number): { index: number; length: number } | null {
    const { p, text, to } = this;
    if (p.needles === null && to >= text.length) {
      p.re.lastIndex = pos;
      const m = p.re.exec(text);
      return m === null ? null : { index: m.index, length: m[0].length };
    }
    while (pos < to) {
      // The line to try: pos's own, or with needles the line of the next needle.
      let at = pos;
      if (p.needles !== null) {
        at = this.earliestStart(pos);
        if (at === -1 || at >= to) return null;
      }
      // Most lines tried have no match: test() first, which builds no result.
      p.onLine.lastIndex = at;
      if (p.onLine.test(text)) {
        p.onLine.lastIndex = at;
        const m = p.onLine.exec(text)!;
        const length = m[1]!.length;
        const index = m.index + m[0].length - length;
        return index < to ? { index, length } : null;
      }
      const nl = text.indexOf('\n', at);
      if (nl === -1) return null;
      pos = nl + 1;
    }
    return null;
  }

  /** The first place at or after pos where a match can start: the earliest any next needle allows. */
  private earliestStart(pos: number): number {
    const needles = this.p.needles!;
    let best = -1;
    for (let k = 0; k < needles.length; k++) {
      let c = this.next[k]!;
      const { text, key, offset, back, could } = needles[k]!;
      if (c === -2 || (c !== -1 && c < pos)) {
        let q = this.head.indexOf(key, pos + offset);
        while (q !== -1 && !(this.head.startsWith(text, q - offset) && (could === null || could(this.text, q - offset)))) q = this.head.indexOf(key, q + 1);
        c = q === -1 ? -1 : q - offset;
        this.next[k] = c;
      }
      if (c === -1) continue;
      // A match starts on its needle's line, at most `back` before it.
      let start = Math.max(pos, c - back);
      if (back === Infinity) start = Math.max(pos, this.text.lastIndexOf('\n', c - 1) + 1);
      else for (let j = c - 1; j >= start; j--) if (this.text.charCodeAt(j) === 0x0a) start = j + 1;
      if (best === -1 || start < best) best = start;
    }
    return best;
  }
}

export interface Introduced {
  index: number;
  line: number;
  evidence: string;
}

/**
 * Lines of `after` with a match of `pattern` that are not in `before`: each line keyed by its trimmed
 * text and counted, so a line that was there already, even moved, is never reported. Only the changed
 * region is scanned: identical lines before and after it cancel out. `lineStarts`, for a new file: the
 * starts of the only lines that may hold a match (a prose scan's), the others are not tried.
 */
export function introducedLines(pattern: Pattern, before: string | null, after: string, region = regionOf(before, after), lineStarts?: readonly number[]): Introduced[] {
  // A new file whose lines that may hold a match are known: only those are tried.
  const found = before === null && lineStarts ? matchLinesAt(pattern, after, lineStarts) : matchLines(pattern, after, region.start, region.afterEnd);
  if (found.length === 0) return [];
  const counts = new Map<string, number>();
  if (before !== null) for (const m of matchLines(pattern, before, region.start, region.beforeEnd)) counts.set(m.evidence, (counts.get(m.evidence) ?? 0) + 1);
  const lines = linesOf(after);
  const out: Introduced[] = [];
  for (const m of found) {
    const left = counts.get(m.evidence) ?? 0;
    if (left > 0) {
      counts.set(m.evidence, left - 1);
      continue;
    }
    out.push({ ...m, line: lines.lineAt(m.index) });
  }
  return out;
}

/** Each line of text[from, to) where a match starts, once (index of its first match, trimmed line text); the next search starts on the line after the match's end. */
export function matchLines(pattern: Pattern, text: string, from = 0, to = text.length): { index: number; evidence: string; line: number }[] {
  const out: { index: number; evidence: string; line: number }[] = [];
  const matches = new Matches(pattern, text, to);
  for (let m = matches.from(from); m !== null; ) {
    out.push({ index: m.index, evidence: lineAround(text, m.index), line: 0 });
    const end = text.indexOf('\n', m.index + Math.max(m.length, 1) - 1);
    if (end === -1) break;
    m = matches.from(end + 1);
  }
  return out;
}

/**
 * matchLines over all of text, trying only the lines that start at `starts` (in order, each once): the
 * same lines when every line with a match is among them, as a prose scan's placeholder lines are.
 */
export function matchLinesAt(pattern: Pattern, text: string, starts: readonly number[]): { index: number; evidence: string; line: number }[] {
  const out: { index: number; evidence: string; line: number }[] = [];
  for (const at of starts) {
    pattern.onLine.lastIndex = at;
    const m = pattern.onLine.exec(text);
    if (m === null) continue;
    const index = m.index + m[0].length - m[1]!.length;
    out.push({ index, evidence: lineAround(text, index), line: 0 });
  }
  return out;
}

/** The number of matches of `pattern` in text[from, to) (each search starts at the previous match's end). */
export function countMatches(pattern: Pattern, text: string, from = 0, to = text.length): number {
  let n = 0;
  const matches = new Matches(pattern, text, to);
  for (let m = matches.from(from); m !== null; m = matches.from(m.index + Math.max(m.length, 1))) n += 1;
  return n;
}
