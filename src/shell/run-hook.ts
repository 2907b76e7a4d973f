/** The one hook runner: stdin → payload → (lock → load → transition → save → effects) → stdout. */
import type * as z from 'zod/mini';
import type { Effect, Event, Loaded } from '../core/transition';
import { describeZodError } from '../protocol/zod';
import { HookFailure } from './errors';
import { allowJitTuning } from './jit';
import { readStdin, renderOutput, reportError, writeStdout, type HookEventName } from './io';
import { projectRoot } from './project';
import { load } from './store';
import type { transact } from './transact';

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
  payload: z.ZodMiniType<P>;
  /**
   * shell/transact.ts's transact, for a hook that changes the state (ctx.transact). The read-only
   * gates leave it out, so their bundles hold neither the transition nor the prompts and the aggregation.
   */
  transact?: typeof transact;
  handle(payload: P, ctx: HookContext): Promise<Effect[]> | Effect[];
}

/**
 * Failure policy: the process always exits 0 with stdout empty or one JSON object. A hook that cannot
 * do its job (bad payload, lock timeout, internal error) steps aside: the action proceeds and one line
 * on stderr says why. A broken state file never blocks a stop. The promise never rejects.
 */
export async function runHook<P>(spec: HookSpec<P>): Promise<void> {
  // Whatever escapes (a callback's throw, a rejected promise) is still one line, never a stack of minified source.
  const escape = (err: unknown) => {
    reportError(spec.name, `internal error, the action proceeds unchecked: ${(err as Error)?.message ?? String(err)}`, err);
    process.exit(0);
  };
  process.on('uncaughtException', escape);
  process.on('unhandledRejection', escape);
  allowJitTuning();
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
      transact: (makeEvent) => {
        if (!spec.transact) throw new HookFailure('internal', `${spec.name} does not change the state`);
        return spec.transact(root, now, makeEvent);
      },
    };
    writeStdout(renderOutput(spec.event, await spec.handle(payload, ctx)));
  } catch (err) {
    const message = err instanceof HookFailure ? err.message : `internal error, the action proceeds unchecked: ${(err as Error)?.message ?? String(err)}`;
    reportError(spec.name, message, err);
  }
  process.exitCode = 0;
}
