import { describe, expect, it } from 'vitest';
import { asksChoice, choiceOf, diagnosisText } from '../../src/core/escalation-choice';
import type { Verdict } from '../../src/protocol/verdict-schema';
import { stateBuilder } from './builders';

const diagnosis = { class: 'c1', rootCause: 'copied text', fix: 'state it once', recommend: 'structural' as const };
const escalation = (withDiagnosis: boolean) => ({ class: 'c1', reason: 'repeated' as const, category: 'docs', sites: ['a.md:1'], attempts: [1, 2], fixerReason: null, open: true, diagnosis: withDiagnosis ? diagnosis : null });
/** Only the fields the question reads. */
const verdict = (over: Partial<{ next: string; stopReason: string | null; diagnosed: boolean; open: boolean }> = {}): Verdict =>
  ({
    next: over.next ?? 'STOPPED',
    stopReason: over.stopReason === undefined ? 'stuck_issue' : over.stopReason,
    escalations: [escalation(over.diagnosed ?? true)],
    findings: [{ toFixer: over.open ?? true }],
  }) as unknown as Verdict;

describe('asksChoice: when the loop asks instead of stopping', () => {
  const loop = stateBuilder().build();
  it.each([
    ['a stuck_issue stop with a diagnosis and open findings', loop, verdict(), true],
    ['no diagnosis', loop, verdict({ diagnosed: false }), false],
    ['another stop reason', loop, verdict({ stopReason: 'max_iterations' }), false],
    ['not a stop', loop, verdict({ next: 'R2', stopReason: null }), false],
    ['nothing open (no fix round to offer)', loop, verdict({ open: false }), false],
    ['asked once already', stateBuilder({ escalationChoice: { choice: 'patch', diagnosis: 'd', at: 't' } }).build(), verdict(), false],
    ['a review-only pass', stateBuilder({ reviewOnly: true }).build(), verdict(), false],
  ] as const)('%s → %s', (_, state, v, asked) => {
    expect(asksChoice(state, v)).toBe(asked);
  });
  it('the diagnosis text names each diagnosed class', () => {
    expect(diagnosisText(verdict())).toBe('Class c1: root cause: copied text; fix: state it once.');
  });
});

describe('choiceOf: the typed answer', () => {
  it.each([
    ['structural', 'structural'],
    [' STRUCTURAL \n', 'structural'],
    ['patch', 'patch'],
    ['halt', 'halt'],
    ['', 'halt'],
    ['structural please', 'halt'],
    ['/minions:status', 'halt'],
  ])('%j → %s', (text, choice) => {
    expect(choiceOf(text)).toBe(choice);
  });
});
