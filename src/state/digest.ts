/**
 * sha256 and unique names without loading node:crypto where it can be helped: loading it (with the
 * streams it pulls in) costs a hook about 4 % of a node start. The small texts a hook hashes on every
 * call (the state, the record's files) go through a WebAssembly SHA-256 (sha256-wasm.ts); big ones,
 * where node's native hashing repays its load, and any text where WebAssembly is not available, through
 * node:crypto. Both give the same digests (test/unit/digest.test.ts).
 */
import { createRequire } from 'node:module';
import { sha256Wasm } from './sha256-wasm';

type Crypto = typeof import('node:crypto');
// A builtin resolves from anywhere: '/' serves as the base in the bundles (CommonJS) and in the tests (ES modules).
const crypto = (): Crypto => createRequire('/')('node:crypto') as Crypto;
/** crypto.hash (node 20.12 and 21.7 on) hashes in one call, without a Hash object per digest. */
type OneShot = (algorithm: string, data: Uint8Array, encoding: 'hex') => string;

/** Texts up to this many UTF-8 bytes are hashed in WebAssembly (one pass over its memory page). */
export const WASM_MAX_BYTES = 64 * 1024;

/** The sha256 of a text (its UTF-8 bytes) or of bytes, hex: how the hooks pin the files and reviews they own. */
export function sha256(data: string | Uint8Array): string {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const wasm = bytes.length <= WASM_MAX_BYTES ? sha256Wasm(bytes) : null;
  if (wasm !== null) return wasm;
  const c = crypto();
  const oneShot = (c as { hash?: OneShot }).hash;
  return oneShot ? oneShot('sha256', bytes, 'hex') : c.createHash('sha256').update(bytes).digest('hex');
}

/**
 * `bytes` random bytes as hex, for names that must not collide: temporary files (beside the writer's
 * pid, created with O_EXCL) and lock tickets. They need not be unpredictable: neither is a secret.
 */
export function randomHex(bytes: number): string {
  let hex = '';
  for (let i = 0; i < bytes; i++) hex += Math.floor(Math.random() * 256).toString(16).padStart(2, '0');
  return hex;
}
