/**
 * The round's verdict, once the fifth review is recorded. It is a step of its own: the state that says
 * "aggregating since T" is saved before the heavy work, so a hook killed in the middle (the host's
 * timeout, a crash) is noticed by the next one, which computes the verdict again from the same frozen
 * reviews, or ends the round with a clear reason instead of re-dispatching a reviewer forever.
 */
import { REVIEWERS, type Reviewer } from '../protocol/agents';
import type { Effect, Event, Outcome } from './events';
import { advanceIteration, currentIteration, json, updateIteration } from './loop-state';
import { withPinned } from './pinned';
import { startRound } from './round-start';
import { asksChoice, diagnosisText } from './escalation-choice';
import { aggregateRound } from '../review/aggregate';
import type { FindingClass, MergedFinding, Verdict } from '../protocol/verdict-schema';
import * as progress from './progress';
import * as reportTexts from '../report/texts';
import { truncate } from '../protocol/text';
import { overBudget } from '../report/cost';
import { MAX_LISTED } from '../report/markdown';
import { renderReviewReport } from '../report/review-md';
import type { ClassNote, State, VerdictSummary } from '../state/schema';
import { absolute, changedDuringReviewFile, findingsFile, fixDeltaFile, fixSummaryFile, fixSummaryJsonFile, reviewDir, reviewReportFile, verdictFile } from '../protocol/paths';

/** An aggregation that died is tried once more, then the round is stopped. */
export const MAX_AGGREGATION_ATTEMPTS = 2;
/**
 * An aggregation that died longer ago than this took longer than a hook's own work may (60 s; the rest of
 * SubagentStop's timeout in hooks.json is the project's checks' budget, spent before the lock): computing
 * it again would likely take as long, so the round is stopped instead.
 */
export const AGGREGATION_TIMEOUT_MS = 55_000;

export function onAggregationDied(state: State, event: Extract<Event, { kind: 'aggregation-died' }>): Outcome {
  const aggregation = currentIteration(state).r1.aggregation;
  if (state.currentPhase !== 'R1' || !aggregation) return { state, effects: [] };
  const elapsed = Date.parse(event.now) - Date.parse(aggregation.since);
  if (aggregation.attempts < MAX_AGGREGATION_ATTEMPTS && elapsed < AGGREGATION_TIMEOUT_MS) {
    const next = updateIteration(state, event.now, (it) => ({ ...it, r1: { ...it.r1, aggregation: { since: event.now, attempts: aggregation.attempts + 1 } } }));
    return { state: next, effects: [{ type: 'notify', text: progress.notify.aggregationRetry(next) }] };
  }
  const stopped: State = {
    ...updateIteration(state, event.now, (it) => ({ ...it, r1: { ...it.r1, aggregation: null } })),
    status: 'stopped',
    currentPhase: 'STOPPED',
    stopReason: 'aggregation_failed',
    stopDetail: progress.aggregationFailedDetail(state.iteration, aggregation.attempts, elapsed >= AGGREGATION_TIMEOUT_MS),
    stopGuard: { key: '', blocks: 0 },
  };
  return { state: stopped, effects: [{ type: 'notify', text: progress.notify.aggregationFailed(stopped) }] };
}

export function onAggregate(state: State, event: Extract<Event, { kind: 'aggregate' }>): Outcome {
  const current = currentIteration(state);
  if (state.currentPhase !== 'R1' || !current.r1.aggregation) return { state, effects: [] };
  const runs = current.r1.reviewers;
  const changed = event.changedDuringReview ?? null;
  const reviews = Object.fromEntries(
    REVIEWERS.map((r) => [r, { text: event.reviews[r], valid: runs[r].status === 'valid', error: runs[r].status === 'valid' ? null : runs[r].error, notRun: runs[r].status === 'skipped' }]),
  ) as Parameters<typeof aggregateRound>[0]['reviews'];
  const computed = aggregateRound({
    iteration: state.iteration,
    maxIterations: state.maxIterations,
    task: state.task,
    now: event.now,
    rules: state.rules,
    reviews,
    sources: event.sources,
    history: event.history,
    declines: event.declines,
    changedDuringReview: changed?.files ?? [],
    testArtefacts: event.testArtefacts ?? [],
    fixes: event.fixes ?? [],
    escalated: current.escalated,
    machine: event.machine ?? [],
    readings: event.readings ?? {},
    dismissed: event.dismissed ?? [],
  });
  const replaced = REVIEWERS.filter((r) => event.readings?.[r]?.replaced === true);
  // A change to the git dir, or to what the checks run, overrules the reviews: nobody reviewed it.
  const verdict = withPinned(withinBudget(state, reviewOnly(state, withNotes(withNotes(computed, event.rewritten, reportTexts.rewrittenNote), replaced, reportTexts.replacedNote))), event.pinned);
  const effects: Effect[] = [
    { type: 'write', path: verdictFile(state.iteration), content: verdictJson(verdict) },
    { type: 'write', path: reviewReportFile(state.iteration), content: renderReviewReport({ verdict, answers: null, fix: 'pending', checks: event.checks ?? null }) },
  ];
  if (changed && changed.files.length > 0) effects.push({ type: 'write', path: changedDuringReviewFile(state.iteration), content: changed.patch });
  if (event.rewritten.length > 0) effects.push({ type: 'notify', text: progress.notify.reviewsRewritten(state, event.rewritten) });
  if (event.dismissedProblem) effects.push({ type: 'notify', text: progress.notify.dismissedBroken(event.dismissedProblem) });

  const open = verdict.findings.filter((f) => f.toFixer);
  const summary = verdictSummary(verdict);
  let next = updateIteration(state, event.now, (it) => ({
    ...it,
    r1: { ...it.r1, status: 'complete', aggregation: null },
    verdict: summary,
    trees: { ...it.trees, reviewEnd: event.tree ?? null },
    changedDuringReview: changed?.files ?? [],
  }));
  next = { ...next, stopGuard: { key: '', blocks: 0 } };
  if (verdict.next === 'REVIEWED') {
    next = { ...next, status: 'reviewed', currentPhase: 'REVIEWED', openIssues: openIssuesOf(open) };
    effects.push({ type: 'write-report', verdict });
  } else if (verdict.next === 'DONE') {
    next = { ...next, status: 'done', currentPhase: 'DONE' };
    effects.push({ type: 'write-report', verdict });
  } else if (verdict.next === 'STOPPED') {
    next = { ...next, status: 'stopped', currentPhase: 'STOPPED', stopReason: verdict.stopReason, stopDetail: verdict.stopDetail, openIssues: openIssuesOf(open) };
    if (asksChoice(state, verdict)) {
      // The user is asked at Stop; the fix round an answer may start needs its findings file now.
      next = { ...next, escalationChoice: { choice: 'pending', diagnosis: diagnosisText(verdict), at: event.now } };
      effects.push({ type: 'write', path: findingsFile(next.iteration), content: json(fixerBrief(next, verdict, open)) });
    }
    effects.push({ type: 'write-report', verdict });
  } else if (verdict.next === 'R2') {
    next = { ...next, currentPhase: 'R2' };
    effects.push({ type: 'write', path: findingsFile(next.iteration), content: json(fixerBrief(next, verdict, open)) });
  } else {
    // Nothing to fix (an invalid review, or a clean one of a tree that changed under it): the next iteration re-reviews.
    const skipped = advanceIteration(updateIteration(next, event.now, (it) => ({ ...it, r2: { ...it.r2, status: 'skipped' } })), event.now);
    const round = startRound(skipped, { diff: event.patches?.diff ?? null, fixDelta: null }, null);
    next = round.state;
    effects.push({ type: 'mkdir', path: reviewDir(next.iteration) }, ...round.effects);
  }
  effects.push({ type: 'notify', text: progress.notify.verdict(state, verdict, next) });
  return { state: next, effects };
}

/**
 * The verdict file: indented, one field a line, while it is short enough to read; a verdict of more
 * findings than REVIEW.md lists is written on one line (REVIEW.md is the one people read, and has the
 * rest). Written so, 4,000 findings are 2.8 MB instead of 3.9, and take half the time to write.
 */
export const verdictJson = (verdict: Verdict): string => (verdict.findings.length > MAX_LISTED ? `${JSON.stringify(verdict)}\n` : json(verdict));

/**
 * A review whose file changed after it was recorded (rewrittenNote), or before, and was recorded as its
 * reviewer wrote it (replacedNote): the verdict says so where that reviewer's result is.
 */
function withNotes(verdict: Verdict, noted: readonly string[], note: (reviewer: Reviewer) => string): Verdict {
  if (noted.length === 0) return verdict;
  const reviewers = { ...verdict.reviewers };
  for (const r of REVIEWERS) if (noted.includes(r)) reviewers[r] = { ...reviewers[r], notes: [...reviewers[r].notes, note(r)] };
  return { ...verdict, reviewers };
}

const clip = (text: string): string => truncate(text, 200);

/** What the state keeps of a verdict. */
export function verdictSummary(verdict: Verdict): VerdictSummary {
  return {
    overall: verdict.overall_verdict,
    total: verdict.total_issues,
    critical: verdict.critical,
    warning: verdict.warning,
    info: verdict.info,
    open: verdict.findings.filter((f) => f.toFixer).map((f) => f.fingerprint),
    contested: verdict.findings.filter((f) => f.status === 'CONTESTED').length,
    belowLevel: verdict.findings.filter((f) => f.held === 'level' && f.grounding.status !== 'ungrounded').length,
    belowConfidence: verdict.findings.filter((f) => f.held === 'confidence').length,
    score: verdict.score,
    scale: verdict.scale,
    readiness: verdict.readiness,
    pitfalls: verdict.pitfalls.map((p) => ({ seen: p.seen, file: p.file, category: p.category, description: clip(p.description), rule: clip(p.rule) })),
    classes: verdict.classes.filter(needsInstruction).map(noteOf),
  };
}

/** Stops that are about the fix rounds to come: a review-only pass has none, and ends REVIEWED instead. */
const FIX_LOOP_STOPS: ReadonlySet<string> = new Set(['max_iterations', 'no_progress', 'stuck_issue', 'structural_rework_needed', 'budget']);

/**
 * --no-fix: the round's verdict is the loop's end, whatever it found (a fix round or a re-review would
 * come next). A stop about the run itself keeps its reason (the tree changed during the review; a changed
 * git dir or pinned check, applied after this, overrules it too).
 */
function reviewOnly(state: State, verdict: Verdict): Verdict {
  if (!state.reviewOnly) return verdict;
  if (verdict.next === 'STOPPED' && !FIX_LOOP_STOPS.has(verdict.stopReason ?? '')) return verdict;
  return { ...verdict, next: 'REVIEWED', stopReason: null, stopDetail: null };
}

/** Seed 000's repair budget: a fix round or a new review does not start once the tokens reach the budget. */
function withinBudget(state: State, verdict: Verdict): Verdict {
  if (verdict.next !== 'R2' && verdict.next !== 'R1') return verdict;
  const over = overBudget(state);
  if (!over) return verdict;
  const next = verdict.next === 'R2' ? `fix round ${verdict.iteration}` : `review ${verdict.iteration + 1}`;
  return { ...verdict, next: 'STOPPED', stopReason: 'budget', stopDetail: progress.budgetDetail(over.spent, over.budget, next) };
}

const openIssuesOf = (open: MergedFinding[]): State['openIssues'] =>
  open.slice(0, 20).map((f) => ({ severity: f.severity, file: f.file, line: f.line, description: f.description }));

/** A class the fixer is told something about: several sites to fix together, or an earlier fix round that left it open. */
const needsInstruction = (c: FindingClass): boolean => c.fingerprints.length > 1 || c.rung !== 'new';
const noteOf = (c: FindingClass): ClassNote => ({ id: c.id, category: c.category, fingerprints: c.fingerprints, sites: c.sites, rung: c.rung, attempts: c.attempts.map((a) => a.iteration) });

/** Below --done-when, found in the code and not dismissed: the fixer gets them as optional when a fix round runs anyway. */
const optionalOf = (verdict: Verdict): MergedFinding[] =>
  verdict.findings.filter((f) => f.held === 'level' && f.dismissed === null && f.grounding.status !== 'ungrounded' && f.grounding.status !== 'unquoted');

/** What the fixer receives: the merged findings, grouped by class, not the reviewers' instructions (seed 002, seed 003). */
export function fixerBrief(state: State, verdict: Verdict, open: MergedFinding[]) {
  const at = (rel: string): string => absolute(state.root, rel);
  return {
    iteration: state.iteration,
    task: state.task,
    findings: [...open, ...optionalOf(verdict)].map(({ fingerprint, severity, category, file, line, description, evidence, suggestion, status, reporters, class: id, unverified, grounding, held }) => ({
      fingerprint, severity, category, file, line, description, evidence, suggestion, status, reporters, class: id,
      // Not found in the code as quoted: the fixer checks it first, then fixes it or declines it with a reason.
      ...(unverified ? { unverified: true, unverifiedBecause: grounding.reason } : {}),
      // Below --done-when: it does not block DONE; fixed when cheap and safe, else left (declined) without harm.
      ...(held === 'level' ? { optional: true } : {}),
    })),
    classes: verdict.classes.filter(needsInstruction).map((c) => ({
      class: c.id,
      category: c.category,
      fingerprints: c.fingerprints,
      sites: c.sites,
      instruction: c.rung === 'new' ? 'fix_together' : 'audit_first',
      attempts: c.attempts.map((a) => ({ ...a, files: { summary: at(fixSummaryFile(a.iteration)), answers: at(fixSummaryJsonFile(a.iteration)), delta: at(fixDeltaFile(a.iteration + 1)) } })),
    })),
    knownPitfalls: verdict.pitfalls,
  };
}
