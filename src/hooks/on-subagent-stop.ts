/** SubagentStop: validates a reviewer's output or the fixer's summary, aggregates, advances the phase. */
import { isFixer, reviewerOf } from '../core/agents';
import { isActive, stateOf } from '../core/loop-state';
import { fixerObservations, readVerdict } from '../shell/observe';
import { reviewerStopObservation } from '../shell/observe-round';
import { fixEndObservation } from '../shell/observe-tree';
import { SubagentStopPayload } from '../shell/payloads';
import { runHook } from '../shell/run-hook';

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
    return ctx.transact((l) => {
      const current = stateOf(l);
      if (!current) return null;
      if (fixer) return { kind: 'fixer-stop', sessionId, now: ctx.now, ...fixerObservations(ctx.root, current.iteration), ...fixEndObservation(ctx.root, current), verdict: readVerdict(ctx.root, current.iteration) };
      return { kind: 'reviewer-stop', sessionId, now: ctx.now, reviewer: reviewer!, ...reviewerStopObservation(ctx.root, current, reviewer!, payload.last_assistant_message ?? null) };
    });
  },
});
