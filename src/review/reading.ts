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
import type { IdentityKey } from './fingerprint';
import type { Grounding } from './grounding';
import type { ParsedReview } from './reviewer-output';

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
}

const READING_VERSION = 2;

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
  const text = JSON.stringify({ version: READING_VERSION, digest, review: reading.review, rows: reading.rows });
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
    const data = JSON.parse(text) as { version?: unknown; digest?: unknown; review?: Partial<ValidReview> | null; rows?: unknown };
    const { review, rows } = data;
    if (data.version !== READING_VERSION || data.digest !== digest || !Array.isArray(rows) || review?.ok !== true || !Array.isArray(review.issues)) return null;
    const reading = { review: review as ValidReview, rows: rows as ReadingRow[] };
    return coversReview(reading) ? reading : null;
  } catch {
    return null;
  }
}

/** One row per finding of the review: only such a reading stands for its review. */
export const coversReview = (reading: ReviewReading): boolean => reading.rows.length === reading.review.issues.length;
