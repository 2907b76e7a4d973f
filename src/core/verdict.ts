/** Aggregates the five reviews of one iteration into its verdict. Pure. */
import { REVIEWERS, type Reviewer } from './agents';
import { countBySeverity, parseReview, type Finding } from '../review/reviewer-output';
import type { Counts } from '../state/schema';

export type ReviewerEntry =
  | { status: 'valid'; verdict: 'clean' | 'issues_found'; counts: Counts; notes: string[] }
  | { status: 'invalid'; error: string };

export interface VerdictIssue extends Finding {
  reviewer: Reviewer;
}

export interface Verdict {
  iteration: number;
  maxIterations: number;
  task: string;
  overall_verdict: 'clean' | 'issues_found';
  total_issues: number;
  critical: number;
  warning: number;
  info: number;
  reviewers: Record<Reviewer, ReviewerEntry>;
  issues: VerdictIssue[];
  next: 'DONE' | 'R2' | 'R1' | 'STOPPED';
  createdAt: string;
}

/** texts: each reviewer's final output text (null when it was recorded invalid). */
export function aggregate(
  texts: Record<Reviewer, string | null>,
  errors: Partial<Record<Reviewer, string>>,
  meta: { iteration: number; maxIterations: number; task: string; now: string },
): Omit<Verdict, 'next'> {
  const reviewers = {} as Verdict['reviewers'];
  const issues: VerdictIssue[] = [];
  let anyInvalid = false;
  for (const r of REVIEWERS) {
    const text = texts[r];
    const parsed = text === null ? null : parseReview(text);
    if (parsed?.ok) {
      reviewers[r] = { status: 'valid', verdict: parsed.verdict, counts: parsed.counts, notes: parsed.notes };
      issues.push(...parsed.issues.map((issue) => ({ ...issue, reviewer: r })));
    } else {
      anyInvalid = true;
      reviewers[r] = { status: 'invalid', error: parsed && !parsed.ok ? parsed.error : (errors[r] ?? 'no valid output') };
    }
  }
  const counts = countBySeverity(issues);
  return {
    iteration: meta.iteration,
    maxIterations: meta.maxIterations,
    task: meta.task,
    overall_verdict: issues.length > 0 || anyInvalid ? 'issues_found' : 'clean',
    total_issues: issues.length,
    ...counts,
    reviewers,
    issues,
    createdAt: meta.now,
  };
}
