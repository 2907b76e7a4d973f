/** SubagentStop of the fixer: check its summaries, detect a fixpoint, start the next review. */
import { escalationAfterFix } from './escalation';
import type { Effect, Event, Outcome } from './events';
import { MAX_OUTPUT_FAILURES, advanceIteration, currentIteration, updateIteration } from './loop-state';
import { startRound } from './round-start';
import { describeZodError } from '../review/reviewer-output';
import { similarity } from '../review/simhash';
import { FixSummary } from '../review/verdict-schema';
import * as msg from '../messages';
import { overBudget } from '../report/cost';
import { renderReviewReport } from '../report/review-md';
import type { State } from '../state/schema';
import { absolute, fixSummaryFile, fixSummaryJsonFile, reviewDir, reviewReportFile } from '../state/paths';

export function onFixerStop(state: State, event: Extract<Event, { kind: 'fixer-stop' }>): Outcome {
  if (state.currentPhase !== 'R2') return { state, effects: [] };
  const current = currentIteration(state);
  if (current.r2.status === 'complete' || current.r2.status === 'no_summary' || current.r2.dispatches === 0) return { state, effects: [] };
  const n = state.iteration;
  const hasSummary = (event.summary ?? '').trim().length > 0;
  const problems: string[] = [];
  if (!hasSummary) problems.push(`${fixSummaryFile(n)} is missing or empty`);
  const audited = (current.verdict?.classes ?? []).filter((c) => c.rung === 'audit').map((c) => c.id);
  const answers = checkFixAnswers(event.summaryJson, current.verdict?.open ?? [], audited);
  if (answers.error) problems.push(answers.error);
  if (problems.length > 0) {
    const failures = current.r2.failures + 1;
    if (failures < MAX_OUTPUT_FAILURES) {
      return {
        state: updateIteration(state, event.now, (it) => ({ ...it, r2: { ...it.r2, failures } })),
        effects: [{ type: 'block', reason: msg.fixerSummaryProblems(absolute(state.root, fixSummaryFile(n)), absolute(state.root, fixSummaryJsonFile(n)), problems) }],
      };
    }
  }
  const finished = updateIteration(state, event.now, (it) => ({
    ...it,
    r2: { ...it.r2, status: hasSummary ? 'complete' : 'no_summary' },
    trees: { ...it.trees, fixEnd: event.tree ?? null },
  }));
  const tally = hasSummary ? summaryTally(event.summary!, answers.summary) : null;
  // The answers as accepted: later rounds count their declines, so the record vouches for them from now on.
  const pins: Effect[] = [
    ...(event.summary !== null ? [{ type: 'pin' as const, path: fixSummaryFile(n), content: event.summary }] : []),
    ...(event.summaryJson !== null ? [{ type: 'pin' as const, path: fixSummaryJsonFile(n), content: event.summaryJson }] : []),
  ];
  const escalation = escalationAfterFix(finished, event.verdict ?? null, answers.summary);
  // The round's REVIEW.md gains the fixer's answers (from this round's verdict, not another's).
  const report: Effect[] = event.verdict?.iteration === n
    ? [{ type: 'write', path: reviewReportFile(n), content: renderReviewReport({ verdict: event.verdict!, answers: answers.summary, fix: hasSummary ? 'complete' : 'no_summary', checks: event.checks ?? null }) }]
    : [];

  // Seed 000's fixpoint: two consecutive fix summaries that say the same thing about the same findings
  // end the loop. Rounds that fixed different findings may read alike without repeating anything.
  // An escalate answer goes to the critic instead (seed 003).
  const before = state.iterations[state.iterations.length - 2]?.verdict?.open ?? [];
  const sameFindings = (current.verdict?.open ?? []).some((fp) => before.includes(fp));
  const fixerEscalated = escalation?.escalated.some((e) => e.reason === 'fixer_escalated') ?? false;
  if (hasSummary && sameFindings && !fixerEscalated && event.previousSummary && similarity(event.summary!, event.previousSummary) >= state.rules.similarity) {
    const percent = Math.round(similarity(event.summary!, event.previousSummary) * 100);
    const stopped: State = {
      ...finished,
      status: 'stopped',
      currentPhase: 'STOPPED',
      stopReason: 'no_progress',
      stopDetail: `the fix summaries of rounds ${n - 1} and ${n} are ${percent}% similar: the fixer is repeating itself`,
      openIssues: state.openIssues,
    };
    return { state: stopped, effects: [...pins, ...report, { type: 'write-report' }, { type: 'notify', text: msg.notify.fixRepeated(n, stopped) }] };
  }
  // Seed 000's repair budget: no new review once the tokens reach it.
  const over = overBudget(finished);
  if (over) {
    const open = event.verdict?.findings.filter((f) => f.toFixer) ?? [];
    const stopped: State = {
      ...finished,
      status: 'stopped',
      currentPhase: 'STOPPED',
      stopReason: 'budget',
      stopDetail: msg.budgetDetail(over.spent, over.budget, `review ${n + 1}`),
      openIssues: open.slice(0, 20).map((f) => ({ severity: f.severity, file: f.file, line: f.line, description: f.description })),
    };
    return { state: stopped, effects: [...pins, ...report, { type: 'write-report' }, { type: 'notify', text: msg.notify.budgetSpent(n, stopped) }] };
  }
  const round = startRound(advanceIteration(finished, event.now), event.patches, escalation);
  const next = round.state;
  return {
    state: next,
    effects: [
      ...pins,
      ...report,
      { type: 'mkdir', path: reviewDir(next.iteration) },
      ...round.effects,
      { type: 'notify', text: tally ? msg.notify.fixDone(n, next, tally) : msg.notify.fixNoSummary(n, next) },
      ...(escalation ? [{ type: 'notify' as const, text: msg.notify.escalated(next, escalation.escalated) }] : []),
    ],
  };
}

/** The machine-readable answers: valid JSON, every open fingerprint answered, reasons for declines, a pattern per audit-first class. */
function checkFixAnswers(text: string | null, open: readonly string[], audited: readonly string[]): { error: string | null; summary: FixSummary | null } {
  if (text === null || text.trim() === '') return { error: 'the per-finding answers (r2-fix-summary.json) are missing', summary: null };
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    return { error: `r2-fix-summary.json is not valid JSON (${(err as Error).message})`, summary: null };
  }
  const parsed = FixSummary.safeParse(data);
  if (!parsed.success) return { error: `r2-fix-summary.json: ${describeZodError(parsed.error)}`, summary: null };
  const answered = new Set(parsed.data.fixes.map((f) => f.fingerprint));
  const missing = open.filter((fp) => !answered.has(fp));
  if (missing.length > 0) return { error: `r2-fix-summary.json has no answer for ${missing.join(', ')}`, summary: parsed.data };
  const unreported = audited.filter((id) => !parsed.data.patterns.some((p) => p.class === id));
  if (unreported.length > 0) {
    return { error: `r2-fix-summary.json has no "patterns" entry for the audit-first class${unreported.length === 1 ? '' : 'es'} ${unreported.join(', ')}`, summary: parsed.data };
  }
  return { error: null, summary: parsed.data };
}

function summaryTally(summary: string, answers: FixSummary | null): string {
  if (answers && answers.fixes.length > 0) {
    const count = (status: string): number => answers.fixes.filter((f) => f.status === status).length;
    return [
      `${count('fixed')} fixed`,
      count('could_not_fix') ? `${count('could_not_fix')} could not fix` : '',
      count('declined') ? `${count('declined')} declined` : '',
      count('escalate') ? `${count('escalate')} escalated` : '',
    ]
      .filter(Boolean)
      .join(', ');
  }
  const count = (tag: RegExp): number => (summary.match(tag) ?? []).length;
  const fixed = count(/\[fixed\]/gi);
  const notFixed = count(/\[could not fix\]/gi);
  const declined = count(/\[declined\]/gi);
  if (fixed + notFixed + declined === 0) return 'summary written';
  return [`${fixed} fixed`, notFixed ? `${notFixed} could not fix` : '', declined ? `${declined} declined` : ''].filter(Boolean).join(', ');
}

