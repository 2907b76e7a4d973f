/** Stop: re-injects the phase prompt while the loop runs; lets the session go when it ends or idles. */
import { isActive, stateOf } from '../core/loop-state';
import { StopPayload } from '../shell/payloads';
import { runHook } from '../shell/run-hook';
import { PHASES_DIR } from '../protocol/paths';
import { transact } from '../shell/transact';

void runHook({
  name: 'on-stop',
  event: 'Stop',
  payload: StopPayload,
  transact,
  async handle(payload, ctx) {
    const loaded = ctx.load();
    const state = stateOf(loaded);
    if (loaded.kind === 'none' || (state && state.sessionId !== payload.session_id)) return [];
    const sessionId = payload.session_id;
    const running = (payload.background_tasks ?? [])
      .filter((t) => (t.status ?? 'running') === 'running' && typeof t.agent_type === 'string')
      .map((t) => t.agent_type!);
    // Only an ended loop needs the report's facts (its outcome names the best round, the cost, the report).
    const reports = loaded.kind === 'ok' && !isActive(loaded.state) ? await import('../shell/run-files') : null;
    return ctx.transact((l) => ({
      kind: 'stop',
      sessionId,
      now: ctx.now,
      running,
      facts: reports && l.kind === 'ok' && !isActive(l.state) ? reports.gatherFacts(ctx.root, { state: l.state, phasesDir: `${PHASES_DIR}/` }) : null,
    }));
  },
});
