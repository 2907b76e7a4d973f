/** A prompt typed in the owning session: the model is reminded where the loop stands. */
import type { Event, Outcome } from './events';
import { FRESH_FOR_MS, isActive, phasePrompt } from './loop-state';
import { answerChoice, awaitingChoice } from './escalation-choice';
import type { State } from '../state/schema';

export function onPrompt(state: State, event: Extract<Event, { kind: 'prompt' }>): Outcome {
  if (awaitingChoice(state)) return answerChoice(state, event.text ?? '', event.now);
  if (!isActive(state)) return { state, effects: [] };
  // A new turn: the idle guard starts again, and the model is reminded where the loop stands. A state
  // whose guard is at rest and that was marked fresh minutes ago is left as it is: nothing is written.
  const fresh = Date.parse(event.now) - Date.parse(state.updatedAt) < FRESH_FOR_MS;
  const next: State = fresh && state.stopGuard.blocks === 0 && state.stopGuard.key === '' ? state : { ...state, stopGuard: { key: '', blocks: 0 }, updatedAt: event.now };
  return { state: next, effects: [{ type: 'context', text: phasePrompt(next) }] };
}

