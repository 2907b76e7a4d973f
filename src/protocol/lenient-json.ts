/**
 * JSON as models write it: one value, perhaps in a ``` fence or between prose, perhaps with a BOM,
 * comments, trailing commas or a raw line break inside a string. What is unambiguous is read and noted;
 * what is not (several JSON values, a syntax error) is a problem in words a model can act on: a line
 * number and the change to make, never a parser's offset or an invisible character shown raw. Pure.
 */
import * as texts from './reader-texts';

export type JsonRead = { ok: true; value: unknown; notes: string[] } | { ok: false; problem: string };

/** Reads the one JSON object or array a text holds. JSON.parse first: a text as the contract says costs nothing more. */
export function readJson(text: string): JsonRead {
  const notes: string[] = [];
  let body = text;
  if (body.charCodeAt(0) === 0xfeff) {
    body = body.slice(1);
    notes.push(texts.read.bom);
  }
  const plain = body.trimStart();
  if (plain.startsWith('{') || plain.startsWith('[')) {
    try {
      return { ok: true, value: JSON.parse(body), notes };
    } catch {
      // read leniently below
    }
  }
  const candidates = candidatesOf(body);
  if (candidates.length === 0) return { ok: false, problem: texts.problem.noJson(invisibleIn(body)) };
  if (candidates.length > 1) {
    return { ok: false, problem: texts.problem.several(candidates.map((c) => c.line), candidates.some((c) => c.fenced)) };
  }
  const only = candidates[0]!;
  if (!only.result.ok) return { ok: false, problem: texts.problem.syntax(only.result.error, only.fenced ? only.line : null) };
  if (only.fenced) notes.push(texts.read.fence(only.line));
  else if (only.prose) notes.push(texts.read.prose);
  return { ok: true, value: only.result.value, notes: [...notes, ...only.result.notes] };
}

interface Candidate {
  /** The line (1-based, in the whole text) the JSON starts on, or its fence. */
  line: number;
  fenced: boolean;
  /** Text other than blanks stands before or after it. */
  prose: boolean;
  result: Parsed;
}

const FENCE = /^[ \t]*```[ \t]*([\w+-]*)[ \t]*\r?\n([\s\S]*?)^[ \t]*```[ \t]*$/gm;

/** The JSON values a text holds: each fenced block that starts with { or [, else each value that starts a line. */
function candidatesOf(text: string): Candidate[] {
  const fenced: Candidate[] = [];
  for (const m of text.matchAll(FENCE)) {
    const inner = m[2]!;
    const lead = inner.search(/\S/);
    if (lead < 0 || (inner[lead] !== '{' && inner[lead] !== '[')) continue;
    const start = m.index! + m[0].indexOf(inner) + lead;
    const result = parseAt(text, start);
    fenced.push({ line: lineAt(text, m.index!), fenced: true, prose: true, result: result.ok ? checkRest(result, text, m.index! + m[0].length - 3) : result });
  }
  if (fenced.length > 0) return fenced;
  const out: Candidate[] = [];
  for (let at = firstValueStart(text, 0); at >= 0 && out.length < 5; ) {
    const result = parseAt(text, at);
    const prose = /\S/.test(text.slice(0, at)) || (result.ok && /\S/.test(text.slice(result.end)));
    out.push({ line: lineAt(text, at), fenced: false, prose, result });
    if (!result.ok) break;
    at = firstValueStart(text, result.end);
  }
  return out;
}

/** A fenced value must fill its fence. */
function checkRest(result: Extract<Parsed, { ok: true }>, text: string, fenceEnd: number): Parsed {
  const rest = skipBlank(text, result.end, []);
  if (rest < fenceEnd && text.slice(rest, fenceEnd).trim() !== '') return { ok: false, error: { line: lineAt(text, rest), what: texts.syntax.after(describeChar(text, rest)) } };
  return result;
}

/** Where the next JSON value starts: a { or [ at the start of a line (after blanks), or the text's first {. */
function firstValueStart(text: string, from: number): number {
  const re = /^[ \t]*([{[])/gm;
  re.lastIndex = from;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const at = m.index + m[0].length - 1;
    if (at >= from) return at;
  }
  if (from === 0) return text.indexOf('{');
  return -1;
}

const lineAt = (text: string, at: number): number => {
  let n = 1;
  for (let p = text.indexOf('\n'); p >= 0 && p < at; p = text.indexOf('\n', p + 1)) n++;
  return n;
};

/** Invisible characters a text holds, named (they are never shown raw). */
function invisibleIn(text: string): string[] {
  const found = new Set<string>();
  for (const ch of text) if (isInvisible(ch)) found.add(codePoint(ch));
  return [...found].slice(0, 3);
}

const isInvisible = (ch: string): boolean => /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u00ad\u200b-\u200f\u2028-\u202e\u2060-\u2064\ufeff]/.test(ch);
const codePoint = (ch: string): string => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** A character as a message may show it: itself when printable, else its code point. */
export function describeChar(text: string, at: number): string {
  if (at >= text.length) return texts.syntax.end;
  const ch = String.fromCodePoint(text.codePointAt(at)!);
  if (ch === '\n' || ch === '\r') return texts.syntax.lineBreak;
  if (isInvisible(ch) || /\s/.test(ch)) return texts.syntax.invisible(codePoint(ch));
  return `\`${ch === '`' ? "'`'" : ch}\``;
}

export interface SyntaxError {
  line: number;
  what: string;
}
type Parsed = { ok: true; value: unknown; end: number; notes: string[] } | { ok: false; error: SyntaxError };

class Fail extends Error {
  constructor(readonly at: number, readonly what: string) {
    super(what);
  }
}

/** Parses one JSON value starting at `start`, leniently: comments, trailing commas and raw line breaks in strings are read. */
function parseAt(text: string, start: number): Parsed {
  const notes = new Set<string>();
  const parser = new Lenient(text, notes);
  try {
    const value = parser.value(start);
    return { ok: true, value: value.value, end: value.end, notes: [...notes] };
  } catch (err) {
    if (!(err instanceof Fail)) throw err;
    return { ok: false, error: { line: lineAt(text, err.at), what: err.what } };
  }
}

function skipBlank(text: string, at: number, notes: string[] | Set<string>): number {
  for (;;) {
    while (at < text.length && /[ \t\r\n\ufeff]/.test(text[at]!)) at++;
    if (text.startsWith('//', at)) {
      const end = text.indexOf('\n', at);
      at = end < 0 ? text.length : end;
      add(notes, texts.read.comments);
    } else if (text.startsWith('/*', at)) {
      const end = text.indexOf('*/', at + 2);
      if (end < 0) throw new Fail(at, texts.syntax.openComment);
      at = end + 2;
      add(notes, texts.read.comments);
    } else return at;
  }
}
const add = (notes: string[] | Set<string>, note: string): void => void (Array.isArray(notes) ? notes.push(note) : notes.add(note));

class Lenient {
  /** How deep values nest: a hostile text of a million [ does not blow the stack. */
  private depth = 0;

  constructor(
    private readonly text: string,
    private readonly notes: Set<string>,
  ) {}

  value(from: number): { value: unknown; end: number } {
    const t = this.text;
    const at = skipBlank(t, from, this.notes);
    const ch = t[at];
    if (ch === '{' || ch === '[') {
      if (++this.depth > 512) throw new Fail(at, texts.syntax.tooDeep);
      const result = ch === '{' ? this.object(at) : this.array(at);
      this.depth--;
      return result;
    }
    if (ch === '"') return this.string(at);
    if (ch === "'") throw new Fail(at, texts.syntax.singleQuotes);
    const literal = /^(?:-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(t.slice(at, at + 64));
    if (literal) return { value: JSON.parse(literal[0]), end: at + literal[0].length };
    throw new Fail(at, at >= t.length ? texts.syntax.endsEarly : texts.syntax.expectedValue(describeChar(t, at)));
  }

  private object(open: number): { value: unknown; end: number } {
    const t = this.text;
    const out: Record<string, unknown> = {};
    let at = skipBlank(t, open + 1, this.notes);
    if (t[at] === '}') return { value: out, end: at + 1 };
    for (;;) {
      if (at >= t.length) throw new Fail(at, texts.syntax.unclosed('}'));
      if (t[at] === '}') {
        this.notes.add(texts.read.trailingCommas);
        return { value: out, end: at + 1 };
      }
      if (t[at] !== '"') {
        const bare = /^[A-Za-z_$][\w$-]*/.exec(t.slice(at, at + 100));
        if (bare) throw new Fail(at, texts.syntax.bareKey(bare[0]));
        throw new Fail(at, at >= t.length ? texts.syntax.unclosed('}') : texts.syntax.expectedKey(describeChar(t, at)));
      }
      const key = this.string(at);
      at = skipBlank(t, key.end, this.notes);
      if (t[at] !== ':') throw new Fail(at, texts.syntax.colon(key.value as string, describeChar(t, at)));
      const value = this.value(at + 1);
      Object.defineProperty(out, key.value as string, { value: value.value, enumerable: true, writable: true, configurable: true });
      at = skipBlank(t, value.end, this.notes);
      if (t[at] === ',') {
        at = skipBlank(t, at + 1, this.notes);
        continue;
      }
      if (t[at] === '}') return { value: out, end: at + 1 };
      if (at >= t.length) throw new Fail(at, texts.syntax.unclosed('}'));
      throw new Fail(at, t[at] === '"' ? texts.syntax.missingComma(this.peekKey(at)) : t[at] === ']' ? texts.syntax.wrongClose(']', '}') : texts.syntax.afterValue(describeChar(t, at), '}'));
    }
  }

  private array(open: number): { value: unknown; end: number } {
    const t = this.text;
    const out: unknown[] = [];
    let at = skipBlank(t, open + 1, this.notes);
    if (t[at] === ']') return { value: out, end: at + 1 };
    for (;;) {
      if (at >= t.length) throw new Fail(at, texts.syntax.unclosed(']'));
      if (t[at] === ']') {
        this.notes.add(texts.read.trailingCommas);
        return { value: out, end: at + 1 };
      }
      const value = this.value(at);
      out.push(value.value);
      at = skipBlank(t, value.end, this.notes);
      if (t[at] === ',') {
        at = skipBlank(t, at + 1, this.notes);
        continue;
      }
      if (t[at] === ']') return { value: out, end: at + 1 };
      if (at >= t.length) throw new Fail(at, texts.syntax.unclosed(']'));
      throw new Fail(at, t[at] === '{' || t[at] === '"' ? texts.syntax.missingCommaItem : t[at] === '}' ? texts.syntax.wrongClose('}', ']') : texts.syntax.afterValue(describeChar(t, at), ']'));
    }
  }

  private peekKey(at: number): string {
    const m = /^"((?:[^"\\\n]|\\.){0,40})"/.exec(this.text.slice(at, at + 50));
    return m ? m[1]! : '';
  }

  /** A string; a raw line break or tab inside it is read as \n or \t. */
  private string(open: number): { value: unknown; end: number } {
    const t = this.text;
    let at = open + 1;
    let raw = false;
    for (; at < t.length; at++) {
      const ch = t[at]!;
      if (ch === '\\') {
        if (!/["\\/bfnrtu]/.test(t[at + 1] ?? '')) throw new Fail(at, texts.syntax.badEscape(describeChar(t, at + 1)));
        at++;
        continue;
      }
      if (ch === '"') break;
      if (ch === '\n' || ch === '\r' || ch === '\t') raw = true;
    }
    if (at >= t.length) throw new Fail(open, texts.syntax.openString);
    let body = t.slice(open, at + 1);
    if (raw) {
      body = body.replace(/\r?\n/g, '\\n').replace(/\r/g, '\\n').replace(/\t/g, '\\t');
      this.notes.add(texts.read.rawBreaks);
    }
    try {
      return { value: JSON.parse(body), end: at + 1 };
    } catch {
      throw new Fail(open, texts.syntax.badString);
    }
  }
}
