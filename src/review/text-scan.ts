/**
 * Byte loops over a file's text, run by a small WebAssembly module (review/text-wasm.ts): where lines
 * start, and the flat form grounding searches. A hook's JavaScript runs mostly before V8 optimises it,
 * where such a loop costs tens of nanoseconds a byte; the module's baseline code costs a few.
 * - Line starts of any but the smallest file: in place, where the shell read a file of a megabyte or more
 *   into memory the module can address (scannableBuffer), else through a 64 KB window it is copied into.
 *   Node's own search costs a call per line, a few hundred nanoseconds each in a hook's cold code (22 ms
 *   for the 60,000 lines of 40 files here, the module 2 ms); the smallest files take it still.
 * - Line starts of a file too large to hold (streamedLineStarts): read through the window in one pass.
 * - Flat bytes of anything but the smallest text, through the window.
 * A node without WebAssembly or its SIMD runs the plain loops. Pure but for memory.
 */
import { Buffer } from 'node:buffer';
import { TEXT_WASM } from './text-module';

/** Files at least this large have their lines found by the module. */
export const SCAN_FROM = 4 * 1024;
/** Files at least this large are read into memory the module scans in place (scannableBuffer). */
export const IN_PLACE_FROM = 1 << 20;
/** Texts at least this long are flattened by the module. */
export const FLATTEN_FROM = 128;
/** Bytes per call: its offsets (at most one per byte) fill the output area at most. */
const WINDOW = 64 * 1024;
const PAGE = 64 * 1024;

interface Instance {
  scan: (from: number, to: number, out: number, delta: number) => number;
  flatten: (src: number, length: number, dst: number, starts: number, base: number) => [number, number];
  memory: WebAssembly.Memory;
  /** Where the text is (the file itself in place; the window's copy). */
  dataAt: number;
  /** The window's flat output (WINDOW bytes). */
  dstAt: number;
  /** Where offsets are written (WINDOW words). */
  outAt: number;
}

let compiled: WebAssembly.Module | null | undefined;
/** The instance over each memory the shell read a file into, by that memory's buffer. */
const inPlace = new WeakMap<ArrayBufferLike, Instance>();
let window: Instance | null | undefined;
let windowTable: Uint8Array | null = null;

/** An instance over fresh memory: `before` bytes, `data` bytes (and the 16 a block read past them may cover), `dst` bytes, then the offsets. */
function instantiate(before: number, data: number, dst: number): Instance | null {
  try {
    compiled ??= new WebAssembly.Module(Buffer.from(TEXT_WASM, 'base64'));
    const dataAt = before;
    const dstAt = Math.ceil((dataAt + data + 16) / 16) * 16;
    const outAt = dstAt + dst;
    const memory = new WebAssembly.Memory({ initial: Math.ceil((outAt + WINDOW * 4) / PAGE) });
    const { scan, flatten } = new WebAssembly.Instance(compiled, { env: { memory } }).exports as unknown as Pick<Instance, 'scan' | 'flatten'>;
    return { scan, flatten, memory, dataAt, dstAt, outAt };
  } catch {
    // No WebAssembly, no SIMD, or no memory to be had: the plain loops do it.
    compiled ??= null;
    return null;
  }
}

/** The window: the flat table at 0, then a WINDOW of text, its flat form, and the offsets. */
const theWindow = (): Instance | null => (window ??= instantiate(256, WINDOW, WINDOW));

/**
 * A zeroed buffer of `size` bytes that the module scans where it lies, for the shell to read a large
 * file into; null when there is none to be had (then any buffer does).
 */
export function scannableBuffer(size: number): Buffer | null {
  if (compiled === null) return null;
  const instance = instantiate(0, size, 0);
  if (!instance) return null;
  inPlace.set(instance.memory.buffer, instance);
  return Buffer.from(instance.memory.buffer, 0, size);
}

/** The offsets at which lines start: starts[0] = 0, then one past each "\n" that is not the last byte; `count` of them. */
export function lineStarts(bytes: Uint8Array, scanFrom = SCAN_FROM): { starts: Uint32Array; count: number } {
  const length = bytes.length;
  const out = { starts: new Uint32Array(Math.max(16, length >> 6)), count: 1 };
  const own = inPlace.get(bytes.buffer);
  const instance = length < scanFrom ? null : (own ?? theWindow());
  if (!instance) {
    const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, length);
    for (let p = buffer.indexOf(10); p >= 0 && p + 1 < length; p = buffer.indexOf(10, p + 1)) push(out, p + 1);
    return out;
  }
  const offsets = new Uint32Array(instance.memory.buffer, instance.outAt, WINDOW);
  const memory = new Uint8Array(instance.memory.buffer);
  const base = bytes.byteOffset;
  for (let at = 0; at < length; at += WINDOW) {
    const to = Math.min(length, at + WINDOW);
    let found: number;
    if (instance === own) {
      found = instance.scan(base + at, base + to, instance.outAt, -base);
    } else {
      memory.set(bytes.subarray(at, to), instance.dataAt);
      found = instance.scan(instance.dataAt, instance.dataAt + to - at, instance.outAt, at - instance.dataAt);
    }
    append(out, offsets, found);
  }
  // The last block may run past the end and see a "\n" there; and a "\n" that ends the file starts no line.
  while (out.count > 1 && out.starts[out.count - 1]! >= length) out.count--;
  return out;
}

/**
 * lineStarts of a file read through the window, never held whole: `read(into, position)` fills `into`
 * from the file's `position` and returns how many bytes it read (0 at the end). `length` is how many
 * bytes the pass saw.
 */
export function streamedLineStarts(read: (into: Uint8Array, position: number) => number, size: number): { starts: Uint32Array; count: number; length: number } {
  const out = { starts: new Uint32Array(Math.max(16, size >> 6)), count: 1 };
  const instance = theWindow();
  const chunk = instance ? new Uint8Array(instance.memory.buffer, instance.dataAt, WINDOW) : Buffer.allocUnsafe(WINDOW);
  const offsets = instance ? new Uint32Array(instance.memory.buffer, instance.outAt, WINDOW) : null;
  let at = 0;
  for (let n = read(chunk, at); n > 0; at += n, n = read(chunk, at)) {
    if (instance) {
      // The block read past a short chunk's end sees zeros, not the last chunk's bytes.
      new Uint8Array(instance.memory.buffer).fill(0, instance.dataAt + n, instance.dataAt + n + 16);
      append(out, offsets!, instance.scan(instance.dataAt, instance.dataAt + n, instance.outAt, at - instance.dataAt));
    } else {
      const buffer = chunk as Buffer;
      for (let p = buffer.indexOf(10); p >= 0 && p < n; p = buffer.indexOf(10, p + 1)) push(out, at + p + 1);
    }
  }
  while (out.count > 1 && out.starts[out.count - 1]! >= at) out.count--;
  return { ...out, length: at };
}

/**
 * Each byte through `table` (0 drops it), and for each "\n" the flat offset reached pushed on
 * `lineStarts`: flattenBytes by the module, or null when it is not to be had (or the text is short).
 */
export function flattenThroughWindow(bytes: Uint8Array, table: Uint8Array, lineStarts?: number[]): Buffer | null {
  if (bytes.length < FLATTEN_FROM) return null;
  const instance = theWindow();
  if (!instance) return null;
  const memory = new Uint8Array(instance.memory.buffer);
  if (windowTable !== table) {
    memory.set(table, 0);
    windowTable = table;
  }
  const offsets = new Uint32Array(instance.memory.buffer, instance.outAt, WINDOW);
  const flat = Buffer.allocUnsafe(bytes.length);
  let o = 0;
  for (let at = 0; at < bytes.length; at += WINDOW) {
    const to = Math.min(bytes.length, at + WINDOW);
    memory.set(bytes.subarray(at, to), instance.dataAt);
    const [written, starts] = instance.flatten(instance.dataAt, to - at, instance.dstAt, instance.outAt, o);
    flat.set(memory.subarray(instance.dstAt, instance.dstAt + written), o);
    if (lineStarts) for (let k = 0; k < starts; k++) lineStarts.push(offsets[k]!);
    o += written;
  }
  return flat.subarray(0, o);
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
