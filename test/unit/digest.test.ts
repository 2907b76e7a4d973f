/** The hooks' sha256 (a WebAssembly module for a hook's first small digests, node:crypto after) and their unique names. */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WASM_BUDGET, randomHex, sha256, sha256Wasm } from '../../src/state/digest';
import { SHA256_WASM } from '../../src/state/sha256-module';
import { moduleBytes } from '../../src/state/sha256-wasm';

const reference = (data: string | Uint8Array): string => createHash('sha256').update(data).digest('hex');

describe('the SHA-256 WebAssembly module', () => {
  it('is kept as state/sha256-wasm.ts assembles it (update SHA256_WASM in src/state/sha256-module.ts to the value below)', () => {
    expect(SHA256_WASM).toBe(Buffer.from(moduleBytes()).toString('base64'));
  });

  it("gives node:crypto's digest at every padding boundary and across memory growth", () => {
    for (const n of [0, 1, 3, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 1000, 64 * 1024 - 1024, 64 * 1024, 300_000]) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 131 + n) & 0xff);
      expect(sha256Wasm(bytes), `${n} bytes`).toBe(reference(bytes));
    }
    expect(sha256Wasm(new TextEncoder().encode('abc'))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it("gives node:crypto's digest for any bytes, one after another (no state left from the last)", () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 3000 }), { minLength: 1, maxLength: 6 }), (inputs) => {
        for (const bytes of inputs) expect(sha256Wasm(bytes)).toBe(reference(bytes));
      }),
      { numRuns: 300 },
    );
  });
});

describe('sha256', () => {
  it('a text and its UTF-8 bytes have the same digest, lone surrogates included', () => {
    for (const text of ['', 'abc', 'é→😀'.repeat(30), 'a\ud800b', '\udc00']) {
      expect(sha256(text)).toBe(reference(text));
      expect(sha256(Buffer.from(text, 'utf8'))).toBe(reference(text));
    }
  });

  it("is node:crypto's digest for any text, before and after the module's budget is spent", () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (text) => {
        expect(sha256(text)).toBe(reference(text));
      }),
      { numRuns: 2 * WASM_BUDGET.digests },
    );
    const large = 'x'.repeat(WASM_BUDGET.bytes + 1);
    expect(sha256(large)).toBe(reference(large));
  });
});

describe('randomHex', () => {
  it('gives that many bytes as hex, different each time', () => {
    const names = new Set(Array.from({ length: 200 }, () => randomHex(8)));
    expect(names.size).toBe(200);
    for (const name of names) expect(name).toMatch(/^[0-9a-f]{16}$/);
  });
});
