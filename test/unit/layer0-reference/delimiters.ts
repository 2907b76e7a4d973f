// The straightforward Layer-0 as it was before the fast paths (a copy of src/checks/layer0/delimiters.ts at that
// time): the reference test/unit/layer0-fast-paths.test.ts compares the real checks with. Not used by src.
/**
 * Delimiter balance of code: {} [] () outside strings and comments, in one pass (no AST). The lexers
 * know each family's comments and strings, JavaScript's template literals and regex literals, Python's
 * triple quotes; unterminated strings end at the line's end, so one stray quote does not hide the rest.
 */
import type { Lexer } from './text';

export interface Balance {
  /** Closers without an opener, mismatched pairs and openers never closed. */
  problems: number;
  /** The first problem: where, and what. */
  first: { index: number; kind: 'unclosed' | 'unexpected'; char: string } | null;
}

const NL = 0x0a;
const BACKSLASH = 0x5c;
const SLASH = 0x2f;
const STAR = 0x2a;
const HASH = 0x23;
const BACKTICK = 0x60;
const DQ = 0x22;
const SQ = 0x27;
const CLOSE_OF: Record<number, number> = { 0x7b: 0x7d, 0x5b: 0x5d, 0x28: 0x29 };
/** A template literal's `${`: closed by `}`, which returns to the template's text. */
const TEMPLATE_OPEN = -1;

/** The characters the lexer stops at; every other one is skipped with one table look-up. */
const enum Kind {
  Plain = 0,
  Open,
  Close,
  Quote,
  Backtick,
  Slash,
  Hash,
}
const KINDS = new Uint8Array(128);
for (const c of '{[(') KINDS[c.charCodeAt(0)] = Kind.Open;
for (const c of '}])') KINDS[c.charCodeAt(0)] = Kind.Close;
KINDS[DQ] = Kind.Quote;
KINDS[SQ] = Kind.Quote;
KINDS[BACKTICK] = Kind.Backtick;
KINDS[SLASH] = Kind.Slash;
KINDS[HASH] = Kind.Hash;

const isIdent = (c: number): boolean => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f || c === 0x24 || c > 0x7f;
const REGEX_KEYWORDS = new Set(['return', 'typeof', 'case', 'do', 'else', 'in', 'of', 'new', 'delete', 'void', 'throw', 'yield', 'await', 'instanceof']);

/** In JavaScript, does a `/` at `at` start a regex literal (rather than divide)? Decided from what precedes it. */
function startsRegex(text: string, at: number): boolean {
  let j = at - 1;
  while (j >= 0 && text.charCodeAt(j) <= 0x20) j -= 1;
  if (j < 0) return true;
  const c = text.charCodeAt(j);
  if (c === 0x29 || c === 0x5d || c === 0x7d || c === DQ || c === SQ || c === BACKTICK) return false;
  if (!isIdent(c)) return true;
  let k = j;
  while (k >= 0 && isIdent(text.charCodeAt(k))) k -= 1;
  return REGEX_KEYWORDS.has(text.slice(k + 1, j + 1));
}

export function balance(text: string, lexer: Lexer): Balance {
  const stack: { close: number; index: number }[] = [];
  let problems = 0;
  let first: Balance['first'] = null;
  const problem = (index: number, kind: 'unclosed' | 'unexpected', char: string): void => {
    problems += 1;
    if (!first || index < first.index) first = { index, kind, char };
  };
  const n = text.length;
  const js = lexer === 'js';
  const slashComments = js || lexer === 'c';
  const hashComments = lexer === 'py' || lexer === 'hash';

  /** Index after a quoted string that opens at `at` (a newline ends an unterminated one). */
  const afterString = (at: number, quote: number): number => {
    for (let j = at + 1; j < n; j++) {
      const c = text.charCodeAt(j);
      if (c === BACKSLASH) j += 1;
      else if (c === quote) return j + 1;
      else if (c === NL) return j;
    }
    return n;
  };
  /** Index after template text that starts at `at`: after the closing backtick, or after a `${` (expr). */
  const afterTemplate = (at: number): { next: number; expr: boolean } => {
    for (let j = at; j < n; j++) {
      const c = text.charCodeAt(j);
      if (c === BACKSLASH) j += 1;
      else if (c === BACKTICK) return { next: j + 1, expr: false };
      else if (c === 0x24 && text.charCodeAt(j + 1) === 0x7b) return { next: j + 2, expr: true };
    }
    return { next: n, expr: false };
  };
  const afterRegex = (at: number): number => {
    let inClass = false;
    for (let j = at + 1; j < n; j++) {
      const c = text.charCodeAt(j);
      if (c === BACKSLASH) j += 1;
      else if (c === NL) return j;
      else if (inClass) inClass = c !== 0x5d;
      else if (c === 0x5b) inClass = true;
      else if (c === SLASH) return j + 1;
    }
    return n;
  };
  const upTo = (needle: string, from: number, extra: number): number => {
    const end = text.indexOf(needle, from);
    return end === -1 ? n : end + extra;
  };

  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    const kind = c < 128 ? KINDS[c]! : Kind.Plain;
    if (kind === Kind.Plain) {
      i += 1;
      continue;
    }
    if (kind === Kind.Open) {
      stack.push({ close: CLOSE_OF[c]!, index: i });
      i += 1;
    } else if (kind === Kind.Close) {
      const top = stack[stack.length - 1];
      if (top && top.close === TEMPLATE_OPEN && c === 0x7d) {
        // The end of a template literal's ${…}: back into its text.
        stack.pop();
        const t = afterTemplate(i + 1);
        if (t.expr) stack.push({ close: TEMPLATE_OPEN, index: top.index });
        i = t.next;
        continue;
      }
      if (top && top.close === c) stack.pop();
      else {
        // A mismatch: close back to a matching opener when there is one, else the closer is stray.
        let k = stack.length - 1;
        while (k >= 0 && stack[k]!.close !== c) k -= 1;
        if (k >= 0) {
          for (let j = stack.length - 1; j > k; j--) problem(stack[j]!.index, 'unclosed', text[stack[j]!.index]!);
          stack.length = k;
        } else problem(i, 'unexpected', text[i]!);
      }
      i += 1;
    } else if (kind === Kind.Quote) {
      const triple = text.charCodeAt(i + 1) === c && text.charCodeAt(i + 2) === c;
      if (triple && (lexer === 'py' || (lexer === 'c' && c === DQ))) i = upTo(String.fromCharCode(c).repeat(3), i + 3, 3);
      else if (lexer === 'c' && c === SQ) {
        // A char literal ('x', '\n', '\u{41}') closes within a few characters; otherwise it is a lifetime or a prime.
        const close = text.charCodeAt(i + 1) === BACKSLASH ? text.indexOf("'", i + 2) : i + 2;
        i = close > i && close - i <= 12 && text.charCodeAt(close) === SQ ? close + 1 : i + 1;
      } else i = afterString(i, c);
    } else if (kind === Kind.Backtick) {
      if (js) {
        const t = afterTemplate(i + 1);
        if (t.expr) stack.push({ close: TEMPLATE_OPEN, index: i });
        i = t.next;
      } else if (lexer === 'c') i = upTo('`', i + 1, 1); // Go's raw strings
      else i += 1;
    } else if (kind === Kind.Slash && slashComments) {
      const d = text.charCodeAt(i + 1);
      if (d === SLASH) i = upTo('\n', i, 0);
      else if (d === STAR) i = upTo('*/', i + 2, 2);
      else if (js && startsRegex(text, i)) i = afterRegex(i);
      else i += 1;
    } else if (kind === Kind.Hash && hashComments) i = upTo('\n', i, 0);
    else i += 1;
  }
  for (const open of stack) problem(open.index, 'unclosed', open.close === TEMPLATE_OPEN ? '`' : text[open.index]!);
  return { problems, first };
}
