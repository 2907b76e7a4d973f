/** PreToolUse on Bash: during the loop, nobody in the owning session changes git history; reviewers and the orchestrator write no files. */
import { bashGate } from '../core/gates';
import { PreToolUsePayload } from '../shell/payloads';
import { runHook } from '../shell/run-hook';
import { stateOf } from '../core/loop-state';

await runHook({
  name: 'on-bash-gate',
  event: 'PreToolUse',
  payload: PreToolUsePayload,
  handle(payload, ctx) {
    const command = payload.tool_input.command;
    if (typeof command !== 'string') return [];
    const loaded = ctx.load();
    const decision = bashGate(stateOf(loaded), payload.session_id, payload.agent_type ?? null, command);
    return decision.allow ? [] : [{ type: 'deny', reason: decision.reason }];
  },
});
