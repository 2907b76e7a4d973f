/**
 * Parallel subagents' SubagentStop hooks overlap (HOST-NOTES §3): the fifth review must be aggregated
 * exactly once, whatever the interleaving, and repeated or late stops must change nothing. Each round
 * starts from a copy of one prepared project so the rounds are independent and cheap.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Loop, messages, projectTestdir } from '../helpers/loop';
import { FIXER, REVIEWERS, agentType, cleanReview, fencedMessage, issue, issueAt, reviewWithIssues, reviewerFile, verdictFile, type Reviewer } from '../helpers/reviews';
import type { HookResult } from '../helpers/run';
import { cloneTestdir, removeTestdirs, type TestDir } from '../helpers/testdir';
import { countWrites } from '../helpers/watch';

afterAll(removeTestdirs);

const ROUNDS = 21;
/** The secondary scenarios repeat less: every hook process costs ~0.1 s of CPU, mostly node's start. */
const FEW = 2;
const FIXER_ROUNDS = 5;

function expectAllOk(results: HookResult[]): void {
  for (const r of results) {
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
  }
}

/** The reviewers named by the hooks' progress lines ("minions: R1 Iteration 1/3 — critic clean"), sorted. */
const arrivals = (results: HookResult[]): string[] =>
  messages(results)
    .flatMap((l) => /^minions: R1 Iteration \d+\/\d+ — ([a-z-]+) /.exec(l)?.[1] ?? [])
    .sort();
const ALL = [...REVIEWERS].sort();

const verdictLines = (results: HookResult[]): string[] => messages(results).filter((l) => /^minions: review \d+\/\d+: /.test(l));

describe('concurrent SubagentStops', () => {
  /** A loop in R1 with the five reviewers dispatched and nothing written yet. */
  let dispatched: TestDir;

  beforeAll(async () => {
    const loop = new Loop(projectTestdir());
    await loop.start('--done-when info --max-iterations 3 concurrency');
    const d = await loop.dispatchReviewers();
    expectAllOk(d);
    dispatched = loop.dir;
  });

  /** Checks one round: every reviewer recorded once, one verdict, the state advanced once. */
  function expectOneAggregation(loop: Loop, stops: HookResult[], withIssues: boolean, label: string): void {
    expectAllOk(stops);
    for (const s of stops) expect(s.stdout?.hookSpecificOutput, label).toBeUndefined();
    expect(arrivals(stops), label).toEqual(ALL);
    expect(verdictLines(stops), label).toHaveLength(1);
    expect(verdictLines(stops)[0], label).toMatch(withIssues ? /^minions: review 1\/3: 1 issue \(1 info\).* → R2: fixing$/ : /^minions: review 1\/3: no issues\b.* → DONE$/);
    const state = loop.state();
    expect(state.iterations, label).toHaveLength(1);
    expect(state, label).toMatchObject({ iteration: 1, currentPhase: withIssues ? 'R2' : 'DONE', status: withIssues ? 'in_progress' : 'done' });
    expect(state.iterations[0].r1.status, label).toBe('complete');
    for (const r of REVIEWERS) expect(state.iterations[0].r1.reviewers[r], `${label} ${r}`).toMatchObject({ status: 'valid', dispatches: 1, failures: 0 });
    expect(loop.dir.readJson(verdictFile(1)), label).toMatchObject({ iteration: 1, total_issues: withIssues ? 1 : 0, next: withIssues ? 'R2' : 'DONE' });
    const written = [
      'review-1/diff.patch',
      ...REVIEWERS.map((r) => `review-1/r1-${r}.json`),
      'review-1/r1-verdict.json',
      'review-1/REVIEW.md',
      ...(withIssues ? ['review-1/r2-findings.json'] : ['REPORT.md']),
      'run.json',
    ];
    expect(loop.dir.list('.agents/tmp/phases'), label).toEqual(written.sort());
  }

  const review = (r: Reviewer, withIssues: boolean) => (withIssues && r === 'pedant' ? reviewWithIssues(r, [issue({ severity: 'info' })]) : cleanReview(r));

  it(`five reviewers stopping at once aggregate exactly once (${ROUNDS} rounds: clean, issues, JSON from the final messages)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const loop = new Loop(cloneTestdir(dispatched));
      const scenario = (['clean', 'issues', 'messages'] as const)[round % 3]!;
      const withIssues = scenario !== 'clean';
      const label = `round ${round} (${scenario})`;
      let stops: HookResult[];
      if (scenario !== 'messages') for (const r of REVIEWERS) loop.writeReview(1, r, review(r, withIssues));
      const writes = countWrites(loop.dir.abs('.agents/tmp/phases/review-1'));
      try {
        if (scenario === 'messages') {
          stops = await Promise.all(REVIEWERS.map((r) => loop.reviewerStop(r, { message: fencedMessage(review(r, true)) })));
        } else {
          stops = await Promise.all(REVIEWERS.map((r) => loop.reviewerStop(r)));
        }
        // One verdict write (and one findings brief when the fixer has work), however the five interleave.
        expect(await writes.settle('r1-verdict.json'), label).toBe(1);
        expect(writes.count('r2-findings.json'), label).toBe(withIssues ? 1 : 0);
        if (scenario === 'messages') for (const r of REVIEWERS) expect(writes.count(`r1-${r}.json`), `${label} ${r}`).toBe(1);
      } finally {
        writes.close();
      }
      // Written as read: the contract's shape, the counts from the findings.
      if (scenario === 'messages') for (const r of REVIEWERS) expect(loop.dir.readJson(reviewerFile(1, r))).toEqual({ issues: review(r, true).issues, summary: review(r, true).summary });
      expectOneAggregation(loop, stops, withIssues, label);
    }
  });

  it(`every reviewer's stop delivered twice, all ten at once: one aggregation (${FEW} rounds)`, async () => {
    for (let round = 0; round < FEW; round++) {
      const loop = new Loop(cloneTestdir(dispatched));
      for (const r of REVIEWERS) loop.writeReview(1, r, review(r, round % 2 === 1));
      const stops = await Promise.all([...REVIEWERS, ...REVIEWERS].map((r) => loop.reviewerStop(r)));
      expectOneAggregation(loop, stops, round % 2 === 1, `round ${round}`);
      // The second stop of each reviewer found it recorded already: silent.
      expect(stops.filter((s) => s.raw === '')).toHaveLength(5);
    }
  });

  it(`an invalid reviewer recorded while the others stop advances to iteration 2 exactly once (${2 * FEW} rounds)`, async () => {
    // The witness has already been continued once for bad output; its second failure is final.
    const prepared = new Loop(cloneTestdir(dispatched));
    prepared.writeReview(1, 'witness', 'not json');
    const first = await prepared.reviewerStop('witness');
    expect(first.stdout).toMatchObject({ decision: 'block' });
    expect(first.stdout?.reason).toMatch(/^Your review at \/\S+ cannot be read as written: no JSON object was found in the file/);
    for (let round = 0; round < 2 * FEW; round++) {
      const loop = new Loop(cloneTestdir(prepared.dir));
      for (const r of REVIEWERS) if (r !== 'witness') loop.writeReview(1, r, cleanReview(r));
      // The witness's stop is delivered twice: the copy that lands after the aggregation must not count
      // for iteration 2 (FINDINGS.md #1), whichever order the six processes take the lock in.
      const stops = await Promise.all([...REVIEWERS, 'witness' as Reviewer].map((r) => loop.reviewerStop(r, { stopHookActive: r === 'witness' })));
      expectAllOk(stops);
      expect(arrivals(stops)).toEqual(ALL);
      expect(verdictLines(stops)).toHaveLength(1);
      expect(verdictLines(stops)[0]).toMatch(/^minions: review 1\/3: no findings to fix \(a review was invalid\).* → R1: re-reviewing \(iteration 2\)$/);
      const state = loop.state();
      expect(state).toMatchObject({ iteration: 2, currentPhase: 'R1' });
      expect(state.iterations.map((it: { iteration: number }) => it.iteration)).toEqual([1, 2]);
      expect(state.iterations[0].r1.reviewers.witness).toMatchObject({ status: 'invalid', failures: 2 });
      expect(state.iterations[1].r1.reviewers.witness).toMatchObject({ status: 'pending', dispatches: 0, failures: 0 });
      expect(loop.dir.exists('.agents/tmp/phases/review-2')).toBe(true);
      // The next round's change under review, once; no fix-delta.patch, since no fixer ran.
      expect(loop.dir.list('.agents/tmp/phases/review-2')).toEqual(['diff.patch']);
    }
  });

  it(`five dispatches at once are all recorded (${FEW} rounds)`, async () => {
    const started = new Loop(projectTestdir());
    await started.start();
    for (let round = 0; round < FEW; round++) {
      const loop = new Loop(cloneTestdir(started.dir));
      const results = await Promise.all([...REVIEWERS, 'critic' as Reviewer].map((r) => loop.dispatch(agentType(r))));
      expectAllOk(results);
      // Exactly one of the two critic dispatches is denied, whichever came second.
      expect(results.filter((r) => r.stdout?.hookSpecificOutput?.permissionDecision === 'deny')).toHaveLength(1);
      const reviewers = loop.state().iterations[0].r1.reviewers;
      for (const r of REVIEWERS) expect(reviewers[r]).toMatchObject({ status: 'running', dispatches: 1 });
    }
  });
});

describe('repeated and late stops change nothing', () => {
  /** R2 with the fixer dispatched and its summary written. */
  let fixing: TestDir;

  beforeAll(async () => {
    const loop = new Loop(projectTestdir());
    await loop.start('--max-iterations 3 late');
    await loop.reviewRound(1, Object.fromEntries(REVIEWERS.map((r) => [r, r === 'critic' ? reviewWithIssues(r) : cleanReview(r)])));
    expect(loop.state().currentPhase).toBe('R2');
    expect((await loop.dispatch(FIXER)).raw).toBe('');
    loop.writeFixSummary(1);
    fixing = loop.dir;
  });

  it(`reviewers stopping again after the verdict: nothing changes (${FEW} rounds)`, async () => {
    for (let round = 0; round < FEW; round++) {
      const loop = new Loop(cloneTestdir(fixing));
      const before = loop.snapshot();
      const stops = await Promise.all(REVIEWERS.map((r) => loop.reviewerStop(r, { message: fencedMessage(reviewWithIssues(r)) })));
      expectAllOk(stops);
      expect(stops.map((s) => s.raw)).toEqual(['', '', '', '', '']);
      expect(loop.snapshot()).toEqual(before);
    }
  });

  it(`a fixer stopping three times at once advances once; later fixer stops change nothing (${FIXER_ROUNDS} rounds)`, async () => {
    for (let round = 0; round < FIXER_ROUNDS; round++) {
      const loop = new Loop(cloneTestdir(fixing));
      const stops = await Promise.all([loop.fixerStop(), loop.fixerStop({ stopHookActive: true }), loop.fixerStop()]);
      expectAllOk(stops);
      expect(messages(stops)).toEqual(['minions: fix round 1 done (1 fixed) → R1, Iteration 2/3']);
      const state = loop.state();
      expect(state).toMatchObject({ iteration: 2, currentPhase: 'R1' });
      expect(state.iterations.map((it: { iteration: number }) => it.iteration)).toEqual([1, 2]);
      expect(state.iterations[0].r2).toEqual({ status: 'complete', dispatches: 1, failures: 0, checkBlocks: 0, layer0Blocks: 0 });
      if (round % 3 === 0) {
        const before = loop.snapshot();
        const again = await loop.fixerStop();
        expect(again).toMatchObject({ code: 0, raw: '', stderr: '' });
        expect(loop.snapshot()).toEqual(before);
      }
    }
  });

  it('after DONE, late reviewer and fixer stops change nothing and say nothing', async () => {
    const loop = new Loop(projectTestdir());
    await loop.start();
    await loop.reviewRound(1, Object.fromEntries(REVIEWERS.map((r) => [r, cleanReview(r)])));
    expect(loop.state().currentPhase).toBe('DONE');
    const before = loop.snapshot();
    const late = await Promise.all([...REVIEWERS.map((r) => loop.reviewerStop(r)), loop.fixerStop()]);
    expectAllOk(late);
    expect(late.map((s) => s.raw)).toEqual(['', '', '', '', '', '']);
    expect(loop.snapshot()).toEqual(before);
  });

  // FINDINGS.md #1 (fixed in 81e65b9): a reviewer's SubagentStop was not tied to a dispatch in the current iteration.
  it('a late reviewer stop from iteration 1 arriving in iteration 2 changes nothing', async () => {
    const loop = new Loop(cloneTestdir(fixing));
    await loop.fixerStop();
    expect(loop.state()).toMatchObject({ iteration: 2, currentPhase: 'R1' });
    const before = loop.snapshot();
    // The critic of iteration 1 (its final message still carries its old findings) stops late.
    const late = await loop.reviewerStop('critic', { message: fencedMessage(reviewWithIssues('critic')) });
    expect(late).toMatchObject({ code: 0, raw: '', stderr: '' });
    expect(loop.snapshot()).toEqual(before);
  });

  it('a late reviewer stop without output in iteration 2 neither blocks nor counts a failure', async () => {
    const loop = new Loop(cloneTestdir(fixing));
    await loop.fixerStop();
    const before = loop.snapshot();
    const late = await loop.reviewerStop('pedant', { message: 'Done.' });
    expect(late.stdout).toBeNull();
    expect(loop.snapshot()).toEqual(before);
  });

  it('a late fixer stop from iteration 1 arriving in iteration 2\'s R2 (before its fixer runs) changes nothing', async () => {
    const loop = new Loop(cloneTestdir(fixing));
    await loop.fixerStop();
    await loop.reviewRound(2, Object.fromEntries(REVIEWERS.map((r) => [r, r === 'pedant' ? reviewWithIssues(r, [issueAt('src/cart.ts', 9)]) : cleanReview(r)])));
    expect(loop.state()).toMatchObject({ iteration: 2, currentPhase: 'R2' });
    expect(loop.state().iterations[1].r2).toMatchObject({ status: 'pending', dispatches: 0 });
    const before = loop.snapshot();
    const late = await loop.fixerStop({ message: 'Fixed round 1.' });
    expect(late).toMatchObject({ code: 0, raw: '', stderr: '' });
    expect(loop.snapshot()).toEqual(before);
  });
});
