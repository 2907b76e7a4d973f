// The straightforward Layer-0 as it was before the fast paths (a copy of src/checks/layer0/text.ts at that
// time): the reference test/unit/layer0-fast-paths.test.ts compares the real checks with. Not used by src.
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

export interface Introduced {
  index: number;
  line: number;
  evidence: string;
}

/**
 * Lines of `after` with a match of `pattern` (global) that are not in `before`: each line keyed by its
 * trimmed text and counted, so a line that was there already, even moved, is never reported. Only the
 * changed region is scanned: identical lines before and after it cancel out.
 */
export function introducedLines(pattern: RegExp, before: string | null, after: string): Introduced[] {
  const region = before === null ? { start: 0, beforeEnd: 0, afterEnd: after.length } : changedRegion(before, after);
  const found = matchLines(pattern, after, region.start, region.afterEnd);
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

/** Each line of text[from, to) that has a match, once (index of its first match, trimmed line text). */
export function matchLines(pattern: RegExp, text: string, from = 0, to = text.length): { index: number; evidence: string; line: number }[] {
  const out: { index: number; evidence: string; line: number }[] = [];
  pattern.lastIndex = from;
  for (let m = pattern.exec(text); m !== null && m.index < to; m = pattern.exec(text)) {
    out.push({ index: m.index, evidence: lineAround(text, m.index), line: 0 });
    const end = text.indexOf('\n', m.index + Math.max(m[0].length, 1) - 1);
    pattern.lastIndex = end === -1 ? text.length : end + 1;
  }
  return out;
}

/** The number of matches of `pattern` (global) in text[from, to). */
export function countMatches(pattern: RegExp, text: string, from = 0, to = text.length): number {
  let n = 0;
  pattern.lastIndex = from;
  for (let m = pattern.exec(text); m !== null && m.index < to; m = pattern.exec(text)) {
    n += 1;
    if (m[0].length === 0) pattern.lastIndex += 1;
  }
  return n;
}
