/** The outcome in the pure core: costs recorded per agent, the budget rule, REVIEW.md as a write effect, REPORT.md at the end. */
import { describe, expect, it } from 'vitest';
import { REVIEWERS } from '../../src/protocol/agents';
import { transition, type Effect, type Event } from '../../src/core/transition';
import { renderReviewReport } from '../../src/report/review-md';
import { loopFacts } from '../../src/report/facts';
import { answers, finding, fixerStop, noFiles, reviewJson, reviewerStop, stateBuilder, stop, throughRound } from './builders';
import { agent, tokens, verdictOf, F } from './report-builders';

const find = <T extends Effect['type']>(effects: Effect[], type: T) => effects.find((e): e is Extract<Effect, { type: T }> => e.type === type);
const writes = (effects: Effect[]) => effects.flatMap((e) => (e.type === 'write' ? [e.path] : []));
const withIssue = reviewJson([finding({ severity: 'critical' })]);
const cost = (agentId: string, name: string, total: number | null) => ({ agentId, cost: agent(name, total === null ? null : tokens(total - 10, 10)) });

/** Four reviews in, the fifth about to stop: its stop completes the round, then the round's verdict step runs. */
function fourDone(budget: number | null, spent: number) {
  let builder = stateBuilder({ rules: { maxCritical: 5, stuckRounds: 3, similarity: 0.95, maxTokens: budget, doneWhen: 'info', minConfidence: 0 } });
  for (const r of REVIEWERS.slice(0, 4)) builder = builder.reviewer(r, { status: 'valid', dispatches: 1, counts: { critical: 1, warning: 0, info: 0 } });
  builder = builder.reviewer('silent-failure-hunter', { status: 'running', dispatches: 1 });
  const files = Object.fromEntries(REVIEWERS.map((r) => [r, withIssue])) as ReturnType<typeof noFiles>;
  const event = reviewerStop('silent-failure-hunter', files, null, undefined, { cost: cost('a5', 'silent-failure-hunter', spent) });
  return { loaded: builder.loaded(), event, files };
}
const round = ({ loaded, event, files }: ReturnType<typeof fourDone>) => throughRound(loaded, event, files);

describe('the cost of each agent', () => {
  it('is recorded at its stop, whatever the stop means: accepted, or blocked for bad output and continued', () => {
    const running = stateBuilder().reviewer('critic', { status: 'running', dispatches: 1 });
    const accepted = transition(running.loaded(), reviewerStop('critic', { ...noFiles(), critic: withIssue }, null, undefined, { cost: cost('a1', 'critic', 500) }));
    expect(accepted.state!.iterations[0]!.cost).toEqual({ a1: agent('critic', tokens(490, 10)) });

    const blocked = transition(running.loaded(), reviewerStop('critic', noFiles(), null, undefined, { cost: cost('a1', 'critic', 300) }));
    expect(find(blocked.effects, 'block')).toBeDefined();
    const continued = transition({ kind: 'ok', state: blocked.state! }, reviewerStop('critic', { ...noFiles(), critic: withIssue }, null, undefined, { cost: cost('a1', 'critic', 700) }));
    expect(continued.state!.iterations[0]!.cost).toEqual({ a1: agent('critic', tokens(690, 10)) });

  });

  it('a late or repeated stop changes nothing, but refreshes the reading of an agent already counted', () => {
    const builder = stateBuilder().inR2();
    const unknown = transition(builder.loaded(), reviewerStop('critic', noFiles(), null, undefined, { cost: cost('a9', 'critic', 400) }));
    expect(unknown).toEqual({ state: builder.build(), effects: [] });

    const counted = { ...builder.build(), iterations: [{ ...builder.build().iterations[0]!, cost: { a1: agent('critic', tokens(290, 10)) } }] };
    const same = transition({ kind: 'ok', state: counted }, reviewerStop('critic', noFiles(), null, undefined, { cost: cost('a1', 'critic', 300) }));
    expect(same.state).toBe(counted);
    const grown = transition({ kind: 'ok', state: counted }, reviewerStop('critic', noFiles(), null, undefined, { cost: cost('a1', 'critic', 900) }));
    expect(grown.effects).toEqual([]);
    expect(grown.state!.iterations[0]!.cost).toEqual({ a1: agent('critic', tokens(890, 10)) });
  });

  it('another session’s agents are not counted', () => {
    const builder = stateBuilder().reviewer('critic', { status: 'running', dispatches: 1 });
    const out = transition(builder.loaded(), reviewerStop('critic', noFiles(), null, 'someone-else', { cost: cost('a1', 'critic', 500) }));
    expect(out.state).toBe(builder.build());
  });
});

describe('the token budget (--max-tokens)', () => {
  it('within it, the fixer gets the findings', () => {
    expect(round(fourDone(10_000, 9_999)).state!.currentPhase).toBe('R2');
  });

  it('spent when the verdict would start a fix round: STOPPED budget, named in the verdict and the outcome, no findings file', () => {
    const out = round(fourDone(10_000, 10_000));
    expect(out.state).toMatchObject({ status: 'stopped', currentPhase: 'STOPPED', stopReason: 'budget', stopDetail: '10,000 tokens used of the 10,000 budget before fix round 1' });
    const verdict = JSON.parse(out.effects.find((e): e is Extract<Effect, { type: 'write' }> => e.type === 'write' && e.path.endsWith('r1-verdict.json'))!.content);
    expect(verdict).toMatchObject({ next: 'STOPPED', stopReason: 'budget' });
    expect(writes(out.effects)).not.toContain('.agents/tmp/phases/review-1/r2-findings.json');
    expect(find(out.effects, 'write-report')).toMatchObject({ type: 'write-report', verdict: { next: 'STOPPED', stopReason: 'budget' } });
    expect(out.effects.filter((e) => e.type === 'notify').at(-1)).toMatchObject({ text: expect.stringMatching(/→ STOPPED \(the token budget is spent\)$/) });
  });

  it('a clean verdict ends DONE even past the budget', () => {
    const builder = stateBuilder({ rules: { maxCritical: 5, stuckRounds: 3, similarity: 0.95, maxTokens: 10, doneWhen: 'info', minConfidence: 0 } }).allReviewers({ status: 'valid', dispatches: 1, counts: { critical: 0, warning: 0, info: 0 } }).reviewer('pedant', { status: 'running', dispatches: 1 });
    const clean = Object.fromEntries(REVIEWERS.map((r) => [r, reviewJson()])) as ReturnType<typeof noFiles>;
    const out = throughRound(builder.loaded(), reviewerStop('pedant', clean, null, undefined, { cost: cost('a2', 'pedant', 5000) }), clean);
    expect(out.state!.currentPhase).toBe('DONE');
  });

  it('spent when the fixer ends: STOPPED budget before the next review, its open findings kept for the outcome', () => {
    const verdict = verdictOf(1, { pedant: [F.format] });
    const state = stateBuilder({ rules: { maxCritical: 5, stuckRounds: 3, similarity: 0.95, maxTokens: 1000, doneWhen: 'info', minConfidence: 0 } }).inR2(1).r2({ status: 'running', dispatches: 1 }).build();
    const event: Event = { ...fixerStop('- [fixed] fp0', answers(['fp0'])), cost: cost('f1', 'review-fixer', 1200), verdict, tree: 'fix-tree' } as Event;
    const out = transition({ kind: 'ok', state }, event);
    expect(out.state).toMatchObject({ currentPhase: 'STOPPED', stopReason: 'budget', iteration: 1, stopDetail: '1,200 tokens used of the 1,000 budget before review 2' });
    expect(out.state!.openIssues).toEqual([{ severity: 'warning', file: 'src/price.js', line: 8, description: F.format.description }]);
    expect(out.state!.iterations[0]!.trees.fixEnd).toBe('fix-tree');
    expect(out.effects.map((e) => e.type)).toEqual(['pin', 'pin', 'write', 'write-report', 'notify']);
    expect(find(out.effects, 'notify')!.text).toBe('minions: fix round 1 done → STOPPED (the token budget is spent: 1,200 tokens used of the 1,000 budget before review 2)');
  });
});

describe('the reports as effects', () => {
  it('REVIEW.md is written with the verdict, then again with the fixer’s answers', () => {
    const reviewed = round(fourDone(null, 100));
    const report = reviewed.effects.find((e): e is Extract<Effect, { type: 'write' }> => e.type === 'write' && e.path === '.agents/tmp/phases/review-1/REVIEW.md')!;
    const verdict = JSON.parse(reviewed.effects.find((e): e is Extract<Effect, { type: 'write' }> => e.type === 'write' && e.path.endsWith('r1-verdict.json'))!.content);
    expect(report.content).toBe(renderReviewReport({ verdict, answers: null, fix: 'pending', checks: null }));
    expect(find(reviewed.effects, 'write-report')).toBeUndefined();

    const fixing = { ...reviewed.state!, iterations: [{ ...reviewed.state!.iterations[0]!, r2: { status: 'running' as const, dispatches: 1, failures: 0, checkBlocks: 0, layer0Blocks: 0 } }] };
    const fp = verdict.findings[0].fingerprint;
    const fixed = transition({ kind: 'ok', state: fixing }, { ...fixerStop('- [fixed] the loop', answers([fp])), verdict } as Event);
    const again = fixed.effects.find((e): e is Extract<Effect, { type: 'write' }> => e.type === 'write')!;
    expect(again.path).toBe('.agents/tmp/phases/review-1/REVIEW.md');
    expect(again.content).toBe(renderReviewReport({ verdict, answers: { fixes: [{ fingerprint: fp, status: 'fixed', reason: 'r', kind: 'patch' }], patterns: [] }, fix: 'complete', checks: null }));
  });

  it('REPORT.md is asked for when the loop ends, DONE, STOPPED or cancelled, before the phases are archived', () => {
    const cancelled = transition(stateBuilder().loaded(), { kind: 'command', sessionId: 'session-owner', now: '2026-11-30T10:06:00.000Z', head: null, changedFiles: [], command: { kind: 'cancel', force: false } });
    expect(cancelled.effects.map((e) => e.type)).toEqual(['write-report', 'archive-run', 'notify']);
  });

  it('the outcome at Stop renders the facts the shell gathered: best round, cost and the report’s path', () => {
    const state = stateBuilder({ status: 'stopped', currentPhase: 'STOPPED', stopReason: 'max_iterations' }).build();
    const facts = { ...loopFacts({ state, verdicts: [], checks: [], totalChange: null, phasesDir: '.agents/tmp/phases/' }), best: 1, final: { tree: 't2', reviewedRound: 2, gap: { round: 2, best: 1, findings: { critical: 1, warning: 0, info: 0 }, checks: null, score: { round: 0.55, best: 1 } } } };
    const out = transition({ kind: 'ok', state }, { ...stop(), facts } as Event);
    expect(find(out.effects, 'notify')!.text.split('\n').slice(-2)).toEqual([
      '  Best attempt: round 1. The final tree (round 2) ranks below it: 1 critical more open; score 0.55 against 1.00. /minions:restore 1 (or `minions restore 1`) puts its files back.',
      '  Report: .agents/tmp/phases/REPORT.md',
    ]);
  });
});
