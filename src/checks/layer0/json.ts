/**
 * Whether JSON.parse accepts a text, without building its values: the JSON grammar (ECMA-404) in one
 * pass over the character codes, a byte per open container. Several times faster than JSON.parse on
 * megabytes, which allocates every object and string.
 */

const WS = new Uint8Array(128);
for (const c of [0x20, 0x09, 0x0a, 0x0d]) WS[c] = 1;
const HEX = new Uint8Array(128);
for (const c of '0123456789abcdefABCDEF') HEX[c.charCodeAt(0)] = 1;
/** The escapes after a backslash other than \u: " \ / b f n r t. */
const ESCAPE = new Uint8Array(128);
for (const c of '"\\/bfnrt') ESCAPE[c.charCodeAt(0)] = 1;

const OBJECT = 1;
const ARRAY = 2;

const skipWs = (s: string, i: number): number => {
  let c = s.charCodeAt(i);
  while (c < 128 && WS[c] === 1) c = s.charCodeAt(++i);
  return i;
};

/** The index after a string that opens at i, or −1 when it is not a valid one. */
function afterString(s: string, i: number): number {
  const n = s.length;
  for (i += 1; i < n; ) {
    const c = s.charCodeAt(i);
    if (c === 0x22) return i + 1;
    if (c < 0x20) return -1;
    if (c === 0x5c) {
      const e = s.charCodeAt(i + 1);
      if (e === 0x75) {
        for (let k = i + 2; k < i + 6; k++) {
          const h = s.charCodeAt(k);
          if (!(h < 128 && HEX[h] === 1)) return -1;
        }
        i += 6;
      } else if (e < 128 && ESCAPE[e] === 1) i += 2;
      else return -1;
    } else i += 1;
  }
  return -1;
}

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;

/** The index after a number at i (-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?), or −1. */
function afterNumber(s: string, i: number): number {
  if (s.charCodeAt(i) === 0x2d) i += 1;
  let c = s.charCodeAt(i);
  if (c === 0x30) c = s.charCodeAt(++i);
  else if (c >= 0x31 && c <= 0x39) while (isDigit(c)) c = s.charCodeAt(++i);
  else return -1;
  if (c === 0x2e) {
    c = s.charCodeAt(++i);
    if (!isDigit(c)) return -1;
    while (isDigit(c)) c = s.charCodeAt(++i);
  }
  if (c === 0x65 || c === 0x45) {
    c = s.charCodeAt(++i);
    if (c === 0x2b || c === 0x2d) c = s.charCodeAt(++i);
    if (!isDigit(c)) return -1;
    while (isDigit(c)) c = s.charCodeAt(++i);
  }
  return i;
}

/** The index after a key and its colon at i (whitespace before the key skipped), or −1. */
function afterKey(s: string, i: number): number {
  i = skipWs(s, i);
  if (s.charCodeAt(i) !== 0x22) return -1;
  i = afterString(s, i);
  if (i < 0) return -1;
  i = skipWs(s, i);
  return s.charCodeAt(i) === 0x3a ? i + 1 : -1;
}

/** JSON.parse(s) would succeed. */
export function parsesAsJson(s: string): boolean {
  const n = s.length;
  let stack = new Uint8Array(256);
  let depth = 0;
  let i = 0;
  for (;;) {
    // A value.
    i = skipWs(s, i);
    const c = s.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) {
      const j = skipWs(s, i + 1);
      if (s.charCodeAt(j) === (c === 0x7b ? 0x7d : 0x5d)) i = j + 1;
      else {
        if (depth === stack.length) {
          const grown = new Uint8Array(depth * 2);
          grown.set(stack);
          stack = grown;
        }
        stack[depth++] = c === 0x7b ? OBJECT : ARRAY;
        if (c === 0x7b) {
          i = afterKey(s, j);
          if (i < 0) return false;
        } else i = j;
        continue;
      }
    } else if (c === 0x22) i = afterString(s, i);
    else if (c === 0x74) i = s.startsWith('true', i) ? i + 4 : -1;
    else if (c === 0x66) i = s.startsWith('false', i) ? i + 5 : -1;
    else if (c === 0x6e) i = s.startsWith('null', i) ? i + 4 : -1;
    else i = afterNumber(s, i);
    if (i < 0) return false;
    // After a value: a comma, the end of containers, or the end of the text.
    for (;;) {
      i = skipWs(s, i);
      if (depth === 0) return i === n;
      const d = s.charCodeAt(i);
      const top = stack[depth - 1];
      if (d === 0x2c) {
        if (top === OBJECT) {
          i = afterKey(s, i + 1);
          if (i < 0) return false;
        } else i += 1;
        break;
      }
      if (d !== (top === OBJECT ? 0x7d : 0x5d)) return false;
      depth -= 1;
      i += 1;
    }
  }
}

/** What a JSON scan expects next. */
const enum Expect {
  Value,
  /** A value or the `]` of an empty array. */
  FirstValue,
  Key,
  /** A key or the `}` of an empty object. */
  FirstKey,
  /** A comma, the container's close, or (at the top) the end. */
  After,
  Done,
  Failed,
}

/** A JSON scan between tokens (a token is the whitespace before it and itself): resumable, like the lexer. */
class JsonScan {
  i = 0;
  expect = Expect.Value;
  depth = 0;
  stack = new Uint8Array(64);
  tokenStart = 0;

  constructor(readonly s: string) {}

  get failed(): boolean {
    return this.expect === Expect.Failed;
  }

  get ended(): boolean {
    return this.expect === Expect.Done || this.expect === Expect.Failed;
  }

  copyFor(s: string): JsonScan {
    const c = new JsonScan(s);
    c.i = this.i;
    c.expect = this.expect;
    c.depth = this.depth;
    c.stack = this.stack.slice();
    c.tokenStart = this.tokenStart;
    return c;
  }

  same(o: JsonScan): boolean {
    if (this.expect !== o.expect || this.depth !== o.depth) return false;
    for (let k = 0; k < this.depth; k++) if (this.stack[k] !== o.stack[k]) return false;
    return true;
  }

  private push(kind: number): void {
    if (this.depth === this.stack.length) {
      const grown = new Uint8Array(this.depth * 2);
      grown.set(this.stack);
      this.stack = grown;
    }
    this.stack[this.depth++] = kind;
  }

  /** Scans the tokens that start before `limit` (with `one`, only the next one), until done or failed. */
  run(limit: number, one = false): void {
    const { s } = this;
    const n = s.length;
    // At the text's end one more token decides: done, or failed.
    while (this.expect !== Expect.Done && this.expect !== Expect.Failed && (this.i < limit || (this.i === n && limit >= n))) {
      this.tokenStart = this.i;
      const i = skipWs(s, this.i);
      const c = s.charCodeAt(i);
      let next = -1;
      switch (this.expect) {
        case Expect.Value:
        case Expect.FirstValue:
          if (this.expect === Expect.FirstValue && c === 0x5d) {
            this.depth -= 1;
            next = i + 1;
            this.expect = Expect.After;
          } else if (c === 0x7b || c === 0x5b) {
            this.push(c === 0x7b ? OBJECT : ARRAY);
            next = i + 1;
            this.expect = c === 0x7b ? Expect.FirstKey : Expect.FirstValue;
          } else {
            if (c === 0x22) next = afterString(s, i);
            else if (c === 0x74) next = s.startsWith('true', i) ? i + 4 : -1;
            else if (c === 0x66) next = s.startsWith('false', i) ? i + 5 : -1;
            else if (c === 0x6e) next = s.startsWith('null', i) ? i + 4 : -1;
            else next = afterNumber(s, i);
            this.expect = Expect.After;
          }
          break;
        case Expect.Key:
        case Expect.FirstKey:
          if (this.expect === Expect.FirstKey && c === 0x7d) {
            this.depth -= 1;
            next = i + 1;
            this.expect = Expect.After;
          } else {
            next = afterKey(s, i);
            this.expect = Expect.Value;
          }
          break;
        default: {
          // After a value.
          if (this.depth === 0) {
            this.expect = i === n ? Expect.Done : Expect.Failed;
            next = i;
            break;
          }
          const top = this.stack[this.depth - 1];
          if (c === 0x2c) {
            next = i + 1;
            this.expect = top === OBJECT ? Expect.Key : Expect.Value;
          } else if (c === (top === OBJECT ? 0x7d : 0x5d)) {
            this.depth -= 1;
            next = i + 1;
          }
        }
      }
      if (next < 0) {
        this.expect = Expect.Failed;
        return;
      }
      this.i = next;
      if (one) return;
    }
  }
}

/**
 * Whether a change breaks JSON that parsed: !parsesAsJson(after) && parsesAsJson(before), from
 * scanning the common start once and each side only until both are in the same state again (from
 * there on both parse or neither does).
 */
export function breaksJson(before: string, after: string, region: { start: number; beforeEnd: number; afterEnd: number }): boolean {
  // The common start, up to a token that reads nothing of the change (a number reads one character past its end).
  let a = new JsonScan(after);
  a.run(region.start - 2);
  if (a.i >= region.start) {
    const last = a.tokenStart;
    a = new JsonScan(after);
    a.run(last);
  }
  // Failing there (a JSONC file, say): how far the failing token read is not known, so both are parsed whole.
  if (a.failed) return !parsesAsJson(after) && parsesAsJson(before);
  const b = a.copyFor(before);
  a.run(region.afterEnd);
  b.run(region.beforeEnd);
  for (;;) {
    // Before the fix it did not parse: nothing broke.
    if (b.failed) return false;
    if (a.ended && b.ended) return a.failed;
    const oa = a.i - region.afterEnd;
    const ob = b.i - region.beforeEnd;
    if (a.ended) b.run(before.length);
    else if (b.ended) a.run(after.length);
    else if (oa < ob) a.run(region.afterEnd + ob);
    else if (ob < oa) b.run(region.beforeEnd + oa);
    // The same state at the same place of the same text: both parse, or neither does.
    else if (a.same(b)) return false;
    else {
      a.run(after.length, true);
      b.run(before.length, true);
    }
  }
}
