import * as z from 'zod';
import { REVIEWERS } from '../core/agents';
import { ClassRung, EscalationReason } from '../review/verdict-schema';
import { CheckOutcome } from '../checks/check-runs';

/** The state file, `.agents/tmp/state.json`: written by the hooks alone. */
export const STATE_VERSION = 1;

export const Phase = z.enum(['R1', 'R2', 'DONE', 'STOPPED', 'CANCELLED']);
export type Phase = z.infer<typeof Phase>;

export const Counts = z.object({
  critical: z.number().int().nonnegative(),
  warning: z.number().int().nonnegative(),
  info: z.number().int().nonnegative(),
});
export type Counts = z.infer<typeof Counts>;

export const ReviewerRun = z.object({
  /** pending: not dispatched; running: dispatched; valid/invalid: final for this iteration. */
  status: z.enum(['pending', 'running', 'valid', 'invalid']),
  dispatches: z.number().int().nonnegative(),
  /** Failed validations in the current run; reset on each dispatch. */
  failures: z.number().int().nonnegative(),
  error: z.string().nullable(),
  counts: Counts.nullable(),
  /** Told once that most of its findings do not match the files. */
  groundingWarned: z.boolean().default(false),
  /**
   * sha256 of the output as it was recorded (valid or invalid; '' for none), kept by the hooks: the round
   * is aggregated from that text, whatever happens to the file afterwards. null in states from before.
   */
  frozen: z.string().nullable().default(null),
});
export type ReviewerRun = z.infer<typeof ReviewerRun>;

const reviewerRuns = z.object(
  Object.fromEntries(REVIEWERS.map((r) => [r, ReviewerRun])) as Record<(typeof REVIEWERS)[number], typeof ReviewerRun>,
);

export const PitfallNote = z.object({ seen: z.number().int(), file: z.string(), category: z.string(), description: z.string(), rule: z.string() });
export type PitfallNote = z.infer<typeof PitfallNote>;

/** A finding class of the verdict, as the prompts need it (the verdict has its history). */
export const ClassNote = z.object({
  id: z.string(),
  category: z.string(),
  fingerprints: z.array(z.string()),
  sites: z.array(z.string()),
  rung: ClassRung,
  /** The earlier fix rounds that were given this class and left it open. */
  attempts: z.array(z.number().int().positive()),
});
export type ClassNote = z.infer<typeof ClassNote>;

/** A patch the hooks wrote for a review round: how many files it covers, the first of them, and whether it was cut. */
export const PatchNote = z.object({ count: z.number().int().nonnegative(), files: z.array(z.string()), truncated: z.boolean() });
export type PatchNote = z.infer<typeof PatchNote>;

export const VerdictSummary = Counts.extend({
  overall: z.enum(['clean', 'issues_found']),
  total: z.number().int().nonnegative(),
  /** Fingerprints sent to the fixer. */
  open: z.array(z.string()).default([]),
  contested: z.number().int().nonnegative().default(0),
  score: z.number().min(0).max(1).default(1),
  scale: z.number().int().min(0).max(10).default(10),
  readiness: z.enum(['READY', 'ALMOST', 'NOT_READY']).default('READY'),
  pitfalls: z.array(PitfallNote).default([]),
  /** Classes of the open findings with two or more members or an earlier fix round (single new findings are their own class). */
  classes: z.array(ClassNote).default([]),
});
export type VerdictSummary = z.infer<typeof VerdictSummary>;

/** Tokens the host recorded for one agent's model calls (its transcript), by kind. */
export const Tokens = z.object({
  input: z.number().int().nonnegative(),
  output: z.number().int().nonnegative(),
  cacheCreation: z.number().int().nonnegative(),
  cacheRead: z.number().int().nonnegative(),
});
export type Tokens = z.infer<typeof Tokens>;

/** What one agent run cost; null figures are unknown (no readable transcript), never guessed. */
export const AgentCost = z.object({
  agent: z.string(),
  tokens: Tokens.nullable(),
  /** First to last entry of its transcript. */
  wallMs: z.number().int().nonnegative().nullable(),
});
export type AgentCost = z.infer<typeof AgentCost>;

export const IterationRecord = z.object({
  iteration: z.number().int().positive(),
  startedAt: z.string(),
  r1: z.object({
    status: z.enum(['pending', 'complete']),
    reviewers: reviewerRuns,
    /**
     * Set, and saved, before the fifth review's heavy aggregation starts: a hook that finds it set after
     * taking the lock knows the aggregating hook died (killed, or past the host's timeout).
     */
    aggregation: z.object({ since: z.string(), attempts: z.number().int().positive() }).nullable().default(null),
  }),
  r2: z.object({
    status: z.enum(['pending', 'running', 'complete', 'no_summary', 'skipped']),
    dispatches: z.number().int().nonnegative(),
    failures: z.number().int().nonnegative(),
    /** Times the fixer was sent back because a check it broke still failed (at most MAX_CHECK_SENDBACKS). */
    checkBlocks: z.number().int().nonnegative().default(0),
  }),
  verdict: VerdictSummary.nullable(),
  /**
   * Git tree ids of the project (src/shell/snapshot.ts) at this iteration's phase boundaries; null outside
   * git. reviewStart is the tree the reviewers were given (the base tree, or the previous round's fixEnd).
   */
  trees: z
    .object({ reviewStart: z.string().nullable(), reviewEnd: z.string().nullable(), fixEnd: z.string().nullable() })
    .default({ reviewStart: null, reviewEnd: null, fixEnd: null }),
  /** Project files that changed while this round was being reviewed (by anyone): named, saved as a patch. */
  changedDuringReview: z.array(z.string()).default([]),
  /** The patches written when this round started (diff.patch, fix-delta.patch); null: none could be made. */
  patches: z.object({ diff: PatchNote.nullable(), fixDelta: PatchNote.nullable() }).default({ diff: null, fixDelta: null }),
  /** Finding classes this round's critic is asked to diagnose (escalation.json). */
  escalated: z.array(z.object({ class: z.string(), reason: EscalationReason })).default([]),
  /** The project's checks after this round's fix (its last attempt); null when none ran. */
  checks: z.array(CheckOutcome).nullable().default(null),
  /** Layer-0 on this round's fix: files checked, findings for the next verdict; null when it did not run. */
  layer0: z.object({ files: z.number().int().nonnegative(), findings: z.number().int().nonnegative() }).nullable().default(null),
  /** The agents of this round by agent id (the latest reading of each one's transcript). */
  cost: z.record(z.string(), AgentCost).default({}),
});
export type IterationRecord = z.infer<typeof IterationRecord>;

export const State = z.object({
  version: z.literal(STATE_VERSION),
  plugin: z.literal('minions'),
  pipeline: z.literal('review'),
  runId: z.string().min(1),
  status: z.enum(['in_progress', 'done', 'stopped', 'cancelled']),
  task: z.string(),
  sessionId: z.string().min(1),
  iteration: z.number().int().positive(),
  maxIterations: z.number().int().min(1).max(20),
  currentPhase: Phase,
  /** git HEAD when the loop started; null outside a repository or before the first commit. */
  base: z.string().nullable(),
  /** The project's tree when the loop started (uncommitted work included); null outside git. */
  baseTree: z.string().nullable().default(null),
  /** The project's absolute path, for prompts: the Write tool takes absolute paths. */
  root: z.string().nullable().default(null),
  startedAt: z.string(),
  updatedAt: z.string(),
  stopReason: z.string().nullable(),
  stopDetail: z.string().nullable().default(null),
  /** Thresholds of the stop rules, set by flags of /minions:review. */
  rules: z
    .object({
      maxCritical: z.number().int().nonnegative(),
      stuckRounds: z.number().int().positive(),
      similarity: z.number().min(0).max(1),
      /** budget: no new round starts once the agents' tokens reach this; null = no budget. */
      maxTokens: z.number().int().positive().nullable().default(null),
    })
    .default({ maxCritical: 5, stuckRounds: 3, similarity: 0.95, maxTokens: null }),
  /** The project's checks, named by the user (--check, .minions.json), and how they did when the loop started. */
  checks: z
    .object({ commands: z.array(z.string()), timeoutSeconds: z.number().int().positive(), baseline: z.array(CheckOutcome) })
    .default({ commands: [], timeoutSeconds: 300, baseline: [] }),
  /** Layer-0 checks the project's .minions.json turned off. */
  layer0: z.object({ disabled: z.array(z.string()) }).default({ disabled: [] }),
  /** Consecutive Stop blocks without progress, keyed by a digest of the progress made so far. */
  stopGuard: z.object({ key: z.string(), blocks: z.number().int().nonnegative() }),
  /** The issues still open when the loop STOPPED (first 20), for the closing message. */
  openIssues: z
    .array(z.object({ severity: z.enum(['critical', 'warning', 'info']), file: z.string(), line: z.number().nullable(), description: z.string() }))
    .default([]),
  iterations: z.array(IterationRecord).min(1),
});
export type State = z.infer<typeof State>;
