/**
 * The project's own checks as data: what one run of a command gave (observed by src/shell/run-checks.ts),
 * its status, its tail, and whether the fix broke a check that passed when the loop started. Pure.
 */
import * as z from 'zod/mini';
import { sanitizeTail } from './sanitize';
import { count } from './zod';

export const CheckStatus = z.enum(['passed', 'failed', 'timed_out']);
export type CheckStatus = z.infer<typeof CheckStatus>;

/** What the state keeps of one run: enough to compare, not the output. */
export const CheckOutcome = z.lazy(() =>
  z.object({
    command: z.string(),
    status: CheckStatus,
    exitCode: z.nullable(z.int()),
    durationMs: count(),
  }),
);
export type CheckOutcome = z.infer<typeof CheckOutcome>;

/** One run of a check, as the shell observed it. */
export interface CheckRun {
  command: string;
  /** null when the process was killed or could not start. */
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  durationMs: number;
  /** The output (stdout and stderr, interleaved), its last MAX_LOG_BYTES when it was longer. */
  output: string;
  /** How much output there was in all. */
  outputBytes: number;
  /** Why it could not run (spawn failure), or why it was not run (the budget was spent). */
  error: string | null;
}

export const statusOf = (run: Pick<CheckRun, 'exitCode' | 'timedOut'>): CheckStatus => (run.timedOut ? 'timed_out' : run.exitCode === 0 ? 'passed' : 'failed');

export const outcomeOf = (run: CheckRun): CheckOutcome => ({ command: run.command, status: statusOf(run), exitCode: run.exitCode, durationMs: Math.round(run.durationMs) });

/** The indexes of checks that passed at the baseline and do not pass now; an unknown baseline blames nobody. */
export function regressions(baseline: readonly CheckOutcome[], runs: readonly CheckRun[]): number[] {
  return runs.flatMap((run, i) => (baseline[i]?.command === run.command && baseline[i]!.status === 'passed' && statusOf(run) !== 'passed' ? [i] : []));
}

/**
 * The last lines of an output as model text (sanitizeTail): what the fixer, checks.json and the verdict
 * quote. The full output stays in the check's log.
 */
export const tailOf = (output: string, maxLines = 30, maxChars = 3000): string => sanitizeTail(output, maxLines, maxChars);
