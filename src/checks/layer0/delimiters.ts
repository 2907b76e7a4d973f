/**
 * Delimiter balance of code: {} [] () outside strings and comments, in one pass (no AST). The lexers
 * know each family's comments and strings, JavaScript's template literals and regex literals, Python's
 * triple quotes; unterminated strings end at the line's end, so one stray quote does not hide the rest.
 *
 * The lexer's state between tokens is its position, the stack of open delimiters and the problems so
 * far, so it can stop and resume: a change is lexed once up to where it starts, then on each side, and
 * only until both sides are in the same state again (from there on they find the same problems).
 */
import type { Lexer, Region } from './text';

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
/** The closer of each opener, by code: a typed array (a look-up in a sparse object was a third of the lexer's time). */
const CLOSE_OF = new Uint8Array(128);
CLOSE_OF[0x7b] = 0x7d;
CLOSE_OF[0x5b] = 0x5d;
CLOSE_OF[0x28] = 0x29;
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

/** Index after a quoted string that opens at `at` (a newline ends an unterminated one). */
function afterString(text: string, at: number, quote: number): number {
  const n = text.length;
  for (let j = at + 1; j < n; j++) {
    const c = text.charCodeAt(j);
    if (c === BACKSLASH) j += 1;
    else if (c === quote) return j + 1;
    else if (c === NL) return j;
  }
  return n;
}

/** Index after template text that starts at `at`: after the closing backtick, or after a `${` (expr). Negative (−index − 1) for a `${`. */
function afterTemplate(text: string, at: number): number {
  const n = text.length;
  for (let j = at; j < n; j++) {
    const c = text.charCodeAt(j);
    if (c === BACKSLASH) j += 1;
    else if (c === BACKTICK) return j + 1;
    else if (c === 0x24 && text.charCodeAt(j + 1) === 0x7b) return -(j + 2) - 1;
  }
  return n;
}

function afterRegex(text: string, at: number): number {
  const n = text.length;
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
}

function upTo(text: string, needle: string, from: number, extra: number): number {
  const end = text.indexOf(needle, from);
  return end === -1 ? text.length : end + extra;
}

/** The lexer of one text, between tokens: where it is, the open delimiters, the problems so far. */
class Scan {
  i = 0;
  problems = 0;
  first: Balance['first'] = null;
  depth = 0;
  /** The open delimiters: the closer each expects (TEMPLATE_OPEN for a template's `${`) and where it opened. */
  closes = new Int32Array(16);
  opens = new Int32Array(16);
  /** Where the last token lexed started. */
  tokenStart = 0;

  constructor(
    readonly text: string,
    readonly lexer: Lexer,
  ) {}

  /** The same state, lexing another text (one that is the same up to here). */
  copyFor(text: string): Scan {
    const s = new Scan(text, this.lexer);
    s.i = this.i;
    s.problems = this.problems;
    s.first = this.first;
    s.depth = this.depth;
    s.closes = this.closes.slice();
    s.opens = this.opens.slice();
    s.tokenStart = this.tokenStart;
    return s;
  }

  /** Both have the same open delimiters (where they opened may differ). */
  sameStack(other: Scan): boolean {
    if (this.depth !== other.depth) return false;
    for (let k = 0; k < this.depth; k++) if (this.closes[k] !== other.closes[k]) return false;
    return true;
  }

  private problem(index: number, kind: 'unclosed' | 'unexpected', char: string): void {
    this.problems += 1;
    if (!this.first || index < this.first.index) this.first = { index, kind, char };
  }

  /** Room for one more open delimiter. */
  private grow(): void {
    const closes = new Int32Array(this.closes.length * 2);
    closes.set(this.closes);
    this.closes = closes;
    const opens = new Int32Array(this.opens.length * 2);
    opens.set(this.opens);
    this.opens = opens;
  }

  /** Lexes the tokens that start before `limit` (with `one`, only up to the first that is not plain text). */
  run(limit: number, one = false): void {
    const { text, lexer } = this;
    const end = Math.min(limit, text.length);
    const js = lexer === 'js';
    const slashComments = js || lexer === 'c';
    const hashComments = lexer === 'py' || lexer === 'hash';
    // The stack in locals while lexing (written back before anything else reads it).
    let { closes, opens, depth } = this;
    let i = this.i;
    let tokenStart = this.tokenStart;
    while (i < end) {
      const c = text.charCodeAt(i);
      const kind = c < 128 ? KINDS[c]! : Kind.Plain;
      if (kind === Kind.Plain) {
        i += 1;
        continue;
      }
      tokenStart = i;
      if (kind === Kind.Open) {
        if (depth === closes.length) {
          this.grow();
          ({ closes, opens } = this);
        }
        closes[depth] = CLOSE_OF[c]!;
        opens[depth] = i;
        depth += 1;
        i += 1;
      } else if (kind === Kind.Close) {
        const top = depth - 1;
        const close = top >= 0 ? closes[top]! : 0;
        if (close === TEMPLATE_OPEN && c === 0x7d) {
          // The end of a template literal's ${…}: back into its text (its entry stays when another ${ follows).
          const next = afterTemplate(text, i + 1);
          if (next >= 0) depth -= 1;
          i = next < 0 ? -next - 1 : next;
        } else {
          if (top >= 0 && close === c) depth -= 1;
          else {
            // A mismatch: close back to a matching opener when there is one, else the closer is stray.
            let k = top;
            while (k >= 0 && closes[k] !== c) k -= 1;
            if (k >= 0) {
              for (let j = top; j > k; j--) this.problem(opens[j]!, 'unclosed', text[opens[j]!]!);
              depth = k;
            } else this.problem(i, 'unexpected', text[i]!);
          }
          i += 1;
        }
      } else if (kind === Kind.Quote) {
        const triple = text.charCodeAt(i + 1) === c && text.charCodeAt(i + 2) === c;
        if (triple && (lexer === 'py' || (lexer === 'c' && c === DQ))) i = upTo(text, String.fromCharCode(c).repeat(3), i + 3, 3);
        else if (lexer === 'c' && c === SQ) {
          // A char literal ('x', '\n', '\u{41}') closes within a few characters; otherwise it is a lifetime or a prime.
          const close = text.charCodeAt(i + 1) === BACKSLASH ? text.indexOf("'", i + 2) : i + 2;
          i = close > i && close - i <= 12 && text.charCodeAt(close) === SQ ? close + 1 : i + 1;
        } else i = afterString(text, i, c);
      } else if (kind === Kind.Backtick) {
        if (js) {
          const next = afterTemplate(text, i + 1);
          if (next < 0) {
            if (depth === closes.length) {
              this.grow();
              ({ closes, opens } = this);
            }
            closes[depth] = TEMPLATE_OPEN;
            opens[depth] = i;
            depth += 1;
          }
          i = next < 0 ? -next - 1 : next;
        } else if (lexer === 'c') i = upTo(text, '`', i + 1, 1); // Go's raw strings
        else i += 1;
      } else if (kind === Kind.Slash && slashComments) {
        const d = text.charCodeAt(i + 1);
        if (d === SLASH) i = upTo(text, '\n', i, 0);
        else if (d === STAR) i = upTo(text, '*/', i + 2, 2);
        else if (js && startsRegex(text, i)) i = afterRegex(text, i);
        else i += 1;
      } else if (kind === Kind.Hash && hashComments) i = upTo(text, '\n', i, 0);
      else i += 1;
      if (one) break;
    }
    this.i = i;
    this.depth = depth;
    this.tokenStart = tokenStart;
  }

  /** At the end of the text: every delimiter still open is a problem. */
  finish(): Balance {
    this.run(this.text.length);
    for (let k = 0; k < this.depth; k++) this.problem(this.opens[k]!, 'unclosed', this.closes[k] === TEMPLATE_OPEN ? '`' : this.text[this.opens[k]!]!);
    this.depth = 0;
    return { problems: this.problems, first: this.first };
  }
}

export function balance(text: string, lexer: Lexer): Balance {
  return new Scan(text, lexer).finish();
}

/** How far ahead of a token's start the lexer may look to decide what it is (a char literal's close). */
const LOOKAHEAD = 16;

/** The character just lexed: a later regex test looks back at most to it (not blank, not a word). */
const stops = (text: string, i: number): boolean => {
  const c = text.charCodeAt(i - 1);
  return c > 0x20 && !isIdent(c);
};

/**
 * A change that balances worse than before: balance(after) when it has more problems than
 * balance(before), else null. The same answer as lexing both texts whole, from lexing the common start
 * once and each side only until both are in the same state again.
 */
export function worseBalance(before: string, after: string, region: Region, lexer: Lexer): { now: Balance; then: number } | null {
  // The common start, up to a token that reads nothing of the change.
  let a = new Scan(after, lexer);
  a.run(region.start - LOOKAHEAD);
  if (a.i >= region.start) {
    // The last token ran into the change (a comment or string across it): stop before it.
    const last = a.tokenStart;
    a = new Scan(after, lexer);
    a.run(last);
  }
  const b = a.copyFor(before);
  a.run(region.afterEnd);
  b.run(region.beforeEnd);
  // Through the common end, until both are at the same place with the same open delimiters.
  const CHUNK = 4096;
  let synced = false;
  while (a.i < after.length || b.i < before.length) {
    const oa = a.i - region.afterEnd;
    const ob = b.i - region.beforeEnd;
    if (oa < ob) a.run(region.afterEnd + ob);
    else if (ob < oa) b.run(region.beforeEnd + oa);
    else if (!a.sameStack(b)) {
      a.run(a.i + CHUNK);
      b.run(b.i + CHUNK);
    } else if (oa > 0 && stops(after, a.i)) {
      synced = true;
      break;
    } else {
      a.run(after.length, true);
      b.run(before.length, true);
    }
  }
  if (synced) {
    // From here both sides find the same problems.
    if (a.problems <= b.problems) return null;
    const atSync = a.problems;
    const now = a.finish();
    return { now, then: b.problems + now.problems - atSync };
  }
  const now = a.finish();
  const then = b.finish().problems;
  return now.problems > then ? { now, then } : null;
}
