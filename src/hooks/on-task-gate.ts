/** PreToolUse on Agent|Task: which agent may be dispatched in this phase (only the phase's minions agents while the loop runs). */
import { gatesSession } from '../core/gates';
import { stateOf } from '../core/loop-state';
import { PreToolUsePayload } from '../shell/payloads';
import { HookFailure } from '../shell/errors';
import { runHook } from '../shell/run-hook';
import * as refusals from '../core/refusals';
import { transact } from '../shell/transact';

void runHook({
  name: 'on-task-gate',
  event: 'PreToolUse',
  payload: PreToolUsePayload,
  transact,
  handle(payload, ctx) {
    const raw = payload.tool_input.subagent_type;
    const subagentType = typeof raw === 'string' && raw.trim() !== '' ? raw : null;
    const model = typeof payload.tool_input.model === 'string' ? payload.tool_input.model : null;
    const loaded = ctx.load();
    if (!gatesSession(stateOf(loaded), payload.session_id)) return [];
    // A dispatch is recorded under the loop's lock; one that cannot be is refused, not let through
    // unchecked (a held or forged lock must not open the gate to any agent).
    return ctx.transact(() => ({ kind: 'dispatch', sessionId: payload.session_id, now: ctx.now, subagentType, fromAgent: payload.agent_type || payload.agent_id || null, model })).catch((err: unknown) => {
      if (err instanceof HookFailure && err.code === 'lock-timeout') return [{ type: 'deny' as const, reason: refusals.deny.lockBusy() }];
      throw err;
    });
  },
});
