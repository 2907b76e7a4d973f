/**
 * sha256 and random names, with node:crypto loaded on the first call rather than at start: loading it
 * (and the streams it pulls in) costs a hook about 4 % of a node start, and the gates' common path
 * needs neither (shell/store.ts compares state.json with the hooks' copy instead of hashing it).
 */
type Crypto = typeof import('node:crypto');
let loaded: Crypto | undefined;
// getBuiltinModule (Node ≥ 20.16) works alike in the bundles (CommonJS) and the tests (ES modules), without node:module.
const crypto = (): Crypto => (loaded ??= process.getBuiltinModule('node:crypto'));

/** crypto.hash (node 20.12 and 21.7 on) hashes in one call, without a Hash object per digest. */
type OneShot = (algorithm: string, data: string | Uint8Array, encoding: 'hex') => string;

/** The sha256 of a text or its bytes, hex: how the hooks pin the files and reviews they own. */
export function sha256(data: string | Uint8Array): string {
  const c = crypto();
  const oneShot = (c as { hash?: OneShot }).hash;
  return oneShot ? oneShot('sha256', data, 'hex') : c.createHash('sha256').update(data).digest('hex');
}

/** `bytes` random bytes as hex: unique names for temporary files and lock tickets. */
export const randomHex = (bytes: number): string => crypto().randomBytes(bytes).toString('hex');
