/** The one hook runner: stdin → payload → (lock → load → transition → save → effects) → stdout. */
import type { z } from 'zod';
import { currentIteration, stateOf } from '../core/loop-state';
import { transition, type Effect, type Event, type Loaded, type Outcome } from '../core/transition';
import { describeZodError } from '../review/reviewer-output';
import { HookFailure } from './errors';
import { readStdin, renderOutput, reportError, writeStdout, type HookEventName } from './io';
import { roundObservation } from './observe-round';
import { projectRoot } from './project';
import { commit, load, loadFrom, openStore, withLock } from './store';

export interface HookContext {
  root: string;
  now: string;
  /** An unlocked read, for deciding quickly that there is nothing to do. */
  load(): Loaded;
  /** One locked read-decide-write; returns the answers (block, deny, context, notify, refuse). */
  transact(makeEvent: (loaded: Loaded) => Event | null): Promise<Effect[]>;
}

export interface HookSpec<P> {
  name: string;
  event: HookEventName;
  payload: z.ZodType<P>;
  handle(payload: P, ctx: HookContext): Promise<Effect[]> | Effect[];
}

/**
 * Failure policy: the process always exits 0 with stdout empty or one JSON object. A hook that cannot
 * do its job (bad payload, lock timeout, internal error) steps aside: the action proceeds and one line
 * on stderr says why. A broken state file never blocks a stop.
 */
export async function runHook<P>(spec: HookSpec<P>): Promise<void> {
  // Whatever escapes (a callback's throw, a rejected promise) is still one line, never a stack of minified source.
  const escape = (err: unknown) => {
    reportError(spec.name, `internal error, the action proceeds unchecked: ${(err as Error)?.message ?? String(err)}`, err);
    process.exit(0);
  };
  process.on('uncaughtException', escape);
  process.on('unhandledRejection', escape);
  try {
    const raw = await readStdin();
    let data: unknown;
    try {
      data = JSON.parse(raw);
    } catch {
      throw new HookFailure('bad-payload', `ignored a ${spec.event} payload that is not JSON (${raw.length} bytes)`);
    }
    const parsed = spec.payload.safeParse(data);
    if (!parsed.success) throw new HookFailure('bad-payload', `ignored a malformed ${spec.event} payload: ${describeZodError(parsed.error)}`);
    const payload = parsed.data;
    const root = projectRoot((payload as { cwd?: string }).cwd);
    const now = new Date().toISOString();
    const ctx: HookContext = {
      root,
      now,
      load: () => load(root),
      transact: (makeEvent) => transact(root, now, makeEvent),
    };
    writeStdout(renderOutput(spec.event, await spec.handle(payload, ctx)));
  } catch (err) {
    const message = err instanceof HookFailure ? err.message : `internal error, the action proceeds unchecked: ${(err as Error)?.message ?? String(err)}`;
    reportError(spec.name, message, err);
  }
  process.exitCode = 0;
}

/**
 * One locked read-decide-write. Before the event itself: a tampered record of the event's own loop is
 * acted on (the loop stops), and an aggregation whose hook died is taken up again. After it: the round's
 * verdict, when the event recorded the fifth review. Each step is saved before the next begins.
 */
export async function transact(root: string, now: string, makeEvent: (loaded: Loaded) => Event | null, env: NodeJS.ProcessEnv = process.env): Promise<Effect[]> {
  return withLock(
    root,
    async () => {
      const store = openStore(root, env);
      let loaded = loadFrom(store, true);
      const event = makeEvent(loaded);
      if (!event) return [];
      const effects: Effect[] = [];
      const step = async (next: Event) => {
        const outcome = await withReport(root, transition(loaded, next));
        const onDisk = commit(store, loaded, outcome, now);
        effects.push(...outcome.effects);
        loaded = onDisk ? { kind: 'ok', state: onDisk } : { kind: 'none' };
      };
      const base = { sessionId: event.sessionId, now };
      const owned = event.kind !== 'command' && (stateOf(loaded)?.sessionId ?? event.sessionId) === event.sessionId;
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
  );
}

/**
 * A 'write-report' effect becomes the write of REPORT.md, rendered from the state about to be saved and
 * the files the same outcome writes (the verdict of this very round). Its modules load only then. A
 * report that cannot be rendered costs the loop nothing: one line on stderr, and the rest goes ahead.
 */
async function withReport(root: string, outcome: Outcome): Promise<Outcome> {
  if (!outcome.effects.some((e) => e.type === 'write-report')) return outcome;
  const state = outcome.state;
  let report: Effect | null = null;
  if (state) {
    try {
      const { reportWrite } = await import('./run-files');
      report = reportWrite(root, state, new Map(outcome.effects.flatMap((e) => (e.type === 'write' ? [[e.path, e.content] as const] : []))));
    } catch (err) {
      reportError('report', `could not write the loop's REPORT.md: ${(err as Error)?.message ?? String(err)}`, err);
    }
  }
  return { ...outcome, effects: outcome.effects.flatMap((e) => (e.type !== 'write-report' ? [e] : report ? [report] : [])) };
}
