/** SubagentStop of a reviewer: validate its review; the fifth one aggregates the round. */
import { REVIEWERS } from './agents';
import type { Effect, Event, Outcome } from './events';
import { MAX_OUTPUT_FAILURES, advanceIteration, currentIteration, json, setReviewer, updateIteration } from './loop-state';
import { startRound } from './round-start';
import { aggregateRound } from '../review/aggregate';
import { ground } from '../review/grounding';
import { extractJsonFromMessage, parseReview } from '../review/reviewer-output';
import type { FindingClass, MergedFinding, Verdict } from '../review/verdict-schema';
import * as msg from '../messages';
import type { ClassNote, ReviewerRun, State } from '../state/schema';
import { absolute, changedDuringReviewFile, findingsFile, fixDeltaFile, fixSummaryFile, fixSummaryJsonFile, reviewDir, reviewerFile, verdictFile } from '../state/paths';

export function onReviewerStop(state: State, event: Extract<Event, { kind: 'reviewer-stop' }>): Outcome {
  const { reviewer } = event;
  if (state.currentPhase !== 'R1') return { state, effects: [] };
  const current = currentIteration(state);
  const run = current.r1.reviewers[reviewer];
  // Late or repeated (already recorded), or a stop from an earlier iteration (never dispatched in this one).
  if (run.status === 'valid' || run.status === 'invalid' || run.dispatches === 0) return { state, effects: [] };

  const path = reviewerFile(state.iteration, reviewer);
  const shown = absolute(state.root, path);
  const fileText = event.files[reviewer];
  const fromFile = fileText === null ? null : parseReview(fileText);
  const messageJson = fromFile?.ok ? null : extractJsonFromMessage(event.message);
  const fromMessage = messageJson === null ? null : parseReview(messageJson);

  const effects: Effect[] = [];
  const texts = { ...event.files };
  let recorded: ReviewerRun;
  let source = '';
  const accepted = fromFile?.ok ? fromFile : fromMessage?.ok ? fromMessage : null;
  if (accepted) {
    // Grounding (seed 000): a reviewer whose findings mostly do not match the files is told so, once.
    const ungrounded = accepted.issues.flatMap((f) => {
      const g = ground(f, event.sources);
      return g.status === 'ungrounded' ? [`${f.file}${f.line ? `:${f.line}` : ''}: ${g.reason}`] : [];
    });
    if (!run.groundingWarned && ungrounded.length > 0 && ungrounded.length * 2 > accepted.issues.length) {
      const next = setReviewer(state, event.now, reviewer, { ...run, groundingWarned: true });
      return { state: next, effects: [{ type: 'block', reason: msg.reviewerUngrounded(shown, ungrounded) }] };
    }
    if (!fromFile?.ok && messageJson !== null) {
      const pretty = json(JSON.parse(messageJson));
      effects.push({ type: 'write', path, content: pretty });
      texts[reviewer] = pretty;
      source = ', taken from its final message';
    }
    recorded = { ...run, status: 'valid', error: null, counts: accepted.counts };
  } else {
    const error = fromFile && !fromFile.ok ? fromFile.error : fromMessage && !fromMessage.ok ? fromMessage.error : null;
    const failures = run.failures + 1;
    if (failures < MAX_OUTPUT_FAILURES) {
      const next = setReviewer(state, event.now, reviewer, { ...run, failures, error: error ?? 'no output' });
      return { state: next, effects: [{ type: 'block', reason: error ? msg.reviewerInvalid(shown, error) : msg.reviewerMissing(shown) }] };
    }
    recorded = { ...run, status: 'invalid', failures, error: error ?? 'no output', counts: null };
  }

  let next = setReviewer(state, event.now, reviewer, recorded);
  const runs = currentIteration(next).r1.reviewers;
  const done = REVIEWERS.filter((r) => runs[r].status === 'valid' || runs[r].status === 'invalid');
  effects.push({ type: 'notify', text: msg.notify.reviewerDone(next, reviewer, recorded.counts, source) });
  if (done.length < REVIEWERS.length) return { state: next, effects };

  // The fifth review is in: this hook, and only this one (under the lock), aggregates.
  const changed = event.changedDuringReview ?? null;
  const reviews = Object.fromEntries(
    REVIEWERS.map((r) => [r, { text: texts[r], valid: runs[r].status === 'valid', error: runs[r].status === 'valid' ? null : runs[r].error }]),
  ) as Parameters<typeof aggregateRound>[0]['reviews'];
  const verdict = aggregateRound({
    iteration: next.iteration,
    maxIterations: next.maxIterations,
    task: next.task,
    now: event.now,
    rules: next.rules,
    reviews,
    sources: event.sources,
    history: event.history,
    declines: event.declines,
    changedDuringReview: changed?.files ?? [],
    fixes: event.fixes ?? [],
    escalated: currentIteration(next).escalated,
  });
  effects.push({ type: 'write', path: verdictFile(next.iteration), content: json(verdict) });
  if (changed && changed.files.length > 0) effects.push({ type: 'write', path: changedDuringReviewFile(next.iteration), content: changed.patch });

  const open = verdict.findings.filter((f) => f.toFixer);
  const summary = {
    overall: verdict.overall_verdict,
    total: verdict.total_issues,
    critical: verdict.critical,
    warning: verdict.warning,
    info: verdict.info,
    open: open.map((f) => f.fingerprint),
    contested: verdict.findings.filter((f) => f.status === 'CONTESTED').length,
    score: verdict.score,
    scale: verdict.scale,
    readiness: verdict.readiness,
    pitfalls: verdict.pitfalls.map((p) => ({ seen: p.seen, file: p.file, category: p.category, description: clip(p.description), rule: clip(p.rule) })),
    classes: verdict.classes.filter(needsInstruction).map(noteOf),
  };
  next = updateIteration(next, event.now, (it) => ({
    ...it,
    r1: { ...it.r1, status: 'complete' },
    verdict: summary,
    trees: { ...it.trees, reviewEnd: event.tree ?? null },
    changedDuringReview: changed?.files ?? [],
  }));
  next = { ...next, stopGuard: { key: '', blocks: 0 } };
  if (verdict.next === 'DONE') {
    next = { ...next, status: 'done', currentPhase: 'DONE' };
  } else if (verdict.next === 'STOPPED') {
    next = { ...next, status: 'stopped', currentPhase: 'STOPPED', stopReason: verdict.stopReason, stopDetail: verdict.stopDetail, openIssues: openIssuesOf(open) };
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
  effects.push({ type: 'notify', text: msg.notify.verdict(state, verdict, next) });
  return { state: next, effects };
}

const clip = (text: string): string => msg.truncate(text, 200);

const openIssuesOf = (open: MergedFinding[]): State['openIssues'] =>
  open.slice(0, 20).map((f) => ({ severity: f.severity, file: f.file, line: f.line, description: f.description }));

/** A class the fixer is told something about: several sites to fix together, or an earlier fix round that left it open. */
const needsInstruction = (c: FindingClass): boolean => c.fingerprints.length > 1 || c.rung !== 'new';
const noteOf = (c: FindingClass): ClassNote => ({ id: c.id, category: c.category, fingerprints: c.fingerprints, sites: c.sites, rung: c.rung, attempts: c.attempts.map((a) => a.iteration) });

/** What the fixer receives: the merged findings, grouped by class, not the reviewers' instructions (seed 002, seed 003). */
function fixerBrief(state: State, verdict: Verdict, open: MergedFinding[]) {
  const at = (rel: string): string => absolute(state.root, rel);
  return {
    iteration: state.iteration,
    task: state.task,
    findings: open.map(({ fingerprint, severity, category, file, line, description, evidence, suggestion, status, reporters, class: id }) => ({
      fingerprint, severity, category, file, line, description, evidence, suggestion, status, reporters, class: id,
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

