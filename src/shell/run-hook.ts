/** The one hook runner: stdin → payload → (lock → load → transition → save → effects) → stdout. */
import type { z } from 'zod';
import { transition, type Effect, type Event, type Loaded } from '../core/transition';
import { describeZodError } from '../review/reviewer-output';
import { HookFailure } from './errors';
import { readStdin, renderOutput, reportError, writeStdout, type HookEventName } from './io';
import { projectRoot } from './project';
import { applyFileEffect, isPreSave, load, save, withLock } from './store';

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

/** One locked read-decide-write: load, transition, file effects, save, archive. Returns all the effects. */
export async function transact(root: string, now: string, makeEvent: (loaded: Loaded) => Event | null): Promise<Effect[]> {
  return withLock(root, async () => {
    const loaded = load(root);
    const event = makeEvent(loaded);
    if (!event) return [];
    const { state, effects } = transition(loaded, event);
    for (const effect of effects) if (isPreSave(effect)) await applyFileEffect(root, effect, now);
    if (state && state !== (loaded.kind === 'ok' ? loaded.state : null)) await save(root, state);
    for (const effect of effects) if (!isPreSave(effect)) await applyFileEffect(root, effect, now);
    return effects;
  });
}
