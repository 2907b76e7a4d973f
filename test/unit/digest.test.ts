/**
 * The hooks' sha256 (WebAssembly, src/state/sha256-wasm.ts) against node:crypto, and its bytes against
 * the assembler that makes them.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BINARY_FILE, renderSha256Binary } from '../../scripts/sha256-wasm';
import { WASM_MAX_BYTES, randomHex, sha256 } from '../../src/state/digest';
import { sha256Wasm } from '../../src/state/sha256-wasm';

const reference = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

describe('sha256', () => {
  it('is the WebAssembly one here (node:crypto is only the fallback)', () => {
    expect(sha256Wasm(Buffer.from('abc'))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it.each([
    ['the empty text', ''],
    ['FIPS 180-4 "abc"', 'abc'],
    ['two blocks (FIPS 180-4)', 'abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq'],
    ['55 bytes (the length fits the block)', 'x'.repeat(55)],
    ['56 bytes (the length takes a block of its own)', 'x'.repeat(56)],
    ['63 bytes', 'x'.repeat(63)],
    ['64 bytes', 'x'.repeat(64)],
    ['65 bytes', 'x'.repeat(65)],
    ['one whole chunk of the memory page', 'y'.repeat(64512)],
    ['a chunk and a partial block', 'y'.repeat(64512 + 7)],
    ['several chunks', 'z'.repeat(3 * 64512 + 100)],
    [`${WASM_MAX_BYTES} bytes (the last in WebAssembly)`, 'w'.repeat(WASM_MAX_BYTES)],
    [`${WASM_MAX_BYTES + 1} bytes (the first in node:crypto)`, 'w'.repeat(WASM_MAX_BYTES + 1)],
    ['multi-byte UTF-8', 'é→😀'.repeat(700)],
    ['a lone surrogate (encoded as U+FFFD)', 'a\ud800b'],
  ])('%s: the same digest as node:crypto', (_, text) => {
    expect(sha256(text)).toBe(reference(text));
    // Big texts go to node:crypto in sha256(); the WebAssembly one is checked on them too.
    expect(sha256Wasm(Buffer.from(text, 'utf8'))).toBe(reference(text));
  });

  it('any text: the same digest as node:crypto', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary', maxLength: 300 }), fc.string({ unit: 'grapheme', maxLength: 200 }), fc.string({ maxLength: 2000 })), (text) => {
        expect(sha256(text)).toBe(reference(text));
      }),
      { numRuns: 500 },
    );
  });

  it('bytes hash as the text they encode', () => {
    for (const text of ['', 'abc', 'é→😀'.repeat(30), 'w'.repeat(WASM_MAX_BYTES + 5)]) expect(sha256(Buffer.from(text, 'utf8'))).toBe(reference(text));
  });

  it('texts of every length around the block edges', () => {
    for (let n = 0; n <= 260; n++) expect(sha256('q'.repeat(n)), `length ${n}`).toBe(reference('q'.repeat(n)));
  });
});

describe('randomHex', () => {
  it('gives that many bytes as hex, different each time', () => {
    const names = new Set(Array.from({ length: 200 }, () => randomHex(8)));
    expect(names.size).toBe(200);
    for (const name of names) expect(name).toMatch(/^[0-9a-f]{16}$/);
  });
});

describe('the WebAssembly bytes', () => {
  it(`${BINARY_FILE} is what scripts/sha256-wasm.ts assembles (run \`npx tsx scripts/sha256-wasm.ts\` after changing it)`, () => {
    expect(fs.readFileSync(path.join(__dirname, '../..', BINARY_FILE), 'utf8')).toBe(renderSha256Binary());
  });
});
