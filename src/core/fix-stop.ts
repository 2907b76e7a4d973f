/** SubagentStop of the fixer: check its summaries and the project's checks, run Layer-0, detect a fixpoint or a spent budget, start the next review. */
import { escalationAfterFix } from './escalation';
import type { Effect, Event, Outcome } from './events';
import { MAX_CHECK_SENDBACKS, MAX_OUTPUT_FAILURES, advanceIteration, currentIteration, escapedJson, json, updateIteration } from './loop-state';
import { pinnedStop } from './pinned';
import { startRound } from './round-start';
import { outcomeOf, regressions, tailOf } from '../protocol/check-runs';
import type { Layer0Check } from '../checks/layer0';
import { layer0Round } from '../checks/layer0-round';
import { checkFailedFinding } from '../checks/machine-finding';
import type { MachineFinding } from '../protocol/machine-finding';
import { checksReport, type ChecksReport } from '../checks/reports';
import { readFixSummary } from '../protocol/fix-reader';
import { similarity } from '../checks/layer0/simhash64';
import type { FixSummary } from '../protocol/verdict-schema';
import * as prompts from './prompts';
import * as progress from './progress';
import { overBudget } from '../report/cost';
import { renderReviewReport } from '../report/review-md';
import type { State } from '../state/schema';
import { absolute, checkLogFile, checksFile, fixSummaryFile, fixSummaryJsonFile, layer0File, reviewDir, reviewReportFile } from '../protocol/paths';

/** A stop of the fixer this round is waiting for (not late, not repeated, not from before a dispatch). */
const awaited = (state: State): boolean => {
  const r2 = currentIteration(state).r2;
  return state.currentPhase === 'R2' && r2.status !== 'complete' && r2.status !== 'no_summary' && r2.dispatches > 0;
};

/** What is wrong with the fixer's two summaries (none: fine). */
function summaryProblems(state: State, summary: string | null, summaryJson: string | null): { problems: string[]; answers: ReturnType<typeof checkFixAnswers> } {
  const n = state.iteration;
  const current = currentIteration(state);
  const problems: string[] = [];
  if ((summary ?? '').trim().length === 0) problems.push(`${fixSummaryFile(n)} is missing or empty`);
  const audited = (current.verdict?.classes ?? []).filter((c) => c.rung === 'audit').map((c) => c.id);
  const answers = checkFixAnswers(summaryJson, current.verdict?.open ?? [], audited);
  if (answers.error) problems.push(answers.error);
  return { problems, answers };
}

/**
 * Whether the shell should run the project's checks for this fixer stop: a stop the round waits for,
 * checks configured, and summaries that will not send the fixer back first (the checks run after that).
 */
export function fixerStopRunsChecks(state: State, summary: string | null, summaryJson: string | null): boolean {
  if (state.checks.commands.length === 0 || !awaited(state)) return false;
  return summaryProblems(state, summary, summaryJson).problems.length === 0 || currentIteration(state).r2.failures + 1 >= MAX_OUTPUT_FAILURES;
}

export function onFixerStop(state: State, event: Extract<Event, { kind: 'fixer-stop' }>): Outcome {
  if (!awaited(state)) return { state, effects: [] };
  const current = currentIteration(state);
  const n = state.iteration;
  const hasSummary = (event.summary ?? '').trim().length > 0;
  const { problems, answers } = summaryProblems(state, event.summary, event.summaryJson);
  // The git dir, or what the checks run, changed: the loop ends here, whatever the summaries say (the shell ran no check).
  const pinned = pinnedStop(event.pinned, 'fix-end');
  if (pinned) {
    const stopped: State = {
      ...updateIteration(state, event.now, (it) => ({ ...it, r2: { ...it.r2, status: hasSummary ? 'complete' : 'no_summary' }, trees: { ...it.trees, fixEnd: event.tree ?? null } })),
      status: 'stopped',
      currentPhase: 'STOPPED',
      ...pinned,
      stopGuard: { key: '', blocks: 0 },
    };
    return { state: stopped, effects: [{ type: 'write-report' }, { type: 'notify', text: progress.notify.pinnedStopped(n, stopped) }] };
  }
  if (problems.length > 0) {
    const failures = current.r2.failures + 1;
    if (failures < MAX_OUTPUT_FAILURES) {
      return {
        state: updateIteration(state, event.now, (it) => ({ ...it, r2: { ...it.r2, failures } })),
        effects: [{ type: 'block', reason: prompts.fixerSummaryProblems(absolute(state.root, fixSummaryFile(n)), absolute(state.root, fixSummaryJsonFile(n)), problems) }],
      };
    }
  }
  // The project's checks: one that passed when the loop started and fails now sends the fixer back.
  const runs = event.checks ?? null;
  const regressed = runs ? regressions(state.checks.baseline, runs) : [];
  const logs = runs ? runs.map((_, i) => checkLogFile(n, i + 1)) : [];
  const attempt = current.r2.checkBlocks + 1;
  const checksAfterFix = (findings: MachineFinding[]) =>
    runs ? checksReport({ kind: 'after_fix', iteration: n, attempt, now: event.now, runs, baseline: state.checks.baseline, regressed, logs, findings }) : null;
  /** checks.json and each check's log. */
  const checkFiles = (report: ChecksReport | null): Effect[] =>
    runs && report ? [...runs.map((run, i): Effect => ({ type: 'write', path: logs[i]!, content: run.output })), { type: 'write', path: checksFile(n), content: escapedJson(report) }] : [];
  if (runs && regressed.length > 0 && current.r2.checkBlocks < MAX_CHECK_SENDBACKS) {
    const failures = regressed.map((i) => ({ run: runs[i]!, log: absolute(state.root, logs[i]!), tail: tailOf(runs[i]!.output) }));
    return {
      state: updateIteration(state, event.now, (it) => ({ ...it, r2: { ...it.r2, checkBlocks: it.r2.checkBlocks + 1 }, checks: runs.map(outcomeOf) })),
      effects: [...checkFiles(checksAfterFix([])), { type: 'block', reason: prompts.checksBroken(failures, attempt, MAX_CHECK_SENDBACKS, state.checks.timeoutSeconds) }],
    };
  }
  // Sent back enough: what still fails is a finding of the next review, like Layer-0's.
  const checkFindings = regressed.map((i) => checkFailedFinding(runs![i]!, logs[i]!, current.r2.checkBlocks));
  const layer0 = event.changes
    ? layer0Round({
        iteration: n,
        from: current.trees.reviewEnd,
        to: event.tree ?? null,
        changes: event.changes,
        recheck: event.recheck ?? [],
        runnerConfigs: event.runnerConfigs ?? {},
        findings: event.verdict?.findings ?? [],
        disabled: state.layer0.disabled as Layer0Check[],
      })
    : null;
  // Layer-0 found something in the fix: the fixer goes back at once, like a broken check, before any reviewer runs.
  if (layer0 && layer0.findings.length > 0 && current.r2.layer0Blocks < MAX_CHECK_SENDBACKS) {
    const sent = current.r2.layer0Blocks + 1;
    return {
      state: updateIteration(state, event.now, (it) => ({ ...it, r2: { ...it.r2, layer0Blocks: sent } })),
      effects: [
        { type: 'write', path: layer0File(n), content: json(layer0) },
        { type: 'block', reason: prompts.layer0Found(layer0.findings, absolute(state.root, layer0File(n)), sent, MAX_CHECK_SENDBACKS) },
      ],
    };
  }
  const afterFix = checksAfterFix(checkFindings);
  const reports: Effect[] = [...checkFiles(afterFix), ...(layer0 ? [{ type: 'write' as const, path: layer0File(n), content: json(layer0) }] : [])];
  const finished = updateIteration(state, event.now, (it) => ({
    ...it,
    r2: { ...it.r2, status: hasSummary ? 'complete' : 'no_summary' },
    trees: { ...it.trees, fixEnd: event.tree ?? null },
    checks: runs ? runs.map(outcomeOf) : null,
    layer0: layer0 ? { files: layer0.files.length, findings: layer0.findings.length } : null,
  }));
  const tally = hasSummary ? summaryTally(event.summary!, answers.summary) : null;
  // The answers as accepted: later rounds count their declines, so the record vouches for them from now on.
  // Answers read other than as written are written back as read, so that every later reader reads them so.
  const rewritten = answers.summary !== null && answers.notes.length > 0 ? json(answers.summary) : null;
  const pins: Effect[] = [
    ...(event.summary !== null ? [{ type: 'pin' as const, path: fixSummaryFile(n), content: event.summary }] : []),
    ...(rewritten !== null ? [{ type: 'write' as const, path: fixSummaryJsonFile(n), content: rewritten }] : []),
    ...(event.summaryJson !== null ? [{ type: 'pin' as const, path: fixSummaryJsonFile(n), content: rewritten ?? event.summaryJson }] : []),
  ];
  const escalation = escalationAfterFix(finished, event.verdict ?? null, answers.summary);
  // The round's REVIEW.md gains the fixer's answers (from this round's verdict, not another's).
  const reviewMd: Effect[] =
    event.verdict?.iteration === n
      ? [
          {
            type: 'write',
            path: reviewReportFile(n),
            content: renderReviewReport({ verdict: event.verdict!, answers: answers.summary, answerNotes: answers.notes, fix: hasSummary ? 'complete' : 'no_summary', checks: event.reviewedChecks ?? null, afterFix, layer0 }),
          },
        ]
      : [];

  // The fixpoint: about the same findings, two consecutive fix deltas (the code the fixer changed) that
  // are the same change, or the second undoing the first, end the loop. Where the deltas cannot be told
  // (no git, a patch cut short, no change at all), two near-identical fix summaries do; summaries alike
  // over different code changes do not. Rounds that fixed different findings may repeat nothing.
  // An escalate answer goes to the critic instead.
  const before = state.iterations[state.iterations.length - 2]?.verdict?.open ?? [];
  const sameFindings = (current.verdict?.open ?? []).some((fp) => before.includes(fp));
  const fixerEscalated = escalation?.escalated.some((e) => e.reason === 'fixer_escalated') ?? false;
  const deltas = compareDeltas(event.patches?.fixDelta ?? null, event.previousFixDelta ?? null);
  const alike = hasSummary && event.previousSummary ? similarity(event.summary!, event.previousSummary) : 0;
  const repeated = deltas === 'same' || deltas === 'undone' || (deltas === 'unknown' && alike >= state.rules.similarity);
  if (sameFindings && !fixerEscalated && repeated) {
    const stopped: State = {
      ...finished,
      status: 'stopped',
      currentPhase: 'STOPPED',
      stopReason: 'no_progress',
      stopDetail: progress.noProgressDetail(n, deltas === 'unknown' ? { summaries: Math.round(alike * 100) } : { deltas }),
      openIssues: state.openIssues,
    };
    return { state: stopped, effects: [...pins, ...reports, ...reviewMd, { type: 'write-report' }, { type: 'notify', text: progress.notify.fixRepeated(n, stopped) }] };
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
      stopDetail: progress.budgetDetail(over.spent, over.budget, `review ${n + 1}`),
      openIssues: open.slice(0, 20).map((f) => ({ severity: f.severity, file: f.file, line: f.line, description: f.description })),
    };
    return { state: stopped, effects: [...pins, ...reports, ...reviewMd, { type: 'write-report' }, { type: 'notify', text: progress.notify.budgetSpent(n, stopped) }] };
  }
  const round = startRound({ ...advanceIteration(finished, event.now), changedFiles: event.changedFiles ?? state.changedFiles }, event.patches, escalation);
  const next = round.state;
  return {
    state: next,
    effects: [
      ...pins,
      ...reports,
      ...reviewMd,
      { type: 'mkdir', path: reviewDir(next.iteration) },
      ...round.effects,
      { type: 'notify', text: tally ? progress.notify.fixDone(n, next, tally) : progress.notify.fixNoSummary(n, next) },
      ...(escalation ? [{ type: 'notify' as const, text: progress.notify.escalated(next, escalation.escalated) }] : []),
    ],
  };
}

/** The machine-readable answers: read as meant (protocol/fix-reader.ts), every open fingerprint answered, reasons for declines, a pattern per audit-first class. */
function checkFixAnswers(text: string | null, open: readonly string[], audited: readonly string[]): { error: string | null; summary: FixSummary | null; notes: string[] } {
  if (text === null || text.trim() === '') return { error: 'the per-finding answers (r2-fix-summary.json) are missing or empty', summary: null, notes: [] };
  const read = readFixSummary(text, open);
  if (!read.ok) return { error: `r2-fix-summary.json: ${read.problem}`, summary: null, notes: [] };
  const { summary, notes } = read;
  const answered = new Set(summary.fixes.map((f) => f.fingerprint));
  const missing = open.filter((fp) => !answered.has(fp));
  if (missing.length > 0) return { error: `r2-fix-summary.json has no answer for ${missing.join(', ')}`, summary, notes };
  const unreported = audited.filter((id) => !summary.patterns.some((p) => p.class === id));
  if (unreported.length > 0) {
    return { error: `r2-fix-summary.json has no "patterns" entry for the audit-first class${unreported.length === 1 ? '' : 'es'} ${unreported.join(', ')}`, summary, notes };
  }
  return { error: null, summary, notes };
}

function summaryTally(summary: string, answers: FixSummary | null): string {
  if (answers && answers.fixes.length > 0) {
    // One answer per finding: a fingerprint listed twice counts once, with its last answer.
    const last = new Map(answers.fixes.map((f) => [f.fingerprint, f.status]));
    const count = (status: string): number => [...last.values()].filter((s) => s === status).length;
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


/** A patch's changed lines: + and − lines with the files they are in, without hunk positions, headers or comments. */
export function deltaLines(patch: string): string[] {
  return patch.split('\n').filter((l) => l.startsWith('diff --git ') || ((l.startsWith('+') || l.startsWith('-')) && !l.startsWith('+++ ') && !l.startsWith('--- ')));
}

/**
 * This round's fix delta against the previous round's (its fix-delta.patch, header and all): the same
 * change, the change undone (every + a − and back), different, or unknown (either missing, cut short,
 * or both empty: a fixer that changed nothing twice is left to the summaries).
 */
export function compareDeltas(current: { text: string; truncated: boolean } | null, previous: string | null): 'same' | 'undone' | 'different' | 'unknown' {
  if (current === null || previous === null || current.truncated || /^# Cut at /m.test(previous)) return 'unknown';
  const now = deltaLines(current.text);
  const then = deltaLines(previous.split('\n').filter((l) => !l.startsWith('# ')).join('\n'));
  const changes = (lines: string[]) => lines.filter((l) => !l.startsWith('diff --git '));
  if (changes(now).length === 0 || changes(then).length === 0) return changes(now).length === changes(then).length ? 'unknown' : 'different';
  if (now.join('\n') === then.join('\n')) return 'same';
  const flip = (l: string): string => (l.startsWith('+') ? `-${l.slice(1)}` : l.startsWith('-') ? `+${l.slice(1)}` : l);
  const sorted = (lines: string[]) => [...lines].sort().join('\n');
  return sorted(changes(now).map(flip)) === sorted(changes(then)) ? 'undone' : 'different';
}
