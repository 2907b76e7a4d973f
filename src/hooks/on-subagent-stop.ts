/** SubagentStop: validates a reviewer's output or the fixer's summary, aggregates, advances the phase. */
import fs from 'node:fs';
import path from 'node:path';
import { REVIEWERS, isFixer, reviewerOf, type Reviewer } from '../core/agents';
import { isActive } from '../core/transition';
import { fixSummaryFile, reviewerFile } from '../state/paths';
import { SubagentStopPayload } from '../shell/payloads';
import { runHook } from '../shell/run-hook';

const readOrNull = (file: string): string | null => {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
};

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
      if (fixer) return { kind: 'fixer-stop', sessionId, now: ctx.now, summary: readOrNull(path.join(ctx.root, fixSummaryFile(n))) };
      const files = Object.fromEntries(REVIEWERS.map((r) => [r, readOrNull(path.join(ctx.root, reviewerFile(n, r)))])) as Record<Reviewer, string | null>;
      return { kind: 'reviewer-stop', sessionId, now: ctx.now, reviewer: reviewer!, files, message: payload.last_assistant_message ?? null };
    });
  },
});
