/** PreToolUse on Agent|Task: which agent may be dispatched in this phase (only the phase's minions agents while the loop runs). */
import { gatesSession } from '../core/gates';
import { stateOf } from '../core/loop-state';
import { PreToolUsePayload } from '../shell/payloads';
import { runHook } from '../shell/run-hook';
import { transact } from '../shell/transact';

void runHook({
  name: 'on-task-gate',
  event: 'PreToolUse',
  payload: PreToolUsePayload,
  transact,
  handle(payload, ctx) {
    const raw = payload.tool_input.subagent_type;
    const subagentType = typeof raw === 'string' && raw.trim() !== '' ? raw : null;
    const loaded = ctx.load();
    if (!gatesSession(stateOf(loaded), payload.session_id)) return [];
    return ctx.transact(() => ({ kind: 'dispatch', sessionId: payload.session_id, now: ctx.now, subagentType }));
  },
});
