/**
 * Finding identity: a fingerprint that survives line shifts and rewording, built from the file, the
 * normalised category and the normalised evidence (or the code around the cited line). Pure.
 */
import { Buffer } from 'node:buffer';
import { sha256 } from '../state/digest';
import { flattenThroughWindow } from './text-scan';

/** Category families: reviewers name the same kind of defect differently. Checked in order. */
const FAMILIES: [family: string, pattern: RegExp][] = [
  ['security', /secur|inject|travers|xss|csrf|ssrf|secret|credential|auth|crypt|sanit|escap|redos|deserial|taint|privilege|permission|vuln/],
  ['correctness', /logic|bug|correct|off.?by.?one|boundary|edge|wrong|race|concurren|overflow|crash|behaviou?r|regression|contract|spec|unit|build|compil/],
  ['testing', /test|coverage|assert|fixture|flaky|mock/],
  ['types', /type|cast|null|undefined|any\b/],
  ['error-handling', /error|exception|swallow|silent|catch|fallback|ignored|unhandled|reject|failure|retry|panic/],
  ['performance', /perf|slow|quadratic|alloc|memory|leak|latency|cache/],
  ['docs', /doc|comment|readme|typo|spelling/],
  ['naming', /nam|style|format|lint|convention|readab|consisten/],
  ['design', /design|architect|complex|duplicat|dead|unused|coupling|abstraction|scope|refactor/],
];

const families = new Map<string, string>();
export function normaliseCategory(category: string): string {
  let family = families.get(category);
  if (family === undefined) {
    const flat = category.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
    family = FAMILIES.find(([, pattern]) => pattern.test(flat))?.[0] ?? (flat || 'other');
    if (families.size < 10_000) families.set(category, family);
  }
  return family;
}

/** Strips the Read tool's line-number gutter ("  12→", "12:", "12|") from quoted code. */
export function stripGutter(text: string): string {
  if (!/^\s*\d/m.test(text)) return text;
  return text
    .split(/\r?\n/)
    .map((line) => line.replace(/^\s*\d+\s*(?:\u2192|\||:(?!:)|\t)\s?/, ''))
    .join('\n');
}

/**
 * Whitespace-, quote- and case-insensitive form of code as it stands in a file: ASCII whitespace dropped,
 * every quote character read as ', ASCII letters lower-cased. flattenBytes() is the same on UTF-8 bytes.
 */
export function flatten(text: string): string {
  // Each step only when it changes something: this runs for every quote of every finding.
  let flat = text.replace(/[\t\n\v\f\r ]+/g, '');
  if (/["`]/.test(flat)) flat = flat.replace(/["`]/g, "'");
  if (/[A-Z]/.test(flat)) flat = /^[\x00-\x7f]*$/.test(flat) ? flat.toLowerCase() : flat.replace(/[A-Z]+/g, (upper) => upper.toLowerCase());
  return flat;
}

/** byte → its flat byte; 0 drops it. */
const FLAT_BYTE = (() => {
  const table = new Uint8Array(256);
  for (let b = 0; b < 256; b++) table[b] = b;
  for (const b of [9, 10, 11, 12, 13, 32]) table[b] = 0;
  for (const b of [34, 39, 96]) table[b] = 39;
  for (let b = 65; b <= 90; b++) table[b] = b + 32;
  return table;
})();

/**
 * flatten() over UTF-8 bytes, for searching whole files without decoding them. `lineStarts`, when given,
 * receives the flat offset at which each line after the first begins. Run by a WebAssembly module
 * (review/text-scan.ts) for all but the shortest texts; this loop where there is none.
 */
export function flattenBytes(bytes: Uint8Array, lineStarts?: number[]): Buffer {
  const flat = flattenThroughWindow(bytes, FLAT_BYTE, lineStarts);
  if (flat) return flat;
  const out = Buffer.allocUnsafe(bytes.length);
  let o = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    const flat = FLAT_BYTE[b]!;
    if (flat !== 0) out[o++] = flat;
    else if (b === 10 && lineStarts) lineStarts.push(o);
  }
  return out.subarray(0, o);
}

/** Strips the Markdown code fence a reviewer may wrap a quote in. */
export const stripFences = (text: string): string => (!text.includes('```') ? text : text.replace(/^\s*```[a-z]*\s*|\s*```\s*$/gi, ''));

/** The same form of quoted evidence, without the fences and line-number gutter a reviewer may copy. */
export function normaliseCode(text: string): string {
  return flatten(stripGutter(stripFences(text)));
}

const files = new Map<string, string>();
export function normaliseFile(file: string): string {
  let normal = files.get(file);
  if (normal === undefined) {
    normal = file.trim().replace(/\\/g, '/').replace(/^(\.\/)+/, '').replace(/\/{2,}/g, '/');
    if (files.size < 100_000) files.set(file, normal);
  }
  return normal;
}

export interface IdentityKey {
  file: string;
  family: string;
  /** Normalised evidence; the code around the cited line when the evidence is empty. */
  text: string;
  /**
   * The key's fingerprint as an earlier hook worked it out (a reviewer's reading keeps its findings'):
   * the verdict needs one for each of a round's thousands of findings. Carried on the key itself, since
   * a side table (a WeakMap) of 8,000 keys cost the fifth stop more than the hashing it saved.
   */
  fingerprint?: string;
}

export function fingerprintOf(key: IdentityKey): string {
  return key.fingerprint ?? sha256(`${key.file}\0${key.family}\0${key.text}`).slice(0, 12);
}

/** Evidence shorter than this never matches by containment (too generic: "return x;"). */
export const MIN_CONTAINED = 16;

/**
 * Same defect: same file and family, and the same evidence, or one quoting a longer stretch of the other.
 * The pairwise rule; clusters.ts applies it through an index (and keeps a broad quote out of it).
 */
export function sameDefect(a: IdentityKey, b: IdentityKey): boolean {
  if (a.file !== b.file || a.family !== b.family) return false;
  if (a.text === b.text) return true;
  const [short, long] = a.text.length <= b.text.length ? [a.text, b.text] : [b.text, a.text];
  return short.length >= MIN_CONTAINED && long.includes(short);
}
