/** Small Markdown helpers for the reports: model text is quoted, never interpreted. Pure. */
import { thousands } from '../protocol/text';

// C0/C1 controls (ANSI and OSC escapes start with one), and the bidirectional overrides and isolates.
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const ESCAPE_SEQUENCE = /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)?)/g;

/** Text with terminal escapes and invisible direction controls removed. */
export const plain = (text: string): string => text.replace(ESCAPE_SEQUENCE, '').replace(UNSAFE, '');

// What flat() changes: a control or direction character, whitespace other than one space, a space at either end.
const NOT_FLAT = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]|[^\S ]| {2}|^ | $/;
/** One line of plain text: whitespace collapsed and trimmed. Most model text is one line already: one test, no copies. */
const flatText = (text: string): string => (NOT_FLAT.test(text) ? plain(text).replace(/\s+/g, ' ').trim() : text);

const MARKDOWN = /[\\`*_[\]<>#]/;
const MARKDOWN_ALL = new RegExp(MARKDOWN.source, 'g');

/** One line of inline text: whitespace collapsed, cut at max, Markdown and HTML metacharacters escaped. */
export function inline(text: string, max = 240): string {
  const flat = flatText(text);
  const cut = flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
  return MARKDOWN.test(cut) ? cut.replace(MARKDOWN_ALL, (c) => (c === '<' ? '&lt;' : c === '>' ? '&gt;' : `\\${c}`)) : cut;
}

/** An inline code span that survives backticks in the text. */
export function code(text: string): string {
  const flat = flatText(text);
  const longest = flat.includes('`') ? Math.max(...flat.match(/`+/g)!.map((run) => run.length)) : 0;
  const fence = '`'.repeat(longest + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${flat}${pad}${fence}`;
}

/** A fenced block that survives fences in the text. */
export function block(text: string, lang = ''): string {
  const body = plain(text).replace(/\s+$/, '');
  const longest = Math.max(2, ...(body.match(/`{3,}/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${lang}\n${body}\n${fence}`;
}

/** A GitHub table; a pipe inside a cell (code spans included) is escaped, as GFM requires. */
export function table(head: readonly string[], rows: readonly (readonly string[])[]): string {
  // Built as one string, a row at a time: a round's findings table can have thousands of rows.
  let out = `| ${head.join(' | ')} |\n|${head.map(() => '---').join('|')}|`;
  for (const row of rows) {
    out += '\n| ';
    for (let i = 0; i < row.length; i++) out += `${i ? ' | ' : ''}${row[i]!.includes('|') ? row[i]!.replace(/\|/g, '\\|') : row[i]}`;
    out += ' |';
  }
  return out;
}

/**
 * How many findings (or answers, or statuses) a report lists: a person reads the first ones, most
 * important first, and the verdict's JSON holds every one. A round of thousands of findings would
 * otherwise be a report of thousands of rows, and the hook that writes it pays for every row.
 */
export const MAX_LISTED = 200;

/** The first MAX_LISTED items (of `total`, when only the first are given), and a line naming how many more there are and where they all are (null when none was left out). */
export function listed<T>(items: readonly T[], what: string, where: string, total = items.length): { shown: readonly T[]; rest: string | null } {
  if (total <= MAX_LISTED) return { shown: items, rest: null };
  return { shown: items.slice(0, MAX_LISTED), rest: `The first ${thousands(MAX_LISTED)} of ${thousands(total)} ${what} are listed here; ${where} has every one.` };
}

export const where = (file: string, line: number | null): string => code(line ? `${file}:${line}` : file);

export const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** 1234567 → "1,234,567" (what toLocaleString('en-US') gives, without the cost of a locale lookup per call). */

/** 83_000 ms → "1 min 23 s". */
export function duration(ms: number | null): string {
  if (ms === null) return 'unknown';
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m} min ${s % 60} s` : `${Math.floor(m / 60)} h ${m % 60} min`;
}
