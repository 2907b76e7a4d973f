/** --no-fix ends the round REVIEWED; status --fail-on judges the last verdict; the texts that say which base and why. */
import { describe, expect, it } from 'vitest';
import { failingFindings, type FoundLoop } from '../../src/core/status';
import { stateProblems } from '../../src/state/invariants';
import { baseText } from '../../src/report/texts';
import * as refusals from '../../src/core/refusals';
import * as progress from '../../src/core/progress';
import { editGate } from '../../src/core/gates';
import { FIXER_TYPE, REVIEWERS } from '../../src/protocol/agents';
import { OWNER, finding, reviewJson, reviewerStop, stateBuilder, throughRound } from './builders';
import type { State, VerdictSummary } from '../../src/state/schema';

const verdict = (counts: Pick<VerdictSummary, 'critical' | 'warning' | 'info'>): VerdictSummary => {
  const total = counts.critical + counts.warning + counts.info;
  return { overall: total ? 'issues_found' : 'clean', total, ...counts, open: Array.from({ length: total }, (_, i) => `fp${i}`), contested: 0, belowLevel: 0, belowConfidence: 0, score: 0.5, scale: 5, readiness: 'NOT_READY', pitfalls: [], classes: [] };
};

function reviewed(counts: Pick<VerdictSummary, 'critical' | 'warning' | 'info'> | null): State {
  const state = stateBuilder({ reviewOnly: true }).allReviewers({ status: 'valid', dispatches: 1 }).build();
  const it = state.iterations[0]!;
  return { ...state, status: 'reviewed', currentPhase: 'REVIEWED', iterations: [{ ...it, r1: { ...it.r1, status: counts ? 'complete' : 'pending' }, verdict: counts ? verdict(counts) : null }] };
}
const found = (state: State): FoundLoop => ({ kind: 'archived', state, stateFile: 's', phasesDir: 'p/' });

describe('status --fail-on', () => {
  it.each([
    [{ critical: 1, warning: 2, info: 3 }, 'critical', 1],
    [{ critical: 1, warning: 2, info: 3 }, 'warning', 3],
    [{ critical: 1, warning: 2, info: 3 }, 'info', 6],
    [{ critical: 0, warning: 2, info: 3 }, 'critical', 0],
    [{ critical: 0, warning: 0, info: 3 }, 'warning', 0],
    [{ critical: 0, warning: 0, info: 3 }, 'info', 3],
    [{ critical: 0, warning: 0, info: 0 }, 'info', 0],
  ] as const)('%j at %s: %i failing', (counts, severity, count) => {
    expect(failingFindings(found(reviewed(counts)), severity)?.count).toBe(count);
  });

  it('no verdict to judge: null, which fails the gate', () => {
    expect(failingFindings({ kind: 'none' }, 'info')).toBeNull();
    expect(failingFindings({ kind: 'broken', stateFile: 's', problem: 'x' }, 'critical')).toBeNull();
    expect(failingFindings(found(stateBuilder().build()), 'critical')).toBeNull();
  });
});

describe('REVIEWED, as the invariants have it', () => {
  it('a review-only loop with a verdict is sound', () => {
    expect(stateProblems(reviewed({ critical: 1, warning: 0, info: 0 }))).toEqual([]);
  });
  it('REVIEWED without --no-fix, or without a verdict, is not a state the hooks write', () => {
    expect(stateProblems({ ...reviewed({ critical: 0, warning: 0, info: 0 }), reviewOnly: false })).toContain('REVIEWED without --no-fix');
    expect(stateProblems(reviewed(null))).toContain('REVIEWED without a verdict');
  });
});

describe('the gates in a review-only pass', () => {
  const state = stateBuilder({ reviewOnly: true }).dispatched().build();
  it.each([null, FIXER_TYPE, 'general-purpose'])('%s may not write a project file', (agent) => {
    const decision = editGate(state, OWNER, agent, { inside: true, rel: 'src/a.ts' });
    expect(decision.kind).toBe('deny');
    expect(decision.kind === 'deny' && decision.reason).toContain('this is a review-only pass (--no-fix)');
  });
  it('a reviewer still writes its own review', () => {
    expect(editGate(state, OWNER, 'minions:critic', { inside: true, rel: '.agents/tmp/phases/review-1/r1-critic.json' }).kind).toBe('allow');
  });
  it("the rules copies are the hooks' own", () => {
    expect(editGate(state, OWNER, 'minions:critic', { inside: true, rel: '.agents/tmp/phases/rules/critic.md' }).kind).toBe('deny');
  });
});

describe('which base, and why', () => {
  const C = '0123456789abcdef0123456789abcdef01234567';
  it.each([
    [{ base: null, baseChoice: { ref: null, why: 'none' as const } }, 'the change: every file (no base commit)'],
    [{ base: C, baseChoice: { ref: null, why: 'uncommitted' as const } }, 'the change: uncommitted work against HEAD 0123456789ab'],
    [{ base: C, baseChoice: { ref: 'origin/main', why: 'flag' as const } }, 'the change: 0123456789ab (the merge base with origin/main; as --base asked) to the working tree'],
    [{ base: C, baseChoice: { ref: 'main', why: 'config' as const } }, "the change: 0123456789ab (the merge base with main; as .minions.json's base asked) to the working tree"],
    [{ base: C, baseChoice: { ref: 'origin/feature', why: 'upstream' as const } }, "the change: 0123456789ab (the merge base with origin/feature; the tree is clean: the branch's upstream) to the working tree"],
    [{ base: C, baseChoice: { ref: null, why: 'head' as const } }, 'the change: HEAD 0123456789ab to the working tree (the tree is clean and there is no other branch to compare with)'],
  ])('%j', (scope, text) => {
    expect(baseText(scope)).toBe(text);
  });

  it('the refusals name the ref and what to do', () => {
    expect([
      refusals.refuse.badBase({ kind: 'bad-ref', ref: 'origin/mian' }),
      refusals.refuse.badBase({ kind: 'unborn', ref: 'main' }),
      refusals.refuse.badBase({ kind: 'shallow', ref: 'origin/main' }),
      refusals.refuse.badBase({ kind: 'unrelated', ref: 'other' }),
      refusals.refuse.nothingToReview('detached'),
      refusals.refuse.nothingToReview('no-default'),
      refusals.refuse.nothingToReview('on-base'),
      refusals.refuse.badSarif('out/x.sarif'),
    ]).toMatchSnapshot();
  });

  it('the first progress line of a review-only pass says so, and which base', () => {
    const state = stateBuilder({ reviewOnly: true, base: C, baseChoice: { ref: 'main', why: 'default-branch' }, projectRules: 'REVIEW.md' }).build();
    expect(progress.notify.started(state, null)).toBe(
      'minions: review-only pass started — R1, Iteration 1/3: effort standard: five reviewers on "review the parser"; the change: 0123456789ab (the merge base with main; the tree is clean: the default branch) to the working tree; ' +
        "the project's review rules: REVIEW.md",
    );
  });
});

describe('--no-fix: the round ends the loop', () => {
  const fiveDone = (text: string, over: Partial<State> = {}) => {
    let b = stateBuilder({ reviewOnly: true, ...over }).dispatched();
    for (const r of REVIEWERS.slice(0, 4)) b = b.reviewer(r, { status: 'valid', dispatches: 1 });
    const files = Object.fromEntries(REVIEWERS.map((r) => [r, text])) as Record<(typeof REVIEWERS)[number], string>;
    return throughRound(b.loaded(), reviewerStop('silent-failure-hunter', files), files);
  };
  const verdictOf = (out: ReturnType<typeof fiveDone>) => JSON.parse((out.effects.find((e) => e.type === 'write') as { content: string }).content);

  it('findings: REVIEWED, no findings file for a fixer, the report written', () => {
    const out = fiveDone(reviewJson([finding({ severity: 'critical' })]));
    expect(out.state).toMatchObject({ status: 'reviewed', currentPhase: 'REVIEWED', stopReason: null, openIssues: [expect.objectContaining({ severity: 'critical', file: 'src/a.ts' })] });
    expect(verdictOf(out)).toMatchObject({ next: 'REVIEWED', stopReason: null });
    expect(out.effects.some((e) => e.type === 'write' && e.path.endsWith('r2-findings.json'))).toBe(false);
    expect(out.effects.some((e) => e.type === 'write-report')).toBe(true);
    expect(stateProblems(out.state!)).toEqual([]);
  });

  it('clean: REVIEWED as well', () => {
    expect(fiveDone(reviewJson()).state).toMatchObject({ currentPhase: 'REVIEWED' });
  });

  it('a stop about the fix rounds (the last iteration, too many criticals) is REVIEWED too', () => {
    expect(fiveDone(reviewJson([finding({ severity: 'critical' })]), { maxIterations: 1 }).state).toMatchObject({ currentPhase: 'REVIEWED', stopReason: null });
    const many = reviewJson(Array.from({ length: 7 }, (_, i) => finding({ severity: 'critical', description: `defect ${i}`, category: `c${i}` })));
    expect(fiveDone(many, { rules: { maxCritical: 0, stuckRounds: 3, similarity: 0.95, maxTokens: null, doneWhen: 'info', minConfidence: 0 } }).state).toMatchObject({ currentPhase: 'REVIEWED' });
    // The same rounds without --no-fix stop.
    expect(fiveDone(many, { reviewOnly: false, rules: { maxCritical: 0, stuckRounds: 3, similarity: 0.95, maxTokens: null, doneWhen: 'info', minConfidence: 0 } }).state).toMatchObject({ currentPhase: 'STOPPED', stopReason: 'structural_rework_needed' });
    expect(fiveDone(reviewJson([finding({ severity: 'critical' })]), { reviewOnly: false, maxIterations: 1 }).state).toMatchObject({ currentPhase: 'STOPPED', stopReason: 'max_iterations' });
  });

  it('without --no-fix the same round goes to the fixer', () => {
    const text = reviewJson([finding({ severity: 'critical' })]);
    let b = stateBuilder().dispatched();
    for (const r of REVIEWERS.slice(0, 4)) b = b.reviewer(r, { status: 'valid', dispatches: 1 });
    const files = Object.fromEntries(REVIEWERS.map((r) => [r, text])) as Record<(typeof REVIEWERS)[number], string>;
    expect(throughRound(b.loaded(), reviewerStop('silent-failure-hunter', files), files).state).toMatchObject({ currentPhase: 'R2' });
  });
});
