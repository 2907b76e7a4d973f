/** PreToolUse on Bash: the loop's agents never change git history, and reviewers never write files. */
import { bashGate } from '../core/gates';
import { PreToolUsePayload } from '../shell/payloads';
import { runHook } from '../shell/run-hook';

await runHook({
  name: 'on-bash-gate',
  event: 'PreToolUse',
  payload: PreToolUsePayload,
  handle(payload, ctx) {
    const command = payload.tool_input.command;
    if (typeof command !== 'string' || !payload.agent_type) return [];
    const loaded = ctx.load();
    const decision = bashGate(loaded.kind === 'ok' ? loaded.state : null, payload.session_id, payload.agent_type, command);
    return decision.allow ? [] : [{ type: 'deny', reason: decision.reason }];
  },
});
