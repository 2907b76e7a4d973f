/** Small state helpers shared by the phase handlers. Pure, and light: the gates import this, not the handlers. */
import { REVIEWERS, type Reviewer } from '../protocol/agents';
import type { Effect, Loaded, Outcome } from './events';
import { escapeInvisible } from '../protocol/sanitize';
import * as prompts from './prompts';
import type { IterationRecord, ReviewerRun, State } from '../state/schema';

export const STALE_AFTER_MS = 2 * 60 * 60 * 1000;
/**
 * A prompt in the owning session marks the loop fresh only when its last mark is older than this: a
 * prompt moments after the hooks' last write changes nothing a later check could tell (STALE_AFTER_MS is
 * two hours), so it writes nothing, and saves the state's save (its sha256, node:crypto's load, the record).
 */
export const FRESH_FOR_MS = 10 * 60 * 1000;
/** A reviewer (or the fixer) is blocked this many times for bad output, then recorded as it is. */
export const MAX_OUTPUT_FAILURES = 2;
/** Consecutive Stop blocks without progress before the stop is let through. */
export const MAX_IDLE_BLOCKS = 2;
/** The fixer is sent back this many times for a check it broke; then the check becomes a finding. */
export const MAX_CHECK_SENDBACKS = 2;

export const unchanged = (loaded: Loaded, effects: Effect[] = []): Outcome => ({ state: loaded.kind === 'ok' ? loaded.state : null, effects });

/** The state to decide with: the loaded one, or for a tampered file the last one the hooks wrote. */
export const stateOf = (loaded: Loaded): State | null => (loaded.kind === 'ok' || loaded.kind === 'tampered' ? loaded.state : null);

/** `reviewers`: the loop's effort profile's; the others are recorded as skipped. */
export function newIteration(iteration: number, now: string, reviewStart: string | null = null, reviewers: readonly Reviewer[] = REVIEWERS): IterationRecord {
  const run = (r: Reviewer): ReviewerRun => ({ status: reviewers.includes(r) ? 'pending' : 'skipped', dispatches: 0, failures: 0, error: null, counts: null, groundingWarned: false, frozen: null, reading: null });
  return {
    iteration,
    startedAt: now,
    r1: { status: 'pending', reviewers: Object.fromEntries(REVIEWERS.map((r) => [r, run(r)])) as IterationRecord['r1']['reviewers'], aggregation: null },
    r2: { status: 'pending', dispatches: 0, failures: 0, checkBlocks: 0, layer0Blocks: 0 },
    verdict: null,
    trees: { reviewStart, reviewEnd: null, fixEnd: null },
    changedDuringReview: [],
    patches: { diff: null, fixDelta: null },
    escalated: [],
    checks: null,
    layer0: null,
    cost: {},
  };
}

export function advanceIteration(state: State, now: string): State {
  const iteration = state.iteration + 1;
  // The next review sees the tree the fixer left (or, with no fix round, the tree the last review ended on).
  const last = currentIteration(state).trees;
  const start = last.fixEnd ?? last.reviewEnd ?? last.reviewStart;
  return { ...state, iteration, currentPhase: 'R1', updatedAt: now, stopGuard: { key: '', blocks: 0 }, iterations: [...state.iterations, newIteration(iteration, now, start, state.effort.reviewers)] };
}

export function phasePrompt(state: State): string {
  const current = currentIteration(state);
  if (state.currentPhase === 'R2' && current.verdict) return prompts.r2Prompt(state, current.verdict);
  return prompts.r1Prompt(state, state.changedFiles, missingReviewers(state));
}

export function missingReviewers(state: State): Reviewer[] {
  const runs = currentIteration(state).r1.reviewers;
  return REVIEWERS.filter((r) => runs[r].status === 'pending' || runs[r].status === 'running');
}

export const isActive = (state: State): boolean => state.status === 'in_progress' && (state.currentPhase === 'R1' || state.currentPhase === 'R2');
export const isStale = (state: State, now: string): boolean => Date.parse(now) - Date.parse(state.updatedAt) > STALE_AFTER_MS;
export const minutesSince = (then: string, now: string): number => Math.max(0, Math.round((Date.parse(now) - Date.parse(then)) / 60000));

export const currentIteration = (state: State): IterationRecord => state.iterations[state.iterations.length - 1]!;

export function updateIteration(state: State, now: string, update: (it: IterationRecord) => IterationRecord): State {
  const iterations = state.iterations.slice();
  iterations[iterations.length - 1] = update(iterations[iterations.length - 1]!);
  return { ...state, iterations, updatedAt: now };
}

export function setReviewer(state: State, now: string, reviewer: Reviewer, run: ReviewerRun): State {
  return updateIteration(state, now, (it) => ({ ...it, r1: { ...it.r1, reviewers: { ...it.r1.reviewers, [reviewer]: run } } }));
}

/** What has happened so far; an idle orchestrator leaves it unchanged between two stops. */
export function progressKey(state: State): string {
  const it = currentIteration(state);
  const reviewers = REVIEWERS.map((r) => `${it.r1.reviewers[r].status[0]}${it.r1.reviewers[r].dispatches}`).join('');
  return `${state.currentPhase}:${state.iteration}:${reviewers}:${it.r2.status[0]}${it.r2.dispatches}`;
}

export const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;
/** json(), with no control or invisible character raw (escapeInvisible): for files that carry program output. */
export const escapedJson = (value: unknown): string => escapeInvisible(json(value));
