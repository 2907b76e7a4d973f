/**
 * The review loop's state machine: transition(loaded, event) → {state, effects}. Pure: the shell
 * observes files and git, passes what it saw in the event, then saves and runs the effects.
 */
import { FIXER_TYPE, REVIEWERS, isFixer, isPluginAgent, reviewerOf, type Reviewer } from './agents';
import type { Command } from './args';
import { DEFAULT_RULES, aggregateRound, type StopRules } from '../review/aggregate';
import { ground, type Sources } from '../review/grounding';
import { describeZodError, extractJsonFromMessage, parseReview } from '../review/reviewer-output';
import { similarity } from '../review/simhash';
import { FixSummary, type MergedFinding, type Verdict } from '../review/verdict-schema';
import * as msg from '../messages';
import { STATE_VERSION, type IterationRecord, type ReviewerRun, type State } from '../state/schema';
import { findingsFile, fixSummaryFile, fixSummaryJsonFile, reviewDir, reviewerFile, verdictFile, PHASES_DIR } from '../state/paths';

export type Loaded = { kind: 'none' } | { kind: 'broken'; problem: string } | { kind: 'ok'; state: State };

export type Effect =
  /** Before the state is saved. */
  | { type: 'write'; path: string; content: string }
  | { type: 'mkdir'; path: string }
  /** Before the new state is saved: moves any state file and phases/ into the archive (into: null → the shell names it). */
  | { type: 'archive-previous'; into: string | null }
  /** After the state is saved: moves the state file (and phases/ when asked) into archive/<into>/. */
  | { type: 'archive-run'; into: string; phases: boolean }
  /** Answers, mapped to each event's output shape by the shell. */
  | { type: 'block'; reason: string }
  | { type: 'deny'; reason: string }
  | { type: 'context'; text: string }
  | { type: 'notify'; text: string }
  | { type: 'refuse'; reason: string };

export interface Outcome {
  /** The state to save; the same object as loaded (or null) means "no change". */
  state: State | null;
  effects: Effect[];
}

interface Base {
  sessionId: string;
  now: string;
}
export type Event =
  | (Base & { kind: 'command'; command: Command; head: string | null; changedFiles: string[]; root?: string | null })
  | (Base & { kind: 'prompt'; changedFiles: string[] })
  | (Base & { kind: 'dispatch'; subagentType: string })
  | (Base & {
      kind: 'reviewer-stop';
      reviewer: Reviewer;
      /** The five reviewers' output files of this iteration, as they are now. */
      files: Record<Reviewer, string | null>;
      message: string | null;
      /** The project files the reviews name. */
      sources: Sources;
      /** Earlier rounds' verdicts, oldest first. */
      history: Verdict[];
      /** How often the fixer declined each fingerprint in earlier rounds. */
      declines: Record<string, number>;
    })
  | (Base & { kind: 'fixer-stop'; summary: string | null; summaryJson: string | null; previousSummary: string | null })
  | (Base & { kind: 'stop'; running: string[]; changedFiles: string[] });

export const STALE_AFTER_MS = 2 * 60 * 60 * 1000;
/** A reviewer (or the fixer) is blocked this many times for bad output, then recorded as it is. */
export const MAX_OUTPUT_FAILURES = 2;
/** Consecutive Stop blocks without progress before the stop is let through. */
export const MAX_IDLE_BLOCKS = 2;

const unchanged = (loaded: Loaded, effects: Effect[] = []): Outcome => ({ state: loaded.kind === 'ok' ? loaded.state : null, effects });

export function transition(loaded: Loaded, event: Event): Outcome {
  if (event.kind === 'command') return onCommand(loaded, event);
  if (loaded.kind !== 'ok' || loaded.state.sessionId !== event.sessionId) {
    // Not this session's loop (or none): everything is allowed and nothing is said,
    // except that a broken state file is reported where a session stops.
    if (loaded.kind === 'broken' && event.kind === 'stop') return unchanged(loaded, [{ type: 'notify', text: msg.notify.brokenState('.agents/tmp/state.json', loaded.problem) }]);
    return unchanged(loaded);
  }
  const state = loaded.state;
  switch (event.kind) {
    case 'prompt':
      return onPrompt(state, event);
    case 'dispatch':
      return onDispatch(state, event);
    case 'reviewer-stop':
      return onReviewerStop(state, event);
    case 'fixer-stop':
      return onFixerStop(state, event);
    case 'stop':
      return onStop(state, event);
  }
}

// ── Starting and cancelling ─────────────────────────────────────────────────────

function onCommand(loaded: Loaded, event: Extract<Event, { kind: 'command' }>): Outcome {
  const { command } = event;
  if (command.kind === 'status') return unchanged(loaded);
  if (command.kind === 'cancel') return cancel(loaded, event.sessionId, command.force, event.now);

  const prev = loaded.kind === 'ok' ? loaded.state : null;
  if (prev && isActive(prev) && prev.sessionId !== event.sessionId && !isStale(prev, event.now) && !command.force) {
    return unchanged(loaded, [{ type: 'refuse', reason: msg.refuse.busy(prev, minutesSince(prev.updatedAt, event.now)) }]);
  }
  const state = { ...initialState(event.sessionId, command.task, command.maxIterations, event.head, event.now, command.rules), root: event.root ?? null };
  // Whatever was there (a finished run's phases, a replaced or broken state) goes to the archive first.
  const effects: Effect[] = [{ type: 'archive-previous', into: prev ? prev.runId : null }];
  effects.push(
    { type: 'mkdir', path: reviewDir(1) },
    { type: 'write', path: `${PHASES_DIR}/run.json`, content: json({ runId: state.runId, task: state.task, startedAt: state.startedAt, maxIterations: state.maxIterations }) },
    { type: 'context', text: msg.r1Prompt(state, event.changedFiles) },
    { type: 'notify', text: msg.notify.started(state, prev ? `.agents/tmp/archive/${prev.runId}/` : null) },
  );
  return { state, effects };
}

function cancel(loaded: Loaded, sessionId: string, force: boolean, now: string): Outcome {
  if (loaded.kind === 'none') return unchanged(loaded, [{ type: 'context', text: msg.refuse.noLoop() }]);
  if (loaded.kind === 'broken') return { state: null, effects: [{ type: 'archive-previous', into: null }, { type: 'notify', text: msg.notify.brokenArchived() }] };
  const prev = loaded.state;
  if (!isActive(prev)) return { state: prev, effects: [{ type: 'archive-run', into: prev.runId, phases: false }, { type: 'context', text: msg.refuse.noLoop() }] };
  if (prev.sessionId !== sessionId && !force && !isStale(prev, now)) return unchanged(loaded, [{ type: 'refuse', reason: msg.refuse.notOwner() }]);
  const state: State = { ...prev, status: 'cancelled', currentPhase: 'CANCELLED', stopReason: 'cancelled', updatedAt: now };
  const into = `.agents/tmp/archive/${state.runId}/`;
  return { state, effects: [{ type: 'archive-run', into: state.runId, phases: true }, { type: 'notify', text: msg.notify.cancelled(prev, into) }] };
}

export function initialState(sessionId: string, task: string, maxIterations: number, head: string | null, now: string, rules: StopRules = DEFAULT_RULES): State {
  return {
    version: STATE_VERSION,
    plugin: 'minions',
    pipeline: 'review',
    runId: `${now.replace(/[-:]/g, '').replace(/\.\d+/, '')}-${sessionId.replace(/[^A-Za-z0-9]/g, '').slice(0, 8) || 'session'}`,
    status: 'in_progress',
    task,
    sessionId,
    iteration: 1,
    maxIterations,
    currentPhase: 'R1',
    base: head,
    root: null,
    startedAt: now,
    updatedAt: now,
    stopReason: null,
    stopDetail: null,
    rules,
    stopGuard: { key: '', blocks: 0 },
    openIssues: [],
    iterations: [newIteration(1, now)],
  };
}

function newIteration(iteration: number, now: string): IterationRecord {
  const run = (): ReviewerRun => ({ status: 'pending', dispatches: 0, failures: 0, error: null, counts: null, groundingWarned: false });
  return {
    iteration,
    startedAt: now,
    r1: { status: 'pending', reviewers: Object.fromEntries(REVIEWERS.map((r) => [r, run()])) as IterationRecord['r1']['reviewers'] },
    r2: { status: 'pending', dispatches: 0, failures: 0 },
    verdict: null,
  };
}

// ── Prompts in the owning session ───────────────────────────────────────────────

function onPrompt(state: State, event: Extract<Event, { kind: 'prompt' }>): Outcome {
  if (!isActive(state)) return { state, effects: [] };
  // A new turn: the idle guard starts again, and the model is reminded where the loop stands.
  const next: State = { ...state, stopGuard: { key: '', blocks: 0 }, updatedAt: event.now };
  return { state: next, effects: [{ type: 'context', text: phasePrompt(next, event.changedFiles) }] };
}

// ── The dispatch gate ───────────────────────────────────────────────────────────

function onDispatch(state: State, event: Extract<Event, { kind: 'dispatch' }>): Outcome {
  if (!isActive(state) || !isPluginAgent(event.subagentType)) return { state, effects: [] };
  const reviewer = reviewerOf(event.subagentType);
  const current = currentIteration(state);
  const denyWith = (reason: string): Outcome => ({ state, effects: [{ type: 'deny', reason }] });

  if (state.currentPhase === 'R1') {
    if (isFixer(event.subagentType)) return denyWith(msg.deny.fixerInR1(state));
    if (!reviewer) return denyWith(msg.deny.otherPluginAgent(event.subagentType, state));
    const run = current.r1.reviewers[reviewer];
    if (run.status !== 'pending') return denyWith(msg.deny.reviewerAlready(reviewer, state, run.status));
    return {
      state: updateIteration(state, event.now, (it) => ({
        ...it,
        r1: { ...it.r1, reviewers: { ...it.r1.reviewers, [reviewer]: { ...run, status: 'running', dispatches: run.dispatches + 1, failures: 0 } } },
      })),
      effects: [],
    };
  }
  // R2
  if (reviewer) return denyWith(msg.deny.reviewerInR2(state));
  if (!isFixer(event.subagentType)) return denyWith(msg.deny.otherPluginAgent(event.subagentType, state));
  if (current.r2.status !== 'pending' || !current.verdict || current.verdict.total === 0) return denyWith(msg.deny.fixerAlready(state));
  return {
    state: updateIteration(state, event.now, (it) => ({ ...it, r2: { ...it.r2, status: 'running', dispatches: it.r2.dispatches + 1, failures: 0 } })),
    effects: [],
  };
}

// ── SubagentStop: a reviewer ────────────────────────────────────────────────────

function onReviewerStop(state: State, event: Extract<Event, { kind: 'reviewer-stop' }>): Outcome {
  const { reviewer } = event;
  if (state.currentPhase !== 'R1') return { state, effects: [] };
  const current = currentIteration(state);
  const run = current.r1.reviewers[reviewer];
  // Late or repeated (already recorded), or a stop from an earlier iteration (never dispatched in this one).
  if (run.status === 'valid' || run.status === 'invalid' || run.dispatches === 0) return { state, effects: [] };

  const path = reviewerFile(state.iteration, reviewer);
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
      return { state: next, effects: [{ type: 'block', reason: msg.reviewerUngrounded(path, ungrounded) }] };
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
      return { state: next, effects: [{ type: 'block', reason: error ? msg.reviewerInvalid(path, error) : msg.reviewerMissing(path) }] };
    }
    recorded = { ...run, status: 'invalid', failures, error: error ?? 'no output', counts: null };
  }

  let next = setReviewer(state, event.now, reviewer, recorded);
  const runs = currentIteration(next).r1.reviewers;
  const done = REVIEWERS.filter((r) => runs[r].status === 'valid' || runs[r].status === 'invalid');
  effects.push({ type: 'notify', text: msg.notify.reviewerDone(next, reviewer, recorded.counts, source) });
  if (done.length < REVIEWERS.length) return { state: next, effects };

  // The fifth review is in: this hook, and only this one (under the lock), aggregates.
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
  });
  effects.push({ type: 'write', path: verdictFile(next.iteration), content: json(verdict) });

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
  };
  next = updateIteration(next, event.now, (it) => ({ ...it, r1: { ...it.r1, status: 'complete' }, verdict: summary }));
  next = { ...next, stopGuard: { key: '', blocks: 0 } };
  if (verdict.next === 'DONE') {
    next = { ...next, status: 'done', currentPhase: 'DONE' };
  } else if (verdict.next === 'STOPPED') {
    next = { ...next, status: 'stopped', currentPhase: 'STOPPED', stopReason: verdict.stopReason, stopDetail: verdict.stopDetail, openIssues: openIssuesOf(open) };
  } else if (verdict.next === 'R2') {
    next = { ...next, currentPhase: 'R2' };
    effects.push({ type: 'write', path: findingsFile(next.iteration), content: json(fixerBrief(next, verdict, open)) });
  } else {
    // Issues counted (an invalid review) but nothing to fix: the next iteration re-reviews.
    next = advanceIteration(updateIteration(next, event.now, (it) => ({ ...it, r2: { ...it.r2, status: 'skipped' } })), event.now);
    effects.push({ type: 'mkdir', path: reviewDir(next.iteration) });
  }
  effects.push({ type: 'notify', text: msg.notify.verdict(state, verdict, next) });
  return { state: next, effects };
}

const clip = (text: string): string => msg.truncate(text, 200);

const openIssuesOf = (open: MergedFinding[]): State['openIssues'] =>
  open.slice(0, 20).map((f) => ({ severity: f.severity, file: f.file, line: f.line, description: f.description }));

/** What the fixer receives: the merged findings, not the reviewers' instructions (seed 002). */
function fixerBrief(state: State, verdict: Verdict, open: MergedFinding[]) {
  return {
    iteration: state.iteration,
    task: state.task,
    findings: open.map(({ fingerprint, severity, category, file, line, description, evidence, suggestion, status, reporters }) => ({
      fingerprint, severity, category, file, line, description, evidence, suggestion, status, reporters,
    })),
    knownPitfalls: verdict.pitfalls,
  };
}

// ── SubagentStop: the fixer ─────────────────────────────────────────────────────

function onFixerStop(state: State, event: Extract<Event, { kind: 'fixer-stop' }>): Outcome {
  if (state.currentPhase !== 'R2') return { state, effects: [] };
  const current = currentIteration(state);
  if (current.r2.status === 'complete' || current.r2.status === 'no_summary' || current.r2.dispatches === 0) return { state, effects: [] };
  const n = state.iteration;
  const hasSummary = (event.summary ?? '').trim().length > 0;
  const problems: string[] = [];
  if (!hasSummary) problems.push(`${fixSummaryFile(n)} is missing or empty`);
  const answers = checkFixAnswers(event.summaryJson, current.verdict?.open ?? []);
  if (answers.error) problems.push(answers.error);
  if (problems.length > 0) {
    const failures = current.r2.failures + 1;
    if (failures < MAX_OUTPUT_FAILURES) {
      return {
        state: updateIteration(state, event.now, (it) => ({ ...it, r2: { ...it.r2, failures } })),
        effects: [{ type: 'block', reason: msg.fixerSummaryProblems(fixSummaryFile(n), fixSummaryJsonFile(n), problems) }],
      };
    }
  }
  const finished = updateIteration(state, event.now, (it) => ({ ...it, r2: { ...it.r2, status: hasSummary ? 'complete' : 'no_summary' } }));
  const tally = hasSummary ? summaryTally(event.summary!, answers.summary) : null;

  // Seed 000's fixpoint: two consecutive fix summaries that say the same thing about the same findings
  // end the loop. Rounds that fixed different findings may read alike without repeating anything.
  const before = state.iterations[state.iterations.length - 2]?.verdict?.open ?? [];
  const sameFindings = (current.verdict?.open ?? []).some((fp) => before.includes(fp));
  if (hasSummary && sameFindings && event.previousSummary && similarity(event.summary!, event.previousSummary) >= state.rules.similarity) {
    const percent = Math.round(similarity(event.summary!, event.previousSummary) * 100);
    const stopped: State = {
      ...finished,
      status: 'stopped',
      currentPhase: 'STOPPED',
      stopReason: 'no_progress',
      stopDetail: `the fix summaries of rounds ${n - 1} and ${n} are ${percent}% similar: the fixer is repeating itself`,
      openIssues: state.openIssues,
    };
    return { state: stopped, effects: [{ type: 'notify', text: msg.notify.fixRepeated(n, stopped) }] };
  }
  const next = advanceIteration(finished, event.now);
  return {
    state: next,
    effects: [
      { type: 'mkdir', path: reviewDir(next.iteration) },
      { type: 'notify', text: tally ? msg.notify.fixDone(n, next, tally) : msg.notify.fixNoSummary(n, next) },
    ],
  };
}

/** The machine-readable answers: valid JSON, every open fingerprint answered, reasons for declines. */
function checkFixAnswers(text: string | null, open: readonly string[]): { error: string | null; summary: FixSummary | null } {
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
  return { error: null, summary: parsed.data };
}

function summaryTally(summary: string, answers: FixSummary | null): string {
  if (answers && answers.fixes.length > 0) {
    const count = (status: string): number => answers.fixes.filter((f) => f.status === status).length;
    return [`${count('fixed')} fixed`, count('could_not_fix') ? `${count('could_not_fix')} could not fix` : '', count('declined') ? `${count('declined')} declined` : '']
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

function advanceIteration(state: State, now: string): State {
  const iteration = state.iteration + 1;
  return { ...state, iteration, currentPhase: 'R1', updatedAt: now, stopGuard: { key: '', blocks: 0 }, iterations: [...state.iterations, newIteration(iteration, now)] };
}

// ── Stop: re-inject the phase prompt, or let the session go ─────────────────────

function onStop(state: State, event: Extract<Event, { kind: 'stop' }>): Outcome {
  if (!isActive(state)) {
    // DONE, STOPPED or CANCELLED: say so once, then retire the state file so idle hooks cost nothing.
    return { state, effects: [{ type: 'notify', text: msg.outcome(state, state.openIssues) }, { type: 'archive-run', into: state.runId, phases: false }] };
  }
  const phaseAgents = state.currentPhase === 'R1' ? REVIEWERS.map((r) => `minions:${r}`) : [FIXER_TYPE];
  const inBackground = event.running.filter((t) => phaseAgents.includes(t));
  if (inBackground.length > 0) {
    // The host wakes the orchestrator when they finish; no re-dispatch, no block.
    return { state, effects: [{ type: 'notify', text: msg.notify.waiting(state, inBackground.map((t) => t.replace(/^minions:/, ''))) }] };
  }

  // Agents recorded as running that are not running any more ended without output: they may be dispatched again.
  let next = updateIteration(state, state.updatedAt, (it) => ({
    ...it,
    r1: {
      ...it.r1,
      reviewers: Object.fromEntries(
        REVIEWERS.map((r) => {
          const run = it.r1.reviewers[r];
          return [r, run.status === 'running' ? { ...run, status: 'pending', error: run.error ?? 'ended without output' } : run];
        }),
      ) as IterationRecord['r1']['reviewers'],
    },
    r2: it.r2.status === 'running' ? { ...it.r2, status: 'pending' } : it.r2,
  }));

  const key = progressKey(next);
  const blocks = next.stopGuard.key === key ? next.stopGuard.blocks + 1 : 1;
  const missing = missingReviewers(next);
  if (blocks > MAX_IDLE_BLOCKS) {
    const what = next.currentPhase === 'R1' ? `; missing: ${missing.join(', ')}` : '';
    next = { ...next, stopGuard: { key, blocks: next.stopGuard.blocks } };
    return { state: next, effects: [{ type: 'notify', text: msg.notify.paused(next, what) }] };
  }
  next = { ...next, stopGuard: { key, blocks }, updatedAt: event.now };
  const what = next.currentPhase === 'R1' ? `dispatching ${missing.length === REVIEWERS.length ? 'all five reviewers' : missing.join(', ')}` : 'dispatching the fixer';
  return {
    state: next,
    effects: [
      { type: 'block', reason: phasePrompt(next, event.changedFiles) },
      { type: 'notify', text: msg.notify.reinject(next, what) },
    ],
  };
}

// ── Helpers ─────────────────────────────────────────────────────────────────────

export function phasePrompt(state: State, changedFiles: readonly string[]): string {
  const current = currentIteration(state);
  if (state.currentPhase === 'R2' && current.verdict) return msg.r2Prompt(state, current.verdict);
  return msg.r1Prompt(state, changedFiles, missingReviewers(state));
}

export function missingReviewers(state: State): Reviewer[] {
  const runs = currentIteration(state).r1.reviewers;
  return REVIEWERS.filter((r) => runs[r].status === 'pending' || runs[r].status === 'running');
}

export const isActive = (state: State): boolean => state.status === 'in_progress' && (state.currentPhase === 'R1' || state.currentPhase === 'R2');
const isStale = (state: State, now: string): boolean => Date.parse(now) - Date.parse(state.updatedAt) > STALE_AFTER_MS;
const minutesSince = (then: string, now: string): number => Math.max(0, Math.round((Date.parse(now) - Date.parse(then)) / 60000));

export const currentIteration = (state: State): IterationRecord => state.iterations[state.iterations.length - 1]!;

function updateIteration(state: State, now: string, update: (it: IterationRecord) => IterationRecord): State {
  const iterations = state.iterations.slice();
  iterations[iterations.length - 1] = update(iterations[iterations.length - 1]!);
  return { ...state, iterations, updatedAt: now };
}

function setReviewer(state: State, now: string, reviewer: Reviewer, run: ReviewerRun): State {
  return updateIteration(state, now, (it) => ({ ...it, r1: { ...it.r1, reviewers: { ...it.r1.reviewers, [reviewer]: run } } }));
}

/** What has happened so far; an idle orchestrator leaves it unchanged between two stops. */
function progressKey(state: State): string {
  const it = currentIteration(state);
  const reviewers = REVIEWERS.map((r) => `${it.r1.reviewers[r].status[0]}${it.r1.reviewers[r].dispatches}`).join('');
  return `${state.currentPhase}:${state.iteration}:${reviewers}:${it.r2.status[0]}${it.r2.dispatches}`;
}

const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;
