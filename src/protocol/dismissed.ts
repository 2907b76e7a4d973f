/**
 * `.minions/dismissed.json`: the findings the user has judged wrong, each by its fingerprint and the
 * code its evidence grounded to when it was dismissed. The user's file, meant to be committed; written
 * by `minions dismiss`, read by every round's verdict. A dismissal holds while a later finding has the
 * same fingerprint and still grounds to the same code (review/aggregate.ts).
 */
import * as z from 'zod/mini';
import { described, describeZodError } from './zod';

export const DISMISSED_DIR = '.minions';
export const DISMISSED_FILE = `${DISMISSED_DIR}/dismissed.json`;
/** A larger file is not read (it is reported, not truncated): far more than a project dismisses. */
export const MAX_DISMISSED_BYTES = 1024 * 1024;
export const MAX_DISMISSALS = 5_000;
export const MAX_REASON = 2_000;

export const FINGERPRINT = /^[0-9a-f]{12}$/;

export const Dismissal = z.lazy(() =>
  z.object({
    fingerprint: described(z.string().check(z.regex(FINGERPRINT, 'a fingerprint is 12 lower-case hex digits')), "the finding's fingerprint, as the verdicts and reports show it"),
    reason: described(z.string().check(z.minLength(1), z.maxLength(MAX_REASON)), 'why the finding is wrong (shown in REVIEW.md, REPORT.md and SARIF)'),
    file: z.string().check(z.maxLength(4096)),
    category: z.string().check(z.maxLength(200)),
    identity: described(z.string().check(z.maxLength(100_000)), 'the normalised code the evidence grounded to: the dismissal holds while a finding still grounds to it'),
    description: z.string().check(z.maxLength(4_000)),
    dismissedAt: z.string().check(z.maxLength(64)),
  }),
);
export type Dismissal = z.infer<typeof Dismissal>;

export const DismissedFile = z.lazy(() =>
  z.object({
    version: z.literal(1),
    dismissed: z.array(Dismissal).check(z.maxLength(MAX_DISMISSALS)),
  }),
);
export type DismissedFile = z.infer<typeof DismissedFile>;

export type DismissedRead = { ok: true; dismissed: Dismissal[] } | { ok: false; problem: string };

/** The file's text, read: its dismissals, or what is wrong with it (a sentence). Never throws. */
export function parseDismissed(text: string): DismissedRead {
  if (text.length > MAX_DISMISSED_BYTES) return { ok: false, problem: `it is larger than ${MAX_DISMISSED_BYTES / 1024} KB` };
  let data: unknown;
  try {
    data = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (err) {
    return { ok: false, problem: `it is not valid JSON (${(err as Error).message.replace(/\s+/g, ' ').slice(0, 200)})` };
  }
  const parsed = DismissedFile.safeParse(data);
  if (!parsed.success) return { ok: false, problem: describeZodError(parsed.error) };
  const fingerprints = new Set<string>();
  for (const d of parsed.data.dismissed) {
    if (fingerprints.has(d.fingerprint)) return { ok: false, problem: `the fingerprint ${d.fingerprint} is dismissed twice` };
    fingerprints.add(d.fingerprint);
  }
  return { ok: true, dismissed: parsed.data.dismissed };
}

/** The file's text for a list of dismissals: one per line pair, sorted by fingerprint (a stable diff). */
export function dismissedText(dismissed: readonly Dismissal[]): string {
  const sorted = [...dismissed].sort((a, b) => a.fingerprint.localeCompare(b.fingerprint));
  const file: DismissedFile = { version: 1, dismissed: sorted };
  return `${JSON.stringify(file, null, 2)}\n`;
}
