/**
 * sha256 and unique names. A hook lives for one call, and loading node:crypto (with the streams it
 * pulls in) costs it several milliseconds before its first digest, more than the state and the few
 * small files most hooks hash. Those are hashed by a small WebAssembly module (state/sha256-wasm.ts),
 * which compiles in a fraction of that; node:crypto, loaded on the first digest of anything larger (a
 * review of thousands of findings), hashes from then on.
 */
import { createRequire } from 'node:module';
import { H_AT, INITIAL, K, MESSAGE_AT } from './sha256-wasm';
import { SHA256_WASM } from './sha256-module';

type Hash = (data: string | Uint8Array) => string;
let native: Hash | undefined;
/** node:crypto's sha256, chosen once: crypto.hash (node 20.12 and 21.7 on) hashes in one call, without a Hash object per digest. */
function load(): Hash {
  // A builtin resolves from anywhere: '/' serves as the base in the bundles (CommonJS) and in the tests (ES modules).
  const crypto = createRequire('/')('node:crypto') as typeof import('node:crypto') & { hash?: (algorithm: string, data: string | Uint8Array, encoding: 'hex') => string };
  const oneShot = crypto.hash;
  return oneShot ? (data) => oneShot('sha256', data, 'hex') : (data) => crypto.createHash('sha256').update(data).digest('hex');
}

/**
 * What the WebAssembly module hashes before node:crypto takes over: a hook's first 32 KB, in at most 64
 * digests. Its code is V8's baseline code (about 16 MB/s here), which runs at once but slower than node's
 * hash; past this much, loading node:crypto is the cheaper (and an aggregation's thousands of
 * fingerprints are hashed by node).
 */
export const WASM_BUDGET = { bytes: 32 * 1024, digests: 64 };
let wasmBytes = WASM_BUDGET.bytes;
let wasmDigests = WASM_BUDGET.digests;

/** The sha256 of a text (its UTF-8 bytes) or of bytes, hex: how the hooks pin the files and reviews they own. */
export function sha256(data: string | Uint8Array): string {
  // A text is at least as many bytes as it has UTF-16 units: a long one is not encoded to find out.
  if (native === undefined && wasmDigests > 0 && data.length <= wasmBytes) {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    const digest = bytes.length <= wasmBytes ? sha256Wasm(bytes) : null;
    if (digest !== null) {
      wasmBytes -= bytes.length;
      wasmDigests--;
      return digest;
    }
  }
  return (native ??= load())(data);
}

interface Sha256Module {
  memory: WebAssembly.Memory;
  blocks: (n: number) => void;
}
let module: Sha256Module | null | undefined;

function instantiate(): Sha256Module | null {
  try {
    const exports = new WebAssembly.Instance(new WebAssembly.Module(Buffer.from(SHA256_WASM, 'base64'))).exports as unknown as Sha256Module;
    new Int32Array(exports.memory.buffer, 0, K.length).set(K);
    return exports;
  } catch {
    // No WebAssembly (node --jitless): node:crypto hashes everything.
    return null;
  }
}

/** The SHA-256 of bytes, hex, by the WebAssembly module; null when WebAssembly is not to be had. */
export function sha256Wasm(bytes: Uint8Array): string | null {
  const wasm = (module ??= instantiate());
  if (!wasm) return null;
  const n = bytes.length;
  // The message, a 1 bit, zeros, and its length in bits (64-bit big-endian): whole 64-byte blocks.
  const blocks = ((n + 8) >>> 6) + 1;
  const end = MESSAGE_AT + blocks * 64;
  const have = wasm.memory.buffer.byteLength;
  if (have < end) wasm.memory.grow(Math.ceil((end - have) / 65536));
  const memory = new Uint8Array(wasm.memory.buffer);
  memory.set(bytes, MESSAGE_AT);
  memory.fill(0, MESSAGE_AT + n, end);
  memory[MESSAGE_AT + n] = 0x80;
  const bits = n * 8;
  const high = Math.floor(bits / 0x100000000);
  for (let k = 0; k < 4; k++) {
    memory[end - 8 + k] = (high >>> (24 - 8 * k)) & 0xff;
    memory[end - 4 + k] = (bits >>> (24 - 8 * k)) & 0xff;
  }
  const h = new Int32Array(wasm.memory.buffer, H_AT, 8);
  h.set(INITIAL);
  wasm.blocks(blocks);
  let hex = '';
  for (let k = 0; k < 8; k++) hex += (h[k]! >>> 0).toString(16).padStart(8, '0');
  return hex;
}

/**
 * `bytes` random bytes as hex, for names that must not collide: temporary files (beside the writer's
 * pid, created with O_EXCL) and lock tickets. They need not be unpredictable: neither is a secret, so
 * no hook loads node:crypto for a name.
 */
export function randomHex(bytes: number): string {
  let hex = '';
  for (let i = 0; i < bytes; i++) hex += Math.floor(Math.random() * 256).toString(16).padStart(2, '0');
  return hex;
}
