/**
 * sha256 and unique names, with node:crypto loaded on the first digest rather than at start: loading it
 * (with the streams it pulls in) costs a hook about 4 % of a node start, and the gates' common path needs
 * no digest (shell/store.ts compares state.json with the hooks' copy instead of hashing it).
 */
import { createRequire } from 'node:module';

type Hash = (data: string | Uint8Array) => string;
let hash: Hash | undefined;
/** node:crypto's sha256, chosen once: crypto.hash (node 20.12 and 21.7 on) hashes in one call, without a Hash object per digest. */
function load(): Hash {
  // A builtin resolves from anywhere: '/' serves as the base in the bundles (CommonJS) and in the tests (ES modules).
  const crypto = createRequire('/')('node:crypto') as typeof import('node:crypto') & { hash?: (algorithm: string, data: string | Uint8Array, encoding: 'hex') => string };
  const oneShot = crypto.hash;
  return oneShot ? (data) => oneShot('sha256', data, 'hex') : (data) => crypto.createHash('sha256').update(data).digest('hex');
}

/** The sha256 of a text (its UTF-8 bytes) or of bytes, hex: how the hooks pin the files and reviews they own. */
export const sha256 = (data: string | Uint8Array): string => (hash ??= load())(data);

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
