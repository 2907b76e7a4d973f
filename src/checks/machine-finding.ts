/**
 * Findings the hooks make themselves, without a model: Layer-0 hits (reporter `layer0`) and checks the
 * fix broke (reporter `checks`, category `check_failed`). They join the next round's verdict as input to
 * the aggregation, merged and fingerprinted like a reviewer's. The texts come from checks/texts.ts.
 */
import * as checkTexts from './texts';
import { CHECK_FAILED, type MachineFinding } from '../protocol/machine-finding';
import { LAYER0_SEVERITY, type Layer0Hit } from './layer0';
import type { CheckRun } from '../protocol/check-runs';

export function layer0Finding(hit: Layer0Hit): MachineFinding {
  return {
    reporter: 'layer0',
    severity: LAYER0_SEVERITY[hit.check],
    category: hit.check,
    file: hit.path,
    line: hit.line,
    description: checkTexts.layer0Description(hit),
    evidence: hit.evidence,
    suggestion: checkTexts.layer0Suggestion(hit.check),
  };
}

/** A check that passed when the loop started and still fails after the fixer was sent back. */
export function checkFailedFinding(run: CheckRun, log: string, sentBack: number): MachineFinding {
  return {
    reporter: 'checks',
    severity: 'critical',
    category: CHECK_FAILED,
    file: `check: ${run.command}`,
    line: null,
    description: checkTexts.checkFailedDescription(run, sentBack),
    evidence: `$ ${run.command}`,
    suggestion: checkTexts.checkFailedSuggestion(run.command, log),
  };
}
