/**
 * The verdict of one review round, `.agents/tmp/phases/review-N/r1-verdict.json`, and the fixer's
 * machine-readable answer, `r2-fix-summary.json`. These zod schemas are the single source of truth:
 * `schema/*.schema.json` are generated from them (`npm run schema`) and a test checks for drift.
 */
import * as z from 'zod';
import { REVIEWERS } from '../core/agents';

const Severity = z.enum(['critical', 'warning', 'info']);
const Reviewer = z.enum(REVIEWERS);
const Counts = { critical: z.number().int().nonnegative(), warning: z.number().int().nonnegative(), info: z.number().int().nonnegative() };

export const ScoreFields = {
  score: z.number().min(0).max(1).describe("seed 000's 0.0–1.0 score: 1 minus 0.45 per critical, 0.1 per warning, 0.02 per info"),
  band: z.enum(['accept', 'accept_with_warnings', 'repair', 'escalate']).describe('≥0.9 accept, ≥0.6 accept with warnings, ≥0.3 repair, else escalate'),
  scale: z.number().int().min(0).max(10).describe("seed 003's 0–10 verdict scale: round(score × 10)"),
  readiness: z.enum(['READY', 'ALMOST', 'NOT_READY']).describe('READY ≥ 7, ALMOST 5–6, NOT READY ≤ 4'),
};

export const FindingStatus = z.enum(['NEW', 'NOT_FIXED', 'PARTIAL', 'REGRESSED', 'CONTESTED']);
export type FindingStatus = z.infer<typeof FindingStatus>;
export const RowStatus = z.enum(['FIXED', 'NOT_FIXED', 'PARTIAL', 'REGRESSED', 'CONTESTED', 'NEW']);
export type RowStatus = z.infer<typeof RowStatus>;

export const Grounding = z.object({
  status: z.enum(['grounded', 'relocated', 'ungrounded']),
  reason: z.string().nullable(),
});

export const MergedFinding = z.object({
  fingerprint: z.string().describe('stable identity: sha256 of file, category family and normalised evidence (not the line)'),
  severity: Severity.describe('the highest severity any reporter gave'),
  category: z.string().describe('the normalised category family'),
  categories: z.array(z.string()).describe('the categories as reported'),
  file: z.string(),
  line: z.number().int().positive().nullable(),
  description: z.string().describe("the most detailed reporter's description"),
  evidence: z.string(),
  suggestion: z.string(),
  reporters: z.array(Reviewer).min(1),
  identity: z.string().describe('the normalised text the fingerprint was built from'),
  grounding: Grounding,
  status: FindingStatus,
  toFixer: z.boolean().describe('grounded and not contested: sent to the fixer and counted against DONE'),
});
export type MergedFinding = z.infer<typeof MergedFinding>;

export const StatusRow = z.object({
  fingerprint: z.string(),
  status: RowStatus,
  severity: Severity,
  file: z.string(),
  category: z.string(),
  description: z.string(),
});
export type StatusRow = z.infer<typeof StatusRow>;

export const Pitfall = z.object({
  fingerprint: z.string(),
  seen: z.number().int().min(2).describe('rounds in which this finding was open'),
  file: z.string(),
  category: z.string(),
  description: z.string(),
  rule: z.string().describe('what prevents it: the most detailed suggestion'),
});
export type Pitfall = z.infer<typeof Pitfall>;

export const ReviewerResult = z.object({
  status: z.enum(['valid', 'invalid']),
  scoring: z.enum(['findings', 'heuristic', 'none']).describe('heuristic: the output could only be partly read'),
  ...Counts,
  ungrounded: z.number().int().nonnegative(),
  ...ScoreFields,
  error: z.string().nullable(),
  notes: z.array(z.string()),
});

export const StopReason = z.enum(['max_iterations', 'no_progress', 'stuck_issue', 'structural_rework_needed', 'changed_during_review', 'tampered', 'aggregation_failed']);
export type StopReason = z.infer<typeof StopReason>;

export const Verdict = z.object({
  iteration: z.number().int().positive(),
  maxIterations: z.number().int().positive(),
  task: z.string(),
  overall_verdict: z.enum(['clean', 'issues_found']),
  total_issues: z.number().int().nonnegative().describe('open findings: merged, grounded, not contested'),
  ...Counts,
  ...ScoreFields,
  reviewers: z.object(Object.fromEntries(REVIEWERS.map((r) => [r, ReviewerResult])) as Record<(typeof REVIEWERS)[number], typeof ReviewerResult>),
  findings: z.array(MergedFinding).describe('every merged finding, open, ungrounded and contested'),
  statuses: z.array(StatusRow).describe("from iteration 2: every finding of the previous round, and this round's new ones"),
  pitfalls: z.array(Pitfall),
  changedDuringReview: z
    .array(z.string())
    .default([])
    .describe('project files that changed while this round was reviewed (by anyone): this round cannot end DONE'),
  next: z.enum(['DONE', 'R2', 'R1', 'STOPPED']),
  stopReason: StopReason.nullable(),
  stopDetail: z.string().nullable(),
  createdAt: z.string(),
});
export type Verdict = z.infer<typeof Verdict>;

export const FixEntry = z
  .object({
    fingerprint: z.string().min(1),
    status: z.enum(['fixed', 'declined', 'could_not_fix']),
    reason: z.string().optional(),
  })
  .refine((e) => e.status === 'fixed' || (e.reason ?? '').trim().length > 0, { message: 'a declined or could_not_fix entry needs a reason', path: ['reason'] });

export const FixSummary = z.object({ fixes: z.array(FixEntry) });
export type FixSummary = z.infer<typeof FixSummary>;
