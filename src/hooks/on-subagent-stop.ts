/** SubagentStop: validates a reviewer's output or the fixer's summary, aggregates, advances the phase. */
import { isFixer, reviewerOf } from '../core/agents';
import { isActive } from '../core/loop-state';
import { extractJsonFromMessage } from '../review/reviewer-output';
import { fixerObservations, readDeclines, readFixRounds, readHistory, readSources, readVerdict, reviewFiles } from '../shell/observe';
import { fixEndObservation, mayCompleteRound, reviewEndObservation } from '../shell/observe-tree';
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
    const loaded = ctx.load();
    if (loaded.kind !== 'ok' || loaded.state.sessionId !== payload.session_id || !isActive(loaded.state)) return [];
    const sessionId = payload.session_id;
    return ctx.transact((l) => {
      if (l.kind !== 'ok') return null;
      const n = l.state.iteration;
      if (fixer) return { kind: 'fixer-stop', sessionId, now: ctx.now, ...fixerObservations(ctx.root, n), ...fixEndObservation(ctx.root, l.state), verdict: readVerdict(ctx.root, n) };
      const files = reviewFiles(ctx.root, n);
      const message = payload.last_assistant_message ?? null;
      return {
        kind: 'reviewer-stop',
        sessionId,
        now: ctx.now,
        reviewer: reviewer!,
        files,
        message,
        sources: readSources(ctx.root, [...Object.values(files), extractJsonFromMessage(message)]),
        history: readHistory(ctx.root, n),
        declines: readDeclines(ctx.root, n),
        fixes: readFixRounds(ctx.root, n),
        ...(l.state.currentPhase === 'R1' && mayCompleteRound(l.state, reviewer!) ? reviewEndObservation(ctx.root, l.state) : {}),
      };
    });
  },
});
