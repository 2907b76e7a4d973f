/**
 * SHA-256 (FIPS 180-4) as a small WebAssembly module, assembled here from its instructions: the source
 * of SHA256_WASM in state/sha256-module.ts, which state/digest.ts runs (test/unit/digest.test.ts holds
 * the two to the same bytes, and the digests to node:crypto's for any input). The hooks load no
 * assembler: the bytes are kept.
 *
 * Memory: bytes 0–255 the round constants, 256–511 the message schedule, 512–543 the hash state, and
 * from 1024 the padded message. `blocks(n)` runs the compression over n 64-byte blocks from 1024.
 */
import { I32, MAGIC_AND_VERSION, exported, op, section, uleb, vector } from '../wasm/encoding';

export const K = [
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
  0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
  0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];
export const INITIAL = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

const W_AT = 256;
export const H_AT = 512;
export const MESSAGE_AT = 1024;

// Locals of blocks(n): 0 n (the parameter), 1 p (the block's address), 2 i (a round), 3–10 a…h, 11 t1, 12 t2, 13 x.
const [N, P, I, A, B, C, D, E, F, G, H, T1, T2, X] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13];
const WORKING = [A, B, C, D, E, F, G, H];

/** σ/Σ functions: the xor of x rotated (or, for σ's last term, shifted) right by each amount. */
const sigma = (x: number, rotations: number[], shift: number | null): number[] => [
  ...rotations.flatMap((r, k) => [...op.get(x), ...op.const(r), ...op.rotr, ...(k > 0 ? op.xor : [])]),
  ...(shift === null ? [] : [...op.get(x), ...op.const(shift), ...op.shrU, ...op.xor]),
];
/** Pushes W[i - back] (i in local I); back is a count of words. */
const wAt = (back: number): number[] => [...op.get(I), ...op.const(-back), ...op.add, ...op.const(2), ...op.shl, ...op.load(W_AT)];

function body(): number[] {
  const code: number[] = [];
  const emit = (...parts: number[][]) => parts.forEach((p) => code.push(...p));
  // for (p = MESSAGE_AT; n != 0; n--, p += 64)
  emit(op.const(MESSAGE_AT), op.set(P), op.block, op.loop, op.get(N), op.eqz, op.brIf(1));
  // W[0..15]: the block's big-endian words (memory is little-endian: bytes swapped).
  emit(op.const(0), op.set(I), op.loop);
  emit(op.get(I), op.const(2), op.shl, op.get(P), op.add, op.load(), op.set(X));
  emit(op.get(I), op.const(2), op.shl); // address of W[i] (minus W_AT, the store's offset)
  emit(op.get(X), op.const(24), op.shl);
  emit(op.get(X), op.const(0xff00), op.and, op.const(8), op.shl, op.or);
  emit(op.get(X), op.const(8), op.shrU, op.const(0xff00), op.and, op.or);
  emit(op.get(X), op.const(24), op.shrU, op.or);
  emit(op.store(W_AT));
  emit(op.get(I), op.const(1), op.add, op.tee(I), op.const(16), op.geU, op.eqz, op.brIf(0), op.end);
  // W[16..63] = W[i-16] + σ0(W[i-15]) + W[i-7] + σ1(W[i-2]).
  emit(op.loop);
  emit(op.get(I), op.const(2), op.shl); // address of W[i] (minus W_AT)
  emit(wAt(16));
  emit(wAt(15), op.set(X), sigma(X, [7, 18], 3), op.add);
  emit(wAt(7), op.add);
  emit(wAt(2), op.set(X), sigma(X, [17, 19], 10), op.add);
  emit(op.store(W_AT));
  emit(op.get(I), op.const(1), op.add, op.tee(I), op.const(64), op.geU, op.eqz, op.brIf(0), op.end);
  // a…h = H0…H7.
  WORKING.forEach((local, k) => emit(op.const(0), op.load(H_AT + 4 * k), op.set(local)));
  // 64 rounds.
  emit(op.const(0), op.set(I), op.loop);
  // t1 = h + Σ1(e) + ch(e, f, g) + K[i] + W[i]; ch = g ^ (e & (f ^ g)).
  emit(op.get(H), sigma(E, [6, 11, 25], null), op.add);
  emit(op.get(G), op.get(E), op.get(F), op.get(G), op.xor, op.and, op.xor, op.add);
  emit(op.get(I), op.const(2), op.shl, op.tee(X), op.load(0), op.add);
  emit(op.get(X), op.load(W_AT), op.add, op.set(T1));
  // t2 = Σ0(a) + maj(a, b, c); maj = (a & b) | (c & (a | b)).
  emit(sigma(A, [2, 13, 22], null));
  emit(op.get(A), op.get(B), op.and, op.get(C), op.get(A), op.get(B), op.or, op.and, op.or, op.add, op.set(T2));
  // h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2.
  emit(op.get(G), op.set(H), op.get(F), op.set(G), op.get(E), op.set(F), op.get(D), op.get(T1), op.add, op.set(E));
  emit(op.get(C), op.set(D), op.get(B), op.set(C), op.get(A), op.set(B), op.get(T1), op.get(T2), op.add, op.set(A));
  emit(op.get(I), op.const(1), op.add, op.tee(I), op.const(64), op.geU, op.eqz, op.brIf(0), op.end);
  // H += a…h.
  WORKING.forEach((local, k) => emit(op.const(0), op.const(0), op.load(H_AT + 4 * k), op.get(local), op.add, op.store(H_AT + 4 * k)));
  // Next block.
  emit(op.get(P), op.const(64), op.add, op.set(P), op.get(N), op.const(-1), op.add, op.set(N), op.br(0), op.end, op.end, op.end);
  return code;
}

/** The module's bytes: its memory and one function, blocks(n: i32), both exported. */
export function moduleBytes(): Uint8Array<ArrayBuffer> {
  const code = body();
  const fn = [...vector([[13, I32]]), ...code];
  return Uint8Array.from([
    ...MAGIC_AND_VERSION,
    ...section(1, vector([[0x60, ...vector([[I32]]), ...vector([])]])), // type 0: (i32) → ()
    ...section(3, vector([[0]])), // function 0 has type 0
    ...section(5, vector([[0x00, 1]])), // one memory, at least 1 page
    ...section(7, vector([exported('blocks', 0x00), exported('memory', 0x02)])), // the function and the memory
    ...section(10, vector([[...uleb(fn.length), ...fn]])),
  ]);
}
