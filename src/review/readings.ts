/**
 * The ways a model's quote may be read when it does not match the file as written: escapes kept from
 * JSON, inline backticks, diff markers, an added `;`, and `...`/`…` standing for code left out. Pure.
 */
import { EVIDENCE_READINGS, type EvidenceReading } from '../protocol/verdict-schema';
import { flatten, stripFences, stripGutter } from './fingerprint';


/** A `...` on a line of its own may stand for at most this many lines. */
export const MAX_SKIPPED_LINES = 40;
/** A reading with gaps needs at least this much literal (flat) text, so that an invented ending is not accepted. */
export const MIN_GAP_TEXT = 12;

/** One reading of a quote, ready to be searched. */
export interface Needle {
  /** The alternative readings applied, in order; [] for the quote as written. */
  applied: EvidenceReading[];
  /** The quote as this reading has it, trimmed, for an exact byte search; null for a reading with gaps. */
  raw: string | null;
  /** Its flat form (flatten()); for a reading with gaps, the literal pieces in order. */
  pieces: string[];
  /** Between pieces i and i+1: how many line breaks the file may have there. */
  gaps: number[];
  /** A gap before the first piece (after the last) within its line: the match runs to the line's edge. */
  openStart: boolean;
  openEnd: boolean;
  /** How many lines of the file the quote may cover. */
  span: number;
}

const ESCAPES: Record<string, string> = { n: '\n', r: '', t: '\t', '"': '"', "'": "'", '`': '`', '\\': '\\', '/': '/' };
const ESCAPE = /\\([nrt"'`\\/])/g;
/** Three dots or more (a dot of the code may touch them: "x.y...."), or the ellipsis character. */
const ELLIPSIS = /\.{3,}|\u2026/;
/** A line that only elides: `...`, `…`, `// ...`, `# …`, `/* ... *\/`, `<!-- ... -->`. */
const ELLIPSIS_LINE = /^\s*(?:\/\/|#|--|\/\*|\*|<!--)?\s*(?:\.{3,}|\u2026)\s*(?:\*\/|-->)?\s*$/;
const DIFF_HEADER = /^(?:@@.*@@.*|(?:\+\+\+|---) (?:[ab]\/|\/dev\/null).*|\\ No newline at end of file)$/;

type Step = (text: string) => string | null;

const unescape: Step = (text) => (ESCAPE.test(text) ? text.replace(ESCAPE, (_, c: string) => ESCAPES[c]!) : null);

/** One pair of inline backticks around the quote (the code itself may hold backticks). */
const backticks: Step = (text) => /^\s*`([^\n]+)`\s*$/.exec(text)?.[1] ?? null;

/** Strips diff markers when every quoted line has one (blank lines and hunk headers aside). */
function diffMarkers(text: string, newSide: boolean): string | null {
  const lines = text.split(/\r?\n/).filter((line) => !DIFF_HEADER.test(line));
  const code = lines.filter((line) => line.trim() !== '');
  if (code.length === 0 || !code.every((line) => /^[+\- ]/.test(line)) || !code.some((line) => /^[+-]/.test(line))) return null;
  if (newSide && !(code.some((line) => line.startsWith('-')) && code.some((line) => line.startsWith('+')))) return null;
  return lines
    .filter((line) => !(newSide && line.startsWith('-')))
    .map((line) => line.slice(1))
    .join('\n');
}

/** The old side of a fix written as a diff: the `-` and context lines are what the file holds. */
function diffOldSide(text: string): string | null {
  const lines = text.split(/\r?\n/).filter((line) => !DIFF_HEADER.test(line));
  const code = lines.filter((line) => line.trim() !== '');
  if (code.length === 0 || !code.every((line) => /^[+\- ]/.test(line)) || !code.some((line) => line.startsWith('-')) || !code.some((line) => line.startsWith('+'))) return null;
  return lines
    .filter((line) => !line.startsWith('+'))
    .map((line) => line.slice(1))
    .join('\n');
}

/** A line-number gutter on every quoted line: "L12: ", "12  ", "  12 | ", "line 12: ". */
const GUTTER = /^\s*(?:L|line\s*)?\d+(?:\s*[|:\u2192\t]\s?|\s+)/i; // → among the separators
const gutter: Step = (text) => {
  const lines = text.split(/\r?\n/);
  const code = lines.filter((line) => line.trim() !== '');
  if (code.length === 0 || !code.every((line) => GUTTER.test(line))) return null;
  return lines.map((line) => line.replace(GUTTER, '')).join('\n');
};

const semicolon: Step = (text) => (/;\s*$/.test(text) ? text.replace(/;\s*$/, '') : null);

/** The quote as written (fences and gutters aside): the reading tried first, and usually the only one. */
export function literalNeedles(evidence: string): Needle[] {
  const quote = stripFences(evidence);
  const plain = stripGutter(quote);
  // A line-number gutter comes off the quote as written, and the reading says so.
  const needle = plainNeedle(plain, plain === quote ? [] : ['gutter']);
  return needle ? [needle] : [];
}

/**
 * The alternative readings of a quote, fewest changes first (not those equal to the quote as written).
 * Each reading applies at most once, in any order ("+ `x;`" and "`+ x`;" are both read).
 */
export function alternativeNeedles(evidence: string): Needle[] {
  const keyOf = (needle: Needle): string => `${needle.pieces.join('\0')}\0${needle.gaps.join(',')}\0${needle.openStart}${needle.openEnd}`;
  const found = new Map<string, Needle>();
  const out: Needle[] = [];
  for (const needle of needlesOf(stripGutter(stripFences(evidence)), [])) {
    found.set(keyOf(needle), needle);
    if (needle.applied.length > 0) out.push(needle); // the quote's own gaps
  }
  const steps: [EvidenceReading, Step][] = [
    ['unescaped', unescape],
    ['backticks', backticks],
    ['diff-markers', (t) => diffMarkers(t, false)],
    ['diff-new-side', (t) => diffMarkers(t, true)],
    ['diff-old-side', diffOldSide],
    ['gutter', gutter],
    ['semicolon', semicolon],
  ];
  const exclusive = (a: EvidenceReading, b: EvidenceReading) => a.startsWith('diff') && b.startsWith('diff');
  // Breadth first: every text reached by applying distinct steps, each reached by the fewest steps.
  let frontier: { text: string; applied: EvidenceReading[] }[] = [{ text: stripFences(evidence), applied: [] }];
  const seen = new Set([frontier[0]!.text]);
  while (frontier.length > 0) {
    const next: typeof frontier = [];
    for (const { text, applied } of frontier) {
      for (const [name, step] of steps) {
        if (applied.some((a) => a === name || exclusive(a, name))) continue;
        // Fences come off after unescaping: "```ts\n…```" may itself arrive escaped.
        const stepped = step(text);
        const result = stepped === null ? null : name === 'unescaped' ? stripFences(stepped) : stepped;
        if (result === null || seen.has(result)) continue;
        seen.add(result);
        const reached = { text: result, applied: [...applied, name].sort((a, b) => EVIDENCE_READINGS.indexOf(a) - EVIDENCE_READINGS.indexOf(b)) };
        next.push(reached);
        for (const needle of needlesOf(stripGutter(result), reached.applied)) {
          const key = keyOf(needle);
          if (!found.has(key)) {
            found.set(key, needle);
            out.push(needle);
          }
        }
      }
    }
    frontier = next;
  }
  // Readings with gaps are the loosest: after every reading without.
  const gaps = (n: Needle) => Number(n.applied.includes('gap'));
  return out.sort((a, b) => gaps(a) - gaps(b) || a.applied.length - b.applied.length || order(a.applied) - order(b.applied));
}

/** Every reading of a quote: as written first, then the alternatives. */
export const readingsOf = (evidence: string): Needle[] => [...literalNeedles(evidence), ...alternativeNeedles(evidence)];

const order = (applied: EvidenceReading[]): number => applied.reduce((n, r) => n * 8 + EVIDENCE_READINGS.indexOf(r) + 1, 0);

/** The reading without gaps, and the one with, when the quote elides. */
function needlesOf(text: string, applied: EvidenceReading[]): Needle[] {
  const out: Needle[] = [];
  const plain = plainNeedle(text, applied);
  if (plain) out.push(plain);
  if (ELLIPSIS.test(text)) {
    const gap = gapNeedle(text, [...applied, 'gap']);
    if (gap) out.push(gap);
  }
  return out;
}

/** The reading without gaps, or null when the quote is only blanks. */
function plainNeedle(text: string, applied: EvidenceReading[]): Needle | null {
  const flat = flatten(text);
  return flat ? { applied, raw: text.trim(), pieces: [flat], gaps: [], openStart: false, openEnd: false, span: newlines(text) + 1 } : null;
}

/** Splits a quote at its ellipses: literal pieces, and how many line breaks each gap may cover. */
function gapNeedle(text: string, applied: EvidenceReading[]): Needle | null {
  // Mark the gaps (\0L a line of its own, \0I within a line), then split: text, kind, text, kind, … text.
  const marked = text
    .split(/\r?\n/)
    .map((line) => (ELLIPSIS_LINE.test(line) ? '\0L' : line.replace(/\.{3,}|\u2026/g, '\0I')))
    .join('\n');
  const parts = marked.split(/\0([LI])/);
  const pieces: string[] = [];
  const gaps: number[] = [];
  let pending = { breaks: 0, skipped: false, inline: false };
  let openStart = false;
  for (let k = 0; k < parts.length; k++) {
    const part = parts[k]!;
    if (k % 2 === 1) {
      if (part === 'L') pending.skipped = true;
      else pending.inline = true;
      continue;
    }
    const flat = flatten(part);
    if (!flat) {
      pending.breaks += newlines(part);
      continue;
    }
    const lead = newlines(part.slice(0, part.search(/\S/)));
    if (pieces.length > 0) gaps.push(pending.breaks + lead + (pending.skipped ? MAX_SKIPPED_LINES : 0));
    else openStart = pending.inline && !pending.skipped && pending.breaks + lead === 0;
    pieces.push(flat);
    pending = { breaks: newlines(part.slice(part.search(/\s*$/))), skipped: false, inline: false };
  }
  const openEnd = pieces.length > 0 && pending.inline && !pending.skipped && pending.breaks === 0;
  if (pieces.length === 0 || pieces.reduce((n, p) => n + p.length, 0) < MIN_GAP_TEXT) return null;
  const span = newlines(text) + 1 + gaps.reduce((n, g) => n + (g >= MAX_SKIPPED_LINES ? MAX_SKIPPED_LINES : 0), 0);
  return { applied, raw: null, pieces, gaps, openStart, openEnd, span };
}

function newlines(text: string): number {
  let n = 0;
  for (let p = text.indexOf('\n'); p >= 0; p = text.indexOf('\n', p + 1)) n++;
  return n;
}
