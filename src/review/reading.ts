/**
 * How a reviewer's stop read its review: each finding's grounding and identity, in the review's order.
 * The stop works them out to warn a reviewer whose findings miss; the hooks keep them beside the frozen
 * review, so the round's verdict does not ground every review a second time. Pure.
 *
 * A reading is the hooks' own data, pinned by its digest in the state (ReviewerRun.reading), like the
 * frozen review it belongs to: it is not validated again, only matched to that review and to this
 * format's version. Anything else (missing, another version, another review) is no reading, and the
 * verdict works it out from the frozen text.
 */
import type { IdentityKey } from './fingerprint';
import type { Grounding } from './grounding';

export interface ReadingRow {
  grounding: Grounding;
  key: IdentityKey;
}
export interface ReviewReading {
  rows: ReadingRow[];
}

const READING_VERSION = 1;

/** The text kept for a review's reading; `review` is the frozen review's digest. */
export const encodeReading = (review: string, rows: readonly ReadingRow[]): string => JSON.stringify({ version: READING_VERSION, review, rows });

/** The reading kept for the review with this digest, or null. */
export function decodeReading(text: string | null, review: string): ReviewReading | null {
  if (text === null) return null;
  try {
    const data = JSON.parse(text) as { version?: unknown; review?: unknown; rows?: unknown };
    return data.version === READING_VERSION && data.review === review && Array.isArray(data.rows) ? { rows: data.rows as ReadingRow[] } : null;
  } catch {
    return null;
  }
}
