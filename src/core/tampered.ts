/**
 * A hook-owned file was changed, deleted or written by something other than the hooks, or the state
 * breaks its invariants. A running loop ends STOPPED ("tampered"), from the last state the hooks wrote,
 * naming the files; it never ends DONE. The record stops vouching for the files it named.
 */
import type { Event, Loaded, Outcome } from './events';
import { isActive } from './loop-state';
import * as progress from './progress';
import { stateProblems } from '../state/invariants';
import type { State } from '../state/schema';

export function onTampered(loaded: Loaded, event: Extract<Event, { kind: 'tampered' }>): Outcome {
  const trusted = loaded.kind === 'ok' || loaded.kind === 'tampered' ? loaded.state : null;
  const forget = { type: 'forget' as const, paths: [...new Set(event.problems.map((p) => p.file))] };
  const invariant = event.problems.some((p) => p.problem === 'invariant');
  if (trusted && !invariant && !isActive(trusted)) {
    // The loop had already ended as the hooks wrote it: that outcome stands, the change is reported.
    return { state: { ...trusted, updatedAt: event.now }, effects: [forget, { type: 'notify', text: progress.notify.tamperedAfterEnd(trusted, event.problems) }] };
  }
  if (trusted) {
    const stopped: State = {
      ...trusted,
      status: 'stopped',
      currentPhase: 'STOPPED',
      stopReason: 'tampered',
      stopDetail: progress.tamperDetail(event.problems),
      updatedAt: event.now,
      stopGuard: { key: '', blocks: 0 },
    };
    if (stateProblems(stopped).length === 0) return { state: stopped, effects: [forget, { type: 'notify', text: progress.notify.tampered(stopped) }] };
  }
  // Nothing sound to keep: the file goes to the archive as it is, and nothing is gated any more.
  return { state: null, effects: [forget, { type: 'archive-previous', into: trusted?.runId ?? null }, { type: 'notify', text: progress.notify.tamperedArchived(event.problems) }] };
}
