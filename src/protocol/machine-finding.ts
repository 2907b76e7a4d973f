/**
 * A finding the hooks make themselves, without a model: a Layer-0 hit (reporter `layer0`) or a check the
 * fix broke (reporter `checks`, category `check_failed`). Built in checks/machine-finding.ts.
 */
import * as z from 'zod/mini';
import { MACHINE_REPORTERS } from './agents';
import { Severity } from './reviewer-output';
import { described, positiveInt } from './zod';

export const MachineFinding = z.lazy(() =>
  z.object({
    reporter: z.enum(MACHINE_REPORTERS),
    severity: Severity,
    category: described(z.string().check(z.minLength(1)), 'the Layer-0 check, or check_failed'),
    file: described(z.string().check(z.minLength(1)), 'the project file; for check_failed, "check: <command>"'),
    line: z.nullable(positiveInt()),
    description: z.string(),
    evidence: described(z.string(), 'what identifies it across rounds: the line, or the command'),
    suggestion: z.string(),
  }),
);
export type MachineFinding = z.infer<typeof MachineFinding>;

export const CHECK_FAILED = 'check_failed';
