/** Builders for pure unit tests: states, events and reviewer outputs as plain data. */
import { REVIEWERS, type Reviewer } from '../../src/protocol/agents';
import { newIteration } from '../../src/core/loop-state';
import { currentIteration, initialState, transition, type Event, type Loaded, type Outcome } from '../../src/core/transition';
import type { Finding } from '../../src/protocol/reviewer-output';
import type { Sources } from '../../src/review/grounding';
import type { ClassNote, IterationRecord, PatchNote, ReviewerRun, State } from '../../src/state/schema';

export const NOW = '2026-11-30T10:00:00.000Z';
export const LATER = '2026-11-30T10:05:00.000Z';
export const OWNER = 'session-owner';
export const OTHER = 'session-other';

export function stateBuilder(overrides: Partial<State> = {}) {
  let state: State = { ...initialState(OWNER, 'review the parser', 3, 'abc123', NOW), ...overrides };
  const lastIt = (): IterationRecord => state.iterations[state.iterations.length - 1]!;
  const setLast = (it: IterationRecord) => {
    state = { ...state, iterations: [...state.iterations.slice(0, -1), it] };
  };
  const api = {
    reviewer(r: Reviewer, run: Partial<ReviewerRun>) {
      const it = lastIt();
      setLast({ ...it, r1: { ...it.r1, reviewers: { ...it.r1.reviewers, [r]: { ...it.r1.reviewers[r], ...run } } } });
      return api;
    },
    allReviewers(run: Partial<ReviewerRun>) {
      for (const r of REVIEWERS) api.reviewer(r, run);
      return api;
    },
    /** Every reviewer dispatched and running. */
    dispatched() {
      return api.allReviewers({ status: 'running', dispatches: 1 });
    },
    inR2(total = 2) {
      const it = lastIt();
      const open = Array.from({ length: total }, (_, i) => `fp${i}`);
      setLast({
        ...it,
        r1: { ...it.r1, status: 'complete' },
        verdict: { overall: 'issues_found', total, critical: 1, warning: total - 1, info: 0, open, contested: 0, belowLevel: 0, belowConfidence: 0, score: 0.35, scale: 4, readiness: 'NOT_READY', pitfalls: [], classes: [] },
      });
      state = { ...state, currentPhase: 'R2' };
      api.allReviewers({ status: 'valid', dispatches: 1 });
      return api;
    },
    r2(r2: Partial<IterationRecord['r2']>) {
      const it = lastIt();
      setLast({ ...it, r2: { ...it.r2, ...r2 } });
      return api;
    },
    trees(trees: Partial<IterationRecord['trees']>) {
      const it = lastIt();
      setLast({ ...it, trees: { ...it.trees, ...trees } });
      return api;
    },
    /** Closes this iteration's fix round and opens the next iteration in R1. */
    nextRound() {
      const it = lastIt();
      setLast({ ...it, r2: { ...it.r2, status: 'complete', dispatches: 1 } });
      state = { ...state, iteration: state.iteration + 1, currentPhase: 'R1', iterations: [...state.iterations, newIteration(state.iteration + 1, NOW)] };
      return api;
    },
    patches(patches: Partial<IterationRecord['patches']>) {
      const it = lastIt();
      setLast({ ...it, patches: { ...it.patches, ...patches } });
      return api;
    },
    escalated(escalated: IterationRecord['escalated']) {
      setLast({ ...lastIt(), escalated });
      return api;
    },
    /** The finding classes of this iteration's verdict (call after inR2). */
    classes(classes: ClassNote[]) {
      const it = lastIt();
      setLast({ ...it, verdict: { ...it.verdict!, classes } });
      return api;
    },
    with(patch: Partial<State>) {
      state = { ...state, ...patch };
      return api;
    },
    build: (): State => state,
    loaded: (): Loaded => ({ kind: 'ok', state }),
  };
  return api;
}

export const patchNote = (files: string[], truncated = false): PatchNote => ({ count: files.length, files, truncated });

export const finding = (over: Partial<Finding> = {}): Finding => ({
  severity: 'warning',
  category: 'logic-error',
  file: 'src/a.ts',
  line: 3,
  description: 'off by one',
  evidence: 'for (let i = 0; i <= n; i++)',
  suggestion: 'use <',
  ...over,
});

export function reviewJson(issues: Finding[] = [], summaryOverride: Record<string, unknown> = {}): string {
  const counts = { critical: 0, warning: 0, info: 0 };
  for (const i of issues) counts[i.severity] += 1;
  return JSON.stringify({ issues, summary: { ...counts, verdict: issues.length ? 'issues_found' : 'clean', ...summaryOverride } });
}

export const noFiles = (): Record<Reviewer, string | null> => Object.fromEntries(REVIEWERS.map((r) => [r, null])) as Record<Reviewer, string | null>;

/** The project the default finding() points into. */
export const SOURCES: Sources = {
  'src/a.ts': { kind: 'file', text: 'export function sum(xs, n) {\n  let s = 0;\n  for (let i = 0; i <= n; i++) s += xs[i];\n  return s;\n}\n' },
};

/** A reviewer's stop; of `files` only the stopping reviewer's is read (as the hook reads only that one). */
export function reviewerStop(reviewer: Reviewer, files: Record<Reviewer, string | null>, message: string | null = null, sessionId = OWNER, over: Partial<Extract<Event, { kind: 'reviewer-stop' }>> = {}): Event {
  return { kind: 'reviewer-stop', sessionId, now: LATER, reviewer, file: files[reviewer], message, sources: SOURCES, ...over };
}

/** The round's verdict step, from the five reviews as recorded. */
export function aggregateEvent(reviews: Record<Reviewer, string | null>, over: Partial<Extract<Event, { kind: 'aggregate' }>> = {}): Event {
  return { kind: 'aggregate', sessionId: OWNER, now: LATER, reviews, rewritten: [], sources: SOURCES, history: [], declines: {}, ...over };
}

/** As the runner does it: the event, then the round's verdict when the event recorded the fifth review. */
export function throughRound(loaded: Loaded, event: Event, reviews: Record<Reviewer, string | null>, over: Partial<Extract<Event, { kind: 'aggregate' }>> = {}): Outcome {
  const first = transition(loaded, event);
  if (!first.state || first.state.currentPhase !== 'R1' || !currentIteration(first.state).r1.aggregation) return first;
  const second = transition({ kind: 'ok', state: first.state }, aggregateEvent(reviews, over));
  return { state: second.state, effects: [...first.effects, ...second.effects] };
}

export const fixerStop = (summary: string | null, summaryJson: string | null, previousSummary: string | null = null): Extract<Event, { kind: 'fixer-stop' }> => ({
  kind: 'fixer-stop', sessionId: OWNER, now: LATER, summary, summaryJson, previousSummary,
});
export const answers = (fps: string[], status = 'fixed') => JSON.stringify({ fixes: fps.map((fingerprint) => ({ fingerprint, status, reason: 'r', ...(status === 'fixed' ? { kind: 'patch' } : {}) })) });

export const stop = (running: string[] = [], sessionId = OWNER): Event => ({ kind: 'stop', sessionId, now: LATER, running });
export const dispatch = (subagentType: string | null, sessionId = OWNER): Event => ({ kind: 'dispatch', sessionId, now: LATER, subagentType });
