/**
 * What a state must satisfy beyond its schema, checked on every load. The hooks never write a state that
 * breaks one of these; a state that does was written by something else (or forged together with the
 * record), and a running loop with such a state is stopped as tampered. Pure.
 */
import { REVIEWERS } from '../protocol/agents';
import type { State } from './schema';

const STATUS_OF = { R1: 'in_progress', R2: 'in_progress', DONE: 'done', STOPPED: 'stopped', CANCELLED: 'cancelled', REVIEWED: 'reviewed' } as const;
const MAX_ITERATIONS = 20;

const parses = (t: string): boolean => !Number.isNaN(Date.parse(t));

/** Every broken invariant, as a short phrase; [] for a sound state. */
export function stateProblems(state: State): string[] {
  const problems: string[] = [];
  const add = (ok: boolean, problem: string) => {
    if (!ok) problems.push(problem);
  };
  add(STATUS_OF[state.currentPhase] === state.status, `status ${state.status} does not match phase ${state.currentPhase}`);
  add(state.maxIterations <= MAX_ITERATIONS, `maxIterations ${state.maxIterations} is over ${MAX_ITERATIONS}`);
  add(state.iteration <= state.maxIterations, `iteration ${state.iteration} is over maxIterations ${state.maxIterations}`);
  add(state.iterations.length === state.iteration, `${state.iterations.length} iteration records for iteration ${state.iteration}`);
  state.iterations.forEach((it, i) => add(it.iteration === i + 1, `iteration record ${i + 1} says ${it.iteration}`));
  const times = [state.startedAt, state.updatedAt, ...state.iterations.map((it) => it.startedAt)];
  // Parse, not order: hooks of one loop may run on clocks a little apart.
  add(times.every(parses), 'a timestamp does not parse');

  const last = state.iterations[state.iterations.length - 1];
  if (!last) return problems;
  for (const it of state.iterations.slice(0, -1)) add(it.r1.status === 'complete' && it.verdict !== null, `iteration ${it.iteration} is over without a verdict`);
  for (const r of REVIEWERS) {
    const run = last.r1.reviewers[r];
    add(run.status === 'pending' || run.status === 'skipped' || run.dispatches > 0, `${r} is ${run.status} without a dispatch`);
    add((run.status === 'skipped') !== state.effort.reviewers.includes(r), `${r} is ${run.status}, and ${state.effort.reviewers.includes(r) ? 'in' : 'not in'} the effort profile`);
  }
  const final = REVIEWERS.every((r) => ['valid', 'invalid', 'skipped'].includes(last.r1.reviewers[r].status));
  add(last.r1.status === 'pending' || final, 'the review is complete with a reviewer not final');
  add((last.r1.status === 'complete') === (last.verdict !== null), 'the review status and its verdict disagree');
  add(!last.r1.aggregation || (final && last.r1.status === 'pending'), 'an aggregation is pending before the fifth review');
  const verdict = last.verdict;
  if (verdict) add(verdict.open.length === verdict.total, `the verdict counts ${verdict.total} open findings but lists ${verdict.open.length}`);

  switch (state.currentPhase) {
    case 'R1':
      add(last.r1.status === 'pending', 'R1 with a finished review');
      break;
    case 'R2':
      add(verdict !== null && verdict.total > 0, 'R2 without findings to fix');
      break;
    case 'DONE':
      add(verdict !== null && verdict.overall === 'clean' && verdict.total === 0, 'DONE with open findings or without a clean verdict');
      add(state.stopReason === null, 'DONE with a stop reason');
      break;
    case 'STOPPED':
      add(state.stopReason !== null, 'STOPPED without a reason');
      break;
    case 'CANCELLED':
      break;
    case 'REVIEWED':
      add(state.reviewOnly, 'REVIEWED without --no-fix');
      add(verdict !== null, 'REVIEWED without a verdict');
      add(state.stopReason === null, 'REVIEWED with a stop reason');
      break;
  }
  return problems;
}
