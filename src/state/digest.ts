import crypto from 'node:crypto';

// crypto.hash (node 20.12 and 21.7 on) hashes in one call, without a Hash object per digest.
const oneShot = (crypto as { hash?: (algorithm: string, data: string | Uint8Array, encoding: 'hex') => string }).hash;

/** The sha256 of a text or its bytes, hex: how the hooks pin the files and reviews they own. */
export const sha256 = (data: string | Uint8Array): string => (oneShot ? oneShot('sha256', data, 'hex') : crypto.createHash('sha256').update(data).digest('hex'));
