/** A prompt typed in the owning session: the model is reminded where the loop stands. */
import type { Event, Outcome } from './events';
import { isActive, phasePrompt } from './loop-state';
import { answerChoice, awaitingChoice } from './escalation-choice';
import type { State } from '../state/schema';

export function onPrompt(state: State, event: Extract<Event, { kind: 'prompt' }>): Outcome {
  if (awaitingChoice(state)) return answerChoice(state, event.text ?? '', event.now);
  if (!isActive(state)) return { state, effects: [] };
  // A new turn: the idle guard starts again, and the model is reminded where the loop stands.
  const next: State = { ...state, stopGuard: { key: '', blocks: 0 }, updatedAt: event.now };
  return { state: next, effects: [{ type: 'context', text: phasePrompt(next) }] };
}

