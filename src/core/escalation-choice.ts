/**
 * Seed 003's question after the critic's structural diagnosis: the loop that would stop as stuck_issue
 * asks the user once — one more fix round with the diagnosis as the task (structural), one more as usual
 * (patch), or halt. The loop is STOPPED while it asks; an answer typed as the next prompt reopens it, and a
 * Stop without an answer leaves it STOPPED, as it was before the question existed.
 */
import type { Effect, Outcome } from './events';
import { phasePrompt } from './loop-state';
import * as progress from './progress';
import * as prompts from './prompts';
import type { EscalationOutcome, Verdict } from '../protocol/verdict-schema';
import type { EscalationChoice, State } from '../state/schema';

/** The words the user types; anything else halts. */
export const CHOICE_WORDS = ['structural', 'patch', 'halt'] as const;

/**
 * The question is asked once per loop, for a stuck_issue stop that has a diagnosis, in a loop that fixes,
 * while findings are open: a fix round needs some (a state in R2 without any is not one the hooks write).
 */
export function asksChoice(state: State, verdict: Verdict): boolean {
  return (
    !state.reviewOnly &&
    state.escalationChoice === null &&
    verdict.next === 'STOPPED' &&
    verdict.stopReason === 'stuck_issue' &&
    diagnosed(verdict.escalations).length > 0 &&
    verdict.findings.some((f) => f.toFixer)
  );
}

const diagnosed = (escalations: readonly EscalationOutcome[]) => escalations.filter((e) => e.diagnosis !== null);

/** The diagnosis the structural round is given as its task. */
export const diagnosisText = (verdict: Verdict): string =>
  diagnosed(verdict.escalations)
    .map((e) => prompts.diagnosisTask(e.class, e.diagnosis!.rootCause, e.diagnosis!.fix))
    .join(' ');

export const awaitingChoice = (state: State): boolean => state.escalationChoice?.choice === 'pending' || state.escalationChoice?.choice === 'offered';

/** The user's prompt as an answer: one of the words, alone (case and spaces aside); anything else is halt. */
export function choiceOf(text: string): Extract<EscalationChoice, 'structural' | 'patch' | 'halt'> {
  const word = text.trim().toLowerCase();
  return word === 'structural' || word === 'patch' ? word : 'halt';
}

/** Stop while the question is open: shown once (the session ends its turn to let the user answer); a second Stop without an answer halts. */
export function choiceStop(state: State, now: string, outcomeText: string): Outcome {
  const asked = state.escalationChoice!;
  if (asked.choice === 'pending') {
    const next: State = { ...state, escalationChoice: { ...asked, choice: 'offered', at: now } };
    return { state: next, effects: [{ type: 'notify', text: `${outcomeText}\n${progress.escalationQuestion(asked.diagnosis)}` }] };
  }
  const next: State = { ...state, escalationChoice: { ...asked, choice: 'none', at: now } };
  return {
    state: next,
    effects: [{ type: 'write-report' }, { type: 'notify', text: progress.notify.choiceNone() }, { type: 'archive-run', into: state.runId, phases: false }],
  };
}

/** The user's answer, typed as the next prompt. */
export function answerChoice(state: State, text: string, now: string): Outcome {
  const asked = state.escalationChoice!;
  const choice = choiceOf(text);
  if (choice === 'halt') {
    const next: State = { ...state, escalationChoice: { ...asked, choice, at: now }, updatedAt: now };
    const effects: Effect[] = [{ type: 'write-report' }, { type: 'notify', text: progress.notify.choiceHalt(text.trim().toLowerCase() !== 'halt') }];
    return { state: next, effects };
  }
  // One more fix round of this iteration (its findings file was written with the question); one more review follows it.
  const next: State = {
    ...state,
    status: 'in_progress',
    currentPhase: 'R2',
    stopReason: null,
    stopDetail: null,
    openIssues: [],
    maxIterations: Math.min(20, Math.max(state.maxIterations, state.iteration + 1)),
    escalationChoice: { ...asked, choice, at: now },
    stopGuard: { key: '', blocks: 0 },
    updatedAt: now,
  };
  return { state: next, effects: [{ type: 'notify', text: progress.notify.choiceRound(next, choice) }, { type: 'context', text: phasePrompt(next) }] };
}
