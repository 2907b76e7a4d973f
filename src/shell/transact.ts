/** The one locked read-decide-write of every hook that changes the state (and of the CLI's cancel). */
import { currentIteration, stateOf } from '../core/loop-state';
import { transition, type Effect, type Event, type Loaded, type Outcome } from '../core/transition';
import { HookFailure } from './errors';
import { reportError } from './io';
import { roundObservation } from './observe-round';
import { commit, loadFrom, openStore, withLock } from './store';

/**
 * One locked read-decide-write. Before the event itself: a tampered record of the event's own loop is
 * acted on (the loop stops), and an aggregation whose hook died is taken up again. After it: the round's
 * verdict, when the event recorded the fifth review. Each step is saved before the next begins.
 */
export async function transact(root: string, now: string, makeEvent: (loaded: Loaded) => Event | null, env: NodeJS.ProcessEnv = process.env, takeOver = false): Promise<Effect[]> {
  return withLock(
    root,
    async (held) => {
      const store = openStore(root, env);
      let loaded = loadFrom(store, true);
      const event = makeEvent(loaded);
      if (!event) return [];
      const effects: Effect[] = [];
      const step = async (next: Event) => {
        const outcome = await withReport(root, transition(loaded, next));
        // A /minions:cancel that waited out this hook took the lock over, and ended the loop: nothing of this hook's is saved over it.
        if (!held()) throw new HookFailure('lock-lost', "the loop's lock was taken over by /minions:cancel while this hook ran; its change was not saved");
        const onDisk = commit(store, loaded, outcome, now);
        effects.push(...outcome.effects);
        loaded = onDisk ? { kind: 'ok', state: onDisk } : { kind: 'none' };
      };
      const base = { sessionId: event.sessionId, now };
      const claimed = loaded.kind === 'tampered' ? loaded.claimedBy : null;
      const owned = event.kind !== 'command' && (stateOf(loaded)?.sessionId ?? claimed ?? event.sessionId) === event.sessionId;
      // Another session's loop, tampered with: left as it is (even its record) for its own session to act on.
      if (!owned && loaded.kind === 'tampered' && event.kind !== 'command') return effects;
      if (owned && loaded.kind === 'tampered') await step({ ...base, kind: 'tampered', problems: loaded.problems });
      if (owned && loaded.kind === 'ok' && currentIteration(loaded.state).r1.aggregation) await step({ ...base, kind: 'aggregation-died' });
      await step(event);
      // The step that recorded the fifth review left r1.aggregation set (and saved): compute the verdict.
      for (let i = 0; i < 2 && loaded.kind === 'ok' && loaded.state.currentPhase === 'R1' && currentIteration(loaded.state).r1.aggregation; i++) {
        await step({ ...base, sessionId: loaded.state.sessionId, kind: 'aggregate', ...roundObservation(store, loaded.state) });
      }
      return effects;
    },
    env,
    takeOver,
  );
}

/**
 * A 'write-report' effect becomes the write of REPORT.md, rendered from the state about to be saved and
 * the files the same outcome writes (the verdict of this very round). Its modules load only then. A
 * report that cannot be rendered costs the loop nothing: one line on stderr, and the rest goes ahead.
 */
async function withReport(root: string, outcome: Outcome): Promise<Outcome> {
  const request = outcome.effects.find((e) => e.type === 'write-report');
  if (!request) return outcome;
  const state = outcome.state;
  let report: Effect | null = null;
  let sarif: Effect | null = null;
  if (state) {
    const pending = new Map(outcome.effects.flatMap((e) => (e.type === 'write' ? [[e.path, e.content] as const] : [])));
    try {
      const { reportWrite, sarifExport } = await import('./run-files');
      report = reportWrite(root, state, pending, request.verdict);
      sarif = sarifExport(root, state, pending, request.verdict);
    } catch (err) {
      reportError('report', `could not write the loop's REPORT.md: ${(err as Error)?.message ?? String(err)}`, err);
    }
  }
  return { ...outcome, effects: [...outcome.effects.flatMap((e) => (e.type !== 'write-report' ? [e] : report ? [report] : [])), ...(sarif ? [sarif] : [])] };
}
