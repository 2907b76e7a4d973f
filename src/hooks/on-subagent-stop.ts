/** SubagentStop: validates a reviewer's output or the fixer's summary, runs the project's checks and Layer-0 on a fix, aggregates, advances the phase. */
import { isFixer, reviewerOf } from '../protocol/agents';
import { fixerStopRunsChecks } from '../core/fix-stop';
import { isActive, stateOf } from '../core/loop-state';
import { changedFiles } from '../shell/git';
import { fixerObservations, readVerdict } from '../shell/observe';
import { fixObservation } from '../shell/observe-fix';
import { reviewerStopObservation } from '../shell/observe-round';
import { fixEndObservation } from '../shell/observe-tree';
import { mergeObservations, pinnedObservation } from '../shell/pins';
import { readRecord, recordDir } from '../shell/record';
import { runChecks } from '../shell/run-checks';
import { SubagentStopPayload } from '../shell/payloads';
import { runHook } from '../shell/run-hook';
import { readReviewedChecks } from '../shell/observe-checks';
import { readAgentTranscript } from '../shell/transcript';
import { transact } from '../shell/transact';
import type { Loaded } from '../core/transition';
import type { State } from '../state/schema';

void runHook({
  name: 'on-subagent-stop',
  event: 'SubagentStop',
  payload: SubagentStopPayload,
  transact,
  async handle(payload, ctx) {
    const reviewer = reviewerOf(payload.agent_type);
    if (!reviewer && !isFixer(payload.agent_type)) return [];
    const sessionId = payload.session_id;
    /** The loop, when it is this session's and running. */
    const ours = (loaded: Loaded): State | null => {
      const state = stateOf(loaded);
      return state && state.sessionId === sessionId && isActive(state) ? state : null;
    };
    if (reviewer) {
      // Straight to the lock: the locked load says whether the loop is this session's, and a look without
      // it first would read and check the same files twice (about 1 ms of every reviewer's stop).
      // What the agent cost, and what it wrote, from the transcript the host wrote for it.
      const { cost, text: transcript } = readAgentTranscript(payload);
      return ctx.transact((l) => {
        const current = ours(l);
        if (!current) return null;
        return { kind: 'reviewer-stop', sessionId, now: ctx.now, reviewer, ...reviewerStopObservation(ctx.root, current, reviewer, payload.last_assistant_message ?? null, transcript), cost };
      });
    }
    const state = ours(ctx.load());
    if (!state) return [];
    const { cost } = readAgentTranscript(payload);
    // The checks may take minutes: they run before the lock is taken, and the core judges them under it.
    const seen = fixerObservations(ctx.root, state.iteration);
    // Before the checks: a planted git config or test runner would run in them (and could put itself back).
    const pins = () => {
      const dir = recordDir(ctx.root);
      return pinnedObservation(ctx.root, dir ? readRecord(dir)?.pins : null);
    };
    const pinnedBefore = state.currentPhase === 'R2' ? pins() : null;
    const untouched = !pinnedBefore || (pinnedBefore.gitDir.length === 0 && pinnedBefore.checks.length === 0);
    const checks = untouched && fixerStopRunsChecks(state, seen.summary, seen.summaryJson) ? await runChecks(ctx.root, state.checks.commands, { timeoutSeconds: state.checks.timeoutSeconds }) : null;
    // After the checks: what they write is part of the tree the next review sees.
    const end = fixEndObservation(ctx.root, state);
    const verdict = readVerdict(ctx.root, state.iteration);
    const fix = state.currentPhase === 'R2' ? fixObservation(ctx.root, state, end.tree, verdict) : {};
    return ctx.transact((l) => {
      const current = stateOf(l);
      if (!current) return null;
      return {
        kind: 'fixer-stop',
        sessionId,
        now: ctx.now,
        ...fixerObservations(ctx.root, current.iteration),
        ...end,
        verdict,
        checks,
        ...fix,
        cost,
        reviewedChecks: readReviewedChecks(ctx.root, current.iteration),
        // For the next round's R1 prompts (Stop and prompts re-inject them from the state).
        changedFiles: changedFiles(ctx.root, current.base),
        pinned: current.currentPhase === 'R2' ? mergeObservations(pinnedBefore, pins()) : null,
      };
    });
  },
});
