/**
 * Line starts, found 16 bytes at a time, as a small WebAssembly module assembled here from its
 * instructions: the source of NEWLINE_WASM in review/newline-module.ts, which review/line-starts.ts runs
 * (test/unit/line-starts.test.ts holds the two to the same bytes, and the offsets to a plain search's
 * for any input). The hooks load no assembler: the bytes are kept.
 *
 * The module imports its memory (env.memory): a file read into that memory is scanned where it lies.
 * `scan(from, to, out, delta)` writes, for each "\n" at p in [from, to), p + 1 + delta as a 32-bit
 * word from `out` on, and returns how many it wrote. It reads whole 16-byte blocks from `from`: the last
 * may run up to 15 bytes past `to`, and what it finds there is written too (the caller drops it).
 */
import { I32, MAGIC_AND_VERSION, exported, name, op, section, uleb, vector } from '../wasm/encoding';

// Locals of scan: 0 from (then the block's address), 1 to, 2 out, 3 delta, 4 the block's newline mask, 5 the count.
const [P, TO, OUT, DELTA, MASK, COUNT] = [0, 1, 2, 3, 4, 5];

function body(): number[] {
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

/** The module's bytes: one function, scan(from, to, out, delta: i32) → i32, over an imported memory. */
export function moduleBytes(): Uint8Array<ArrayBuffer> {
  const fn = [...vector([[2, I32]]), ...body()];
  return Uint8Array.from([
    ...MAGIC_AND_VERSION,
    ...section(1, vector([[0x60, ...vector([[I32], [I32], [I32], [I32]]), ...vector([[I32]])]])), // type 0: (i32 × 4) → i32
    ...section(2, vector([[...name('env'), ...name('memory'), 0x02, 0x00, 1]])), // env.memory, at least 1 page
    ...section(3, vector([[0]])), // function 0 has type 0
    ...section(7, vector([exported('scan', 0x00)])),
    ...section(10, vector([[...uleb(fn.length), ...fn]])),
  ]);
}
