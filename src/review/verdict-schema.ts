/**
 * The verdict of one review round, `.agents/tmp/phases/review-N/r1-verdict.json`, and the fixer's
 * machine-readable answer, `r2-fix-summary.json`. These zod schemas are the single source of truth:
 * `schema/*.schema.json` are generated from them (`npm run schema`) and a test checks for drift.
 */
import * as z from 'zod';
import { REPORTERS, REVIEWERS } from '../core/agents';
import { FILE_READINGS } from './grounding';
import { EVIDENCE_READINGS } from './readings';
import { Diagnosis } from './reviewer-output';

const Severity = z.enum(['critical', 'warning', 'info']);
const Reviewer = z.enum(REVIEWERS);
const Reporter = z.enum(REPORTERS);
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
  status: z
    .enum(['grounded', 'relocated', 'ungrounded', 'unchecked'])
    .describe('relocated: the evidence is elsewhere in the file (line corrected); unchecked: the file, or the rest of it, was not searched (a cap): kept and sent to the fixer'),
  reason: z.string().nullable(),
  reading: z
    .object({
      file: z.enum(FILE_READINGS).nullable().describe('how the named path was read; null when no file was found'),
      evidence: z.array(z.enum(EVIDENCE_READINGS)).nullable().describe('the readings of the quote that matched, in order ([]: as written); null when it did not match'),
    })
    .default({ file: null, evidence: null })
    .describe("which reading of the finding's path and quote matched the code (the quote itself is kept as written)"),
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
  reporters: z.array(Reporter).min(1).describe("the reviewers who reported it, and layer0 or checks for the hooks' own findings"),
  identity: z.string().describe('the normalised text the fingerprint was built from'),
  grounding: Grounding,
  status: FindingStatus,
  toFixer: z.boolean().describe("grounded and not contested: sent to the fixer and counted against DONE (the hooks' own findings are never contested)"),
  class: z.string().default('').describe('its finding class (see classes): the same defect pattern at several sites, across rounds'),
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
  unchecked: z.number().int().nonnegative().default(0).describe('findings in files (or parts of files) that were not searched: counted as found'),
  ...ScoreFields,
  error: z.string().nullable(),
  notes: z.array(z.string()),
});

export const FixStatus = z.enum(['fixed', 'declined', 'could_not_fix', 'escalate']);
export type FixStatus = z.infer<typeof FixStatus>;
export const FixKind = z.enum(['patch', 'structural']);
export type FixKind = z.infer<typeof FixKind>;

/**
 * Seed 003's ladder for a finding class: `new` the first round it is open, `audit` when it is open again
 * after one fix round (the fixer audits every similar site first), `escalate` when it is open after two
 * (the critic diagnoses it and the loop stops).
 */
export const ClassRung = z.enum(['new', 'audit', 'escalate']);
export type ClassRung = z.infer<typeof ClassRung>;

export const ClassAttempt = z.object({
  iteration: z.number().int().positive().describe('the round whose fixer was given the class'),
  fingerprints: z.array(z.string()).describe("the class's findings in that round"),
  sites: z.array(z.string()).describe('file:line of each'),
  answers: z.array(z.object({ fingerprint: z.string(), status: FixStatus, kind: FixKind.nullable(), reason: z.string().nullable() })).describe("the fixer's answers for them"),
});
export type ClassAttempt = z.infer<typeof ClassAttempt>;

export const FindingClass = z.object({
  id: z.string().describe('the fingerprint of the finding that opened the class'),
  category: z.string(),
  fingerprints: z.array(z.string()).min(1).describe('its open findings in this round'),
  sites: z.array(z.string()).describe('file:line of each'),
  rung: ClassRung,
  attempts: z.array(ClassAttempt).describe('the consecutive earlier fix rounds that were given the class and left it open, oldest first'),
});
export type FindingClass = z.infer<typeof FindingClass>;

export const EscalationReason = z.enum(['repeated', 'fixer_escalated']);
export type EscalationReason = z.infer<typeof EscalationReason>;

export const EscalationOutcome = z.object({
  class: z.string(),
  reason: EscalationReason.describe('repeated: open after two fix rounds; fixer_escalated: the fixer answered escalate'),
  category: z.string(),
  sites: z.array(z.string()).describe('file:line of its findings, now or (when gone) in the last round they were open'),
  attempts: z.array(z.number().int().positive()).describe('the fix rounds that were given the class'),
  fixerReason: z.string().nullable().describe("the fixer's reason for escalating"),
  open: z.boolean().describe('the class still has open findings in this round'),
  diagnosis: Diagnosis.nullable().describe("the critic's structural diagnosis (null: it gave none)"),
});
export type EscalationOutcome = z.infer<typeof EscalationOutcome>;

export const StopReason = z.enum(['max_iterations', 'no_progress', 'stuck_issue', 'structural_rework_needed', 'changed_during_review', 'tampered', 'aggregation_failed', 'budget']);
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
  classes: z.array(FindingClass).default([]).describe('the finding classes of the open findings (seed 003), with their fix history'),
  escalations: z.array(EscalationOutcome).default([]).describe('classes this round escalated to the critic, and its diagnoses'),
  gate: z
    .object({
      reviewClean: z.boolean().describe('five valid reviews with no open finding of theirs'),
      checksPassing: z.boolean().describe('every check that passed when the loop started passes after the last fix'),
      layer0Clean: z.boolean().describe('no open Layer-0 finding on the last fix'),
    })
    .default({ reviewClean: true, checksPassing: true, layer0Clean: true })
    .describe('the completion gate: DONE needs all three, on the final tree'),
  next: z.enum(['DONE', 'R2', 'R1', 'STOPPED']),
  stopReason: StopReason.nullable(),
  stopDetail: z.string().nullable(),
  createdAt: z.string(),
});
export type Verdict = z.infer<typeof Verdict>;

/** One answer as written, without the rules between its fields (earlier rounds' files are read entry by entry with it). */
export const FixEntryFields = z.object({
  fingerprint: z.string().min(1),
  status: FixStatus.describe('escalate: the same root cause as an earlier attempt and no new fix; the critic is asked for a structural diagnosis'),
  kind: FixKind.optional().describe('for a fixed entry: patch (a local change at this site) or structural (removes the cause for the whole class)'),
  reason: z.string().optional(),
});

export const FixEntry = FixEntryFields
  .refine((e) => e.status === 'fixed' || (e.reason ?? '').trim().length > 0, { message: 'a declined, could_not_fix or escalate entry needs a reason', path: ['reason'] })
  .refine((e) => e.status !== 'fixed' || e.kind !== undefined, { message: 'a fixed entry needs "kind": "patch" or "structural"', path: ['kind'] });
export type FixEntry = z.infer<typeof FixEntry>;

/** What the fixer found when it audited a class first: the pattern and every similar site. */
export const ClassPattern = z.object({
  class: z.string().min(1),
  pattern: z.string().trim().min(1, 'must say what the sites have in common'),
  sites: z.array(z.string().trim().min(1)).min(1, 'must list every similar site as file:line'),
});
export type ClassPattern = z.infer<typeof ClassPattern>;

export const FixSummary = z.object({
  fixes: z.array(FixEntry),
  patterns: z.array(ClassPattern).default([]).describe('one per class the R2 prompt marks audit-first'),
});
export type FixSummary = z.infer<typeof FixSummary>;
