import * as z from 'zod';
import type { Counts } from '../state/schema';

/** One reviewer's findings: `.agents/tmp/phases/review-N/r1-<reviewer>.json`. */
export const Severity = z.enum(['critical', 'warning', 'info']);
export type Severity = z.infer<typeof Severity>;

/** Common synonyms are read as the three severities; anything else is refused with the allowed values. */
const SEVERITY_WORDS: Record<string, Severity> = {
  critical: 'critical', blocker: 'critical', high: 'critical', error: 'critical',
  warning: 'warning', warn: 'warning', medium: 'warning', major: 'warning', moderate: 'warning',
  info: 'info', low: 'info', minor: 'info', nit: 'info', suggestion: 'info', note: 'info',
};
const severity = z.preprocess((v) => (typeof v === 'string' ? (SEVERITY_WORDS[v.trim().toLowerCase()] ?? v) : v), Severity);

export const Finding = z.object({
  severity,
  category: z.string().trim().min(1, 'must name a category, e.g. "logic-error"'),
  file: z.string().trim().min(1, 'must be a path relative to the project root'),
  /** null (or absent, or 0) for a whole-file finding. */
  line: z.preprocess((v) => {
    const n = typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : v;
    return n === undefined || n === 0 ? null : n;
  }, z.number().int().positive().nullable()),
  description: z.string().trim().min(1, 'must say what is wrong'),
  evidence: z.string().default(''),
  suggestion: z.string().default(''),
});
export type Finding = z.infer<typeof Finding>;

/** From iteration 2 a reviewer may answer for earlier findings, by fingerprint. */
export const PreviousMark = z.object({
  fingerprint: z.string().min(1),
  status: z.preprocess((v) => (typeof v === 'string' ? v.trim().toUpperCase().replace(/[\s-]+/g, '_') : v), z.enum(['FIXED', 'PARTIAL', 'NOT_FIXED'])),
  note: z.string().optional(),
});
export type PreviousMark = z.infer<typeof PreviousMark>;

/** The critic's answer for an escalated finding class (escalation.json): what the failed fixes share. */
export const Diagnosis = z.object({
  class: z.string().trim().min(1, 'must name the class id from escalation.json'),
  rootCause: z.string().trim().min(1, 'must say what all the failed attempts share'),
  fix: z.string().trim().min(1, 'must name the root-level fix'),
  recommend: z.enum(['structural', 'patch']).default('structural'),
});
export type Diagnosis = z.infer<typeof Diagnosis>;

export const ReviewerOutput = z.object({
  reviewer: z.string().optional(),
  issues: z.array(Finding),
  previous: z.array(PreviousMark).default([]),
  diagnosis: z.array(Diagnosis).default([]),
  summary: z.object({
    critical: z.number().int().nonnegative().optional(),
    warning: z.number().int().nonnegative().optional(),
    info: z.number().int().nonnegative().optional(),
    verdict: z.enum(['clean', 'issues_found']),
  }),
});
export type ReviewerOutput = z.infer<typeof ReviewerOutput>;

export type ParsedReview =
  | { ok: true; issues: Finding[]; previous: PreviousMark[]; diagnosis: Diagnosis[]; counts: Counts; verdict: 'clean' | 'issues_found'; notes: string[] }
  | { ok: false; error: string };

export function countBySeverity(issues: readonly { severity: Severity }[]): Counts {
  const counts: Counts = { critical: 0, warning: 0, info: 0 };
  for (const issue of issues) counts[issue.severity] += 1;
  return counts;
}

/**
 * The last few texts validated, and their results: within one hook the fifth review is validated by
 * the reviewer's stop and again by the aggregation. Results are read, never changed, by their users.
 */
const parsed = new Map<string, ParsedReview>();

/** Validates a reviewer's JSON text. The issue list wins over the summary's counts. */
export function parseReview(text: string): ParsedReview {
  let result = parsed.get(text);
  if (!result) {
    if (parsed.size >= 8) parsed.delete(parsed.keys().next().value!);
    parsed.set(text, (result = parseReviewOnce(text)));
  }
  return result;
}

function parseReviewOnce(text: string): ParsedReview {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: `not valid JSON (${(err as Error).message})` };
  }
  const result = ReviewerOutput.safeParse(data);
  if (!result.success) return { ok: false, error: describeZodError(result.error) };
  const { issues, summary, previous, diagnosis } = result.data;
  if (summary.verdict === 'issues_found' && issues.length === 0) {
    return { ok: false, error: 'summary.verdict is "issues_found" but issues[] is empty: list every issue, or set the verdict to "clean"' };
  }
  const counts = countBySeverity(issues);
  const notes: string[] = [];
  if (summary.verdict === 'clean' && issues.length > 0) {
    notes.push(`summary said "clean" with ${issues.length} issue(s) listed; counted as issues_found`);
  }
  for (const key of ['critical', 'warning', 'info'] as const) {
    const said = summary[key];
    if (said !== undefined && said !== counts[key]) notes.push(`summary.${key} said ${said}, the list has ${counts[key]}`);
  }
  return { ok: true, issues, previous, diagnosis, counts, verdict: issues.length > 0 ? 'issues_found' : 'clean', notes };
}

/** The JSON a reviewer put in its final message: the last ```json fence, else the whole message. */
export function extractJsonFromMessage(message: string | null | undefined): string | null {
  if (!message) return null;
  const fences = [...message.matchAll(/```(?:json|JSON)?[ \t]*\r?\n([\s\S]*?)```/g)];
  for (let i = fences.length - 1; i >= 0; i--) {
    const body = fences[i]![1]!.trim();
    if (body.startsWith('{')) return body;
  }
  const whole = message.trim();
  return whole.startsWith('{') && whole.endsWith('}') ? whole : null;
}

export function describeZodError(error: z.ZodError): string {
  return error.issues
    .slice(0, 8)
    .map((issue) => {
      const where = issue.path.length ? issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('').replace(/^\./, '') : '(top level)';
      return `${where}: ${issue.message}`;
    })
    .join('; ');
}
