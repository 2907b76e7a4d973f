/** sha256 and unique names, by node:crypto. */
import { hash, randomBytes } from 'node:crypto';

/** The sha256 of a text (its UTF-8 bytes) or of bytes, hex: how the hooks pin the files and reviews they own. */
export function sha256(data: string | Uint8Array): string {
  return hash('sha256', data, 'hex');
}

/**
 * `bytes` random bytes as hex, for names that must not collide: temporary files (beside the writer's
 * pid, created with O_EXCL) and lock tickets.
 */
export function randomHex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}
