/**
 * `REPORT.md` beside the phases when the loop ends: the rounds with their open findings by severity and a
 * chart of them, the best round, what remains open, contested and escalated, the loop's total change and
 * what it cost. A pure renderer of the loop's facts.
 */
import { baseText, bestAttemptLine, costLine, countsText, policyText, readinessText, stopReasonText, tokenBreakdown } from './texts';
import * as reportTexts from './texts';
import { chartSeries, findingsChart, CHART_COLOURS } from './chart';
import type { FindingFact, LoopFacts, RoundFacts } from './facts';
import { thousands } from '../protocol/text';
import { TYPICAL_TOKENS } from './typical-cost';
import { block, code, duration, inline, listed, plural, table, where } from './markdown';

const OUTCOME: Record<LoopFacts['phase'], string> = {
  R1: 'in progress (reviewing)',
  R2: 'in progress (fixing)',
  DONE: 'DONE',
  STOPPED: 'STOPPED',
  CANCELLED: 'cancelled',
  REVIEWED: 'REVIEWED (review only, nothing fixed)',
};

function checksCell(r: RoundFacts): string {
  if (!r.checks) return '–';
  return `${r.checks.passed}/${r.checks.passed + r.checks.failed}`;
}

function tokensCell(r: RoundFacts): string {
  if (r.cost.agents === 0) return '–';
  if (r.cost.unknown === r.cost.agents) return 'unknown';
  return `${thousands(r.cost.total)}${r.cost.unknown ? ` (+${r.cost.unknown} unknown)` : ''}`;
}

function findingLine(f: FindingFact): string {
  return `- **${f.severity}** ${where(f.file, f.line)} (${inline(f.category, 40)}, ${f.status}${f.unquoted ? ', unquoted: no code quoted to check' : ''}${f.unverified ? (f.unquoted ? ', unverified' : ', unverified: not found in the code as quoted') : ''}; ${f.reporters.join(', ')}): ${inline(f.description, 300)}`;
}

export function renderLoopReport(facts: LoopFacts): string {
  const out: string[] = [];
  const reviewed = facts.rounds.filter((r) => r.reviewed).length;
  out.push(`# minions review loop: ${OUTCOME[facts.phase]} after ${plural(reviewed, 'review round')}`, '');
  out.push(`**Task:** ${inline(facts.task, 400)}`, '');
  if (facts.scope.baseChoice) out.push(`**Reviewed:** ${baseText(facts.scope)}${facts.scope.reviewOnly ? '; review only (--no-fix), nothing was fixed' : ''}.`, '');
  out.push(`**Completion policy:** ${policyText(facts.policy)}.`, '');
  if (facts.phase === 'STOPPED') out.push(`**Stopped:** ${stopReasonText(facts.stopReason)}${facts.stopDetail ? `: ${inline(facts.stopDetail, 400)}` : ''}.`, '');
  const best = bestAttemptLine(facts);
  if (best) out.push(`**${best.replace(/\.$/, '')}.**`, '');
  out.push(`Run ${code(facts.runId)}, started ${facts.startedAt}, last update ${facts.updatedAt}.`);

  out.push('', '## Rounds', '');
  out.push(
    table(
      ['Round', 'Critical', 'Warning', 'Info', 'Open', 'Contested', 'Checks passing', 'Score', 'Readiness', 'Fix', 'Tokens', 'Time', ''],
      facts.rounds.map((r) => [
        `[${r.round}](${relativeToReport(facts, r.files.review)})`,
        r.reviewed ? String(r.open.critical) : '–',
        r.reviewed ? String(r.open.warning) : '–',
        r.reviewed ? String(r.open.info) : '–',
        r.reviewed ? String(r.open.total) : 'not reviewed',
        r.reviewed ? String(r.contested) : '–',
        checksCell(r),
        r.score === null ? '–' : r.score.toFixed(2),
        (r.readiness ? readinessText(r.readiness) : '–'),
        r.fix.replace('_', ' '),
        tokensCell(r),
        duration(r.elapsedMs),
        r.best ? '**best**' : '',
      ]),
    ),
  );
  const chart = findingsChart(facts.rounds);
  if (chart) out.push('', chart, '', chartLegend(chartSeries(facts.rounds)));
  else if (facts.rounds.some((r) => r.reviewed)) out.push('', 'No round had an open finding: there is nothing to chart.');

  const last = facts.open[0]?.round ?? facts.contested[0]?.round ?? null;
  out.push('', `## Still open${last ? ` after round ${last}` : ''}`, '');
  if (facts.open.length === 0) out.push('Nothing: no open finding.');
  else listing(out, facts.open, 'open findings', facts, last);
  if (facts.ungrounded > 0) out.push('', `${plural(facts.ungrounded, 'info finding')} of the last round did not match the code (ungrounded) and ${facts.ungrounded === 1 ? 'was' : 'were'} not counted; every such critical or warning finding went to the fixer unverified.`);

  out.push('', '## Contested', '');
  if (facts.contested.length === 0) out.push('Nothing contested.');
  else {
    out.push('The fixer declined these twice with a reason; they are no longer sent to it. Decide them yourself.', '');
    listing(out, facts.contested, 'contested findings', facts, facts.contested[0]!.round);
    out.push('', reportTexts.dismissOffer(facts.contested.length), '', block(facts.contested.slice(0, 20).map((f) => reportTexts.dismissCommand(f.fingerprint)).join('\n'), 'sh'));
  }

  if (facts.dismissed.length > 0) {
    out.push('', '## Dismissed', '', reportTexts.dismissedIntro(), '');
    const { shown, rest } = listed(facts.dismissed, 'dismissed findings', 'the last verdict');
    out.push(...shown.map((f) => `${findingLine(f)} — dismissed: ${inline(f.dismissed ?? '', 300)}`));
    if (rest) out.push('', rest);
  }

  out.push('', '## Escalated', '');
  const structural = facts.stopReason === 'stuck_issue' || facts.stopReason === 'structural_rework_needed';
  if (facts.escalated.length === 0 && !structural) out.push('Nothing escalated.');
  if (structural && facts.stopDetail) out.push(`The loop stopped for structural work: ${inline(facts.stopDetail, 400)}.`, '');
  if (facts.escalationChoice) out.push(reportTexts.escalationChoiceLine(facts.escalationChoice.choice, facts.escalationChoice.at), '');
  for (const e of facts.escalated) {
    const why = e.reason === 'fixer_escalated' ? `the fixer escalated it${e.fixerReason ? `: ${inline(e.fixerReason, 200)}` : ''}` : `open after fix rounds ${e.attempts.join(', ')}`;
    out.push(`- class ${code(e.class)} (${inline(e.category, 40)}, ${e.sites.slice(0, 5).map((s) => code(s)).join(', ')}): ${why}; ${e.open ? 'still open' : 'gone'} in round ${e.round}.`);
    out.push(e.diagnosis ? `  The critic's diagnosis: ${inline(e.diagnosis.rootCause, 300)} Fix: ${inline(e.diagnosis.fix, 300)} (${e.diagnosis.recommend}).` : '  The critic gave no diagnosis.');
  }

  out.push('', '## Total change', '');
  if (facts.totalChange === null) out.push('Unknown: the project is not a git repository, so no snapshots were taken.');
  else if (facts.totalChange === '') out.push('None: the final tree is the tree the loop started from.');
  else out.push('From the tree the loop started from to its final tree (uncommitted work included):', '', block(facts.totalChange));

  out.push('', '## Cost', '');
  out.push(`${costLine(facts.cost)}${facts.cost.agents > facts.cost.unknown ? `: ${tokenBreakdown(facts.cost)}` : ''}.`);
  if (facts.cost.budget !== null) out.push('', `Budget: ${thousands(facts.cost.budget)} tokens (--max-tokens); ${thousands(facts.cost.total)} used.`);
  if (facts.cost.agents > facts.cost.unknown) out.push('', reportTexts.typicalCostLine(facts.effort, facts.cost.total, TYPICAL_TOKENS[facts.effort.profile]));
  out.push(
    '',
    table(
      ['Round', 'Agent runs', 'Input', 'Output', 'Cache write', 'Cache read', 'Total', 'Agent time'],
      facts.rounds.map((r) => [
        String(r.round),
        String(r.cost.agents),
        thousands(r.cost.tokens.input),
        thousands(r.cost.tokens.output),
        thousands(r.cost.tokens.cacheCreation),
        thousands(r.cost.tokens.cacheRead),
        tokensCell(r),
        duration(r.cost.agentMs),
      ]),
    ),
  );
  out.push('', 'Tokens are what the host recorded in each reviewer and fixer transcript; the orchestrating session is not included. Agent time adds up agents that ran side by side.');

  out.push('', '## Files', '');
  for (const r of facts.rounds) out.push(`- Round ${r.round}: ${code(r.files.review)}, verdict ${code(r.files.verdict)}${r.reviewed ? ` (${countsText(r.open)})` : ''}`);
  return `${out.join('\n')}\n`;
}

/** One line per finding, the first MAX_LISTED of them, and where the rest are: the verdict of the round they come from. */
function listing(out: string[], findings: readonly FindingFact[], what: string, facts: LoopFacts, round: number | null): void {
  const verdict = facts.rounds.find((r) => r.round === round)?.files.verdict;
  const { shown, rest } = listed(findings, what, verdict ? code(verdict) : 'the last verdict');
  out.push(...shown.map(findingLine));
  if (rest) out.push('', rest);
}

/** REPORT.md sits in the phases folder: links to a round's REVIEW.md are relative to it. */
const relativeToReport = (facts: LoopFacts, file: string): string => (file.startsWith(facts.files.phases) ? file.slice(facts.files.phases.length) : file);

const COLOUR_NAME = { info: 'blue', warning: 'amber', critical: 'red' } as const;
const SERIES_NAME = { info: 'all open findings', warning: 'critical and warning', critical: 'critical' } as const;
const colour = (level: keyof typeof CHART_COLOURS): string => `${COLOUR_NAME[level]}, ${CHART_COLOURS[level]}`;

/** What the chart's colours mean: only the series drawn; one series alone is named by its severity. */
function chartLegend(series: readonly (keyof typeof CHART_COLOURS)[]): string {
  const only = series.length === 1 ? series[0]! : null;
  if (only) return `Open ${only} findings (${colour(only)}); no other severity was open.`;
  return `Bars drawn over each other: ${series.map((level) => `${SERIES_NAME[level]} (${colour(level)})`).join(', ')}.`;
}
