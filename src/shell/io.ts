/**
 * stdin and stdout for a hook process. They are read and written with plain fs calls on fds 0 and 1:
 * creating process.stdin / process.stdout (streams over libuv pipes) costs a hook a few percent of a
 * node start. A non-blocking descriptor (EAGAIN) falls back to the streams.
 */
import fs from 'node:fs';
import type { Effect } from '../core/events';

/** Payloads over this size are refused as malformed rather than parsed. */
export const MAX_PAYLOAD_BYTES = 8 * 1024 * 1024;

/** Whether a stream over stdin, stdout or stderr was used: a write to one may still be under way when the hook is done. */
let streamsUsed = false;

/** Whether the hook used none of the stdio streams, only fs calls on the descriptors: runHook then exits as soon as it has answered. */
export const stdioStreamsUnused = (): boolean => !streamsUsed;

const tooLarge = (limit: number): Error => new Error(`the payload is larger than ${limit} bytes`);
const isEagain = (err: unknown): boolean => (err as NodeJS.ErrnoException).code === 'EAGAIN';

/** Reads the payload; a terminal on stdin (a hook run by hand) gives ''. */
export async function readStdin(limit = MAX_PAYLOAD_BYTES): Promise<string> {
  // fstat rather than tty.isatty: loading node:tty loads node:net, a few percent of a node start.
  if (fs.fstatSync(0).isCharacterDevice()) return '';
  const chunks: Buffer[] = [];
  let size = 0;
  const add = (chunk: Buffer): void => {
    size += chunk.length;
    if (size > limit) throw tooLarge(limit);
    chunks.push(chunk);
  };
  const buffer = Buffer.allocUnsafe(64 * 1024);
  for (;;) {
    let n: number;
    try {
      n = fs.readSync(0, buffer, 0, buffer.length, null);
    } catch (err) {
      if (!isEagain(err)) throw err;
      streamsUsed = true;
      for await (const chunk of process.stdin) add(chunk as Buffer);
      break;
    }
    if (n === 0) break;
    add(Buffer.from(buffer.subarray(0, n)));
  }
  return Buffer.concat(chunks).toString('utf8');
}

export type HookEventName = 'UserPromptSubmit' | 'PreToolUse' | 'SubagentStop' | 'Stop';

/** The one place that maps effects to each event's output shape. Returns null for "say nothing". */
export function renderOutput(event: HookEventName, effects: readonly Effect[]): Record<string, unknown> | null {
  const out: Record<string, unknown> = {};
  const notes = effects.flatMap((e) => (e.type === 'notify' ? [e.text] : []));
  if (notes.length) out.systemMessage = notes.join('\n');
  const first = <T extends Effect['type']>(type: T) => effects.find((e): e is Extract<Effect, { type: T }> => e.type === type);

  if (event === 'UserPromptSubmit') {
    const refused = first('refuse');
    if (refused) {
      out.decision = 'block';
      out.reason = refused.reason;
    } else {
      const context = effects.flatMap((e) => (e.type === 'context' ? [e.text] : []));
      if (context.length) out.hookSpecificOutput = { hookEventName: 'UserPromptSubmit', additionalContext: context.join('\n\n') };
    }
  } else if (event === 'PreToolUse') {
    // A deny wins over an allow; no answer leaves the call to the user's permission mode.
    const decided = first('deny') ?? first('allow');
    if (decided) out.hookSpecificOutput = { hookEventName: 'PreToolUse', permissionDecision: decided.type, permissionDecisionReason: decided.reason };
  } else {
    const blocked = first('block');
    if (blocked && event === 'SubagentStop') {
      // The subagent's output is wrong: a real block, and the agent carries on with the reason.
      out.decision = 'block';
      out.reason = blocked.reason;
    } else if (blocked) {
      // The orchestrator is given its next step: additionalContext continues the turn like a block
      // (same host cap) without the host showing it to the user and the model as a hook error.
      out.hookSpecificOutput = { hookEventName: event, additionalContext: blocked.reason };
    }
  }
  return Object.keys(out).length ? out : null;
}

export function writeStdout(output: Record<string, unknown> | null): void {
  if (!output) return;
  const data = Buffer.from(`${JSON.stringify(output)}\n`);
  for (let written = 0; written < data.length; ) {
    try {
      written += fs.writeSync(1, data, written);
    } catch (err) {
      if (!isEagain(err)) throw err;
      streamsUsed = true;
      process.stdout.write(data.subarray(written));
      return;
    }
  }
}

export function reportError(hook: string, message: string, detail?: unknown): void {
  const oneLine = message.replace(/\s+/g, ' ').slice(0, 500);
  streamsUsed = true;
  process.stderr.write(`minions ${hook}: ${oneLine}${process.env.MINIONS_DEBUG ? '' : ' (set MINIONS_DEBUG=1 for details)'}\n`);
  if (process.env.MINIONS_DEBUG && detail instanceof Error && detail.stack) process.stderr.write(`${detail.stack}\n`);
}
