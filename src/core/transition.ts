/**
 * The review loop's state machine: transition(loaded, event) → {state, effects}. Pure: the shell
 * observes files and git, passes what it saw in the event, then saves and runs the effects.
 */
import type { CostReading, Event, Loaded, Outcome } from './events';
import { onDispatch } from './dispatch';
import { onFixerStop } from './fix-stop';
import { unchanged } from './loop-state';
import { onPrompt } from './prompt';
import { onReviewerStop } from './review-stop';
import { onAggregate, onAggregationDied } from './round';
import { onCommand } from './start';
import { onStop } from './stop';
import { onTampered } from './tampered';
import * as progress from './progress';
import { recordCost } from '../report/cost';
import type { State } from '../state/schema';

export type { Effect, Event, Loaded, Outcome, Tamper } from './events';
export { initialState } from './start';
export { STALE_AFTER_MS, MAX_OUTPUT_FAILURES, MAX_IDLE_BLOCKS, currentIteration, isActive, missingReviewers, phasePrompt, stateOf } from './loop-state';

/** One handler per event kind, each in its own module under core/. */
export function transition(loaded: Loaded, event: Event): Outcome {
  if (event.kind === 'command') return onCommand(loaded, event);
  if (event.kind === 'tampered') return onTampered(loaded, event);
  if (loaded.kind !== 'ok' || loaded.state.sessionId !== event.sessionId) {
    // Not this session's loop (or none): everything is allowed and nothing is said,
    // except that a broken state file is reported where a session stops.
    if (loaded.kind === 'broken' && event.kind === 'stop') return unchanged(loaded, [{ type: 'notify', text: progress.notify.brokenState('.agents/tmp/state.json', loaded.problem) }]);
    return unchanged(loaded);
  }
  const state = loaded.state;
  if ((event.kind === 'reviewer-stop' || event.kind === 'fixer-stop') && event.cost) return withCost(state, event, event.cost);
  return handle(state, event);
}

function handle(state: State, event: Exclude<Event, { kind: 'command' | 'tampered' }>): Outcome {
  switch (event.kind) {
    case 'prompt':
      return onPrompt(state, event);
    case 'dispatch':
      return onDispatch(state, event);
    case 'reviewer-stop':
      return onReviewerStop(state, event);
    case 'aggregate':
      return onAggregate(state, event);
    case 'aggregation-died':
      return onAggregationDied(state, event);
    case 'fixer-stop':
      return onFixerStop(state, event);
    case 'stop':
      return onStop(state, event);
  }
}

/**
 * A subagent's cost is recorded at its stop, whatever the stop means for the phase (accepted, blocked for
 * bad output), before the handler may start the next round. A stop the handler ignores (late, repeated)
 * only refreshes the reading of an agent already counted: otherwise it changes nothing.
 */
function withCost(state: State, event: Extract<Event, { kind: 'reviewer-stop' | 'fixer-stop' }>, cost: CostReading): Outcome {
  const before = state.iterations.find((it) => Object.hasOwn(it.cost, cost.agentId))?.cost[cost.agentId];
  const same = before !== undefined && JSON.stringify(before) === JSON.stringify(cost.cost);
  const counted = same ? state : recordCost(state, cost.agentId, cost.cost);
  const out = handle(counted, event);
  return out.state === counted && before === undefined ? { state, effects: out.effects } : out;
}
