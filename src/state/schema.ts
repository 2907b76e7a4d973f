import * as z from 'zod/mini';
import { REVIEWERS } from '../protocol/agents';
import { EFFORTS, MODELS, MODEL_AGENTS, STANDARD_EFFORT } from '../protocol/effort';
import { HOSTS } from '../protocol/hosts';
import { ClassRung, EscalationReason } from '../protocol/verdict-schema';
import { CheckOutcome } from '../protocol/check-runs';
import { count, positiveInt } from '../protocol/zod';
import { BASE_REASONS } from '../protocol/base';

/** The state file, `.agents/tmp/state.json`: written by the hooks alone. */
export const STATE_VERSION = 1;

/**
 * Names this schema: the start of the sha256 of schema/state.schema.json, the JSON Schema generated from
 * it (test/unit/schema-drift.test.ts keeps the two in step). The hooks' record carries the shape of the
 * hooks that saved the state, and hooks of the same shape trust their own copy of it (shell/store.ts);
 * a state saved by other hooks (an update of the plugin during a loop) is checked against the schema.
 */
/** The escalation question's states: asked, shown, and the answers (none: a Stop without one). */
export const ESCALATION_CHOICES = ['pending', 'offered', 'structural', 'patch', 'halt', 'none'] as const;
export type EscalationChoice = (typeof ESCALATION_CHOICES)[number];

export const STATE_SHAPE = 'a255639194282220';

/**
 * The schemas, built when a state is first checked rather than when a hook starts: a hook that never
 * checks one (a gate or Stop reading the hooks' own copy, see shell/store.ts) builds none.
 */
function build() {
  const Phase = z.enum(['R1', 'R2', 'DONE', 'STOPPED', 'CANCELLED', 'REVIEWED']);

  const Model = z.enum(MODELS);

  const Counts = z.object({ critical: count(), warning: count(), info: count() });

  const ReviewerRun = z.object({
    /** pending: not dispatched; running: dispatched; valid/invalid: final for this iteration; skipped: not in the loop's effort profile. */
    status: z.enum(['pending', 'running', 'valid', 'invalid', 'skipped']),
    dispatches: count(),
    /** Failed validations in the current run; reset on each dispatch. */
    failures: count(),
    error: z.nullable(z.string()),
    counts: z.nullable(Counts),
    /** Told once that most of its findings do not match the files. */
    groundingWarned: z._default(z.boolean(), false),
    /**
     * sha256 of the output as it was recorded (valid or invalid; '' for none), kept by the hooks: the round
     * is aggregated from that text, whatever happens to the file afterwards. null in states from before.
     */
    frozen: z._default(z.nullable(z.string()), null),
    /**
     * sha256 of the review as its stop read it (ReviewReading: each finding's grounding and identity), kept
     * by the hooks beside the frozen text, so the round's verdict does not work them out again. Derived data:
     * missing or not matching its digest, the verdict works them out from the frozen text.
     */
    reading: z._default(z.nullable(z.string()), null),
  });

  const reviewerRuns = z.object(
    Object.fromEntries(REVIEWERS.map((r) => [r, ReviewerRun])) as Record<(typeof REVIEWERS)[number], typeof ReviewerRun>,
  );

  const PitfallNote = z.object({ seen: z.int(), file: z.string(), category: z.string(), description: z.string(), rule: z.string() });

  /** A finding class of the verdict, as the prompts need it (the verdict has its history). */
  const ClassNote = z.object({
    id: z.string(),
    category: z.string(),
    fingerprints: z.array(z.string()),
    sites: z.array(z.string()),
    rung: ClassRung,
    /** The earlier fix rounds that were given this class and left it open. */
    attempts: z.array(positiveInt()),
  });

  /** A patch the hooks wrote for a review round: how many files it covers, the first of them, and whether it was cut. */
  const PatchNote = z.object({ count: count(), files: z.array(z.string()), truncated: z.boolean() });

  const VerdictSummary = z.extend(Counts, {
    overall: z.enum(['clean', 'issues_found']),
    total: count(),
    /** Fingerprints sent to the fixer. */
    open: z._default(z.array(z.string()), []),
    contested: z._default(count(), 0),
    /** Findings the completion policy held back: below --done-when (grounded), below --min-confidence. */
    belowLevel: z._default(count(), 0),
    belowConfidence: z._default(count(), 0),
    score: z._default(z.number().check(z.minimum(0), z.maximum(1)), 1),
    scale: z._default(z.int().check(z.minimum(0), z.maximum(10)), 10),
    readiness: z._default(z.enum(['READY', 'ALMOST', 'NOT_READY']), 'READY'),
    pitfalls: z._default(z.array(PitfallNote), []),
    /** Classes of the open findings with two or more members or an earlier fix round (single new findings are their own class). */
    classes: z._default(z.array(ClassNote), []),
  });

  /** Tokens the host recorded for one agent's model calls (its transcript), by kind. */
  const Tokens = z.object({ input: count(), output: count(), cacheCreation: count(), cacheRead: count() });

  /** What one agent run cost; null figures are unknown (no readable transcript), never guessed. */
  const AgentCost = z.object({
    agent: z.string(),
    tokens: z.nullable(Tokens),
    /** First to last entry of its transcript. */
    wallMs: z.nullable(count()),
  });

  const IterationRecord = z.object({
    iteration: positiveInt(),
    startedAt: z.string(),
    r1: z.object({
      status: z.enum(['pending', 'complete']),
      reviewers: reviewerRuns,
      /**
       * Set, and saved, before the fifth review's heavy aggregation starts: a hook that finds it set after
       * taking the lock knows the aggregating hook died (killed, or past the host's timeout).
       */
      aggregation: z._default(z.nullable(z.object({ since: z.string(), attempts: positiveInt() })), null),
    }),
    r2: z.object({
      status: z.enum(['pending', 'running', 'complete', 'no_summary', 'skipped']),
      dispatches: count(),
      failures: count(),
      /** Times the fixer was sent back because a check it broke still failed (at most MAX_CHECK_SENDBACKS). */
      checkBlocks: z._default(count(), 0),
      /** Times the fixer was sent back because Layer-0 found something in its change (at most MAX_CHECK_SENDBACKS). */
      layer0Blocks: z._default(count(), 0),
    }),
    verdict: z.nullable(VerdictSummary),
    /**
     * Git tree ids of the project (src/shell/snapshot.ts) at this iteration's phase boundaries; null outside
     * git. reviewStart is the tree the reviewers were given (the base tree, or the previous round's fixEnd).
     */
    trees: z._default(z.object({ reviewStart: z.nullable(z.string()), reviewEnd: z.nullable(z.string()), fixEnd: z.nullable(z.string()) }), {
      reviewStart: null,
      reviewEnd: null,
      fixEnd: null,
    }),
    /** Project files that changed while this round was being reviewed (by anyone): named, saved as a patch. */
    changedDuringReview: z._default(z.array(z.string()), []),
    /** The patches written when this round started (diff.patch, fix-delta.patch); null: none could be made. */
    patches: z._default(z.object({ diff: z.nullable(PatchNote), fixDelta: z.nullable(PatchNote) }), { diff: null, fixDelta: null }),
    /** Finding classes this round's critic is asked to diagnose (escalation.json). */
    escalated: z._default(z.array(z.object({ class: z.string(), reason: EscalationReason })), []),
    /** The project's checks after this round's fix (its last attempt); null when none ran. */
    checks: z._default(z.nullable(z.array(CheckOutcome)), null),
    /** Layer-0 on this round's fix: files checked, findings for the next verdict; null when it did not run. */
    layer0: z._default(z.nullable(z.object({ files: count(), findings: count() })), null),
    /** The agents of this round by agent id (the latest reading of each one's transcript). */
    cost: z._default(z.record(z.string(), AgentCost), {}),
  });

  const State = z.object({
    version: z.literal(STATE_VERSION),
    plugin: z.literal('minions'),
    pipeline: z.literal('review'),
    runId: z.string().check(z.minLength(1)),
    status: z.enum(['in_progress', 'done', 'stopped', 'cancelled', 'reviewed']),
    task: z.string(),
    sessionId: z.string().check(z.minLength(1)),
    /** The agent host whose session started the loop; only that host's hooks advance it. A state without it was started in Claude Code. */
    host: z._default(z.enum(HOSTS), 'claude-code'),
    iteration: positiveInt(),
    maxIterations: z.int().check(z.minimum(1), z.maximum(20)),
    currentPhase: Phase,
    /** The commit the change is measured from (HEAD, or a merge base: baseChoice says why); null outside a repository or before the first commit. */
    base: z.nullable(z.string()),
    /** Why base is the commit it is, and the ref it was found from (null: HEAD); null in a state from before --base. */
    baseChoice: z._default(z.nullable(z.object({ ref: z.nullable(z.string()), why: z.enum(BASE_REASONS) })), null),
    /** --no-fix: one review round, no fixer; the loop ends REVIEWED. */
    reviewOnly: z._default(z.boolean(), false),
    /** --sarif: the absolute path the loop's end writes its findings to as SARIF 2.1.0. */
    sarif: z._default(z.nullable(z.string()), null),
    /** The project's review rules the reviewers were given (REVIEW.md or .minions/rules.md), as found at the start. */
    projectRules: z._default(z.nullable(z.string()), null),
    /** The project's tree when the loop started (uncommitted work included); null outside git. */
    baseTree: z._default(z.nullable(z.string()), null),
    /** The project's absolute path, for prompts: the Write tool takes absolute paths. */
    root: z._default(z.nullable(z.string()), null),
    startedAt: z.string(),
    updatedAt: z.string(),
    stopReason: z.nullable(z.string()),
    stopDetail: z._default(z.nullable(z.string()), null),
    /** Thresholds of the stop rules, set by flags of /minions:review. */
    rules: z._default(
      z.object({
        maxCritical: count(),
        stuckRounds: positiveInt(),
        similarity: z.number().check(z.minimum(0), z.maximum(1)),
        /** budget: no new round starts once the agents' tokens reach this; null = no budget. */
        maxTokens: z._default(z.nullable(positiveInt()), null),
        /** The completion policy (--done-when, --min-confidence); a state from before it reads as every finding blocking. */
        doneWhen: z._default(z.enum(['critical', 'warning', 'info']), 'info'),
        minConfidence: z._default(z.int().check(z.minimum(0), z.maximum(100)), 0),
      }),
      { maxCritical: 5, stuckRounds: 3, similarity: 0.95, maxTokens: null, doneWhen: 'info', minConfidence: 0 },
    ),
    /** The project's checks, named by the user (--check, .minions.json), and how they did when the loop started. */
    checks: z._default(z.object({ commands: z.array(z.string()), timeoutSeconds: positiveInt(), baseline: z.array(CheckOutcome) }), {
      commands: [],
      timeoutSeconds: 300,
      baseline: [],
    }),
    /** The cost profile (--effort): the reviewers that run and the model asked of each agent. A state from before profiles ran standard. */
    effort: z._default(
      z.object({
        profile: z.enum(EFFORTS),
        reviewers: z.array(z.enum(REVIEWERS)).check(z.minLength(1)),
        models: z.object(Object.fromEntries(MODEL_AGENTS.map((a) => [a, Model])) as Record<(typeof MODEL_AGENTS)[number], typeof Model>),
      }),
      () => ({ ...STANDARD_EFFORT, reviewers: [...STANDARD_EFFORT.reviewers], models: { ...STANDARD_EFFORT.models } }),
    ),
    /** Layer-0 checks the project's .minions.json turned off. */
    layer0: z._default(z.object({ disabled: z.array(z.string()) }), { disabled: [] }),
    /** Consecutive Stop blocks without progress, keyed by a digest of the progress made so far. */
    stopGuard: z.object({ key: z.string(), blocks: count() }),
    /**
     * The project's changed files (against base) when this round's review began, for its R1 prompts:
     * the Stop and prompt hooks re-inject them without running git.
     */
    changedFiles: z._default(z.array(z.string()), []),
    /** The issues still open when the loop STOPPED (first 20), for the closing message. */
    openIssues: z._default(
      z.array(z.object({ severity: z.enum(['critical', 'warning', 'info']), file: z.string(), line: z.nullable(z.number()), description: z.string() })),
      [],
    ),
    /**
     * Seed 003's question after the critic's structural diagnosis: pending (asked at the verdict), offered
     * (shown at Stop), then the user's answer; none = no answer (a Stop, `claude -p`); null = never asked.
     */
    escalationChoice: z._default(
      z.nullable(z.object({ choice: z.enum(ESCALATION_CHOICES), diagnosis: z.string(), at: z.string() })),
      null,
    ),
    iterations: z.array(IterationRecord).check(z.minLength(1)),
  });
  return { Phase, Counts, ReviewerRun, PitfallNote, ClassNote, PatchNote, VerdictSummary, Tokens, AgentCost, IterationRecord, State };
}

type Schemas = ReturnType<typeof build>;
let built: Schemas | undefined;

/** The state file's schema. */
export const State = z.lazy(() => (built ??= build()).State);
export type Phase = z.infer<Schemas['Phase']>;
export type ReviewerRun = z.infer<Schemas['ReviewerRun']>;
export type PitfallNote = z.infer<Schemas['PitfallNote']>;
export type ClassNote = z.infer<Schemas['ClassNote']>;
export type PatchNote = z.infer<Schemas['PatchNote']>;
export type VerdictSummary = z.infer<Schemas['VerdictSummary']>;
export type Tokens = z.infer<Schemas['Tokens']>;
export type AgentCost = z.infer<Schemas['AgentCost']>;
export type IterationRecord = z.infer<Schemas['IterationRecord']>;
export type State = z.infer<Schemas['State']>;
