/** The core's vocabulary: what the shell observed (events), what it must do (effects), what it loaded. */
import type { Host } from '../protocol/hosts';
import type { Reviewer } from '../protocol/agents';
import type { Command } from './args';
import type { FixRound } from '../review/classes';
import type { Sources } from '../review/grounding';
import type { ReviewReading } from '../review/reading';
import type { Verdict } from '../protocol/verdict-schema';
import type { Dismissal } from '../protocol/dismissed';
import type { State, AgentCost } from '../state/schema';
import type { CheckRun } from '../protocol/check-runs';
import type { FileChange } from '../checks/layer0';
import type { MachineFinding } from '../protocol/machine-finding';
import type { PinChange, PinRecord } from '../checks/pins';
import type { ChecksReport } from '../checks/reports';
import type { LoopFacts } from '../report/facts';
import type { BaseReason } from '../protocol/base';
import type { ProjectRules } from './project-rules';

/** A hook-owned file that does not hold what the hooks wrote, or a state that breaks its invariants. */
export interface Tamper {
  /** Project-relative path (or the hooks' copy of one). */
  file: string;
  problem: 'changed' | 'deleted' | 'added' | 'invariant';
  /** For 'invariant': which one. */
  detail?: string;
}

export type Loaded =
  | { kind: 'none' }
  | { kind: 'broken'; problem: string }
  | { kind: 'ok'; state: State }
  /** state: the last state the hooks themselves wrote, when it is known and sound; the file on disk is not used. */
  /**
   * claimedBy: with no trusted state, the session the file on disk names (read without trusting it): it
   * decides only whose hooks act on the tampering, so another session's loop is left to its own session.
   */
  | { kind: 'tampered'; state: State | null; problems: Tamper[]; claimedBy?: string | null };

export type Effect =
  /** Before the state is saved. */
  | { type: 'write'; path: string; content: string }
  | { type: 'mkdir'; path: string }
  /** Before the new state is saved: moves any state file and phases/ into the archive (into: null → the shell names it). */
  | { type: 'archive-previous'; into: string | null }
  /** REPORT.md for the loop as it will be saved: the runner renders it into a 'write' before the save. */
  | {
      type: 'write-report';
      /** The round's verdict, when the same outcome writes it: the report uses it instead of reading back and validating a file of thousands of findings. */
      verdict?: Verdict;
    }
  /** After the state is saved: a file the user named (--sarif), written beside itself, never through a link; a failure costs the loop nothing. */
  | { type: 'export'; file: string; content: string }
  /** After the state is saved: moves the state file (and phases/ when asked) into archive/<into>/. */
  | { type: 'archive-run'; into: string; phases: boolean }
  /** Keeps a recorded review's text in the hooks' record, under its sha256 (ReviewerRun.frozen). */
  | { type: 'freeze'; content: string }
  /** From now on the record vouches for an agent's file as it is (the fixer's accepted answers). */
  | { type: 'pin'; path: string; content: string }
  /** The record keeps these pins (the git dir's files, the files the checks run), taken at the loop's start. */
  | { type: 'pin-repo'; pins: PinRecord }
  /** The record stops vouching for these hook-owned files (reported as tampered; the loop is over). */
  | { type: 'forget'; paths: string[] }
  /** Answers, mapped to each event's output shape by the shell. */
  | { type: 'block'; reason: string }
  | { type: 'deny'; reason: string }
  /** PreToolUse: let the call through without asking the user (the plugin's own bookkeeping files). */
  | { type: 'allow'; reason: string }
  | { type: 'context'; text: string }
  | { type: 'notify'; text: string }
  | { type: 'refuse'; reason: string };

export interface Outcome {
  /** The state to save; the same object as loaded (or null) means "no change". */
  state: State | null;
  effects: Effect[];
}

/** A patch between two project trees, as the shell made it (src/shell/snapshot.ts diffTrees). */
export interface PatchText {
  text: string;
  /** True when cut at `limit` bytes; `files` always lists every changed path. */
  truncated: boolean;
  files: string[];
  limit: number;
}

/**
 * The patches a review round starts with, from the snapshots: the change against the loop's base
 * (diff.patch) and, from iteration 2, what the fixer changed in the round before (fix-delta.patch).
 * null: no snapshot to make it from (outside git, or git failed).
 */
/**
 * What changed since the loop's start among the pinned files outside the snapshot, as the shell read them
 * at a phase end: the git dir's (the loop ends STOPPED) and the files the checks run (no DONE).
 */
export interface PinnedChanges {
  gitDir: PinChange[];
  checks: PinChange[];
}

export interface RoundPatches {
  diff: PatchText | null;
  fixDelta: PatchText | null;
}

interface Base {
  sessionId: string;
  now: string;
}

/** What a subagent's run cost so far, read from its transcript (agent_transcript_path). */
export interface CostReading {
  agentId: string;
  cost: AgentCost;
}
export type Event =
  | (Base & {
      kind: 'command';
      command: Command;
      head: string | null;
      changedFiles: string[];
      root?: string | null;
      tree?: string | null;
      patches?: RoundPatches;
      /** The project's checks, run once before the loop starts (and before the base snapshot). */
      baseline?: CheckRun[];
      /** The git dir's files and the files the checks run outside the snapshot, as they are at the start. */
      pins?: PinRecord | null;
      /** The host whose session sends the command, recorded in the state it starts (default Claude Code). */
      host?: Host;
      /** Why `head` is the base (shell/base.ts); absent: HEAD, as before --base. */
      baseChoice?: { ref: string | null; why: BaseReason } | null;
      /** --sarif's file, absolute. */
      sarif?: string | null;
      /** The project's review rules, as read at the start. */
      projectRules?: ProjectRules | null;
    })
  | (Base & {
      kind: 'prompt';
      /** The prompt as typed: the answer to the escalation question, when one is asked. */
      text?: string;
    })
  | (Base & {
      kind: 'dispatch';
      /** null: an Agent call without subagent_type (a general-purpose agent). */
      subagentType: string | null;
      /** The subagent making the call (the payload's agent_type, or its agent_id), absent for the main thread. */
      fromAgent?: string | null;
      /** The Agent call's `model` (null: none named); absent where the shell did not read it. */
      model?: string | null;
    })
  | (Base & {
      kind: 'reviewer-stop';
      reviewer: Reviewer;
      /** The stopping reviewer's output file as it is now. */
      file: string | null;
      /**
       * What the reviewer last wrote to that file with the Write and Edit tools, where its transcript
       * tells it for certain (own-write.ts); null where it does not.
       */
      ownWrite?: string | null;
      message: string | null;
      /** The project files its review names. */
      sources: Sources;
      cost?: CostReading | null;
    })
  /** The round's verdict, once every review is recorded: the shell observed what the aggregation needs. */
  | (Base & {
      kind: 'aggregate';
      /** Each review as the hooks recorded it (the frozen text; the file only in states from before freezing). */
      reviews: Record<Reviewer, string | null>;
      /** Reviews whose file changed after the hooks recorded them: reported, not used. */
      rewritten: Reviewer[];
      /** How each review's stop read it, where the hooks kept that (its findings are not grounded again). */
      readings?: Partial<Record<Reviewer, ReviewReading>>;
      /** The project files the reviews name. */
      sources: Sources;
      /** Earlier rounds' verdicts, oldest first. */
      history: Verdict[];
      /** How often the fixer declined each fingerprint in earlier rounds. */
      declines: Record<string, number>;
      /** The fixer's answers of earlier rounds, oldest first. */
      fixes?: FixRound[];
      /** The project's tree now, and what changed since the round's reviewStart tree (project files only). */
      tree?: string | null;
      changedDuringReview?: { files: string[]; patch: string } | null;
      /** Files the review's test runs left (checks/test-artefacts.ts): named in the verdict, not counted as changes. */
      testArtefacts?: string[];
      /** Taken with the tree: the next round's diff.patch, should this round go straight to another review. */
      patches?: RoundPatches;
      /** The hooks' own findings on the fix before this round (Layer-0, broken checks): part of this verdict. */
      machine?: MachineFinding[];
      /** The project's checks on the tree this round reviewed (the baseline, or after the previous fix), for its REVIEW.md. */
      checks?: ChecksReport | null;
      /** Pinned files outside the snapshot that changed since the loop's start. */
      pinned?: PinnedChanges | null;
      /** The user's dismissals (.minions/dismissed.json), and what is wrong with that file when it could not be used. */
      dismissed?: Dismissal[];
      dismissedProblem?: string | null;
    })
  | (Base & {
      kind: 'fixer-stop';
      summary: string | null;
      summaryJson: string | null;
      previousSummary: string | null;
      /** The previous round's fix-delta.patch as the hooks wrote it (null: none, or the first round). */
      previousFixDelta?: string | null;
      tree?: string | null;
      /** The next round's patches: the change against the base as the fixer left it, and the fixer's own change. */
      patches?: RoundPatches;
      /** This round's verdict (its finding classes and their history); null when unreadable. */
      verdict?: Verdict | null;
      /** The project's checks, run after the fixer's turn (null: none configured, or not run for this stop). */
      checks?: CheckRun[] | null;
      /** The files the fixer changed: text at the review's end and now (Layer-0's input). */
      changes?: FileChange[];
      /** Files of this round's open Layer-0 findings: text at the loop's start and now (are they still there?). */
      recheck?: FileChange[];
      /** The test runners' config files at the project's root now, by path (what each runner collects). */
      runnerConfigs?: Record<string, string>;
      cost?: CostReading | null;
      /** The project's checks on the tree this round reviewed, for its REVIEW.md. */
      reviewedChecks?: ChecksReport | null;
      /** The project's changed files now, for the next round's R1 prompts (absent: as the state has them). */
      changedFiles?: string[];
      /** Pinned files outside the snapshot that changed since the loop's start (read before the checks ran, and after). */
      pinned?: PinnedChanges | null;
    })
  /** The lock's previous holder died while aggregating (r1.aggregation was still set). */
  | (Base & { kind: 'aggregation-died' })
  /** The loaded state (or another hook-owned file) is not what the hooks wrote. */
  | (Base & { kind: 'tampered'; problems: Tamper[] })
  /** facts: taken when the loop has ended, for the outcome line. */
  | (Base & { kind: 'stop'; running: string[]; facts?: LoopFacts | null });

