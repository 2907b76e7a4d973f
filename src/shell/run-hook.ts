/** The one hook runner: stdin → payload → (lock → load → transition → save → effects) → stdout. */
import type * as z from 'zod/mini';
import type { Effect, Event, Loaded } from '../core/transition';
import { isActive, stateOf } from '../core/loop-state';
import * as refusals from '../core/refusals';
import type { Host } from '../protocol/hosts';
import type { State } from '../state/schema';
import { describeZodError } from '../protocol/zod';
import { HookFailure } from './errors';
import { WriteRefused } from './files';
import { allowJitTuning } from './jit';
import { detectHost, normalisePayload, renderForHost } from './hosts';
import { readStdin, renderOutput, reportError, stdioStreamsUnused, writeStdout, type HookEventName } from './io';
import { projectRoot } from './project';
import { load } from './store';
import type { transact } from './transact';

export interface HookContext {
  root: string;
  now: string;
  /** The agent host that ran the hook (shell/hosts.ts). */
  host: Host;
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
  let host: Host = 'claude-code';
  let prompt = '';
  try {
    const raw = await readStdin();
    let data: unknown;
    try {
      data = JSON.parse(raw);
    } catch {
      throw new HookFailure('bad-payload', `ignored a ${spec.event} payload that is not JSON (${raw.length} bytes)`);
    }
    host = detectHost(process.env, data);
    if (spec.event === 'UserPromptSubmit') prompt = String((data as { prompt?: unknown } | null)?.prompt ?? '');
    const normalised = normalisePayload(spec.event, data, host);
    if (normalised.kind === 'ignore') return;
    const parsed = spec.payload.safeParse(normalised.data);
    if (!parsed.success) throw new HookFailure('bad-payload', `ignored a malformed ${spec.event} payload: ${describeZodError(parsed.error)}`);
    const payload = parsed.data;
    const root = projectRoot((payload as { cwd?: string }).cwd);
    const now = new Date().toISOString();
    const ctx: HookContext = {
      root,
      now,
      host,
      load: () => load(root),
      transact: (makeEvent) => {
        if (!spec.transact) throw new HookFailure('internal', `${spec.name} does not change the state`);
        return hostTransact(spec.transact, root, now, host, makeEvent);
      },
    };
    let effects = await spec.handle(payload, ctx);
    if (spec.event === 'UserPromptSubmit') effects = withOtherHostNote(effects, ctx.load(), host);
    writeStdout(renderForHost(host, spec.event, renderOutput(spec.event, effects)));
  } catch (err) {
    if (err instanceof WriteRefused && /^\s*\/minions:/.test(prompt)) {
      // A command that would start or steer a loop through a link out of the project: refused, saying what
      // to do. Any other prompt goes on (the user is never kept from their session), with the line on stderr.
      writeStdout(renderForHost(host, spec.event, renderOutput(spec.event, [{ type: 'refuse', reason: `minions: ${err.message}` }])));
    } else {
      const message = err instanceof HookFailure || err instanceof WriteRefused ? err.message : `internal error, the action proceeds unchecked: ${(err as Error)?.message ?? String(err)}`;
      reportError(spec.name, message, err);
    }
  }
  process.exitCode = 0;
  // The answer is written. When nothing is left for the event loop (no timer, child process or stream
  // write), the hook exits now: node would first run what V8 scheduled meanwhile, a scavenge of the young
  // heap after most hooks that change the state (about 1 ms of CPU, of nothing the hook needs).
  if (stdioStreamsUnused() && process.getActiveResourcesInfo().length === 0) process.exit(0);
}

/** A running loop that another host's session started: this host's hooks neither advance nor gate it. */
function otherHostLoop(loaded: Loaded, host: Host): State | null {
  const state = stateOf(loaded);
  return state && isActive(state) && state.host !== host ? state : null;
}

/**
 * The locked transaction, held to the loop's host: an event of another host's session is dropped under
 * the lock (only a forced /minions:review takes the loop over, archiving it), and a command so dropped
 * is refused with the reason.
 */
async function hostTransact(run: typeof transact, root: string, now: string, host: Host, makeEvent: (loaded: Loaded) => Event | null): Promise<Effect[]> {
  let foreign: State | null = null;
  let command = false;
  const effects = await run(root, now, (loaded) => {
    const event = makeEvent(loaded);
    const other = event ? otherHostLoop(loaded, host) : null;
    if (!event || !other || (event.kind === 'command' && event.command.kind === 'review' && event.command.force)) return event;
    foreign = other;
    command = event.kind === 'command';
    return null;
  });
  if (!foreign) return effects;
  const state: State = foreign;
  return command ? [{ type: 'refuse', reason: refusals.refuse.otherHost(state, state.host, host) }] : [];
}

/** A prompt in a project whose running loop another host started gets a line saying so (unless it was refused already). */
function withOtherHostNote(effects: Effect[], loaded: Loaded, host: Host): Effect[] {
  const other = otherHostLoop(loaded, host);
  if (!other || effects.some((e) => e.type === 'refuse' || e.type === 'notify')) return effects;
  return [...effects, { type: 'notify', text: refusals.refuse.otherHost(other, other.host, host) }];
}
