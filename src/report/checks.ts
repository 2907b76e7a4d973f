/**
 * The project's checks as recorded for a round (`review-N/checks.json`, written by the verification step):
 * the one schema this side reads them with. Lenient on purpose: only the command and whether it passed
 * are needed to rank a round; anything else in the record is kept for the reports.
 */
import * as z from 'zod';
import type { ChecksTally } from './rank';

export const CheckRun = z
  .object({
    command: z.string(),
    /** null: the check did not finish (timed out, could not start). */
    exitCode: z.number().int().nullable().optional(),
    /** When present, says it outright; else a check passed when it exited 0. */
    passed: z.boolean().optional(),
    durationMs: z.number().nonnegative().optional(),
    /** Failing already when the loop started (not the fixer's doing). */
    preexisting: z.boolean().optional(),
  })
  .passthrough();
export type CheckRun = z.infer<typeof CheckRun>;

export const ChecksRecord = z
  .object({
    /** The tree the checks ran on, when the record names it. */
    tree: z.string().nullable().optional(),
    checks: z.array(CheckRun),
  })
  .passthrough();
export type ChecksRecord = z.infer<typeof ChecksRecord>;

export const checkPassed = (c: CheckRun): boolean => c.passed ?? c.exitCode === 0;

export function tallyChecks(record: ChecksRecord): ChecksTally {
  const passed = record.checks.filter(checkPassed).length;
  return { passed, failed: record.checks.length - passed };
}
