/**
 * SHA-256 (FIPS 180-4) in 529 bytes of WebAssembly, assembled by scripts/sha256-wasm.ts. Every hook that
 * saves the state hashes it, and node:crypto costs a hook about 4 % of a node start to load (its streams,
 * ciphers, keys); this module compiles in a fraction of a millisecond and hashes a state file in a
 * tenth of one. test/unit/digest.test.ts checks it against node:crypto. Null where WebAssembly is not
 * available (node --jitless): digest.ts then uses node:crypto.
 *
 * Memory (one 64 KiB page): H (8 words) at 0, the message schedule W (64 words) at W_AT, the round
 * constants K (64 words) at K_AT, the input from INPUT_AT. Words in memory are little-endian
 * (WebAssembly's order); compress swaps the input's big-endian words as it reads them.
 */
import { SHA256_WASM } from './sha256-wasm-binary';

const K = [
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
  0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
  0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
  0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];
const H0 = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

export const W_AT = 32;
export const K_AT = 288;
export const INPUT_AT = 1024;
/** Whole blocks that fit in the page after INPUT_AT. */
const CHUNK = 65536 - INPUT_AT;

interface Hasher {
  memory: Uint8Array;
  view: DataView;
  compress: (ptr: number, end: number) => void;
}

let hasher: Hasher | null | undefined;

function instance(): Hasher | null {
  if (hasher !== undefined) return hasher;
  if (typeof WebAssembly === 'undefined') return (hasher = null);
  const exports = new WebAssembly.Instance(new WebAssembly.Module(Buffer.from(SHA256_WASM, 'base64'))).exports as { memory: WebAssembly.Memory; compress: Hasher['compress'] };
  const view = new DataView(exports.memory.buffer);
  K.forEach((k, t) => view.setUint32(K_AT + 4 * t, k, true));
  return (hasher = { memory: new Uint8Array(exports.memory.buffer), view, compress: exports.compress });
}

/** The sha256 of `bytes`, hex; null when WebAssembly is not available. */
export function sha256Wasm(bytes: Uint8Array): string | null {
  const h = instance();
  if (!h) return null;
  H0.forEach((v, k) => h.view.setUint32(4 * k, v, true));
  const whole = bytes.length - (bytes.length % 64);
  for (let at = 0; at < whole; at += CHUNK) {
    const n = Math.min(CHUNK, whole - at);
    h.memory.set(bytes.subarray(at, at + n), INPUT_AT);
    h.compress(INPUT_AT, INPUT_AT + n);
  }
  // The last partial block, 0x80, zeros, and the length in bits as a big-endian 64-bit number.
  const rest = bytes.length - whole;
  const tail = rest < 56 ? 64 : 128;
  h.memory.fill(0, INPUT_AT, INPUT_AT + tail);
  h.memory.set(bytes.subarray(whole), INPUT_AT);
  h.memory[INPUT_AT + rest] = 0x80;
  h.view.setUint32(INPUT_AT + tail - 8, Math.floor(bytes.length / 0x20000000), false);
  h.view.setUint32(INPUT_AT + tail - 4, (bytes.length << 3) >>> 0, false);
  h.compress(INPUT_AT, INPUT_AT + tail);
  let hex = '';
  for (let k = 0; k < 8; k++) hex += h.view.getUint32(4 * k, true).toString(16).padStart(8, '0');
  return hex;
}
