/** The hooks' sha256 (node:crypto, loaded on first use) and their unique names. */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { randomHex, sha256 } from '../../src/state/digest';

const reference = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

describe('sha256', () => {
  it('a text and its UTF-8 bytes have the same digest', () => {
    for (const text of ['', 'abc', 'é→😀'.repeat(30), 'a\ud800b']) {
      expect(sha256(text)).toBe(reference(text));
      expect(sha256(Buffer.from(text, 'utf8'))).toBe(reference(text));
    }
    expect(sha256('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

describe('randomHex', () => {
  it('gives that many bytes as hex, different each time', () => {
    const names = new Set(Array.from({ length: 200 }, () => randomHex(8)));
    expect(names.size).toBe(200);
    for (const name of names) expect(name).toMatch(/^[0-9a-f]{16}$/);
  });
});
