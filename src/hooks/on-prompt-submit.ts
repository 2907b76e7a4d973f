/** UserPromptSubmit: starts the loop in code, and reminds an owning session where it stands. */
import { parseCommand } from '../core/args';
import { isActive, stateOf } from '../core/loop-state';
import * as msg from '../messages';
import { changedFiles, head } from '../shell/git';
import { roundPatches } from '../shell/observe-tree';
import { snapshotTree } from '../shell/snapshot';
import { UserPromptSubmitPayload } from '../shell/payloads';
import { runHook } from '../shell/run-hook';

await runHook({
  name: 'on-prompt-submit',
  event: 'UserPromptSubmit',
  payload: UserPromptSubmitPayload,
  handle(payload, ctx) {
    // A background agent's completion wakes the session with a <task-notification> prompt: not the user's.
    if (payload.prompt.trimStart().startsWith('<task-notification>')) return [];
    const parsed = parseCommand(payload.prompt);
    if (!parsed.ok) return [{ type: 'refuse', reason: msg.refuse.badArgs(parsed.error) }];
    const sessionId = payload.session_id;
    const command = parsed.command;
    if (command === null) {
      const loaded = ctx.load();
      const state = stateOf(loaded);
      const foreign = loaded.kind === 'tampered' && !state;
      if (!foreign && (!state || state.sessionId !== sessionId || !isActive(state))) return [];
      return ctx.transact((l) => ({ kind: 'prompt', sessionId, now: ctx.now, changedFiles: l.kind === 'ok' ? changedFiles(ctx.root, l.state.base) : [] }));
    }
    // /minions:status and /minions:cancel run dist/cli.mjs from their command files.
    if (command.kind !== 'review') return [];
    return ctx.transact(() => {
      const base = head(ctx.root);
      const tree = snapshotTree(ctx.root);
      return { kind: 'command', command, sessionId, now: ctx.now, head: base, changedFiles: changedFiles(ctx.root, base), root: ctx.root, tree, patches: roundPatches(ctx.root, base, tree) };
    });
  },
});
