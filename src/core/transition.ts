/**
 * The review loop's state machine: transition(loaded, event) → {state, effects}. Pure: the shell
 * observes files and git, passes what it saw in the event, then saves and runs the effects.
 */
import { FIXER_TYPE, REVIEWERS, isFixer, isPluginAgent, reviewerOf, type Reviewer } from './agents';
import type { Command } from './args';
import { aggregate, type Verdict } from './verdict';
import { extractJsonFromMessage, parseReview } from '../review/reviewer-output';
import * as msg from '../messages';
import { STATE_VERSION, type IterationRecord, type ReviewerRun, type State } from '../state/schema';
import { fixSummaryFile, reviewDir, reviewerFile, verdictFile, PHASES_DIR } from '../state/paths';

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
  | (Base & { kind: 'command'; command: Command; head: string | null; changedFiles: string[] })
  | (Base & { kind: 'prompt'; changedFiles: string[] })
  | (Base & { kind: 'dispatch'; subagentType: string })
  | (Base & { kind: 'reviewer-stop'; reviewer: Reviewer; files: Record<Reviewer, string | null>; message: string | null })
  | (Base & { kind: 'fixer-stop'; summary: string | null })
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
  if (prev && isLive(prev) && prev.sessionId !== event.sessionId && !isStale(prev, event.now) && !command.force) {
    return unchanged(loaded, [{ type: 'refuse', reason: msg.refuse.busy(prev, minutesSince(prev.updatedAt, event.now)) }]);
  }
  const state = initialState(event.sessionId, command.task, command.maxIterations, event.head, event.now);
  const hadPrevious = loaded.kind !== 'none';
  const into = prev ? prev.runId : null;
  const effects: Effect[] = [];
  if (hadPrevious) effects.push({ type: 'archive-previous', into });
  else effects.push({ type: 'archive-previous', into: null });
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
  if (loaded.kind === 'broken') return { state: null, effects: [{ type: 'archive-previous', into: null }, { type: 'notify', text: 'minions: the unreadable loop state was archived; nothing is gated now.' }] };
  const prev = loaded.state;
  if (!isLive(prev)) return { state: prev, effects: [{ type: 'archive-run', into: prev.runId, phases: false }, { type: 'context', text: msg.refuse.noLoop() }] };
  if (prev.sessionId !== sessionId && !force && !isStale(prev, now)) return unchanged(loaded, [{ type: 'refuse', reason: msg.refuse.notOwner() }]);
  const state: State = { ...prev, status: 'cancelled', currentPhase: 'CANCELLED', stopReason: 'cancelled', updatedAt: now };
  const into = `.agents/tmp/archive/${state.runId}/`;
  return { state, effects: [{ type: 'archive-run', into: state.runId, phases: true }, { type: 'notify', text: msg.notify.cancelled(prev, into) }] };
}

export function initialState(sessionId: string, task: string, maxIterations: number, head: string | null, now: string): State {
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
    startedAt: now,
    updatedAt: now,
    stopReason: null,
    stopGuard: { key: '', blocks: 0 },
    openIssues: [],
    iterations: [newIteration(1, now)],
  };
}

function newIteration(iteration: number, now: string): IterationRecord {
  const run = (): ReviewerRun => ({ status: 'pending', dispatches: 0, failures: 0, error: null, counts: null });
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
  if (run.status === 'valid' || run.status === 'invalid') return { state, effects: [] }; // late or repeated: already recorded

  const path = reviewerFile(state.iteration, reviewer);
  const fileText = event.files[reviewer];
  const fromFile = fileText === null ? null : parseReview(fileText);
  const messageJson = fromFile?.ok ? null : extractJsonFromMessage(event.message);
  const fromMessage = messageJson === null ? null : parseReview(messageJson);

  const effects: Effect[] = [];
  const texts = { ...event.files };
  let recorded: ReviewerRun;
  let source = '';
  if (fromFile?.ok) {
    recorded = { ...run, status: 'valid', error: null, counts: fromFile.counts };
  } else if (fromMessage?.ok && messageJson !== null) {
    const pretty = json(JSON.parse(messageJson));
    effects.push({ type: 'write', path, content: pretty });
    texts[reviewer] = pretty;
    recorded = { ...run, status: 'valid', error: null, counts: fromMessage.counts };
    source = ', taken from its final message';
  } else {
    const error = fromFile && !fromFile.ok ? fromFile.error : fromMessage && !fromMessage.ok ? fromMessage.error : null;
    const failures = run.failures + 1;
    if (failures < MAX_OUTPUT_FAILURES) {
      const next = setReviewer(state, event.now, reviewer, { ...run, failures, error: error ?? 'no output' });
      return { state: next, effects: [{ type: 'block', reason: error ? msg.reviewerInvalid(path, error) : msg.reviewerMissing(path) }] };
    }
    recorded = { ...run, status: 'invalid', failures, error: error ?? 'no output', counts: null };
    texts[reviewer] = null;
  }

  let next = setReviewer(state, event.now, reviewer, recorded);
  const runs = currentIteration(next).r1.reviewers;
  const done = REVIEWERS.filter((r) => runs[r].status === 'valid' || runs[r].status === 'invalid');
  effects.push({ type: 'notify', text: msg.notify.reviewerDone(next, reviewer, recorded.counts, done.length, source) });
  if (done.length < REVIEWERS.length) return { state: next, effects };

  // The fifth review is in: this hook, and only this one (under the lock), aggregates.
  for (const r of REVIEWERS) if (runs[r].status === 'invalid') texts[r] = null;
  const errors = Object.fromEntries(REVIEWERS.filter((r) => runs[r].error).map((r) => [r, runs[r].error!]));
  const base = aggregate(texts, errors, { iteration: next.iteration, maxIterations: next.maxIterations, task: next.task, now: event.now });
  const verdictNext: Verdict['next'] =
    base.overall_verdict === 'clean' ? 'DONE' : next.iteration >= next.maxIterations ? 'STOPPED' : base.total_issues > 0 ? 'R2' : 'R1';
  const verdict: Verdict = { ...base, next: verdictNext };
  effects.push({ type: 'write', path: verdictFile(next.iteration), content: json(verdict) });

  const summary = { overall: verdict.overall_verdict, total: verdict.total_issues, critical: verdict.critical, warning: verdict.warning, info: verdict.info };
  next = updateIteration(next, event.now, (it) => ({ ...it, r1: { ...it.r1, status: 'complete' }, verdict: summary }));
  next = { ...next, stopGuard: { key: '', blocks: 0 } };
  if (verdictNext === 'DONE') {
    next = { ...next, status: 'done', currentPhase: 'DONE' };
  } else if (verdictNext === 'STOPPED') {
    const openIssues = verdict.issues.slice(0, 20).map((i) => ({ severity: i.severity, file: i.file, line: i.line, description: i.description }));
    next = { ...next, status: 'stopped', currentPhase: 'STOPPED', stopReason: 'max_iterations', openIssues };
  } else if (verdictNext === 'R2') {
    next = { ...next, currentPhase: 'R2' };
  } else {
    // Issues counted (an invalid review) but nothing to fix: the next iteration re-reviews.
    next = advanceIteration(updateIteration(next, event.now, (it) => ({ ...it, r2: { ...it.r2, status: 'skipped' } })), event.now);
    effects.push({ type: 'mkdir', path: reviewDir(next.iteration) });
  }
  const nextLabel = { DONE: 'DONE', STOPPED: 'STOPPED (iteration budget spent)', R2: 'R2: fixing', R1: `R1: no findings to fix, re-reviewing (iteration ${next.iteration})` }[verdictNext];
  effects.push({ type: 'notify', text: msg.notify.verdict(state, verdict.total_issues, verdict, nextLabel) });
  return { state: next, effects };
}

// ── SubagentStop: the fixer ─────────────────────────────────────────────────────

function onFixerStop(state: State, event: Extract<Event, { kind: 'fixer-stop' }>): Outcome {
  if (state.currentPhase !== 'R2') return { state, effects: [] };
  const current = currentIteration(state);
  if (current.r2.status === 'complete' || current.r2.status === 'no_summary') return { state, effects: [] };
  const hasSummary = (event.summary ?? '').trim().length > 0;
  if (!hasSummary) {
    const failures = current.r2.failures + 1;
    if (failures < MAX_OUTPUT_FAILURES) {
      return {
        state: updateIteration(state, event.now, (it) => ({ ...it, r2: { ...it.r2, failures } })),
        effects: [{ type: 'block', reason: msg.fixerMissingSummary(fixSummaryFile(state.iteration)) }],
      };
    }
  }
  const prev = state.iteration;
  const finished = updateIteration(state, event.now, (it) => ({ ...it, r2: { ...it.r2, status: hasSummary ? 'complete' : 'no_summary' } }));
  const next = advanceIteration(finished, event.now);
  return {
    state: next,
    effects: [
      { type: 'mkdir', path: reviewDir(next.iteration) },
      { type: 'notify', text: hasSummary ? msg.notify.fixDone(prev, next, summaryTally(event.summary!)) : msg.notify.fixNoSummary(prev, next) },
    ],
  };
}

function summaryTally(summary: string): string {
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
const isLive = isActive;
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
