/**
 * Two passes over a file's bytes as a small WebAssembly module, assembled here from its instructions:
 * the source of TEXT_WASM in review/text-module.ts, which review/text-scan.ts runs (test/unit/text-scan.test.ts
 * holds the two to the same bytes, and each pass to its plain JavaScript for any input). The hooks load
 * no assembler: the bytes are kept. A hook's code runs once, mostly before V8 optimises it, and a byte
 * loop in JavaScript then costs tens of nanoseconds a byte; this module's baseline code, a few.
 *
 * The module imports its memory (env.memory): a file read into that memory is scanned where it lies.
 * - `scan(from, to, out, delta)` finds line starts 16 bytes at a time: for each "\n" at p in [from, to)
 *   it writes p + 1 + delta as a 32-bit word from `out` on, and returns how many it wrote. It reads whole
 *   16-byte blocks from `from`: the last may run up to 15 bytes past `to`, and what it finds there is
 *   written too (the caller drops it).
 * - `flatten(src, length, dst, starts, base)` is fingerprint.ts's flattenBytes: each byte of [src, src +
 *   length) through the table at address 0 (0 drops it), to dst; for each "\n", the flat offset reached
 *   plus base as a word from `starts` on. It returns the flat length and the count of starts.
 */
import { I32, MAGIC_AND_VERSION, exported, name, op, section, uleb, vector } from '../wasm/encoding';

// Locals of scan: 0 from (then the block's address), 1 to, 2 out, 3 delta, 4 the block's newline mask, 5 the count.
const [P, TO, OUT, DELTA, MASK, COUNT] = [0, 1, 2, 3, 4, 5];

function scan(): number[] {
  const code: number[] = [];
  const emit = (...parts: number[][]) => parts.forEach((p) => code.push(...p));
  // for (; p < to; p += 16)
  emit(op.block, op.loop, op.get(P), op.get(TO), op.geU, op.brIf(1));
  // mask = the bits of the block's bytes that are "\n"
  emit(op.get(P), op.v128Load(), op.const(10), op.i8x16Splat, op.i8x16Eq, op.i8x16Bitmask, op.set(MASK));
  // while (mask): out[count++] = p + ctz(mask) + 1 + delta; mask &= mask - 1
  emit(op.block, op.loop, op.get(MASK), op.eqz, op.brIf(1));
  emit(op.get(COUNT), op.const(2), op.shl, op.get(OUT), op.add);
  emit(op.get(P), op.get(MASK), op.ctz, op.add, op.get(DELTA), op.add, op.const(1), op.add, op.store());
  emit(op.get(COUNT), op.const(1), op.add, op.set(COUNT));
  emit(op.get(MASK), op.get(MASK), op.const(1), op.sub, op.and, op.set(MASK));
  emit(op.br(0), op.end, op.end);
  emit(op.get(P), op.const(16), op.add, op.set(P), op.br(0), op.end, op.end);
  emit(op.get(COUNT), op.end);
  return code;
}

// Locals of flatten: 0 src (then the byte's address), 1 length (then the end), 2 dst, 3 starts, 4 base, 5 o, 6 n, 7 b, 8 f.
const [SRC, END, DST, STARTS, BASE, O, N, BYTE, FLAT] = [0, 1, 2, 3, 4, 5, 6, 7, 8];

function flatten(): number[] {
  const code: number[] = [];
  const emit = (...parts: number[][]) => parts.forEach((p) => code.push(...p));
  emit(op.get(SRC), op.get(END), op.add, op.set(END), op.get(DST), op.set(O));
  // for (; src < end; src++)
  emit(op.block, op.loop, op.get(SRC), op.get(END), op.geU, op.brIf(1));
  // b = *src; f = table[b]
  emit(op.get(SRC), op.load8U(), op.tee(BYTE), op.load8U(), op.tee(FLAT));
  // if (f) *o++ = f; else if (b == "\n") starts[n++] = o - dst + base
  emit(op.if, op.get(O), op.get(FLAT), op.store8(), op.get(O), op.const(1), op.add, op.set(O));
  emit(op.else, op.get(BYTE), op.const(10), op.eq, op.if);
  emit(op.get(N), op.const(2), op.shl, op.get(STARTS), op.add, op.get(O), op.get(DST), op.sub, op.get(BASE), op.add, op.store());
  emit(op.get(N), op.const(1), op.add, op.set(N), op.end, op.end);
  emit(op.get(SRC), op.const(1), op.add, op.set(SRC), op.br(0), op.end, op.end);
  emit(op.get(O), op.get(DST), op.sub, op.get(N), op.end);
  return code;
}

/** The module's bytes: scan(from, to, out, delta) → i32 and flatten(src, length, dst, starts, base) → (i32, i32), over an imported memory. */
export function moduleBytes(): Uint8Array<ArrayBuffer> {
  const scanFn = [...vector([[2, I32]]), ...scan()];
  const flattenFn = [...vector([[4, I32]]), ...flatten()];
  const i32s = (n: number) => vector(Array.from({ length: n }, () => [I32]));
  return Uint8Array.from([
    ...MAGIC_AND_VERSION,
    ...section(1, vector([[0x60, ...i32s(4), ...i32s(1)], [0x60, ...i32s(5), ...i32s(2)]])), // types: (i32 × 4) → i32, (i32 × 5) → (i32, i32)
    ...section(2, vector([[...name('env'), ...name('memory'), 0x02, 0x00, 1]])), // env.memory, at least 1 page
    ...section(3, vector([[0], [1]])), // scan has type 0, flatten type 1
    ...section(7, vector([exported('scan', 0x00), exported('flatten', 0x00, 1)])),
    ...section(10, vector([[...uleb(scanFn.length), ...scanFn], [...uleb(flattenFn.length), ...flattenFn]])),
  ]);
}
