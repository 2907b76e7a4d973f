/**
 * Assembles src/state/sha256-wasm.ts's WebAssembly SHA-256 (FIPS 180-4: one function, `compress(ptr,
 * end)`, over the memory layout that file describes) and writes the bytes into
 * src/state/sha256-wasm-binary.ts. The hooks load the bytes, not this assembler: building the code
 * in an interpreted hook cost more than node:crypto. test/unit/digest.test.ts checks that the
 * committed bytes are what this script assembles.
 *
 *   npx tsx scripts/sha256-wasm.ts
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { INPUT_AT, K_AT, W_AT } from '../src/state/sha256-wasm';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const BINARY_FILE = 'src/state/sha256-wasm-binary.ts';

// Each helper returns the bytes that push a value (or run a statement).

type Code = number[];
const uleb = (n: number): Code => (n < 0x80 ? [n] : [(n & 0x7f) | 0x80, ...uleb(n >>> 7)]);
const sleb = (n: number): Code => {
  const low = n & 0x7f;
  const rest = n >> 7;
  return (rest === 0 && !(low & 0x40)) || (rest === -1 && low & 0x40) ? [low] : [low | 0x80, ...sleb(rest)];
};
const I32 = 0x7f;
const op = { add: 0x6a, and: 0x71, or: 0x72, xor: 0x73, shrU: 0x76, rotl: 0x77, rotr: 0x78, ltU: 0x49, brIf: 0x0d, loop: 0x03, end: 0x0b };
const get = (local: number): Code => [0x20, local];
const set = (local: number, value: Code): Code => [...value, 0x21, local];
const tee = (local: number, value: Code): Code => [...value, 0x22, local];
const i32 = (value: number): Code => [0x41, ...sleb(value | 0)];
const load = (address: Code, offset: number): Code => [...address, 0x28, 2, ...uleb(offset)];
const store = (address: Code, offset: number, value: Code): Code => [...address, ...value, 0x36, 2, ...uleb(offset)];
const bin = (code: number) => (a: Code, b: Code): Code => [...a, ...b, code];
const add = bin(op.add);
const and = bin(op.and);
const or = bin(op.or);
const xor = bin(op.xor);
const sum = (...xs: Code[]): Code => xs.reduce((a, b) => add(a, b));
const rotr = (x: Code, n: number): Code => [...x, ...i32(n), op.rotr];
const rotl = (x: Code, n: number): Code => [...x, ...i32(n), op.rotl];
const shr = (x: Code, n: number): Code => [...x, ...i32(n), op.shrU];
/** `body` repeated while `counter` (stepped by 4) stays below `limit`. */
const loopWhile = (counter: number, limit: Code, body: Code): Code => [op.loop, 0x40, ...body, ...set(counter, add(get(counter), i32(4))), ...get(counter), ...limit, op.ltU, op.brIf, 0, op.end];

// Locals: the parameters ptr and end, then a–h, two temporaries and a byte counter.
const [PTR, END, A, B, C, D, E, F, G, H, T1, T2, I] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
const ZERO = i32(0);

/** The input's word at PTR + I, byte-swapped: bytes 1 and 3 rotated left by 8, bytes 0 and 2 right by 8. */
const inputWord = (): Code => or(rotl(and(tee(T1, load(add(get(PTR), get(I)), 0)), i32(0xff00ff00)), 8), rotr(and(get(T1), i32(0x00ff00ff)), 8));
/** σ0, σ1 of the schedule and Σ0, Σ1 of the rounds, over a local. */
const sigma = (x: number, a: number, b: number, c: number, shift: boolean): Code => xor(xor(rotr(get(x), a), rotr(get(x), b)), shift ? shr(get(x), c) : rotr(get(x), c));

const compress: Code = [
  op.loop, 0x40,
  // W[0..16): the block's words.
  ...set(I, ZERO),
  ...loopWhile(I, i32(64), store(get(I), W_AT, inputWord())),
  // W[16..64), with I = byte offset of W[t-16]: W[t] = σ1(W[t-2]) + W[t-7] + σ0(W[t-15]) + W[t-16].
  ...set(I, ZERO),
  ...loopWhile(
    I,
    i32(192),
    [
      ...set(T1, load(get(I), W_AT + 56)),
      ...set(T2, load(get(I), W_AT + 4)),
      ...store(get(I), W_AT + 64, sum(sigma(T1, 17, 19, 10, true), load(get(I), W_AT + 36), sigma(T2, 7, 18, 3, true), load(get(I), W_AT))),
    ],
  ),
  ...[A, B, C, D, E, F, G, H].flatMap((v, k) => set(v, load(ZERO, 4 * k))),
  // The 64 rounds, I = byte offset of round t.
  ...set(I, ZERO),
  ...loopWhile(I, i32(256), [
    // T1 = h + Σ1(e) + Ch(e, f, g) + K[t] + W[t]; T2 = Σ0(a) + Maj(a, b, c)
    ...set(T1, sum(get(H), sigma(E, 6, 11, 25, false), xor(and(get(E), get(F)), and(xor(get(E), i32(-1)), get(G))), load(get(I), K_AT), load(get(I), W_AT))),
    ...set(T2, add(sigma(A, 2, 13, 22, false), xor(xor(and(get(A), get(B)), and(get(A), get(C))), and(get(B), get(C))))),
    ...set(H, get(G)),
    ...set(G, get(F)),
    ...set(F, get(E)),
    ...set(E, add(get(D), get(T1))),
    ...set(D, get(C)),
    ...set(C, get(B)),
    ...set(B, get(A)),
    ...set(A, add(get(T1), get(T2))),
  ]),
  ...[A, B, C, D, E, F, G, H].flatMap((v, k) => store(ZERO, 4 * k, add(load(ZERO, 4 * k), get(v)))),
  ...set(PTR, add(get(PTR), i32(64))),
  ...get(PTR), ...get(END), op.ltU, op.brIf, 0,
  op.end,
];

const section = (id: number, content: Code): Code => [id, ...uleb(content.length), ...content];
const name = (s: string): Code => [s.length, ...[...s].map((ch) => ch.charCodeAt(0))];

export function assembleSha256(): Uint8Array {
  const body = [1, 11, I32, ...compress, op.end];
  return Uint8Array.from([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, [1, 0x60, 2, I32, I32, 0]), // type: (i32, i32) → ()
    ...section(3, [1, 0]), // function 0 has type 0
    ...section(5, [1, 0x00, 1]), // one memory of one page
    ...section(7, [2, ...name('memory'), 0x02, 0, ...name('compress'), 0x00, 0]),
    ...section(10, [1, ...uleb(body.length), ...body]),
  ]);
}

/** The text of BINARY_FILE. */
export function renderSha256Binary(): string {
  const base64 = Buffer.from(assembleSha256()).toString('base64');
  return `/** Generated by scripts/sha256-wasm.ts (its assembler is the source): the WebAssembly of sha256-wasm.ts. */\nexport const SHA256_WASM = '${base64}';\n`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  fs.writeFileSync(path.join(root, BINARY_FILE), renderSha256Binary());
}
