/** PreToolUse on Agent|Task: which agent may be dispatched in this phase. */
import { isPluginAgent } from '../core/agents';
import { isActive, stateOf } from '../core/loop-state';
import { PreToolUsePayload } from '../shell/payloads';
import { runHook } from '../shell/run-hook';

await runHook({
  name: 'on-task-gate',
  event: 'PreToolUse',
  payload: PreToolUsePayload,
  handle(payload, ctx) {
    const subagentType = payload.tool_input.subagent_type;
    if (typeof subagentType !== 'string' || !isPluginAgent(subagentType)) return [];
    const state = stateOf(ctx.load());
    if (!state || state.sessionId !== payload.session_id || !isActive(state)) return [];
    return ctx.transact(() => ({ kind: 'dispatch', sessionId: payload.session_id, now: ctx.now, subagentType }));
  },
});
