/**
 * The files the hooks write about their own checks: `checks.json` (the project's checks, at the start in
 * phases/baseline/ and after each fix round in review-N/) and `review-N/layer0.json`. One zod schema
 * each (schema/*.schema.json are generated from them). Builders are pure.
 */
import * as z from 'zod/mini';
import { count, described, positiveInt } from '../protocol/zod';
import { CheckStatus, statusOf, tailOf, type CheckOutcome, type CheckRun } from '../protocol/check-runs';
import { MachineFinding } from '../protocol/machine-finding';

export const CheckEntry = z.lazy(() =>
  z.object({
    command: z.string(),
    status: CheckStatus,
    exitCode: z.nullable(z.int()),
    signal: z.nullable(z.string()),
    durationMs: count(),
    baseline: described(z.nullable(CheckStatus), 'its status when the loop started (null in the baseline itself, or when unknown)'),
    regressed: described(z.boolean(), 'passed at the baseline, does not pass now: blamed on the fix'),
    tail: described(z.string(), 'the last lines of its output, without terminal escapes'),
    log: described(z.string(), 'the project-relative path of its full output (the last 1 MiB)'),
    outputBytes: count(),
    error: described(z.nullable(z.string()), 'why it could not run, or was not run'),
  }),
);
export type CheckEntry = z.infer<typeof CheckEntry>;

export const ChecksReport = z.lazy(() =>
  z.object({
    kind: z.enum(['baseline', 'after_fix']),
    iteration: described(count(), '0 for the baseline; N after fix round N'),
    attempt: described(positiveInt(), 'after a fix: 1, then 2 and 3 when the fixer was sent back'),
    ranAt: z.string(),
    checks: z.array(CheckEntry),
    findings: described(z.array(MachineFinding), "check_failed findings for the next round's verdict (only on the fix round's last attempt)"),
  }),
);
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

export const Layer0Report = z.lazy(() =>
  z.object({
    iteration: positiveInt(),
    from: described(z.nullable(z.string()), "the tree the fix started from (the review's end)"),
    to: described(z.nullable(z.string()), 'the tree the fixer left'),
    files: described(z.array(z.string()), 'the files the fixer changed, checked'),
    skipped: described(z.array(z.object({ path: z.string(), reason: z.string() })), 'changed files not read as text (binary, too large)'),
    rechecked: described(z.array(z.string()), "files of the round's open Layer-0 findings, checked again against the loop's base"),
    findings: described(z.array(MachineFinding), "for the next round's verdict"),
  }),
);
export type Layer0Report = z.infer<typeof Layer0Report>;
