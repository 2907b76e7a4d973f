/** Starting and cancelling a loop: /minions:review and /minions:cancel. */
import type { Effect, Event, Loaded, Outcome } from './events';
import { isActive, isStale, json, minutesSince, newIteration, stateOf, unchanged } from './loop-state';
import { startRound } from './round-start';
import { DEFAULT_RULES, type StopRules } from '../review/aggregate';
import * as msg from '../messages';
import { STATE_VERSION, type State } from '../state/schema';
import { reviewDir, PHASES_DIR } from '../state/paths';

export function onCommand(loaded: Loaded, event: Extract<Event, { kind: 'command' }>): Outcome {
  const { command } = event;
  if (command.kind === 'status') return unchanged(loaded);
  if (command.kind === 'cancel') return cancel(loaded, event.sessionId, command.force, event.now);

  const prev = stateOf(loaded);
  if (prev && isActive(prev) && prev.sessionId !== event.sessionId && !isStale(prev, event.now) && !command.force) {
    return unchanged(loaded, [{ type: 'refuse', reason: msg.refuse.busy(prev, minutesSince(prev.updatedAt, event.now)) }]);
  }
  const initial = { ...initialState(event.sessionId, command.task, command.maxIterations, event.head, event.now, command.rules, event.tree ?? null), root: event.root ?? null };
  const { state, effects: round } = startRound(initial, event.patches, null);
  // Whatever was there (a finished run's phases, a replaced or broken state) goes to the archive first.
  const effects: Effect[] = [{ type: 'archive-previous', into: prev ? prev.runId : null }];
  effects.push(
    { type: 'mkdir', path: reviewDir(1) },
    { type: 'write', path: `${PHASES_DIR}/run.json`, content: json({ runId: state.runId, task: state.task, startedAt: state.startedAt, maxIterations: state.maxIterations }) },
    ...round,
    { type: 'context', text: msg.r1Prompt(state, event.changedFiles) },
    { type: 'notify', text: msg.notify.started(state, prev ? `.agents/tmp/archive/${prev.runId}/` : null) },
  );
  return { state, effects };
}

function cancel(loaded: Loaded, sessionId: string, force: boolean, now: string): Outcome {
  if (loaded.kind === 'none') return unchanged(loaded, [{ type: 'context', text: msg.refuse.noLoop() }]);
  const prev = stateOf(loaded);
  if (!prev) return { state: null, effects: [{ type: 'archive-previous', into: null }, { type: 'notify', text: msg.notify.brokenArchived() }] };
  if (!isActive(prev)) return { state: prev, effects: [{ type: 'archive-run', into: prev.runId, phases: false }, { type: 'context', text: msg.refuse.noLoop() }] };
  if (prev.sessionId !== sessionId && !force && !isStale(prev, now)) return unchanged(loaded, [{ type: 'refuse', reason: msg.refuse.notOwner() }]);
  const state: State = { ...prev, status: 'cancelled', currentPhase: 'CANCELLED', stopReason: 'cancelled', updatedAt: now };
  const into = `.agents/tmp/archive/${state.runId}/`;
  const notes = loaded.kind === 'tampered' ? [{ type: 'notify' as const, text: msg.notify.cancelledTampered(loaded.problems) }] : [];
  // The report is written before the phases move, so it lands in the archive with them.
  return {
    state,
    effects: [{ type: 'write-report' }, { type: 'archive-run', into: state.runId, phases: true }, { type: 'notify', text: msg.notify.cancelled(prev, into) }, ...notes],
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
): State {
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
    baseTree: tree,
    root: null,
    startedAt: now,
    updatedAt: now,
    stopReason: null,
    stopDetail: null,
    rules,
    stopGuard: { key: '', blocks: 0 },
    openIssues: [],
    iterations: [newIteration(1, now, tree)],
  };
}

