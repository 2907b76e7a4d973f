/** A round reviewed while the project changed: never DONE on that tree. Tables over aggregateRound and transition. */
import { describe, expect, it } from 'vitest';
import { REVIEWERS, type Reviewer } from '../../src/protocol/agents';
import { transition, type Event } from '../../src/core/transition';
import { UNSNAPSHOTTED } from '../../src/protocol/paths';
import type { State } from '../../src/state/schema';
import { DEFAULT_RULES } from '../../src/protocol/stop-rules';
import { aggregateRound, type RoundInput } from '../../src/review/aggregate';
import { NOW, OWNER, SOURCES, finding, fixerStop, answers, reviewJson, reviewerStop, stateBuilder, throughRound } from './builders';

function roundWith(issues: boolean, changed: string[], iteration = 1, maxIterations = 3) {
  const reviews = Object.fromEntries(
    REVIEWERS.map((r) => [r, { text: reviewJson(issues && r === 'critic' ? [finding()] : []), valid: true, error: null }]),
  ) as RoundInput['reviews'];
  return aggregateRound({ iteration, maxIterations, task: 't', now: NOW, rules: DEFAULT_RULES, reviews, sources: SOURCES, history: [], declines: {}, changedDuringReview: changed });
}

describe('aggregateRound with changes during the review', () => {
  it.each([
    { issues: false, changed: [], iteration: 1, next: 'DONE', reason: null },
    { issues: false, changed: ['src/a.ts'], iteration: 1, next: 'R1', reason: null },
    { issues: false, changed: ['src/a.ts'], iteration: 3, next: 'STOPPED', reason: 'changed_during_review' },
    { issues: true, changed: ['src/a.ts'], iteration: 1, next: 'R2', reason: null },
    { issues: true, changed: [], iteration: 3, next: 'STOPPED', reason: 'max_iterations' },
    { issues: false, changed: [UNSNAPSHOTTED], iteration: 1, next: 'R1', reason: null },
    { issues: false, changed: [UNSNAPSHOTTED], iteration: 3, next: 'STOPPED', reason: 'changed_during_review' },
  ])('issues $issues, changed $changed, iteration $iteration/3 → $next', ({ issues, changed, iteration, next, reason }) => {
    const v = roundWith(issues, changed, iteration);
    expect(v.next).toBe(next);
    expect(v.stopReason).toBe(reason);
    expect(v.changedDuringReview).toEqual(changed);
  });
});

describe('transition records the trees', () => {
  const valid = Object.fromEntries(REVIEWERS.map((r) => [r, reviewJson([])])) as Record<Reviewer, string>;
  const lastStop = (state: State, changed: { files: string[]; patch: string } | null) =>
    throughRound({ kind: 'ok', state }, reviewerStop('critic', valid, null, OWNER, { now: NOW }), valid, { now: NOW, tree: 'f'.repeat(40), changedDuringReview: changed });

  it('the fifth stop sets reviewEnd; a change is written as a patch and named in the state', () => {
    const state = stateBuilder().allReviewers({ status: 'valid', dispatches: 1 }).reviewer('critic', { status: 'running' }).trees({ reviewStart: 'a'.repeat(40) }).build();
    const { state: next, effects } = lastStop(state, { files: ['src/a.ts'], patch: 'diff --git a/src/a.ts b/src/a.ts\n' });
    expect(next!.iterations[0]!.trees.reviewEnd).toBe('f'.repeat(40));
    expect(next!.iterations[0]!.changedDuringReview).toEqual(['src/a.ts']);
    expect(next!.iteration).toBe(2);
    expect(next!.iterations[1]!.trees.reviewStart).toBe('f'.repeat(40));
    expect(effects).toContainEqual({ type: 'write', path: '.agents/tmp/phases/review-1/r1-changed-during-review.patch', content: 'diff --git a/src/a.ts b/src/a.ts\n' });
  });

  it('the fixer’s stop sets fixEnd, which the next review starts from', () => {
    const state = stateBuilder().inR2(1).r2({ status: 'running', dispatches: 1 }).trees({ reviewStart: 'a'.repeat(40), reviewEnd: 'b'.repeat(40) }).build();
    const { state: next } = transition({ kind: 'ok', state }, { ...fixerStop('- [fixed] fp0', answers(['fp0'])), tree: 'c'.repeat(40) } as Event);
    expect(next!.iterations[0]!.trees).toEqual({ reviewStart: 'a'.repeat(40), reviewEnd: 'b'.repeat(40), fixEnd: 'c'.repeat(40) });
    expect(next!.iterations[1]!.trees.reviewStart).toBe('c'.repeat(40));
  });
});
