/**
 * The project's checks as the reports see them: the verification step's `checks.json` (src/checks/reports.ts,
 * the one schema of that file) and the outcomes the state keeps, tallied for the ranking. Pure.
 */
import type { CheckOutcome } from '../protocol/check-runs';
import type { CheckEntry } from '../checks/reports';
import type { State } from '../state/schema';
import type { ChecksTally } from './rank';

export const checkPassed = (c: Pick<CheckEntry, 'status'>): boolean => c.status === 'passed';

export function tallyChecks(checks: readonly Pick<CheckOutcome, 'status'>[]): ChecksTally {
  const passed = checks.filter(checkPassed).length;
  return { passed, failed: checks.length - passed };
}

/**
 * The checks that ran on each round's tree: round 1 reviewed the tree the baseline ran on, round N the
 * tree fix round N−1 left, whose checks the state keeps. null: no checks configured, or none ran on it.
 */
export function roundChecks(state: State): (ChecksTally | null)[] {
  if (state.checks.commands.length === 0) return state.iterations.map(() => null);
  return state.iterations.map((it, i) => {
    if (i === 0) return state.checks.baseline.length > 0 ? tallyChecks(state.checks.baseline) : null;
    const before = state.iterations[i - 1]!.checks;
    return before ? tallyChecks(before) : null;
  });
}
