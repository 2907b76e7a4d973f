/**
 * The converging loop through the built hook processes: one identity per defect across reviewers and
 * rounds, grounding, re-review statuses, the fixer's declines, and each stop rule ending a real loop.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Loop, additionalContext, blockReason, messages, projectTestdir, type FixAnswer } from '../helpers/loop';
import { FIXER, REVIEWERS, cleanReview, findingsFile, fixSummaryFile, issue, issueAt, reviewWithIssues, verdictFile, type Issue, type Reviewer } from '../helpers/reviews';
import { removeTestdirs } from '../helpers/testdir';

afterEach(removeTestdirs);

async function startLoop(args: string): Promise<Loop> {
  const loop = new Loop(projectTestdir());
  const started = await loop.start(args);
  expect(additionalContext(started)).toContain('[PHASE R1]');
  return loop;
}

/** One R1: every reviewer writes (clean unless given findings) and stops at once. Returns the verdict. */
async function review(loop: Loop, n: number, findings: Partial<Record<Reviewer, Issue[]>>): Promise<any> {
  const reviews = Object.fromEntries(REVIEWERS.map((r) => [r, findings[r] ? reviewWithIssues(r, findings[r]) : cleanReview(r)]));
  await loop.reviewRound(n, reviews);
  return loop.dir.readJson(verdictFile(n));
}

/** One R2: the fixer is dispatched, answers every open finding (or as told), stops. */
async function fix(loop: Loop, n: number, answers?: FixAnswer[], text?: string): Promise<string[]> {
  const dispatched = await loop.dispatch(FIXER);
  expect(dispatched.stdout).toBeNull();
  loop.writeFixSummary(n, { answers, text });
  return messages([await loop.fixerStop()]);
}

// Distinct defects at distinct lines of the fixture's src/cart.ts.
const A = issue(); // line 5, the loop bound
const B = issueAt('src/cart.ts', 9, { category: 'logic-error', description: 'the discount is not clamped', suggestion: 'clamp pct to [0, 1]' });
const C = issueAt('src/cart.ts', 12, { category: 'swallowed-error', description: 'parse errors vanish', suggestion: 'rethrow with context' });
const D = issueAt('src/cart.ts', 15, { category: 'naming', severity: 'info', description: 'label text', suggestion: 'use a template' });

describe('stop rules end three-round loops', () => {
  it('the same open finding after two fix rounds: not no_progress but the class ladder, audit-first then stuck_issue', async () => {
    const loop = await startLoop('review the cart');
    expect((await review(loop, 1, { critic: [A, B] })).next).toBe('R2');
    await fix(loop, 1);
    const v2 = await review(loop, 2, { critic: [A] });
    expect(v2.statuses.map((s: any) => s.status).sort()).toEqual(['FIXED', 'NOT_FIXED']);
    expect(v2).toMatchObject({ next: 'R2', classes: [expect.objectContaining({ rung: 'audit' })] });
    await fix(loop, 2);
    const v3 = await review(loop, 3, { pedant: [{ ...A, line: 6, description: 'reworded: still off by one' }] });
    expect(v3).toMatchObject({ next: 'STOPPED', stopReason: 'stuck_issue' });
    expect(loop.state()).toMatchObject({ status: 'stopped', currentPhase: 'STOPPED', stopReason: 'stuck_issue' });
    const end = messages([await loop.stop()]);
    expect(end[0]).toMatch(/^minions: STOPPED — a finding is stuck: finding class [0-9a-f]{12} \(correctness: src\/cart\.ts:\d\) is still open after fix rounds 1 and 2; the critic gave no structural diagnosis/);
  });

  it('stuck_issue (--stuck-rounds 1): one finding NOT_FIXED in round 2 stops before its audit-first round', async () => {
    const loop = await startLoop('--stuck-rounds 1 review the cart');
    await review(loop, 1, { critic: [A] });
    await fix(loop, 1);
    const v2 = await review(loop, 2, { critic: [A, B] });
    expect(v2).toMatchObject({ next: 'STOPPED', stopReason: 'stuck_issue' });
    expect(v2.stopDetail).toMatch(/src\/cart\.ts:5 \(correctness\) has not been fixed in 1 consecutive round: it needs structural work/);
    expect(messages([await loop.stop()])[0]).toMatch(/STOPPED — a finding is stuck: .*needs structural work/);
  });

  it('structural_rework_needed: six critical findings in round 3', async () => {
    const loop = await startLoop('review the cart');
    await review(loop, 1, { critic: [A] });
    await fix(loop, 1);
    await review(loop, 2, { critic: [B] });
    await fix(loop, 2);
    const criticals = [3, 4, 5, 6, 9, 12].map((line) => issueAt('src/cart.ts', line, { severity: 'critical', category: `defect-${line}` }));
    const v3 = await review(loop, 3, { 'security-reviewer': criticals });
    expect(v3).toMatchObject({ critical: 6, next: 'STOPPED', stopReason: 'structural_rework_needed' });
    expect(messages([await loop.stop()])[0]).toMatch(/STOPPED — structural rework needed: 6 critical findings in one round \(more than 5\)/);
  });

  it('max_iterations (--max-iterations 3): a different finding every round', async () => {
    const loop = await startLoop('--max-iterations 3 review the cart');
    await review(loop, 1, { critic: [A] });
    await fix(loop, 1);
    await review(loop, 2, { critic: [B] });
    await fix(loop, 2);
    const v3 = await review(loop, 3, { critic: [C] });
    expect(v3).toMatchObject({ next: 'STOPPED', stopReason: 'max_iterations' });
    const end = messages([await loop.stop()]);
    expect(end[0]).toMatch(/STOPPED — the iteration budget is spent/);
    expect(end[1]).toMatch(/warning src\/cart\.ts:12 — parse errors vanish/);
  });

  it('no_progress: two near-identical fix summaries about the same findings', async () => {
    const loop = await startLoop('review the cart');
    await review(loop, 1, { critic: [A, B] });
    // Near-identical, not the same string: the same words, punctuated and cased differently.
    const first = '- [fixed] src/cart.ts:5 correctness — changed the loop bound\n- [fixed] src/cart.ts:9 correctness — clamped pct\nTests run: npm test, 9 passed\n';
    const second = '* [fixed] src/cart.ts:5 (correctness): Changed the loop bound.\n* [fixed] src/cart.ts:9 (correctness): Clamped pct.\n\nTests run: `npm test`, 9 passed.\n';
    await fix(loop, 1, undefined, first);
    await review(loop, 2, { critic: [A, C] });
    const lines = await fix(loop, 2, undefined, second);
    expect(loop.dir.read(fixSummaryFile(2))).not.toBe(loop.dir.read(fixSummaryFile(1)));
    expect(lines).toEqual(['minions: fix round 2 repeated the previous one → STOPPED (no progress)']);
    expect(loop.state()).toMatchObject({ status: 'stopped', stopReason: 'no_progress', stopDetail: expect.stringMatching(/fix summaries of rounds 1 and 2 are 100% similar/) });
  });

  /** A fix round that changes src/cart.ts as `edit` says, with a summary of its own words each round. */
  async function fixWith(loop: Loop, n: number, edit: (text: string) => string, text: string): Promise<string[]> {
    await loop.dispatch(FIXER);
    loop.dir.write('src/cart.ts', edit(loop.dir.read('src/cart.ts')));
    loop.writeFixSummary(n, { text });
    return messages([await loop.fixerStop()]);
  }

  it('no_progress: the same code change twice about the same findings, in different words', async () => {
    const loop = await startLoop('review the cart');
    await review(loop, 1, { critic: [A, B] });
    const guard = (t: string) => `${t}export const GUARD = (items: unknown[]): boolean => items.length > 0;\n`;
    await fixWith(loop, 1, guard, 'Round one: I added an emptiness guard for the cart items and ran the unit tests, which passed.\n');
    await review(loop, 2, { critic: [A, C] });
    const lines = await fixWith(loop, 2, guard, 'Second pass. The loop bound needed a precondition, so a helper now checks for items first; typecheck is clean.\n');
    expect(lines).toEqual(['minions: fix round 2 repeated the previous one → STOPPED (no progress)']);
    expect(loop.state()).toMatchObject({ stopReason: 'no_progress', stopDetail: 'fix rounds 1 and 2 made the same code change about the same findings: the fixer is repeating itself' });
  });

  it('no_progress: a fix round that undoes the one before', async () => {
    const loop = await startLoop('review the cart');
    await review(loop, 1, { critic: [A, B] });
    await fixWith(loop, 1, (t) => t.replace('i <= items.length', 'i < items.length'), 'Changed the loop bound to stop before the end of the array; tests pass.\n');
    // B is still open; the loop bound is reported again, now quoting the line as the fix left it.
    await review(loop, 2, { critic: [{ ...A, evidence: 'for (let i = 0; i < items.length; i++) sum += items[i].price * items[i].qty;', description: 'the loop now skips the sentinel' }, B] });
    const lines = await fixWith(loop, 2, (t) => t.replace('i < items.length', 'i <= items.length'), 'Reverted: the sentinel item is intended, so the loop must include the last index.\n');
    expect(lines).toEqual(['minions: fix round 2 repeated the previous one → STOPPED (no progress)']);
    expect(loop.state().stopDetail).toBe('fix round 2 undid the code change of round 1 about the same findings: the fixer is going back and forth');
  });

  it('near-identical summaries over different code changes are progress, not a fixpoint', async () => {
    const loop = await startLoop('review the cart');
    await review(loop, 1, { critic: [A, B] });
    const summary = '- [fixed] src/cart.ts:5 correctness — changed the loop bound\n- [fixed] src/cart.ts:9 correctness — clamped pct\n';
    await fixWith(loop, 1, (t) => t.replace('amount - amount * pct', 'amount - amount * Math.min(1, pct)'), summary);
    await review(loop, 2, { critic: [A, C] });
    const lines = await fixWith(loop, 2, (t) => t.replace('i <= items.length', 'i < items.length'), summary);
    expect(lines[0]).toMatch(/^minions: fix round 2 done .* → R1, Iteration 3\/5/);
    expect(loop.state()).toMatchObject({ status: 'in_progress', currentPhase: 'R1', iteration: 3 });
  });
});

describe('a loop that converges', () => {
  it('ends DONE with a REGRESSED finding caught on the way', async () => {
    const loop = await startLoop('review the cart');
    const v1 = await review(loop, 1, { critic: [A], 'silent-failure-hunter': [C] });
    const [fpA, fpC] = [v1.findings[0].fingerprint, v1.findings[1].fingerprint];
    await fix(loop, 1);
    const v2 = await review(loop, 2, { 'silent-failure-hunter': [C] });
    expect(v2.statuses).toEqual([expect.objectContaining({ fingerprint: fpA, status: 'FIXED' }), expect.objectContaining({ fingerprint: fpC, status: 'NOT_FIXED' })]);
    await fix(loop, 2);
    // The off-by-one is back, reported by another reviewer in other words at another line.
    const v3 = await review(loop, 3, { witness: [{ ...A, line: 4, description: 'total() reads items[items.length]' }] });
    expect(v3.findings).toEqual([expect.objectContaining({ fingerprint: fpA, status: 'REGRESSED', toFixer: true })]);
    expect(v3.statuses).toEqual([expect.objectContaining({ fingerprint: fpC, status: 'FIXED' }), expect.objectContaining({ fingerprint: fpA, status: 'REGRESSED' })]);
    expect(v3.pitfalls).toEqual([expect.objectContaining({ fingerprint: fpA, seen: 2 })]);
    // Known pitfalls reach the fixer's prompt and the next reviewers.
    expect(additionalContext(await loop.stop())).toMatch(/Known pitfalls[\s\S]*\[seen 2x\] src\/cart\.ts correctness/);
    await fix(loop, 3);
    const r1 = additionalContext(await loop.stop())!;
    expect(r1).toContain('[PHASE R1] minions review — Iteration 4/5');
    expect(r1).toContain('.agents/tmp/phases/review-3/r2-findings.json');
    expect(r1).toMatch(/Known pitfalls[\s\S]*\[seen 2x\]/);
    const v4 = await review(loop, 4, {});
    expect(v4).toMatchObject({ overall_verdict: 'clean', next: 'DONE' });
    expect(v4.statuses).toEqual([expect.objectContaining({ fingerprint: fpA, status: 'FIXED' })]);
    expect(messages([await loop.stop()])[0]).toMatch(/^minions: DONE — review 4\/5 found no issues after 3 fix rounds/);
  });

  it('the same defect from three reviewers plus an ungrounded finding: the fixer gets one finding', async () => {
    const loop = await startLoop('review the cart');
    await loop.dispatchReviewers();
    // An info finding: an ungrounded critical or warning would go to the fixer, unverified (test/hooks/reader.test.ts).
    const ghost = { ...issue(), file: 'src/payments.ts', line: 40, evidence: 'charge(card, amount)', category: 'injection', severity: 'info' as const };
    const reviews: Partial<Record<Reviewer, Issue[]>> = {
      critic: [A],
      pedant: [{ ...A, category: 'off-by-one', severity: 'info', description: 'off by one' }],
      witness: [{ ...A, category: 'bug', severity: 'critical', description: 'total() adds undefined.price: TypeError on every cart', suggestion: 'loop while i < items.length; add a test' }],
      'security-reviewer': [ghost],
    };
    for (const r of REVIEWERS) loop.writeReview(1, r, reviews[r] ? reviewWithIssues(r, reviews[r]) : cleanReview(r));
    const stops = await loop.reviewersStop();
    // The reviewer whose only finding matches no file is told so, once.
    const told = stops[REVIEWERS.indexOf('security-reviewer')]!;
    expect(blockReason(told)).toMatch(/^1 finding in \/\S+ does not match the files \(ungrounded\):\n- issues\[0\] \(info, src\/payments\.ts:40: [^)]*\): src\/payments\.ts does not exist/);
    expect(loop.dir.exists(verdictFile(1))).toBe(false);
    await loop.reviewerStop('security-reviewer');
    const v1 = loop.dir.readJson(verdictFile(1));
    expect(v1.findings).toHaveLength(2);
    expect(v1.findings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ reporters: ['critic', 'pedant', 'witness'], severity: 'critical', toFixer: true, description: 'total() adds undefined.price: TypeError on every cart' }),
        expect.objectContaining({ file: 'src/payments.ts', toFixer: false, grounding: { status: 'ungrounded', reason: 'src/payments.ts does not exist', reading: { file: null, evidence: null } } }),
      ]),
    );
    expect(v1).toMatchObject({ total_issues: 1, critical: 1, next: 'R2' });
    expect(loop.dir.readJson(findingsFile(1)).findings).toHaveLength(1);
    await fix(loop, 1);
    expect((await review(loop, 2, {})).next).toBe('DONE');
  });

  it('a finding the fixer declined twice and that is raised again is contested: reported, not fixed again, DONE', async () => {
    // Today's rule (every finding blocks): the info finding D is what is contested.
    const loop = await startLoop('--done-when info review the cart');
    const v1 = await review(loop, 1, { critic: [D], pedant: [B] });
    const fpD = v1.findings.find((f: any) => f.file === 'src/cart.ts' && f.line === 15).fingerprint;
    const decline = (n: number): FixAnswer[] => loop.openFingerprints(n).map((fingerprint) => (fingerprint === fpD ? { fingerprint, status: 'declined', reason: 'string concatenation is the house style here' } : { fingerprint, status: 'fixed', kind: 'patch' }));
    await fix(loop, 1, decline(1));
    await review(loop, 2, { critic: [D], witness: [C] });
    await fix(loop, 2, decline(2));
    const v3 = await review(loop, 3, { critic: [D] });
    expect(v3.findings).toEqual([expect.objectContaining({ fingerprint: fpD, status: 'CONTESTED', toFixer: false })]);
    expect(v3).toMatchObject({ overall_verdict: 'clean', next: 'DONE' });
    expect(messages([await loop.stop()])[0]).toMatch(/DONE — review 3\/5 found no issues after 2 fix rounds \(1 contested finding the fixer declined twice: see the verdict\)/);
  });
});
