/** SubagentStop: validates a reviewer's output or the fixer's summary, aggregates, advances the phase. */
import { isFixer, reviewerOf } from '../core/agents';
import { isActive, stateOf } from '../core/loop-state';
import { fixerObservations, readVerdict } from '../shell/observe';
import { reviewerStopObservation } from '../shell/observe-round';
import { fixEndObservation } from '../shell/observe-tree';
import { SubagentStopPayload } from '../shell/payloads';
import { runHook } from '../shell/run-hook';
import { readChecks } from '../shell/observe-checks';
import { PHASES_DIR } from '../state/paths';
import { readAgentCost } from '../shell/transcript';

await runHook({
  name: 'on-subagent-stop',
  event: 'SubagentStop',
  payload: SubagentStopPayload,
  handle(payload, ctx) {
    const reviewer = reviewerOf(payload.agent_type);
    const fixer = isFixer(payload.agent_type);
    if (!reviewer && !fixer) return [];
    const state = stateOf(ctx.load());
    if (!state || state.sessionId !== payload.session_id || !isActive(state)) return [];
    const sessionId = payload.session_id;
    // What the agent cost so far, from the transcript the host wrote for it.
    const cost = readAgentCost(payload);
    return ctx.transact((l) => {
      const current = stateOf(l);
      if (!current) return null;
      if (fixer) {
        const checks = readChecks(ctx.root, `${PHASES_DIR}/`, current.iteration);
        return { kind: 'fixer-stop', sessionId, now: ctx.now, ...fixerObservations(ctx.root, current.iteration), ...fixEndObservation(ctx.root, current), verdict: readVerdict(ctx.root, current.iteration), cost, checks };
      }
      return { kind: 'reviewer-stop', sessionId, now: ctx.now, reviewer: reviewer!, ...reviewerStopObservation(ctx.root, current, reviewer!, payload.last_assistant_message ?? null), cost };
    });
  },
});
