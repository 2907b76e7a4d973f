/** The facts every report renders: counts per round, the best round, the final tree's gap, what is open, the cost and the paths. */
import { describe, expect, it } from 'vitest';
import { loopFacts, type FactsInput } from '../../src/report/facts';
import { F, agent, loopOf, tokens, type RoundSpec } from './report-builders';

const PHASES = '.agents/tmp/phases/';
const factsOf = (specs: RoundSpec[], over: Parameters<typeof loopOf>[1] = {}, input: Partial<FactsInput> = {}) => {
  const loop = loopOf(specs, over);
  return loopFacts({ ...loop, totalChange: ' src/price.js | 2 +-', phasesDir: PHASES, ...input });
};

describe('loop facts', () => {
  it('round 2 worse than round 1: round 1 is best, and the final tree’s gap says by how much', () => {
    const facts = factsOf([{ reports: { pedant: [F.format] }, fix: 'complete' }, { reports: { pedant: [F.discount], critic: [F.discount] } }]);
    expect(facts.rounds.map((r) => [r.round, r.open, r.best])).toEqual([
      [1, { critical: 0, warning: 1, info: 0, total: 1 }, true],
      [2, { critical: 1, warning: 0, info: 0, total: 1 }, false],
    ]);
    expect(facts.best).toBe(1);
    expect(facts.final).toEqual({
      tree: 'tree-2',
      reviewedRound: 2,
      gap: { round: 2, best: 1, findings: { critical: 1, warning: -1, info: 0 }, checks: null, score: { round: 0.55, best: 0.9 } },
    });
    expect(facts.open.map((f) => [f.round, f.file, f.line, f.severity, f.reporters])).toEqual([[2, 'src/price.js', 3, 'critical', ['critic', 'pedant']]]);
  });

  it('a final round at least as good as every earlier one is the best, with no gap', () => {
    const facts = factsOf([{ reports: { pedant: [F.discount, F.format] }, fix: 'complete' }, { reports: {} }]);
    expect(facts.best).toBe(2);
    expect(facts.final.gap).toBeNull();
    expect(facts.phase).toBe('DONE');
  });

  it('checks decide before findings: a round that broke a check is not the best', () => {
    const facts = factsOf([
      { reports: { pedant: [F.format] }, fix: 'complete', checks: { passed: 2, failed: 0 } },
      { reports: {}, checks: { passed: 1, failed: 1 } },
    ], { status: 'stopped', currentPhase: 'STOPPED', stopReason: 'max_iterations' });
    expect(facts.best).toBe(1);
    expect(facts.final.gap?.checks).toEqual({ round: { passed: 1, failed: 1 }, best: { passed: 2, failed: 0 } });
    expect(facts.rounds.map((r) => r.checks)).toEqual([{ passed: 2, failed: 0 }, { passed: 1, failed: 1 }]);
  });

  it('a last fix that was never reviewed: no final round, no gap, the best reviewed round still named', () => {
    const facts = factsOf([{ reports: { pedant: [F.format] }, fix: 'complete' }, { reports: { pedant: [F.discount] }, fix: 'complete' }], {
      status: 'stopped',
      currentPhase: 'STOPPED',
      stopReason: 'budget',
    });
    expect(facts.final).toEqual({ tree: 'fix-2', reviewedRound: null, gap: null });
    expect(facts.best).toBe(1);
  });

  it('contested and ungrounded findings are told apart from the open ones', () => {
    const first = loopOf([{ reports: { pedant: [F.format] } }]).verdicts[0]!;
    const fp = first.findings[0]!.fingerprint;
    const facts = factsOf([
      {
        reports: { pedant: [F.format], critic: [F.swallowed] },
        fix: 'complete',
        answers: (open) => ({ fixes: open.map((f) => ({ fingerprint: f.fingerprint, status: f.fingerprint === fp ? ('declined' as const) : ('fixed' as const), reason: 'two decimals is the house style' })), patterns: [] }),
      },
      { reports: { pedant: [F.format], witness: [F.ghost] }, declines: { [fp]: 2 } },
    ]);
    expect(facts.contested.map((f) => [f.fingerprint, f.status])).toEqual([[fp, 'CONTESTED']]);
    expect(facts.open).toEqual([]);
    expect(facts.ungrounded).toBe(1);
    expect(facts.rounds[1]).toMatchObject({ contested: 1, ungrounded: 1, open: { total: 0 } });
  });

  it('escalated classes come from the verdicts, each as the latest round that escalated it had it', () => {
    const loop = loopOf([{ reports: { pedant: [F.format] }, fix: 'complete' }, { reports: { pedant: [F.format] }, fix: 'complete' }, { reports: { pedant: [F.format] } }]);
    const escalation = { class: 'c1', reason: 'repeated' as const, category: 'correctness', sites: ['src/price.js:8'], attempts: [1, 2], fixerReason: null, open: true, diagnosis: null };
    const verdicts = [loop.verdicts[0]!, { ...loop.verdicts[1]!, escalations: [escalation] }, { ...loop.verdicts[2]!, escalations: [{ ...escalation, diagnosis: { class: 'c1', rootCause: 'cents and units are mixed', fix: 'one Money type', recommend: 'structural' as const } }] }];
    const facts = loopFacts({ ...loop, verdicts, totalChange: null, phasesDir: PHASES });
    expect(facts.escalated).toEqual([{ ...escalation, round: 3, diagnosis: { class: 'c1', rootCause: 'cents and units are mixed', fix: 'one Money type', recommend: 'structural' } }]);
  });

  it('cost per round and in total: unknown transcripts are counted as unknown, never as tokens', () => {
    const facts = factsOf([
      { reports: { pedant: [F.format] }, fix: 'complete', cost: [agent('critic', tokens(1000, 50, 10, 500), 30_000), agent('review-fixer', null, null)] },
      { reports: {}, cost: [agent('pedant', tokens(2000, 20), 20_000)] },
    ], {}, { phasesDir: '.agents/tmp/archive/run-1/phases/' });
    expect(facts.rounds.map((r) => [r.cost.total, r.cost.agents, r.cost.unknown, r.cost.agentMs])).toEqual([
      [1560, 2, 1, 30_000],
      [2020, 1, 0, 20_000],
    ]);
    expect(facts.cost).toMatchObject({ total: 3580, agents: 3, unknown: 1, tokens: { input: 3000, output: 70, cacheCreation: 10, cacheRead: 500 }, budget: null });
    expect(facts.files).toEqual({ phases: '.agents/tmp/archive/run-1/phases/', report: '.agents/tmp/archive/run-1/phases/REPORT.md' });
    expect(facts.rounds[1]!.files).toEqual({ review: '.agents/tmp/archive/run-1/phases/review-2/REVIEW.md', verdict: '.agents/tmp/archive/run-1/phases/review-2/r1-verdict.json' });
  });

  it('a running loop: the unreviewed round is listed, the best so far named, the elapsed time of each round measured', () => {
    const { state, verdicts, checks } = loopOf([{ reports: { pedant: [F.format] }, fix: 'complete' }, { reports: {} }]);
    const running = { ...state, status: 'in_progress' as const, currentPhase: 'R1' as const, iterations: [state.iterations[0]!, { ...state.iterations[1]!, verdict: null, trees: { ...state.iterations[1]!.trees, reviewEnd: null } }] };
    const facts = loopFacts({ state: running, verdicts: [verdicts[0]!, null], checks, totalChange: null, phasesDir: PHASES });
    expect(facts.rounds.map((r) => [r.round, r.reviewed, r.tree, r.elapsedMs])).toEqual([
      [1, true, 'tree-1', 10 * 60_000],
      [2, false, 'fix-1', 7 * 60_000],
    ]);
    expect(facts.best).toBe(1);
    expect(facts.final).toEqual({ tree: 'fix-1', reviewedRound: null, gap: null });
  });
});
