/** Stop: re-inject the phase prompt while the loop runs, or let the session go. */
import { FIXER_TYPE, REVIEWERS } from '../protocol/agents';
import type { Event, Outcome } from './events';
import { MAX_IDLE_BLOCKS, isActive, missingReviewers, phasePrompt, progressKey, updateIteration } from './loop-state';
import * as progress from './progress';
import { reviewersWord } from './prompts';
import { awaitingChoice, choiceStop } from './escalation-choice';
import { loopFacts } from '../report/facts';
import type { IterationRecord, State } from '../state/schema';
import { PHASES_DIR } from '../protocol/paths';

export function onStop(state: State, event: Extract<Event, { kind: 'stop' }>): Outcome {
  if (!isActive(state)) {
    // DONE, STOPPED or CANCELLED: say so once, then retire the state file so idle hooks cost nothing.
    // The shell reads the facts from the phase files; without them the state alone still names the essentials.
    const facts = event.facts ?? loopFacts({ state, verdicts: [], checks: [], totalChange: null, phasesDir: `${PHASES_DIR}/` });
    // The escalation question keeps the state for the answer; a second Stop without one ends it as before.
    if (awaitingChoice(state)) return choiceStop(state, event.now, progress.outcome(state, facts));
    return { state, effects: [{ type: 'notify', text: progress.outcome(state, facts) }, { type: 'archive-run', into: state.runId, phases: false }] };
  }
  const phaseAgents = state.currentPhase === 'R1' ? REVIEWERS.map((r) => `minions:${r}`) : [FIXER_TYPE];
  const inBackground = event.running.filter((t) => phaseAgents.includes(t));
  if (inBackground.length > 0) {
    // The host wakes the orchestrator when they finish; no re-dispatch, no block.
    return { state, effects: [{ type: 'notify', text: progress.notify.waiting(state, inBackground.map((t) => t.replace(/^minions:/, ''))) }] };
  }

  // Agents recorded as running that are not running any more ended without output: they may be dispatched again.
  let next = updateIteration(state, state.updatedAt, (it) => ({
    ...it,
    r1: {
      ...it.r1,
      reviewers: Object.fromEntries(
        REVIEWERS.map((r) => {
          const run = it.r1.reviewers[r];
          return [r, run.status === 'running' ? { ...run, status: 'pending', error: run.error ?? 'ended without output' } : run];
        }),
      ) as IterationRecord['r1']['reviewers'],
    },
    r2: it.r2.status === 'running' ? { ...it.r2, status: 'pending' } : it.r2,
  }));

  const key = progressKey(next);
  const blocks = next.stopGuard.key === key ? next.stopGuard.blocks + 1 : 1;
  const missing = missingReviewers(next);
  if (blocks > MAX_IDLE_BLOCKS) {
    const what = next.currentPhase === 'R1' ? `; missing: ${missing.join(', ')}` : '';
    next = { ...next, stopGuard: { key, blocks: next.stopGuard.blocks } };
    return { state: next, effects: [{ type: 'notify', text: progress.notify.paused(next, what) }] };
  }
  next = { ...next, stopGuard: { key, blocks }, updatedAt: event.now };
  const what = next.currentPhase === 'R1' ? `dispatching ${missing.length === next.effort.reviewers.length ? `all ${reviewersWord(next)}` : missing.join(', ')}` : 'dispatching the fixer';
  return {
    state: next,
    effects: [
      { type: 'block', reason: phasePrompt(next) },
      { type: 'notify', text: progress.notify.reinject(next, what) },
    ],
  };
}

