/** The text WebAssembly module: line starts (in place, or through its window) as node's search finds them, flat bytes as the plain loop makes them, for any bytes. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { flatten, flattenBytes } from '../../src/review/fingerprint';
import { FLATTEN_FROM, SCAN_FROM, flattenThroughWindow, lineStarts, scannableBuffer, streamedLineStarts } from '../../src/review/text-scan';
import { TEXT_WASM } from '../../src/review/text-module';
import { moduleBytes } from '../../src/review/text-wasm';
import { SourceIndex, type FileBytes } from '../../src/review/source-index';

/** The plain search the module stands in for: 0, then one past each "\n" that is not the last byte. */
function reference(bytes: Uint8Array): number[] {
  const out = [0];
  for (let i = 0; i + 1 < bytes.length; i++) if (bytes[i] === 10) out.push(i + 1);
  return out;
}
const starts = (bytes: Uint8Array, scanFrom?: number): number[] => {
  const { starts: all, count } = lineStarts(bytes, scanFrom);
  return [...all.subarray(0, count)];
};
/** The same bytes where the module scans them in place. */
function inPlace(bytes: Uint8Array): Buffer {
  const buffer = scannableBuffer(bytes.length)!;
  buffer.set(bytes);
  return buffer;
}
const WINDOW = 64 * 1024;
/** Bytes mostly of newlines and a few others, so that runs of both cross 16-byte blocks and windows. */
/**
 * Texts of any length up to maxLength, windows and blocks crossed: a generated stretch of bytes repeated
 * to that length, each repeat shifted, then mapped (fast-check's own arrays stay short by default, and
 * building one of 200,000 bytes element by element is slow).
 */
const bytesUpTo = (maxLength: number, map: (b: number) => number) =>
  fc.tuple(fc.integer({ min: 0, max: maxLength }), fc.uint8Array({ minLength: 1, maxLength: 97 })).map(([length, stretch]) => {
    const out = new Uint8Array(length);
    for (let i = 0; i < length; i++) out[i] = map((stretch[i % stretch.length]! + Math.floor(i / stretch.length)) & 0xff);
    return out;
  });
const text = (maxLength: number) => bytesUpTo(maxLength, (b) => (b < 96 ? 10 : b < 128 ? 0 : b));

describe('the line-start WebAssembly module', () => {
  it('is kept as review/text-wasm.ts assembles it (update TEXT_WASM in src/review/text-module.ts to the value below)', () => {
    expect(TEXT_WASM).toBe(Buffer.from(moduleBytes()).toString('base64'));
  });

  it('scans in place and through its window, as node searches, at every block and window edge', () => {
    for (const n of [0, 1, 15, 16, 17, 31, 32, 33, WINDOW - 1, WINDOW, WINDOW + 1, 2 * WINDOW + 17]) {
      for (const at of [0, 1, 14, 15, 16, n - 17, n - 16, n - 2, n - 1, WINDOW - 1, WINDOW, WINDOW + 15]) {
        const bytes = new Uint8Array(n).fill(97);
        if (at >= 0 && at < n) bytes[at] = 10;
        expect(starts(bytes, 0), `${n} bytes, "\\n" at ${at}, window`).toEqual(reference(bytes));
        expect(starts(inPlace(bytes), 0), `${n} bytes, "\\n" at ${at}, in place`).toEqual(reference(bytes));
      }
    }
  });

  it('a window of nothing but newlines fills its output area exactly', () => {
    const bytes = new Uint8Array(3 * WINDOW + 5).fill(10);
    expect(starts(bytes, 0)).toEqual(reference(bytes));
    expect(starts(inPlace(bytes), 0)).toEqual(reference(bytes));
  });

  it('gives node\'s answer for any bytes, one scan after another (no offsets left from the last)', () => {
    fc.assert(
      fc.property(fc.array(text(3 * WINDOW), { minLength: 1, maxLength: 3 }), (inputs) => {
        for (const bytes of inputs) {
          const expected = reference(bytes).join();
          expect(starts(bytes, 0).join()).toBe(expected);
          expect(starts(inPlace(bytes), 0).join()).toBe(expected);
        }
      }),
      { numRuns: 40 },
    );
  });

  it('a part of a buffer is scanned as itself, wherever it starts', () => {
    fc.assert(
      fc.property(text(2 * WINDOW), fc.nat(40), fc.nat(40), (bytes, before, after) => {
        const whole = new Uint8Array(before + bytes.length + after).fill(10);
        whole.set(bytes, before);
        const part = whole.subarray(before, before + bytes.length);
        const expected = reference(bytes).join();
        expect(starts(part, 0).join()).toBe(expected);
        const placed = inPlace(whole).subarray(before, before + bytes.length);
        expect(starts(placed, 0).join()).toBe(expected);
      }),
      { numRuns: 40 },
    );
  });

  it('a file of a megabyte or more is indexed by the module; its lines are where node finds them', () => {
    const line = (i: number) => `  { id: ${i}, name: "row ${i}" },\n`;
    const content = Array.from({ length: 40_000 }, (_, i) => line(i)).join('');
    expect(content.length).toBeGreaterThan(SCAN_FROM);
    for (const bytes of [Buffer.from(content), inPlace(Buffer.from(content))]) {
      const index = new SourceIndex(bytes);
      expect(index.lineCount).toBe(40_000);
      expect(index.raw(39_999, 39_999).toString()).toBe(line(39_998));
      expect(index.lineOf(content.indexOf('id: 12345,'))).toBe(12_346);
    }
  });
});

describe('flat bytes through the module', () => {
  /** The plain loop the module stands in for (fingerprint.ts's, without the module). */
  function plain(bytes: Uint8Array): { flat: number[]; starts: number[] } {
    const flat: number[] = [];
    const starts: number[] = [];
    for (const b of bytes) {
      if (b === 9 || b === 10 || b === 11 || b === 12 || b === 13 || b === 32) {
        if (b === 10) starts.push(flat.length);
      } else flat.push(b === 34 || b === 96 ? 39 : b >= 65 && b <= 90 ? b + 32 : b);
    }
    return { flat, starts };
  }
  const viaModule = (bytes: Uint8Array) => {
    const starts: number[] = [];
    const flat = flattenBytes(bytes, starts);
    return { flat: [...flat], starts };
  };
  const code = bytesUpTo(3 * WINDOW, (b) => [10, 32, 9, 13, 34, 96, 39, 65, 90, 97, 0xc3, 0xa9, b][b % 13]!);

  it('gives the plain loop\'s bytes and line starts for any bytes, across windows, one text after another', () => {
    fc.assert(
      fc.property(fc.array(code, { minLength: 1, maxLength: 3 }), (inputs) => {
        for (const bytes of inputs) {
          const [got, want] = [viaModule(bytes), plain(bytes)];
          expect(Buffer.from(got.flat).equals(Buffer.from(want.flat))).toBe(true);
          expect(got.starts.join()).toBe(want.starts.join());
        }
      }),
      { numRuns: 40 },
    );
  });

  it('runs for texts of FLATTEN_FROM bytes or more, and gives flatten()\'s answer for text', () => {
    const text = 'const Total = items.reduce((sum, item) => sum + item.price, 0); // "Sum" of `all`\n'.repeat(3);
    expect(text.length).toBeGreaterThanOrEqual(FLATTEN_FROM);
    const starts: number[] = [];
    const flat = flattenThroughWindow(Buffer.from(text), new Uint8Array(plainTable()), starts);
    expect(flat?.toString()).toBe(flatten(text));
    expect(starts).toEqual([flatten(text).length / 3, (2 * flatten(text).length) / 3, flatten(text).length]);
    expect(flattenThroughWindow(Buffer.from('short'), new Uint8Array(plainTable()))).toBeNull();
  });

  /** The flat table, built here from its rule (not taken from fingerprint.ts). */
  function plainTable(): number[] {
    return Array.from({ length: 256 }, (_, b) => ([9, 10, 11, 12, 13, 32].includes(b) ? 0 : b === 34 || b === 96 ? 39 : b >= 65 && b <= 90 ? b + 32 : b));
  }
});

describe('a file too large to hold, read on demand', () => {
  /** FileBytes over these bytes, read back in pieces of at most `piece` bytes (short reads, as a file may give). */
  function onDemand(bytes: Uint8Array, piece: number): FileBytes {
    const read = (into: Uint8Array, position: number): number => {
      const n = Math.max(0, Math.min(into.length, piece, bytes.length - position));
      into.set(bytes.subarray(position, position + n));
      return n;
    };
    const lines = streamedLineStarts(read, bytes.length);
    return { length: lines.length, lineStarts: () => lines, range: (from, to) => Buffer.from(bytes.subarray(from, to)) };
  }
  const code = bytesUpTo(3 * WINDOW, (b) => (b < 40 ? 10 : b));

  it('is indexed as the same bytes held whole: its lines, their ranges, and the line of any offset', () => {
    fc.assert(
      fc.property(code, fc.integer({ min: 1, max: 2 * WINDOW }), (bytes, piece) => {
        const held = new SourceIndex(bytes);
        const read = new SourceIndex(onDemand(bytes, piece));
        expect(read.lineCount).toBe(held.lineCount);
        expect(read.size).toBe(bytes.length);
        for (let line = 1; line <= held.lineCount + 1; line += Math.max(1, held.lineCount >> 4)) {
          expect(read.lineStart(line)).toBe(held.lineStart(line));
          expect(read.raw(line, line + 3).equals(held.raw(line, line + 3))).toBe(true);
          expect(read.flat(line, line + 3).bytes.equals(held.flat(line, line + 3).bytes)).toBe(true);
        }
        for (let offset = 0; offset < bytes.length; offset += Math.max(1, bytes.length >> 4)) expect(read.lineOf(offset)).toBe(held.lineOf(offset));
        expect(read.flatAll().bytes.equals(held.flatAll().bytes)).toBe(true);
      }),
      { numRuns: 40 },
    );
  });
});
