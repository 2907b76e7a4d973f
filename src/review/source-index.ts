/**
 * One project file as grounding searches it, built once per hook however many findings cite it: the
 * offsets of its lines, and its flat form (flattenBytes) only when a search has to cover the whole file.
 * The file is kept as bytes: a 50 MB file is never decoded, only the lines a finding looks at. Pure.
 */
import { Buffer } from 'node:buffer';
import { flattenBytes } from './fingerprint';
import { lineStarts } from './text-scan';

/** The largest i < length with starts[i] ≤ offset. */
function floorIndex(starts: ArrayLike<number>, offset: number, length = starts.length): number {
  let lo = 0;
  let hi = length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Flat bytes of a run of lines, with the flat offset at which each of those lines starts. */
export class FlatText {
  constructor(
    readonly bytes: Buffer,
    /** starts[i]: flat offset of line firstLine + i. */
    private readonly starts: readonly number[],
    readonly firstLine: number,
  ) {}

  get lastLine(): number {
    return this.firstLine + this.starts.length - 1;
  }

  /** The line (1-based, of the file) a flat offset lies on. */
  lineOf(offset: number): number {
    return this.firstLine + floorIndex(this.starts, offset);
  }

  /** Flat offset where a line starts (clamped to this run). */
  lineStart(line: number): number {
    if (line <= this.firstLine) return 0;
    if (line > this.lastLine) return this.bytes.length;
    return this.starts[line - this.firstLine]!;
  }

  /** Flat offset just past a line's end. */
  lineEnd(line: number): number {
    return this.lineStart(line + 1);
  }
}

/**
 * A file's bytes read on demand, for a file too large to hold (the shell's, through its descriptor):
 * its size, where its lines start (worked out in one pass), and any range of it.
 */
export interface FileBytes {
  readonly length: number;
  lineStarts(): { starts: Uint32Array; count: number };
  range(from: number, to: number): Buffer;
}

/** The most indentation holdsAscii looks past. */
const INDENT_LOOKED_AT = 256;

const isFileBytes = (content: string | Uint8Array | FileBytes): content is FileBytes => typeof content !== 'string' && !(content instanceof Uint8Array);

export class SourceIndex {
  /** The file's size in bytes. */
  readonly size: number;
  private readonly range: (from: number, to: number) => Buffer;
  /** The file's bytes when they are held (not read on demand). */
  private readonly bytes: Buffer | null = null;
  /** Byte offset of each line's start (the first `lines` entries); files are read up to 256 MB. */
  private readonly starts: Uint32Array;
  private readonly lines: number;
  private whole: FlatText | null = null;

  constructor(content: string | Uint8Array | FileBytes) {
    if (isFileBytes(content)) {
      this.size = content.length;
      this.range = (from, to) => content.range(from, to);
      ({ starts: this.starts, count: this.lines } = content.lineStarts());
    } else {
      const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : Buffer.from(content.buffer, content.byteOffset, content.byteLength);
      this.size = bytes.length;
      this.bytes = bytes;
      this.range = (from, to) => bytes.subarray(from, to);
      ({ starts: this.starts, count: this.lines } = lineStarts(bytes));
    }
    if (this.size === 0) this.lines = 0;
  }

  /** Lines, not counting the empty one after a final newline. */
  get lineCount(): number {
    return this.lines;
  }

  lineStart(line: number): number {
    if (line <= 1) return 0;
    if (line > this.lineCount) return this.size;
    return this.starts[line - 1]!;
  }

  lineEnd(line: number): number {
    return this.lineStart(line + 1);
  }

  lineOf(offset: number): number {
    return floorIndex(this.starts, offset, Math.max(1, this.lines)) + 1;
  }

  /**
   * Whether `text` stands on a line after its indentation (spaces and tabs), ending by byte `end`, when
   * it is all ASCII: one compare, with no bytes made of the text. false says nothing (a search decides).
   */
  holdsAscii(line: number, text: string, end: number): boolean {
    let at = this.lineStart(line);
    const stop = Math.min(end, at + text.length + INDENT_LOOKED_AT);
    const bytes = this.bytes ?? this.range(at, stop);
    const base = this.bytes ? 0 : at;
    while (at < stop && (bytes[at - base] === 32 || bytes[at - base] === 9)) at++;
    if (at + text.length > end) return false;
    // latin1 reads each byte as the character of its code: the text's own UTF-8 when it is ASCII (as long as its UTF-8).
    return bytes.toString('latin1', at - base, at - base + text.length) === text && Buffer.byteLength(text, 'utf8') === text.length;
  }

  /** The raw bytes of lines from…to (clamped to the file). */
  raw(from: number, to: number): Buffer {
    return this.range(this.lineStart(from), this.lineEnd(to));
  }

  /** The flat form of lines from…to (clamped to the file). */
  flat(from: number, to: number): FlatText {
    const first = Math.max(1, from);
    const last = Math.min(this.lineCount, to);
    if (last < first) return new FlatText(Buffer.alloc(0), [0], first);
    if (first === 1 && last === this.lineCount && this.whole) return this.whole;
    const starts = [0];
    const bytes = flattenBytes(this.raw(first, last), starts);
    return new FlatText(bytes, starts.slice(0, last - first + 1), first);
  }

  /** Whether the whole file's flat form has been built. */
  get flattened(): boolean {
    return this.whole !== null;
  }

  /** The flat form of the whole file, built on first use. */
  flatAll(): FlatText {
    this.whole ??= this.flat(1, this.lineCount);
    return this.whole;
  }
}
