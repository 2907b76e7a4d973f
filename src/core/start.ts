/** Starting and cancelling a loop: /minions:review and /minions:cancel. */
import type { Effect, Event, Loaded, Outcome } from './events';
import { escapedJson, isActive, isStale, json, minutesSince, newIteration, stateOf, unchanged } from './loop-state';
import { startRound } from './round-start';
import { DEFAULT_RULES, type StopRules } from '../protocol/stop-rules';
import * as refusals from './refusals';
import * as progress from './progress';
import * as prompts from './prompts';
import { STATE_VERSION, type State } from '../state/schema';
import { BASELINE_DIR, baselineChecksFile, baselineLogFile, reviewDir, PHASES_DIR, RULES_DIR, rulesFile } from '../protocol/paths';
import { outcomeOf, type CheckRun } from '../protocol/check-runs';
import { checksReport } from '../checks/reports';
import type { Reviewer } from '../protocol/agents';
import { STANDARD_EFFORT, type EffortChoice } from '../protocol/effort';
import { rulesFor, type ProjectRules } from './project-rules';

export function onCommand(loaded: Loaded, event: Extract<Event, { kind: 'command' }>): Outcome {
  const { command } = event;
  if (command.kind === 'status') return unchanged(loaded);
  if (command.kind === 'cancel') return cancel(loaded, event.sessionId, command.force, event.now);

  const prev = stateOf(loaded);
  if (prev && !mayStart(loaded, event.sessionId, command.force, event.now)) {
    return unchanged(loaded, [{ type: 'refuse', reason: refusals.refuse.busy(prev, minutesSince(prev.updatedAt, event.now)) }]);
  }
  const baseline = event.baseline ?? [];
  const initial: State = {
    ...initialState(event.sessionId, command.task, command.maxIterations, event.head, event.now, command.rules, event.tree ?? null, command.effort ?? STANDARD_EFFORT),
    root: event.root ?? null,
    host: event.host ?? 'claude-code',
    checks: { commands: command.checks.commands, timeoutSeconds: command.checks.timeoutSeconds, baseline: baseline.map(outcomeOf) },
    layer0: { disabled: command.layer0.disabled },
    changedFiles: event.changedFiles,
    baseChoice: event.baseChoice ?? null,
    reviewOnly: command.scope?.reviewOnly ?? false,
    sarif: event.sarif ?? null,
    projectRules: event.projectRules?.file ?? null,
  };
  const { state, effects: round } = startRound(initial, event.patches, null);
  // Whatever was there (a finished run's phases, a replaced or broken state) goes to the archive first.
  const effects: Effect[] = [{ type: 'archive-previous', into: prev ? prev.runId : null }];
  if (baseline.length > 0) effects.push(...baselineEffects(baseline, event.now));
  // The record keeps the pins of this start (or none: a loop started outside git compares nothing).
  effects.push({ type: 'pin-repo', pins: event.pins ?? { gitDir: {}, checks: {} } });
  effects.push(
    { type: 'mkdir', path: reviewDir(1) },
    ...rulesEffects(event.projectRules ?? null, state.effort.reviewers),
    { type: 'write', path: `${PHASES_DIR}/run.json`, content: json({ runId: state.runId, task: state.task, startedAt: state.startedAt, maxIterations: state.maxIterations }) },
    ...round,
    { type: 'context', text: prompts.r1Prompt(state, state.changedFiles) },
    { type: 'notify', text: progress.notify.started(state, prev ? `.agents/tmp/archive/${prev.runId}/` : null) },
  );
  return { state, effects };
}

/** Each reviewer's copy of the project's review rules: what a fixer later does to the file reaches no reviewer. */
function rulesEffects(rules: ProjectRules | null, reviewers: readonly Reviewer[]): Effect[] {
  if (!rules) return [];
  const split = rulesFor(rules);
  return [{ type: 'mkdir', path: RULES_DIR }, ...reviewers.map((r): Effect => ({ type: 'write', path: rulesFile(r), content: split[r] }))];
}

/** False while another session's fresh loop runs here (unless forced): the shell runs no baseline then. */
export function mayStart(loaded: Loaded, sessionId: string, force: boolean, now: string): boolean {
  const prev = stateOf(loaded);
  return !(prev && isActive(prev) && prev.sessionId !== sessionId && !isStale(prev, now) && !force);
}

/** The baseline's report and each check's full output, under phases/baseline/. */
function baselineEffects(runs: readonly CheckRun[], now: string): Effect[] {
  const logs = runs.map((_, i) => baselineLogFile(i + 1));
  const report = checksReport({ kind: 'baseline', iteration: 0, attempt: 1, now, runs, baseline: null, regressed: [], logs, findings: [] });
  return [
    { type: 'mkdir', path: BASELINE_DIR },
    ...runs.map((run, i): Effect => ({ type: 'write', path: logs[i]!, content: run.output })),
    { type: 'write', path: baselineChecksFile, content: escapedJson(report) },
  ];
}

function cancel(loaded: Loaded, sessionId: string, force: boolean, now: string): Outcome {
  if (loaded.kind === 'none') return unchanged(loaded, [{ type: 'context', text: refusals.refuse.noLoop() }]);
  const prev = stateOf(loaded);
  if (!prev) return { state: null, effects: [{ type: 'archive-previous', into: null }, { type: 'notify', text: progress.notify.brokenArchived() }] };
  if (!isActive(prev)) return { state: prev, effects: [{ type: 'archive-run', into: prev.runId, phases: false }, { type: 'context', text: refusals.refuse.noLoop() }] };
  if (prev.sessionId !== sessionId && !force && !isStale(prev, now)) return unchanged(loaded, [{ type: 'refuse', reason: refusals.refuse.notOwner() }]);
  const state: State = { ...prev, status: 'cancelled', currentPhase: 'CANCELLED', stopReason: 'cancelled', updatedAt: now };
  const into = `.agents/tmp/archive/${state.runId}/`;
  const notes = loaded.kind === 'tampered' ? [{ type: 'notify' as const, text: progress.notify.cancelledTampered(loaded.problems) }] : [];
  // The report is written before the phases move, so it lands in the archive with them.
  return {
    state,
    effects: [{ type: 'write-report' }, { type: 'archive-run', into: state.runId, phases: true }, { type: 'notify', text: progress.notify.cancelled(prev, into) }, ...notes],
  };
}

export function initialState(
  sessionId: string,
  task: string,
  maxIterations: number,
  head: string | null,
  now: string,
  rules: StopRules = DEFAULT_RULES,
  tree: string | null = null,
  effort: EffortChoice = STANDARD_EFFORT,
): State {
  return {
    version: STATE_VERSION,
    plugin: 'minions',
    pipeline: 'review',
    runId: `${now.replace(/[-:]/g, '').replace(/\.\d+/, '')}-${sessionId.replace(/[^A-Za-z0-9]/g, '').slice(0, 8) || 'session'}`,
    status: 'in_progress',
    task,
    sessionId,
    host: 'claude-code',
    iteration: 1,
    maxIterations,
    currentPhase: 'R1',
    base: head,
    baseChoice: null,
    reviewOnly: false,
    sarif: null,
    projectRules: null,
    baseTree: tree,
    root: null,
    startedAt: now,
    updatedAt: now,
    stopReason: null,
    stopDetail: null,
    rules,
    checks: { commands: [], timeoutSeconds: 300, baseline: [] },
    effort,
    layer0: { disabled: [] },
    stopGuard: { key: '', blocks: 0 },
    changedFiles: [],
    openIssues: [],
    escalationChoice: null,
    iterations: [newIteration(1, now, tree, effort.reviewers)],
  };
}

