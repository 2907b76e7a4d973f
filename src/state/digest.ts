import { createHash } from 'node:crypto';

/** The sha256 of a text, hex: how the hooks pin the files and reviews they own. */
export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
