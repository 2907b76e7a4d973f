/**
 * sha256, by node:crypto. It is loaded on the first digest, not as a hook starts: with the streams it
 * pulls in, loading it costs 4–5 ms of CPU, a sixth of a node start, and a hook that hashes nothing (the
 * gates, a Stop) never pays it. Unique names (shell/files.ts's uniqueHex) need no node:crypto.
 */
type Crypto = typeof import('node:crypto');

let crypto: Crypto | undefined;
const load = (): Crypto => (crypto ??= process.getBuiltinModule('node:crypto'));

/** The sha256 of a text (its UTF-8 bytes) or of bytes, hex: how the hooks pin the files and reviews they own. */
export function sha256(data: string | Uint8Array): string {
  return load().hash('sha256', data, 'hex');
}
