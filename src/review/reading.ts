/**
 * How a reviewer's stop read its review: the review as validated, and each finding's grounding and
 * identity, in the review's order. The stop works them out to accept the review and to warn a reviewer
 * whose findings miss; the hooks keep them beside the frozen review, so the round's verdict neither
 * validates nor grounds every review a second time. Pure.
 *
 * A reading is the hooks' own data, pinned by its digest in the state (ReviewerRun.reading), like the
 * frozen review it belongs to: it is not validated again, only matched to that review and to this
 * format's version. Anything else (missing, another version, another review, rows that do not cover the
 * review's findings) is no reading, and the verdict works it out from the frozen text.
 */
import { fingerprintOf, type IdentityKey } from './fingerprint';
import type { Grounding, Reading } from './grounding';
import type { Finding, ParsedReview } from '../protocol/reviewer-output';

export interface ReadingRow {
  grounding: Grounding;
  key: IdentityKey;
}
export type ValidReview = Extract<ParsedReview, { ok: true }>;
export interface ReviewReading {
  /** The review as its stop validated it. */
  review: ValidReview;
  /** One per finding of the review. */
  rows: ReadingRow[];
  /**
   * The review is its reviewer's own write (its transcript), recorded over a file someone else had
   * changed before the stop. Not derived from the review: a verdict that works the reading out again
   * (none kept, or the fifth review's held reading lost with its hook) goes without the note it gives.
   */
  replaced?: true;
}

/**
 * The format kept. Version 3 keeps each row as an array, and leaves out what its finding already says:
 * the matched text when it is the identity's text (as it is for every finding that matched), and the
 * identity's file when it is the finding's own. A round of thousands of findings reads four readings,
 * and their rows were half their size.
 */
const READING_VERSION = 3;

/**
 * A row as kept: [status, reason, line, file reading, evidence readings, matched, identity file, family,
 * identity text, fingerprint]; 1 for "the same as". The fingerprint is the identity's hash, worked out
 * by the reviewer's stop: the verdict needs one for each of the round's thousands of findings.
 */
type KeptRow = [Grounding['status'], string | null, number | null, Reading['file'], Reading['evidence'], string | null | 1, string | 1, string, string, string?];

function keptRow({ grounding: g, key }: ReadingRow, finding: Finding | undefined): KeptRow {
  return [g.status, g.reason, g.line, g.reading.file, g.reading.evidence, g.matched === key.text ? 1 : g.matched, key.file === finding?.file ? 1 : key.file, key.family, key.text, fingerprintOf(key)];
}

function readRow(row: KeptRow, finding: Finding): ReadingRow {
  const text = row[8];
  const fingerprint = row[9];
  const file = row[6] === 1 ? finding.file : row[6];
  const key: IdentityKey = typeof fingerprint === 'string' && fingerprint.length === 12 ? { file, family: row[7], text, fingerprint } : { file, family: row[7], text };
  const reading = row[3] === 'as-written' && row[4]?.length === 0 ? AS_WRITTEN : { file: row[3], evidence: row[4] };
  return { grounding: { status: row[0], reason: row[1], line: row[2], reading, matched: row[5] === 1 ? text : row[5] }, key };
}

/** The reading of nearly every finding (the path and the quote as written), one object for all of them: nothing changes a grounding. */
const AS_WRITTEN: Reading = Object.freeze({ file: 'as-written', evidence: Object.freeze([]) as unknown as [] });

/**
 * Readings this process encoded, by their text: the stop that records the fifth review reads its own
 * reading back for the verdict, and gets it without parsing it again. Equal text is the same reading.
 */
const encodedHere = new Map<string, { digest: string; reading: ReviewReading }>();

/**
 * Readings this process worked out and did not keep, by their frozen review's digest: the stop that
 * records the fifth review computes the round's verdict next, in the same process, and keeps no reading
 * of its own (a verdict computed again after that hook was killed works it out from the frozen review).
 */
const heldHere = new Map<string, ReviewReading>();

/** Holds a reading for this process only, under its frozen review's digest. */
export function holdReading(digest: string, reading: ReviewReading): void {
  if (heldHere.size >= 5) heldHere.delete(heldHere.keys().next().value!);
  heldHere.set(digest, reading);
}

/** The reading this process holds for the frozen review with this digest, or null. */
export const heldReading = (digest: string): ReviewReading | null => heldHere.get(digest) ?? null;

/** The text kept for a review's reading; `digest` is the frozen review's digest. */
export function encodeReading(digest: string, reading: ReviewReading): string {
  const issues = reading.review.issues;
  const rows = reading.rows.map((row, i) => keptRow(row, issues[i]));
  const text = JSON.stringify({ version: READING_VERSION, digest, review: reading.review, rows, ...(reading.replaced ? { replaced: true } : {}) });
  if (encodedHere.size >= 5) encodedHere.delete(encodedHere.keys().next().value!);
  encodedHere.set(text, { digest, reading });
  return text;
}

/** The reading kept for the review with this digest, or null. */
export function decodeReading(text: string | null, digest: string): ReviewReading | null {
  if (text === null) return null;
  const here = encodedHere.get(text);
  if (here) return here.digest === digest && coversReview(here.reading) ? here.reading : null;
  try {
    const data = JSON.parse(text) as { version?: unknown; digest?: unknown; review?: Partial<ValidReview> | null; rows?: unknown; replaced?: unknown };
    const { review, rows } = data;
    if (data.version !== READING_VERSION || data.digest !== digest || !Array.isArray(rows) || review?.ok !== true || !Array.isArray(review.issues)) return null;
    if (rows.length !== review.issues.length || !rows.every(Array.isArray)) return null;
    const issues = review.issues;
    return { review: review as ValidReview, rows: (rows as KeptRow[]).map((row, i) => readRow(row, issues[i]!)), ...(data.replaced === true ? { replaced: true as const } : {}) };
  } catch {
    return null;
  }
}

/** One row per finding of the review: only such a reading stands for its review. */
export const coversReview = (reading: ReviewReading): boolean => reading.rows.length === reading.review.issues.length;
