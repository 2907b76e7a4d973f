/**
 * The files the hooks write about their own checks: `checks.json` (the project's checks, at the start in
 * phases/baseline/ and after each fix round in review-N/) and `review-N/layer0.json`. One zod schema
 * each (schema/*.schema.json are generated from them). Builders are pure.
 */
import * as z from 'zod';
import { CheckStatus, statusOf, tailOf, type CheckOutcome, type CheckRun } from './check-runs';
import { MachineFinding } from './machine-finding';

export const CheckEntry = z.object({
  command: z.string(),
  status: CheckStatus,
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  durationMs: z.number().int().nonnegative(),
  baseline: CheckStatus.nullable().describe('its status when the loop started (null in the baseline itself, or when unknown)'),
  regressed: z.boolean().describe('passed at the baseline, does not pass now: blamed on the fix'),
  tail: z.string().describe('the last lines of its output, without terminal escapes'),
  log: z.string().describe('the project-relative path of its full output (the last 1 MiB)'),
  outputBytes: z.number().int().nonnegative(),
  error: z.string().nullable().describe('why it could not run, or was not run'),
});
export type CheckEntry = z.infer<typeof CheckEntry>;

export const ChecksReport = z.object({
  kind: z.enum(['baseline', 'after_fix']),
  iteration: z.number().int().nonnegative().describe('0 for the baseline; N after fix round N'),
  attempt: z.number().int().positive().describe('after a fix: 1, then 2 and 3 when the fixer was sent back'),
  ranAt: z.string(),
  checks: z.array(CheckEntry),
  findings: z.array(MachineFinding).describe("check_failed findings for the next round's verdict (only on the fix round's last attempt)"),
});
export type ChecksReport = z.infer<typeof ChecksReport>;

export function checksReport(input: {
  kind: ChecksReport['kind'];
  iteration: number;
  attempt: number;
  now: string;
  runs: readonly CheckRun[];
  baseline: readonly CheckOutcome[] | null;
  regressed: readonly number[];
  logs: readonly string[];
  findings: MachineFinding[];
}): ChecksReport {
  return {
    kind: input.kind,
    iteration: input.iteration,
    attempt: input.attempt,
    ranAt: input.now,
    checks: input.runs.map((run, i) => ({
      command: run.command,
      status: statusOf(run),
      exitCode: run.exitCode,
      signal: run.signal,
      durationMs: Math.round(run.durationMs),
      baseline: input.baseline?.[i]?.command === run.command ? input.baseline[i]!.status : null,
      regressed: input.regressed.includes(i),
      tail: tailOf(run.output),
      log: input.logs[i]!,
      outputBytes: run.outputBytes,
      error: run.error,
    })),
    findings: input.findings,
  };
}

export const Layer0Report = z.object({
  iteration: z.number().int().positive(),
  from: z.string().nullable().describe("the tree the fix started from (the review's end)"),
  to: z.string().nullable().describe('the tree the fixer left'),
  files: z.array(z.string()).describe('the files the fixer changed, checked'),
  skipped: z.array(z.object({ path: z.string(), reason: z.string() })).describe('changed files not read as text (binary, too large)'),
  rechecked: z.array(z.string()).describe("files of the round's open Layer-0 findings, checked again against the loop's base"),
  findings: z.array(MachineFinding).describe("for the next round's verdict"),
});
export type Layer0Report = z.infer<typeof Layer0Report>;
