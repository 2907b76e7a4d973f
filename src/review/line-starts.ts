/**
 * Where a file's lines start. A file of a megabyte or more is scanned 16 bytes at a time by a small
 * WebAssembly module (review/newline-wasm.ts): where the shell read it into memory the module can
 * address (scannableBuffer), in place; otherwise through a 64 KB window it is copied into. Smaller files,
 * and any node without WebAssembly's SIMD, take node's own search, a call per line (about 50 ns a line
 * here, 35 ms for a 50 MB file of short lines; the module takes about 7 ms). Pure but for memory.
 */
import { Buffer } from 'node:buffer';
import { NEWLINE_WASM } from './newline-module';

/** Files at least this large are scanned by the module. */
export const SCAN_FROM = 1 << 20;
/** Bytes per scan call: its offsets (at most one per byte) fill the output area at most. */
const WINDOW = 64 * 1024;
const PAGE = 64 * 1024;

interface Scanner {
  scan: (from: number, to: number, out: number, delta: number) => number;
  memory: WebAssembly.Memory;
  /** Where scan writes its offsets (WINDOW words). */
  outAt: number;
}

let compiled: WebAssembly.Module | null | undefined;
/** The scanner of each memory the shell read a file into, by that memory's buffer. */
const inPlace = new WeakMap<ArrayBufferLike, Scanner>();
let window: Scanner | null | undefined;

function scannerOver(bytes: number): Scanner | null {
  try {
    compiled ??= new WebAssembly.Module(Buffer.from(NEWLINE_WASM, 'base64'));
    // The data, then (past the 16 bytes a block read past its end may cover) the output area.
    const outAt = Math.ceil((bytes + 16) / 16) * 16;
    const memory = new WebAssembly.Memory({ initial: Math.ceil((outAt + WINDOW * 4) / PAGE) });
    const { scan } = new WebAssembly.Instance(compiled, { env: { memory } }).exports as unknown as Pick<Scanner, 'scan'>;
    return { scan, memory, outAt };
  } catch {
    // No WebAssembly, no SIMD, or no memory to be had: node's search does it.
    compiled ??= null;
    return null;
  }
}

/**
 * A zeroed buffer of `size` bytes that the module scans where it lies, for the shell to read a large
 * file into; null when there is none to be had (then any buffer does).
 */
export function scannableBuffer(size: number): Buffer | null {
  if (compiled === null) return null;
  const scanner = scannerOver(size);
  if (!scanner) return null;
  inPlace.set(scanner.memory.buffer, scanner);
  return Buffer.from(scanner.memory.buffer, 0, size);
}

/** The offsets at which lines start: starts[0] = 0, then one past each "\n" that is not the last byte; `count` of them. */
export function lineStarts(bytes: Uint8Array, scanFrom = SCAN_FROM): { starts: Uint32Array; count: number } {
  const length = bytes.length;
  const out = { starts: new Uint32Array(Math.max(16, length >> 6)), count: 1 };
  const own = inPlace.get(bytes.buffer);
  const scanner = length < scanFrom ? null : (own ?? (window ??= scannerOver(WINDOW)));
  if (!scanner) {
    const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, length);
    for (let p = buffer.indexOf(10); p >= 0 && p + 1 < length; p = buffer.indexOf(10, p + 1)) push(out, p + 1);
    return out;
  }
  const offsets = new Uint32Array(scanner.memory.buffer, scanner.outAt, WINDOW);
  const memory = new Uint8Array(scanner.memory.buffer);
  const base = bytes.byteOffset;
  for (let at = 0; at < length; at += WINDOW) {
    const to = Math.min(length, at + WINDOW);
    let found: number;
    if (scanner === own) {
      found = scanner.scan(base + at, base + to, scanner.outAt, -base);
    } else {
      memory.set(bytes.subarray(at, to), 0);
      found = scanner.scan(0, to - at, scanner.outAt, at);
    }
    append(out, offsets, found);
  }
  // The last block may run past the end and see a "\n" there; and a "\n" that ends the file starts no line.
  while (out.count > 1 && out.starts[out.count - 1]! >= length) out.count--;
  return out;
}

function push(out: { starts: Uint32Array; count: number }, start: number): void {
  if (out.count === out.starts.length) grow(out, out.count + 1);
  out.starts[out.count++] = start;
}

function append(out: { starts: Uint32Array; count: number }, offsets: Uint32Array, found: number): void {
  if (out.count + found > out.starts.length) grow(out, out.count + found);
  out.starts.set(offsets.subarray(0, found), out.count);
  out.count += found;
}

/** A typed array grown by doubling: a 50 MB file has about a million lines. */
function grow(out: { starts: Uint32Array; count: number }, needed: number): void {
  let size = out.starts.length * 2;
  while (size < needed) size *= 2;
  const grown = new Uint32Array(size);
  grown.set(out.starts.subarray(0, out.count));
  out.starts = grown;
}
