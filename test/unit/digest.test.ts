/** The hooks' sha256 (node:crypto) and their unique names (without it). */
import fs from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fingerprintOf } from '../../src/review/fingerprint';
import { STATE_SHAPE } from '../../src/state/schema';
import { sha256 } from '../../src/state/digest';
import { uniqueHex } from '../../src/shell/files';

describe('sha256', () => {
  // FIPS 180-4's examples and NIST's short-message vectors.
  it.each([
    ['', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
    ['abc', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
    ['abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq', '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1'],
    ['a'.repeat(1_000_000), 'cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0'],
  ])('the known digest of %#', (text, digest) => {
    expect(sha256(text)).toBe(digest);
    expect(sha256(Buffer.from(text, 'utf8'))).toBe(digest);
  });

  it('a text and its UTF-8 bytes have the same digest, lone surrogates included', () => {
    // A lone surrogate is encoded as U+FFFD (EF BF BD), as Buffer.from encodes it.
    expect(sha256('a\ud800b')).toBe(sha256(Uint8Array.from([0x61, 0xef, 0xbf, 0xbd, 0x62])));
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (text) => {
        expect(sha256(text)).toBe(sha256(Buffer.from(text, 'utf8')));
      }),
    );
  });

  it('gives the digests the hooks stored before they used node:crypto', () => {
    // STATE_SHAPE (state/schema.ts) is the start of the sha256 of the committed schema/state.schema.json.
    expect(sha256(fs.readFileSync('schema/state.schema.json')).slice(0, 16)).toBe(STATE_SHAPE);
    // Worked out by the WebAssembly SHA-256 the hooks used before: fingerprints in verdicts already written keep their value.
    expect(fingerprintOf({ file: 'src/cart.ts', family: 'logic', text: 'for(leti=0;i<=xs.length;i++)s+=xs[i];' })).toBe('aecd8385f30f');
    expect(sha256('minions')).toBe('fce41cf0036529bd2c0d7fd9e865a0c68a675104f20b9ddc0edb1e04824fb4e2');
    expect(sha256(Buffer.from('é→😀'))).toBe('c8db7b050f434344c6e9b9d704d4f8492204576eec37adbe8966e5cd8ed3bdad');
  });
});

describe('uniqueHex', () => {
  it('gives that many bytes as hex, different each time', () => {
    const names = new Set(Array.from({ length: 2000 }, () => uniqueHex(8)));
    expect(names.size).toBe(2000);
    for (const name of names) expect(name).toMatch(/^[0-9a-f]{16}$/);
    expect(uniqueHex(2)).toMatch(/^[0-9a-f]{4}$/);
    expect(uniqueHex(0)).toBe('');
  });

  it('uses every byte value, so no digit is stuck', () => {
    const bytes = new Set(Array.from({ length: 20_000 }, () => uniqueHex(1)));
    expect(bytes.size).toBe(256);
  });
});
