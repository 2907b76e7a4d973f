/**
 * The few pieces of WebAssembly's binary format (https://webassembly.github.io/spec/core/binary/) that
 * the hooks' hand-assembled text module (review/text-wasm.ts) needs: numbers, sections, vectors and exports. Pure.
 */

export const I32 = 0x7f;
export const MAGIC_AND_VERSION = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];

export function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return out;
}

export function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (byte & 0x40) === 0) || (n === -1 && (byte & 0x40) !== 0)) return [...out, byte];
    out.push(byte | 0x80);
  }
}

export const section = (id: number, body: number[]): number[] => [id, ...uleb(body.length), ...body];
export const vector = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];
export const name = (text: string): number[] => [...uleb(text.length), ...[...text].map((c) => c.charCodeAt(0))];

/** An export entry: its name, its kind (0 function, 2 memory) and its index among that kind (the first by default). */
export const exported = (text: string, kind: number, index = 0): number[] => [...name(text), kind, ...uleb(index)];

/** The instructions the modules use (i32 unless named otherwise; memory accesses 4-byte aligned). */
export const op = {
  block: [0x02, 0x40],
  loop: [0x03, 0x40],
  end: [0x0b],
  br: (depth: number) => [0x0c, depth],
  brIf: (depth: number) => [0x0d, depth],
  get: (local: number) => [0x20, local],
  set: (local: number) => [0x21, local],
  tee: (local: number) => [0x22, local],
  if: [0x04, 0x40],
  else: [0x05],
  load8U: (offset = 0) => [0x2d, 0, ...uleb(offset)],
  store: (offset = 0) => [0x36, 2, ...uleb(offset)],
  store8: (offset = 0) => [0x3a, 0, ...uleb(offset)],
  const: (value: number) => [0x41, ...sleb(value | 0)],
  eqz: [0x45],
  eq: [0x46],
  geU: [0x4f],
  ctz: [0x68],
  add: [0x6a],
  sub: [0x6b],
  and: [0x71],
  shl: [0x74],
  /** SIMD (0xfd prefix): a 16-byte load, a byte broadcast, bytewise equality, and the mask of the bytes' top bits. */
  v128Load: (offset = 0) => [0xfd, 0x00, 0, ...uleb(offset)],
  i8x16Splat: [0xfd, 0x0f],
  i8x16Eq: [0xfd, 0x23],
  i8x16Bitmask: [0xfd, 0x64],
};
