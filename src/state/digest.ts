/**
 * sha256 and unique names, by node:crypto. It is loaded on the first use, not as a hook starts: with the
 * streams it pulls in, loading it cost the edit gate (which hashes nothing) about a fifth of a node start,
 * and the Bash gate about half of one (its --liftoff-only flag keeps node's own modules from their code
 * cache), measured with bench/hooks.bench.ts against the same hooks loading it lazily.
 */
type Crypto = typeof import('node:crypto');

let crypto: Crypto | undefined;
const load = (): Crypto => (crypto ??= process.getBuiltinModule('node:crypto'));

/** The sha256 of a text (its UTF-8 bytes) or of bytes, hex: how the hooks pin the files and reviews they own. */
export function sha256(data: string | Uint8Array): string {
  return load().hash('sha256', data, 'hex');
}

/**
 * `bytes` random bytes as hex, for names that must not collide: temporary files (beside the writer's
 * pid, created with O_EXCL) and lock tickets.
 */
export function randomHex(bytes: number): string {
  return load().randomBytes(bytes).toString('hex');
}
