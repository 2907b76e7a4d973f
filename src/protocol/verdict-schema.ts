/**
 * The verdict of one review round, `.agents/tmp/phases/review-N/r1-verdict.json`, and the fixer's
 * machine-readable answer, `r2-fix-summary.json`. These zod schemas are the single source of truth:
 * `schema/*.schema.json` are generated from them (`npm run schema`) and a test checks for drift.
 * The object schemas are built on first use (z.lazy): most hook calls never read a verdict.
 */
import * as z from 'zod/mini';
import { REPORTERS, REVIEWERS } from './agents';
import { count, described, positiveInt } from './zod';
import { Diagnosis } from './reviewer-output';

/** How the shell found the file a finding names (the path as written, or another reading of it). */
export const FILE_READINGS = ['as-written', 'without-diff-prefix', 'case-insensitive', 'without-leading-slash', 'without-folder-prefix', 'by-file-name'] as const;
export type FileReading = (typeof FILE_READINGS)[number];

/** The alternative readings, in the order they are applied to a quote. */
export const EVIDENCE_READINGS = ['unescaped', 'backticks', 'diff-markers', 'diff-new-side', 'diff-old-side', 'gutter', 'semicolon', 'gap'] as const;
export type EvidenceReading = (typeof EVIDENCE_READINGS)[number];
import { UNSNAPSHOTTED } from './paths';

const Severity = z.enum(['critical', 'warning', 'info']);
const Reviewer = z.enum(REVIEWERS);
const Reporter = z.enum(REPORTERS);
const counts = () => ({ critical: count(), warning: count(), info: count() });

const scoreFields = () => ({
  score: described(z.number().check(z.minimum(0), z.maximum(1)), "seed 000's 0.0–1.0 score: 1 minus 0.45 per critical, 0.1 per warning, 0.02 per info"),
  band: described(z.enum(['accept', 'accept_with_warnings', 'repair', 'escalate']), '≥0.9 accept, ≥0.6 accept with warnings, ≥0.3 repair, else escalate'),
  scale: described(z.int().check(z.minimum(0), z.maximum(10)), "seed 003's 0–10 verdict scale: round(score × 10)"),
  readiness: described(z.enum(['READY', 'ALMOST', 'NOT_READY']), 'READY ≥ 7, ALMOST 5–6, NOT READY ≤ 4'),
});

export const FindingStatus = z.enum(['NEW', 'NOT_FIXED', 'PARTIAL', 'REGRESSED', 'CONTESTED']);
export type FindingStatus = z.infer<typeof FindingStatus>;
export const RowStatus = z.enum(['FIXED', 'NOT_FIXED', 'PARTIAL', 'REGRESSED', 'CONTESTED', 'NEW']);
export type RowStatus = z.infer<typeof RowStatus>;

export const Grounding = z.lazy(() =>
  z.object({
    status: described(
      z.enum(['grounded', 'relocated', 'ungrounded', 'unchecked', 'unquoted']),
      'relocated: the evidence is elsewhere in the file (line corrected); unchecked: the file, or the rest of it, was not searched (a cap): kept and sent to the fixer; unquoted: no code quoted (no evidence, or a command): never grounded, sent to the fixer when a second reviewer reports it or its cited line exists',
    ),
    reason: z.nullable(z.string()),
    reading: described(
      z._default(
        z.object({
          file: described(z.nullable(z.enum(FILE_READINGS)), 'how the named path was read; null when no file was found'),
          evidence: described(z.nullable(z.array(z.enum(EVIDENCE_READINGS))), 'the readings of the quote that matched, in order ([]: as written); null when it did not match'),
        }),
        { file: null, evidence: null },
      ),
      "which reading of the finding's path and quote matched the code (the quote itself is kept as written)",
    ),
  }),
);

export const MergedFinding = z.lazy(() =>
  z.object({
    fingerprint: described(z.string(), 'stable identity: sha256 of file, category family and normalised evidence (not the line)'),
    severity: described(Severity, 'the highest severity any reporter gave'),
    category: described(z.string(), 'the normalised category family'),
    categories: described(z.array(z.string()), 'the categories as reported'),
    file: z.string(),
    line: z.nullable(positiveInt()),
    description: described(z.string(), "the most detailed reporter's description"),
    evidence: z.string(),
    suggestion: z.string(),
    reporters: described(z.array(Reporter).check(z.minLength(1)), "the reviewers who reported it, and layer0 or checks for the hooks' own findings"),
    identity: described(z.string(), 'the normalised text the fingerprint was built from'),
    grounding: Grounding,
    status: FindingStatus,
    toFixer: described(z.boolean(), "grounded (or unverified) and not contested: sent to the fixer and counted against DONE (the hooks' own findings are never contested)"),
    unverified: described(
      z._default(z.boolean(), false),
      'ungrounded at critical or warning severity after its reviewer was shown it: sent to the fixer marked unverified, to check against the code and fix or decline (one decline closes it)',
    ),
    interpretations: described(z._default(z.array(z.string()), []), "what the hooks read other than as the reviewers wrote it (a synonym, a path's :line suffix, a line range …)"),
    class: described(z._default(z.string(), ''), 'its finding class (see classes): the same defect pattern at several sites, across rounds'),
    dismissed: described(
      z._default(z.nullable(z.string()), null),
      "the reason the user gave in .minions/dismissed.json, while the finding still grounds to the code it was dismissed on: kept out of the fixer's list and the completion gate",
    ),
    confidence: described(z._default(z.nullable(z.int().check(z.minimum(0), z.maximum(100))), null), 'the highest confidence (0–100) a reporter gave it; null: not scored'),
    held: described(
      z._default(z.nullable(z.enum(['confidence', 'level'])), null),
      'kept out of the completion gate and the fixer\'s list by the completion policy: confidence, scored below --min-confidence by its one reviewer (never sent); level, below --done-when (sent as optional when a fix round runs anyway); null: it counts',
    ),
  }),
);
export type MergedFinding = z.infer<typeof MergedFinding>;

export const StatusRow = z.lazy(() =>
  z.object({
    fingerprint: z.string(),
    status: RowStatus,
    severity: Severity,
    file: z.string(),
    category: z.string(),
    description: z.string(),
  }),
);
export type StatusRow = z.infer<typeof StatusRow>;

export const Pitfall = z.lazy(() =>
  z.object({
    fingerprint: z.string(),
    seen: described(z.int().check(z.minimum(2)), 'rounds in which this finding was open'),
    file: z.string(),
    category: z.string(),
    description: z.string(),
    rule: described(z.string(), 'what prevents it: the most detailed suggestion'),
  }),
);
export type Pitfall = z.infer<typeof Pitfall>;

export const ReviewerResult = z.lazy(() =>
  z.object({
    /** not_run: outside the loop's effort profile (--effort). */
    status: z.enum(['valid', 'invalid', 'not_run']),
    scoring: described(z.enum(['findings', 'heuristic', 'none']), 'heuristic: the output could only be partly read'),
    ...counts(),
    ungrounded: count(),
    unchecked: described(z._default(count(), 0), 'findings in files (or parts of files) that were not searched: counted as found'),
    unquoted: described(z._default(count(), 0), 'findings that quote no code (no evidence, or a command): not counted as grounded in the score'),
    ...scoreFields(),
    error: z.nullable(z.string()),
    notes: z.array(z.string()),
  }),
);

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

export const ClassAttempt = z.lazy(() =>
  z.object({
    iteration: described(positiveInt(), 'the round whose fixer was given the class'),
    fingerprints: described(z.array(z.string()), "the class's findings in that round"),
    sites: described(z.array(z.string()), 'file:line of each'),
    answers: described(
      z.array(z.object({ fingerprint: z.string(), status: FixStatus, kind: z.nullable(FixKind), reason: z.nullable(z.string()) })),
      "the fixer's answers for them",
    ),
  }),
);
export type ClassAttempt = z.infer<typeof ClassAttempt>;

export const FindingClass = z.lazy(() =>
  z.object({
    id: described(z.string(), 'the fingerprint of the finding that opened the class'),
    category: z.string(),
    fingerprints: described(z.array(z.string()).check(z.minLength(1)), 'its open findings in this round'),
    sites: described(z.array(z.string()), 'file:line of each'),
    rung: ClassRung,
    attempts: described(z.array(ClassAttempt), 'the consecutive earlier fix rounds that were given the class and left it open, oldest first'),
  }),
);
export type FindingClass = z.infer<typeof FindingClass>;

export const EscalationReason = z.enum(['repeated', 'fixer_escalated']);
export type EscalationReason = z.infer<typeof EscalationReason>;

export const EscalationOutcome = z.lazy(() =>
  z.object({
    class: z.string(),
    reason: described(EscalationReason, 'repeated: open after two fix rounds; fixer_escalated: the fixer answered escalate'),
    category: z.string(),
    sites: described(z.array(z.string()), 'file:line of its findings, now or (when gone) in the last round they were open'),
    attempts: described(z.array(positiveInt()), 'the fix rounds that were given the class'),
    fixerReason: described(z.nullable(z.string()), "the fixer's reason for escalating"),
    open: described(z.boolean(), 'the class still has open findings in this round'),
    diagnosis: described(z.nullable(Diagnosis), "the critic's structural diagnosis (null: it gave none)"),
  }),
);
export type EscalationOutcome = z.infer<typeof EscalationOutcome>;

export const StopReason = z.enum(['max_iterations', 'no_progress', 'stuck_issue', 'structural_rework_needed', 'changed_during_review', 'tampered', 'aggregation_failed', 'budget', 'git_dir_changed', 'check_changed']);
export type StopReason = z.infer<typeof StopReason>;

export const Verdict = z.lazy(() =>
  z.object({
    iteration: positiveInt(),
    maxIterations: positiveInt(),
    task: z.string(),
    overall_verdict: z.enum(['clean', 'issues_found']),
    total_issues: described(count(), 'open findings: merged, grounded, not contested'),
    ...counts(),
    ...scoreFields(),
    reviewers: z.object(Object.fromEntries(REVIEWERS.map((r) => [r, ReviewerResult])) as Record<(typeof REVIEWERS)[number], typeof ReviewerResult>),
    findings: described(z.array(MergedFinding), 'every merged finding, open, ungrounded and contested'),
    statuses: described(z.array(StatusRow), "from iteration 2: every finding of the previous round, and this round's new ones"),
    pitfalls: z.array(Pitfall),
    changedDuringReview: described(
      z._default(z.array(z.string()), []),
      `project files that changed while this round was reviewed (by anyone), or ${JSON.stringify(UNSNAPSHOTTED)} when git could not snapshot the project at the end of a review that began with one: this round cannot end DONE`,
    ),
    testArtefacts: described(
      z._default(z.array(z.string()), []),
      "files the review's test runs left (caches, bytecode, coverage output, new snapshots) that the base commit does not track: named, not counted as changes made during the review",
    ),
    classes: described(z._default(z.array(FindingClass), []), 'the finding classes of the open findings (seed 003), with their fix history'),
    escalations: described(z._default(z.array(EscalationOutcome), []), 'classes this round escalated to the critic, and its diagnoses'),
    gate: described(
      z._default(
        z.object({
          reviewClean: described(z.boolean(), 'five valid reviews with no open finding of theirs'),
          checksPassing: described(z.boolean(), 'every check that passed when the loop started passes after the last fix'),
          layer0Clean: described(z.boolean(), 'no open Layer-0 finding on the last fix'),
        }),
        { reviewClean: true, checksPassing: true, layer0Clean: true },
      ),
      'the completion gate: DONE needs all three, on the final tree',
    ),
    next: z.enum(['DONE', 'R2', 'R1', 'STOPPED', 'REVIEWED']),
    stopReason: z.nullable(StopReason),
    stopDetail: z.nullable(z.string()),
    createdAt: z.string(),
  }),
);
export type Verdict = z.infer<typeof Verdict>;

const fixEntryFields = () =>
  z.object({
    fingerprint: z.string().check(z.minLength(1)),
    status: described(FixStatus, 'escalate: the same root cause as an earlier attempt and no new fix; the critic is asked for a structural diagnosis'),
    kind: described(z.optional(FixKind), 'for a fixed entry: patch (a local change at this site) or structural (removes the cause for the whole class)'),
    reason: z.optional(z.string()),
  });

/** One answer as written, without the rules between its fields (earlier rounds' files are read entry by entry with it). */
export const FixEntryFields = z.lazy(fixEntryFields);

export const FixEntry = z.lazy(() =>
  fixEntryFields().check(
    z.refine((e) => e.status === 'fixed' || (e.reason ?? '').trim().length > 0, { message: 'a declined, could_not_fix or escalate entry needs a reason', path: ['reason'] }),
    z.refine((e) => e.status !== 'fixed' || e.kind !== undefined, { message: 'a fixed entry needs "kind": "patch" or "structural"', path: ['kind'] }),
  ),
);
export type FixEntry = z.infer<typeof FixEntry>;

/** What the fixer found when it audited a class first: the pattern and every similar site. */
export const ClassPattern = z.lazy(() =>
  z.object({
    class: z.string().check(z.minLength(1)),
    pattern: z.string().check(z.trim(), z.minLength(1, 'must say what the sites have in common')),
    sites: z.array(z.string().check(z.trim(), z.minLength(1))).check(z.minLength(1, 'must list every similar site as file:line')),
  }),
);
export type ClassPattern = z.infer<typeof ClassPattern>;

export const FixSummary = z.lazy(() =>
  z.object({
    fixes: z.array(FixEntry),
    patterns: described(z._default(z.array(ClassPattern), []), 'one per class the R2 prompt marks audit-first'),
  }),
);
export type FixSummary = z.infer<typeof FixSummary>;
