/** The state's invariants beyond its schema: a table of sound states and of one break each. */
import { describe, expect, it } from 'vitest';
import { REVIEWERS } from '../../src/protocol/agents';
import { stateProblems } from '../../src/state/invariants';
import type { State } from '../../src/state/schema';
import { stateBuilder } from './builders';

const R1 = stateBuilder().build();
const allValid = () => stateBuilder().allReviewers({ status: 'valid', dispatches: 1 });
const done = (): State => {
  const s = allValid().build();
  const it = s.iterations[0]!;
  return {
    ...s,
    status: 'done',
    currentPhase: 'DONE',
    iterations: [{ ...it, r1: { ...it.r1, status: 'complete' }, verdict: { ...stateBuilder().inR2(0).build().iterations[0]!.verdict!, overall: 'clean', total: 0, open: [] } }],
  };
};
const lastIt = (s: State) => s.iterations[s.iterations.length - 1]!;
const withLast = (s: State, patch: Partial<State['iterations'][number]>): State => ({ ...s, iterations: [...s.iterations.slice(0, -1), { ...lastIt(s), ...patch }] });

describe('sound states', () => {
  it.each([
    ['a fresh R1', R1],
    ['R1 with every reviewer dispatched', stateBuilder().dispatched().build()],
    ['R1 aggregating after the fifth review', withLast(allValid().build(), { r1: { ...lastIt(allValid().build()).r1, aggregation: { since: R1.startedAt, attempts: 1 } } })],
    ['R2', stateBuilder().inR2(2).build()],
    ['DONE with a clean verdict', done()],
    ['STOPPED with a reason', { ...R1, status: 'stopped', currentPhase: 'STOPPED', stopReason: 'tampered' } as State],
    ['CANCELLED', { ...R1, status: 'cancelled', currentPhase: 'CANCELLED', stopReason: 'cancelled' } as State],
    ['iteration at the budget', { ...R1, maxIterations: 1 }],
  ])('%s', (_, state) => {
    expect(stateProblems(state)).toEqual([]);
  });
});

describe('one broken invariant each', () => {
  const doneWithOpen = (): State => withLast(done(), { verdict: { ...lastIt(done()).verdict!, overall: 'issues_found', total: 1, open: ['fp0'] } });
  it.each<[string, State, RegExp]>([
    ['status disagrees with the phase (forged DONE)', { ...R1, currentPhase: 'DONE' }, /status in_progress does not match phase DONE/],
    ['in_progress in STOPPED', { ...R1, currentPhase: 'STOPPED', stopReason: 'x' }, /status in_progress does not match phase STOPPED/],
    ['DONE with an open finding', doneWithOpen(), /DONE with open findings/],
    ['DONE without a verdict', { ...R1, status: 'done', currentPhase: 'DONE' }, /DONE with open findings or without a clean verdict/],
    ['DONE with a stop reason', { ...done(), stopReason: 'max_iterations' }, /DONE with a stop reason/],
    ['iteration over the budget', { ...R1, iteration: 4, maxIterations: 3 }, /iteration 4 is over maxIterations 3/],
    ['maxIterations over 20', { ...R1, maxIterations: 25 }, /maxIterations 25 is over 20/],
    ['fewer iteration records than the iteration', { ...R1, iteration: 2 }, /1 iteration records for iteration 2/],
    ['an iteration record out of order', withLast(R1, { iteration: 3 }), /iteration record 1 says 3/],
    ['a timestamp that does not parse', { ...R1, updatedAt: 'yesterday' }, /a timestamp does not parse/],
    ['an iteration start that does not parse', withLast(R1, { startedAt: '2026-13-45' }), /a timestamp does not parse/],
    ['a reviewer valid without a dispatch', stateBuilder().reviewer('critic', { status: 'valid', dispatches: 0 }).build(), /critic is valid without a dispatch/],
    ['R2 without findings', stateBuilder().inR2(0).build(), /R2 without findings to fix/],
    ['R1 with a complete review', withLast(allValid().build(), { r1: { ...lastIt(allValid().build()).r1, status: 'complete' }, verdict: lastIt(stateBuilder().inR2(1).build()).verdict }), /R1 with a finished review/],
    ['a verdict listing fewer open findings than it counts', withLast(stateBuilder().inR2(2).build(), { verdict: { ...lastIt(stateBuilder().inR2(2).build()).verdict!, open: ['fp0'] } }), /counts 2 open findings but lists 1/],
    ['an aggregation before the fifth review', withLast(R1, { r1: { ...lastIt(R1).r1, aggregation: { since: R1.startedAt, attempts: 1 } } }), /an aggregation is pending before the fifth review/],
    ['STOPPED without a reason', { ...R1, status: 'stopped', currentPhase: 'STOPPED' }, /STOPPED without a reason/],
    ['an earlier iteration without a verdict', { ...R1, iteration: 2, iterations: [lastIt(R1), { ...lastIt(R1), iteration: 2 }] }, /iteration 1 is over without a verdict/],
  ])('%s', (_, state, problem) => {
    const problems = stateProblems(state);
    expect(problems.some((p) => problem.test(p)), problems.join('; ')).toBe(true);
  });

  it('every reviewer is checked', () => {
    for (const r of REVIEWERS) expect(stateProblems(stateBuilder().reviewer(r, { status: 'invalid', dispatches: 0 }).build())).toEqual([`${r} is invalid without a dispatch`]);
  });
});
