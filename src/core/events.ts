/** The core's vocabulary: what the shell observed (events), what it must do (effects), what it loaded. */
import type { Reviewer } from './agents';
import type { Command } from './args';
import type { Sources } from '../review/grounding';
import type { Verdict } from '../review/verdict-schema';
import type { State } from '../state/schema';

export type Loaded = { kind: 'none' } | { kind: 'broken'; problem: string } | { kind: 'ok'; state: State };

export type Effect =
  /** Before the state is saved. */
  | { type: 'write'; path: string; content: string }
  | { type: 'mkdir'; path: string }
  /** Before the new state is saved: moves any state file and phases/ into the archive (into: null → the shell names it). */
  | { type: 'archive-previous'; into: string | null }
  /** After the state is saved: moves the state file (and phases/ when asked) into archive/<into>/. */
  | { type: 'archive-run'; into: string; phases: boolean }
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

interface Base {
  sessionId: string;
  now: string;
}
export type Event =
  | (Base & { kind: 'command'; command: Command; head: string | null; changedFiles: string[]; root?: string | null; tree?: string | null })
  | (Base & { kind: 'prompt'; changedFiles: string[] })
  | (Base & { kind: 'dispatch'; /** null: an Agent call without subagent_type (a general-purpose agent). */ subagentType: string | null })
  | (Base & {
      kind: 'reviewer-stop';
      reviewer: Reviewer;
      /** The five reviewers' output files of this iteration, as they are now. */
      files: Record<Reviewer, string | null>;
      message: string | null;
      /** The project files the reviews name. */
      sources: Sources;
      /** Earlier rounds' verdicts, oldest first. */
      history: Verdict[];
      /** How often the fixer declined each fingerprint in earlier rounds. */
      declines: Record<string, number>;
      /**
       * Taken only when this stop may complete the round: the project's tree now, and what changed since the
       * round's reviewStart tree (project files only; the reviews under .agents/ are not part of it).
       */
      tree?: string | null;
      changedDuringReview?: { files: string[]; patch: string } | null;
    })
  | (Base & { kind: 'fixer-stop'; summary: string | null; summaryJson: string | null; previousSummary: string | null; tree?: string | null })
  | (Base & { kind: 'stop'; running: string[]; changedFiles: string[] });

