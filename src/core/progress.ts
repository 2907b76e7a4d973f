/** User-facing progress lines (systemMessage) and outcomes, and what the hooks' record reports. */
import type { Reviewer } from '../protocol/agents';
import { changedDuringReviewFile, reviewDir, reviewerFile, verdictFile } from '../protocol/paths';
import type { State } from '../state/schema';
import type { Counts } from '../protocol/reviewer-output';
import type { EscalationReason, Verdict } from '../protocol/verdict-schema';
import type { Tamper } from './events';
import type { PinChange } from '../checks/pins';
import type { LoopFacts } from '../report/facts';
import { PREFIX, plural, truncate } from '../protocol/text';
import { changedDuringText } from '../review/texts';
import { baseText, bestAttemptLine, effortText, costLine, count, countsText, readinessText, stopReasonText } from '../report/texts';
import { afterFixText, baselineText, iterationText } from './prompts';

export const notify = {
  started: (state: State, archived: string | null): string =>
    `${PREFIX} ${state.reviewOnly ? 'review-only pass' : 'review loop'} started — R1, ${iterationText(state)}: ${effortText(state.effort)} on "${truncate(state.task, 80)}"` +
    (archived ? ` (previous loop archived to ${archived})` : '') +
    (state.baseChoice ? `; ${baseText(state)}` : '') +
    (state.projectRules ? `; the project's review rules: ${state.projectRules}` : '') +
    (state.checks.commands.length ? `; checks at the start: ${baselineText(state.checks.baseline)}` : ''),
  // No running count: parallel reviewers' lines reach the user in process-exit order, not lock order.
  reviewerDone: (state: State, r: Reviewer, counts: Counts | null, source: string): string =>
    `${PREFIX} R1 ${iterationText(state)} — ${r} ${counts ? (counts.critical + counts.warning + counts.info === 0 ? 'clean' : countsText(counts)) : 'output invalid, counted as issues found'}${source}`,
  verdict: (state: State, v: Verdict, next: State): string => {
    const merged = v.findings.reduce((sum, f) => sum + f.reporters.length - 1, 0);
    const ungrounded = v.findings.filter((f) => f.grounding.status === 'ungrounded').length;
    const unchecked = v.findings.filter((f) => f.grounding.status === 'unchecked').length;
    const contested = v.findings.filter((f) => f.status === 'CONTESTED').length;
    const belowLevel = v.findings.filter((f) => f.held === 'level' && f.grounding.status !== 'ungrounded').length;
    const doubtful = v.findings.filter((f) => f.held === 'confidence').length;
    const extras = [
      merged ? `${merged} duplicate report${merged === 1 ? '' : 's'} merged` : '',
      ungrounded ? `${ungrounded} ungrounded` : '',
      unchecked ? `${unchecked} not checked against the code` : '',
      contested ? `${contested} contested` : '',
      belowLevel ? `${belowLevel} below --done-when, not blocking` : '',
      doubtful ? `${doubtful} below --min-confidence, listed` : '',
    ]
      .filter(Boolean)
      .join(', ');
    const found = v.total_issues === 0 ? (v.overall_verdict === 'clean' ? 'no issues' : 'no findings to fix (a review was invalid)') : `${plural(v.total_issues, 'issue')} (${countsText(v)})`;
    const changed = v.changedDuringReview.length ? `; ${changedDuringText(v.changedDuringReview)}: see ${changedDuringReviewFile(state.iteration)}` : '';
    const to = {
      DONE: 'DONE',
      STOPPED: `STOPPED (${stopReasonText(v.stopReason)})`,
      R2: 'R2: fixing',
      R1: `R1: re-reviewing (iteration ${next.iteration})`,
      REVIEWED: 'REVIEWED (review only: nothing is fixed)',
    }[v.next];
    return `${PREFIX} review ${state.iteration}/${state.maxIterations}: ${found}${extras ? ` [${extras}]` : ''}; score ${v.score.toFixed(2)} ${v.band.replace(/_/g, ' ')}, ${v.scale}/10 ${readinessText(v.readiness)}${changed} → ${to}`;
  },
  fixDone: (prev: number, state: State, summary: string): string =>
    `${PREFIX} fix round ${prev} done (${summary})${afterFixText(state.iterations[state.iterations.length - 2])} → R1, ${iterationText(state)}`,
  escalated: (state: State, escalated: readonly { class: string; reason: EscalationReason }[]): string =>
    `${PREFIX} ${escalated.map((e) => `finding class ${e.class} ${e.reason === 'fixer_escalated' ? 'escalated by the fixer' : 'back after two fix rounds'}`).join(', ')} → ` +
    `the critic of review ${state.iteration} gives a structural diagnosis; ` +
    (escalated.some((e) => e.reason === 'fixer_escalated') ? 'then the loop stops and asks you: structural, patch or halt' : 'if the class is still there, the loop stops and asks you: structural, patch or halt'),
  pinnedStopped: (prev: number, state: State): string => `${PREFIX} fix round ${prev} → STOPPED (${stopReasonText(state.stopReason)}): ${state.stopDetail}`,
  fixRepeated: (prev: number, state: State): string => `${PREFIX} fix round ${prev} repeated the previous one → STOPPED (${stopReasonText(state.stopReason)})`,
  budgetSpent: (prev: number, state: State): string => `${PREFIX} fix round ${prev} done → STOPPED (${stopReasonText(state.stopReason)}: ${state.stopDetail})`,
  fixNoSummary: (prev: number, state: State): string =>
    `${PREFIX} fix round ${prev} ended without a summary → R1, ${iterationText(state)} re-reviews the code as it is`,
  waiting: (state: State, agents: readonly string[]): string =>
    `${PREFIX} ${state.currentPhase} ${iterationText(state)} — waiting for ${agents.join(', ')} (running in the background)`,
  paused: (state: State, missing: string): string =>
    `${PREFIX} paused in ${state.currentPhase} (${iterationText(state)}${missing}): the orchestrator stopped twice without progress. ` +
    'Type "continue" to resume, /minions:status to inspect, /minions:cancel to end.',
  reinject: (state: State, what: string): string => `${PREFIX} ${state.currentPhase} ${iterationText(state)} — ${what}`,
  brokenState: (path: string, problem: string): string =>
    `${PREFIX} the loop state ${path} is unreadable (${problem}); the loop is suspended and nothing is gated. ` +
    'Run /minions:cancel (or delete the file) to clear it, or /minions:review to start a fresh loop.',
  brokenArchived: (): string => `${PREFIX} the unreadable loop state was archived; nothing is gated now.`,
  aggregationRetry: (state: State): string =>
    `${PREFIX} R1 ${iterationText(state)} — the hook computing the verdict was stopped before it finished; computing it again from the recorded reviews`,
  aggregationFailed: (state: State): string => `${PREFIX} R1 ${iterationText(state)} → STOPPED (${stopReasonText(state.stopReason)}): ${state.stopDetail}`,
  reviewReplaced: (state: State, reviewer: Reviewer): string =>
    `${PREFIX} R1 ${iterationText(state)} — ${reviewerFile(state.iteration, reviewer)} changed after ${reviewer} wrote it and before its stop; ` +
    `the review recorded is the one ${reviewer} wrote (its transcript), and the file is put back`,
  reviewsRewritten: (state: State, reviewers: readonly Reviewer[]): string =>
    `${PREFIX} R1 ${iterationText(state)} — ${reviewers.map((r) => reviewerFile(state.iteration, r)).join(', ')} changed after the hooks recorded ${reviewers.length === 1 ? 'it' : 'them'}; ` +
    'the verdict uses the reviews as they were recorded, and the change is ignored',
  dismissedBroken: (problem: string): string =>
    `${PREFIX} ${truncate(problem, 400)}. This round uses no dismissals; the file is left as it is. Fix it (or run \`minions dismiss --list\` to see what is wrong).`,
  tampered: (state: State): string =>
    `${PREFIX} STOPPED (${stopReasonText('tampered')}): ${state.stopDetail}. The loop cannot end DONE; the last state the hooks wrote is kept and goes to the archive.`,
  tamperedAfterEnd: (state: State, problems: readonly Tamper[]): string =>
    `${PREFIX} ${tamperDetail(problems)} after the loop ended (${state.currentPhase}); the hooks' own record of it is used.`,
  tamperedArchived: (problems: readonly Tamper[]): string =>
    `${PREFIX} ${tamperDetail(problems)}; no state the hooks wrote could be recovered, so the file was moved to the archive and nothing is gated now.`,
  cancelledTampered: (problems: readonly Tamper[]): string => `${PREFIX} note: ${tamperDetail(problems)}; the hooks' own record of the loop was cancelled.`,
  choiceRound: (state: State, choice: 'structural' | 'patch'): string =>
    `${PREFIX} you chose ${choice === 'structural' ? 'the structural fix: one more fix round with the critic\'s diagnosis as its task' : 'to keep patching: one more fix round'} → R2, ${iterationText(state)}`,
  choiceHalt: (other: boolean): string => `${PREFIX} ${other ? 'not one of structural, patch or halt: ' : ''}the loop stays STOPPED (a finding is stuck); REPORT.md records your choice.`,
  choiceNone: (): string => `${PREFIX} no answer to the escalation question: the loop stays STOPPED (a finding is stuck).`,
  cancelled: (state: State, archived: string): string =>
    `${PREFIX} review loop cancelled in ${state.currentPhase} (${iterationText(state)}); files archived to ${archived}`,
};

/** The escalation question, shown at Stop after the critic's diagnosis. */
export const escalationQuestion = (diagnosis: string): string =>
  [
    `${PREFIX} the critic diagnosed the stuck finding: ${truncate(diagnosis, 600)}`,
    'Type one word as your next prompt:',
    '  structural — one more fix round with the diagnosis as the fixer\'s task, then one more review',
    '  patch — one more fix round as usual, then one more review',
    '  halt — stop here (anything else, or no answer, halts too)',
  ].join('\n');

export function outcome(state: State, facts: LoopFacts): string {
  const last = state.iterations[state.iterations.length - 1]!;
  const dir = reviewDir(state.iteration);
  const closing = `  ${facts.cost.agents > 0 ? `Cost: ${costLine(facts.cost)} · ` : ''}Report: ${facts.files.report}`;
  if (state.currentPhase === 'DONE') {
    const contested = last.verdict?.contested ?? 0;
    const held = [
      last.verdict?.belowLevel ? `${plural(last.verdict.belowLevel, 'finding')} below --done-when ${state.rules.doneWhen}` : '',
      last.verdict?.belowConfidence ? `${plural(last.verdict.belowConfidence, 'finding')} below --min-confidence ${state.rules.minConfidence}` : '',
    ].filter(Boolean);
    return (
      `${PREFIX} DONE — review ${state.iteration}/${state.maxIterations} found ${held.length ? 'nothing that blocks DONE' : 'no issues'}${state.iteration > 1 ? ` after ${plural(state.iteration - 1, 'fix round')}` : ''}` +
      `${contested ? ` (${plural(contested, 'contested finding')} the fixer declined twice: see the verdict)` : ''}` +
      `${held.length ? `; still listed in REVIEW.md: ${held.join(', ')}` : ''}. Reviews: ${dir}/\n${closing}`
    );
  }
  if (state.currentPhase === 'CANCELLED') return `${PREFIX} the review loop was cancelled.`;
  if (state.currentPhase === 'REVIEWED') {
    const v = last.verdict;
    const shown = state.openIssues.slice(0, 5).map((i) => `  ${i.severity} ${truncate(i.file, 200)}${i.line ? `:${i.line}` : ''} — ${truncate(i.description, 100)}`);
    const more = state.openIssues.length > shown.length ? [`  … and ${state.openIssues.length - shown.length} more in the verdict`] : [];
    const found = v ? (v.total === 0 ? 'no issues' : `${plural(v.total, 'issue')} (${countsText(v)})`) : 'no verdict';
    const sarif = state.sarif ? `  SARIF: ${state.sarif}` : null;
    return [`${PREFIX} REVIEWED (review only, nothing was fixed) — ${found}. Verdict: ${verdictFile(last.iteration)}`, ...shown, ...more, ...(sarif ? [sarif] : []), closing].join('\n');
  }
  const v = last.verdict;
  const openIssues = state.openIssues;
  const head =
    `${PREFIX} STOPPED — ${stopReasonText(state.stopReason)}${state.stopDetail ? `: ${truncate(state.stopDetail, 300)}` : ''}. ` +
    (v ? `${plural(v.total, 'issue')} open (${countsText(v)}). Verdict: ${verdictFile(last.iteration)}` : `No verdict for round ${state.iteration}. Files: ${dir}/`);
  const shown = openIssues.slice(0, 5).map((i) => `  ${i.severity} ${truncate(i.file, 200)}${i.line ? `:${i.line}` : ''} — ${truncate(i.description, 100)}`);
  const more = openIssues.length > shown.length ? [`  … and ${openIssues.length - shown.length} more in the verdict`] : [];
  const best = bestAttemptLine(facts);
  return [head, ...shown, ...more, ...(best ? [`  ${best}`] : []), closing].join('\n');
}

export const budgetDetail = (spent: number, budget: number, next: string): string =>
  `${count(spent)} tokens used of the ${count(budget)} budget before ${next}`;

const TAMPER_TEXT: Record<Tamper['problem'], string> = {
  changed: 'was changed outside the hooks',
  deleted: 'was deleted',
  added: 'was not written by the hooks',
  invariant: 'is not a state the hooks write',
};

/** "<file> was changed outside the hooks; <file> was deleted", the file names first. */
export function tamperDetail(problems: readonly Tamper[]): string {
  return problems
    .slice(0, 5)
    .map((p) => `${p.file} ${TAMPER_TEXT[p.problem]}${p.detail ? ` (${p.detail})` : ''}`)
    .concat(problems.length > 5 ? [`and ${problems.length - 5} more`] : [])
    .join('; ');
}

const PIN_TEXT: Record<PinChange['problem'], string> = { changed: 'was changed', added: 'was added', deleted: 'was deleted' };

/** "<file> was changed; <file> was added", the first five, the file names first. */
export function pinList(changes: readonly PinChange[]): string {
  return changes
    .slice(0, 5)
    .map((c) => `${truncate(c.file, 200)} ${PIN_TEXT[c.problem]}`)
    .concat(changes.length > 5 ? [`and ${changes.length - 5} more`] : [])
    .join('; ');
}

export const gitDirChangedDetail = (changes: readonly PinChange[]): string =>
  `${pinList(changes)} since the loop started. git reads these files as configuration or runs them as programs, and no review sees them: ` +
  'look at the change (git config --list --show-origin; the hooks folder) and undo what you did not make before you run git in this repository again';

export const checkChangedDetail = (changes: readonly PinChange[]): string =>
  `${pinList(changes)} since the loop started. The checks run ${changes.length === 1 ? 'this file' : 'these files'}, which the snapshot and the reviews do not see: ` +
  'a check that passes now may pass because of that change. Put back what the loop did not need (e.g. reinstall the packages), then start the loop again';

export const aggregationFailedDetail = (iteration: number, attempts: number, timedOut: boolean): string =>
  `the verdict of round ${iteration} was not computed: the hook computing it was stopped ${timedOut ? 'after running longer than the hook time limit' : `${plural(attempts, 'time')}`}; ` +
  `the reviews are kept in ${reviewDir(iteration)}/. Start a new loop with a smaller scope`;

export const statusTampered = (problems: readonly Tamper[]): string =>
  `Warning: ${tamperDetail(problems)}. Shown is the last state the hooks wrote; the loop's next hook stops it (tampered).`;

/** Why the fixpoint rule stopped the loop after fix round n. */
export function noProgressDetail(n: number, why: { deltas: 'same' | 'undone' | 'different' } | { summaries: number }): string {
  if ('summaries' in why) return `the fix summaries of rounds ${n - 1} and ${n} are ${why.summaries}% similar: the fixer is repeating itself`;
  return why.deltas === 'undone'
    ? `fix round ${n} undid the code change of round ${n - 1} about the same findings: the fixer is going back and forth`
    : `fix rounds ${n - 1} and ${n} made the same code change about the same findings: the fixer is repeating itself`;
}
