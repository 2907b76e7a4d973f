/**
 * Finding identity: a fingerprint that survives line shifts and rewording, built from the file, the
 * normalised category and the normalised evidence (or the code around the cited line). Pure.
 */
import { createHash } from 'node:crypto';

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

export function normaliseCategory(category: string): string {
  const flat = category.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
  for (const [family, pattern] of FAMILIES) if (pattern.test(flat)) return family;
  return flat || 'other';
}

/** Strips the Read tool's line-number gutter ("  12→", "12:", "12|") from quoted code. */
export function stripGutter(text: string): string {
  return text
    .split(/\r?\n/)
    .map((line) => line.replace(/^\s*\d+\s*(?:→|\||:(?!:)|\t)\s?/, ''))
    .join('\n');
}

/** Whitespace-, quote- and case-insensitive form of code as it stands in a file. */
export const flatten = (text: string): string => text.replace(/\s+/g, '').replace(/["'`]/g, "'").toLowerCase();

/** The same form of quoted evidence, without the fences and line-number gutter a reviewer may copy. */
export function normaliseCode(text: string): string {
  return flatten(stripGutter(text.replace(/^\s*```[a-z]*\s*|\s*```\s*$/gi, '')));
}

export const normaliseFile = (file: string): string => file.trim().replace(/\\/g, '/').replace(/^(\.\/)+/, '').replace(/\/{2,}/g, '/');

export interface IdentityKey {
  file: string;
  family: string;
  /** Normalised evidence; the code around the cited line when the evidence is empty. */
  text: string;
}

export function fingerprintOf(key: IdentityKey): string {
  return createHash('sha256').update(`${key.file}\0${key.family}\0${key.text}`).digest('hex').slice(0, 12);
}

/** Evidence shorter than this never matches by containment (too generic: "return x;"). */
export const MIN_CONTAINED = 16;

/** Same defect: same file and family, and the same evidence, or one quoting a longer stretch of the other. */
export function sameDefect(a: IdentityKey, b: IdentityKey): boolean {
  if (a.file !== b.file || a.family !== b.family) return false;
  if (a.text === b.text) return true;
  const [short, long] = a.text.length <= b.text.length ? [a.text, b.text] : [b.text, a.text];
  return short.length >= MIN_CONTAINED && long.includes(short);
}
