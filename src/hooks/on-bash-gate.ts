/** PreToolUse on Bash: during the loop, nobody in the owning session changes git history or the hooks' files; reviewers and the orchestrator write no project files. */
import path from 'node:path';
import { bashGate, gatesSession } from '../core/gates';
import * as refusals from '../core/refusals';
import { bashPlaces, linkPlaces, observeBash } from '../shell/bash-effects';
import { PreToolUsePayload } from '../shell/payloads';
import { runHook } from '../shell/run-hook';
import { stateOf } from '../core/loop-state';

void runHook({
  name: 'on-bash-gate',
  event: 'PreToolUse',
  payload: PreToolUsePayload,
  async handle(payload, ctx) {
    const command = payload.tool_input.command;
    if (typeof command !== 'string') return [];
    const loaded = ctx.load();
    const state = stateOf(loaded);
    // Another session's commands, or no loop running: nothing to decide, so nothing is parsed.
    if (!gatesSession(state, payload.session_id)) return [];
    let effects;
    try {
      effects = await observeBash(command, path.resolve(ctx.root, payload.cwd ?? ctx.root), linkPlaces(ctx.root));
    } catch (err) {
      // The loop runs and its gate cannot read the command: refused, not waved through.
      return [{ type: 'deny', reason: refusals.deny.gateUnavailable((err as Error)?.message ?? String(err)) }];
    }
    const decision = bashGate(state, payload.session_id, payload.agent_type ?? null, effects, bashPlaces(ctx.root));
    return decision.allow ? [] : [{ type: 'deny', reason: decision.reason }];
  },
});
