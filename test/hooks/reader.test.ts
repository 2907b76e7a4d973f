/**
 * The reader's policy through the hook processes: the file is the review (a syntax error is sent back,
 * not replaced by the final message), the shortest clean reviews, paths and quotes as models write them,
 * and an ungrounded critical that reaches the fixer unverified and keeps the loop from DONE until it is
 * fixed or declined.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Loop, blockReason, messages, projectTestdir } from '../helpers/loop';
import { FIXER, REVIEWERS, cleanReview, findingsFile, fixAnswersFile, issue, reviewWithIssues, reviewerFile, verdictFile, type Reviewer } from '../helpers/reviews';
import { removeTestdirs } from '../helpers/testdir';

afterAll(removeTestdirs);

const newLoop = (): Loop => new Loop(projectTestdir());
const others = (but: Reviewer): Reviewer[] => REVIEWERS.filter((r) => r !== but);

describe.concurrent('the file is the review', () => {
  it('a file with a syntax error is sent back, not replaced by a different review in the final message', async () => {
    const loop = newLoop();
    await loop.start();
    await loop.dispatchReviewers(['critic']);
    const broken = JSON.stringify(reviewWithIssues('critic'), null, 2).replace('"line": 5,', '"line": 5');
    loop.writeReview(1, 'critic', broken);
    const example = '```json\n{"issues": [], "summary": {"verdict": "clean"}}\n```';
    const stop = await loop.reviewerStop('critic', { message: `Done. The format is:\n${example}` });
    const reason = blockReason(stop)!;
    expect(reason).toMatch(/^Your review at \/\S+r1-critic\.json cannot be read as written: the JSON is not valid: line \d+: a comma is missing before "description"/);
    expect(reason).toContain('your final message does not replace it');
    expect(reason).not.toMatch(/position \d|Unexpected token/);
    // The file is left as the reviewer wrote it, and nothing was recorded.
    expect(loop.dir.read(reviewerFile(1, 'critic'))).toBe(broken);
    expect(loop.state().iterations[0].r1.reviewers.critic).toMatchObject({ status: 'running', failures: 1 });

    loop.writeReview(1, 'critic', reviewWithIssues('critic'));
    const again = await loop.reviewerStop('critic', { stopHookActive: true });
    expect(blockReason(again)).toBeUndefined();
    expect(loop.state().iterations[0].r1.reviewers.critic).toMatchObject({ status: 'valid', counts: { critical: 0, warning: 1, info: 0 } });
  });

  it('the shortest clean reviews: {"issues": []} in the file, or "No issues found." with no file', async () => {
    const loop = newLoop();
    await loop.start();
    await loop.dispatchReviewers();
    loop.writeReview(1, 'critic', '{"issues": []}');
    for (const r of REVIEWERS) if (r !== 'critic' && r !== 'pedant') loop.writeReview(1, r, cleanReview(r));
    const stops = await Promise.all(REVIEWERS.map((r) => loop.reviewerStop(r, r === 'pedant' ? { message: 'No issues found.' } : {})));
    for (const stop of stops) expect(blockReason(stop)).toBeUndefined();
    expect(messages(stops).find((l) => l.includes('— pedant'))).toMatch(/pedant clean, taken from its final message/);
    expect(loop.dir.readJson(reviewerFile(1, 'pedant'))).toEqual({ issues: [], summary: { critical: 0, warning: 0, info: 0, verdict: 'clean' } });
    expect(loop.dir.readJson(verdictFile(1))).toMatchObject({ overall_verdict: 'clean', next: 'DONE' });
    expect(loop.state()).toMatchObject({ currentPhase: 'DONE' });
  });

  it('a review in a fence with prose, `findings`, synonyms and src/cart.ts:5-style paths with gutters is read as meant, and REVIEW.md says so', async () => {
    const loop = newLoop();
    await loop.start();
    const text = [
      'Here is my review of the change.',
      '```json',
      JSON.stringify({ findings: [{ severity: 'P0', type: 'off-by-one', path: '`src/cart.ts:5`', message: 'the loop reads one item past the end', code: `L5: ${issue().evidence}` }] }, null, 2),
      '```',
    ].join('\n');
    const { stops } = await loop.reviewRound(1, { ...Object.fromEntries(others('critic').map((r) => [r, cleanReview(r)])), critic: text });
    for (const stop of stops) expect(blockReason(stop)).toBeUndefined();
    const verdict = loop.dir.readJson(verdictFile(1));
    expect(verdict.findings).toEqual([expect.objectContaining({ severity: 'critical', file: 'src/cart.ts', line: 5, toFixer: true, unverified: false, grounding: expect.objectContaining({ status: 'grounded' }) })]);
    expect(verdict.findings[0].interpretations).toEqual(
      expect.arrayContaining(['read `type` as `category`', 'read `code` as `evidence`', 'severity "P0" read as critical', 'path "`src/cart.ts:5`" read as src/cart.ts', 'line 5 taken from the path']),
    );
    expect(verdict.findings[0].grounding.reading).toEqual({ file: 'as-written', evidence: ['gutter'] });
    expect(verdict.reviewers.critic.notes).toEqual(expect.arrayContaining(['read the JSON inside the ``` fence on line 2', 'read `findings` as `issues`']));
    const md = loop.dir.read('.agents/tmp/phases/review-1/REVIEW.md');
    expect(md).toContain('## Read as meant');
    expect(md).toContain('severity "P0" read as critical');
  });
});

describe.concurrent('never drop a finding silently', () => {
  /** A critical whose quote is nowhere in the file: the reviewer is shown it, insists, and it goes to the fixer unverified. */
  async function unverifiedRound(loop: Loop) {
    await loop.start('--max-iterations 4');
    await loop.dispatchReviewers();
    const ghost = issue({ severity: 'critical', category: 'injection', description: 'the total is built from user input', evidence: 'eval(userInput)' });
    for (const r of REVIEWERS) loop.writeReview(1, r, r === 'security-reviewer' ? reviewWithIssues(r, [ghost, issue()]) : cleanReview(r));
    const stops = await loop.reviewersStop();
    const told = blockReason(stops[REVIEWERS.indexOf('security-reviewer')]!)!;
    // One of two findings misses: shown by name, with what ungrounded costs.
    expect(told).toMatch(/^1 finding in \/\S+ does not match the files \(ungrounded\):\n- issues\[0\] \(critical, src\/cart\.ts:5: the total is built from user input\): the quoted evidence does not occur in src\/cart\.ts/);
    expect(told).toContain('not fixed and not counted');
    const insisted = await loop.reviewerStop('security-reviewer', { stopHookActive: true });
    expect(blockReason(insisted)).toBeUndefined();
    const verdict = loop.dir.readJson(verdictFile(1));
    const unverified = verdict.findings.find((f: any) => f.unverified);
    expect(unverified).toMatchObject({ severity: 'critical', toFixer: true, grounding: { status: 'ungrounded' } });
    expect(verdict.next).toBe('R2');
    const brief = loop.dir.readJson(findingsFile(1)).findings.find((f: any) => f.fingerprint === unverified.fingerprint);
    expect(brief).toMatchObject({ unverified: true, unverifiedBecause: 'the quoted evidence does not occur in src/cart.ts' });
    expect(loop.dir.read('.agents/tmp/phases/review-1/REVIEW.md')).toContain('UNVERIFIED (sent to the fixer to check)');
    return unverified.fingerprint as string;
  }

  it('an ungrounded critical reaches the fixer unverified; declined, it is closed and the loop may end DONE', async () => {
    const loop = newLoop();
    const fp = await unverifiedRound(loop);
    await loop.dispatch(FIXER);
    const answers = loop.openFingerprints(1).map((fingerprint) =>
      fingerprint === fp ? { fingerprint, status: 'declined' as const, reason: 'there is no eval in src/cart.ts' } : { fingerprint, status: 'fixed' as const, kind: 'patch' as const },
    );
    loop.dir.write('src/cart.ts', loop.dir.read('src/cart.ts').replace('i <= items.length', 'i < items.length'));
    loop.writeFixSummary(1, { answers });
    expect(blockReason(await loop.fixerStop())).toBeUndefined();
    // The reviewer reports it again, ungrounded: one decline of an unverified finding closes it.
    const ghost = issue({ severity: 'critical', category: 'injection', description: 'the total is built from user input', evidence: 'eval(userInput)' });
    const { stops } = await loop.reviewRound(2, Object.fromEntries(REVIEWERS.map((r) => [r, r === 'security-reviewer' ? reviewWithIssues(r, [ghost]) : cleanReview(r)])));
    await loop.reviewerStop('security-reviewer', { stopHookActive: true });
    void stops;
    const verdict = loop.dir.readJson(verdictFile(2));
    expect(verdict.findings).toEqual([expect.objectContaining({ fingerprint: fp, unverified: true, toFixer: false, status: 'CONTESTED' })]);
    expect(verdict.next).toBe('DONE');
  });

  it('an unverified critical the fixer neither fixes nor declines keeps the loop from DONE', async () => {
    const loop = newLoop();
    const fp = await unverifiedRound(loop);
    await loop.dispatch(FIXER);
    // Answered could_not_fix: not closed.
    const answers = loop.openFingerprints(1).map((fingerprint) =>
      fingerprint === fp ? { fingerprint, status: 'could_not_fix' as const, reason: 'cannot find it' } : { fingerprint, status: 'fixed' as const, kind: 'patch' as const },
    );
    loop.writeFixSummary(1, { answers });
    expect(blockReason(await loop.fixerStop())).toBeUndefined();
    const ghost = issue({ severity: 'critical', category: 'injection', description: 'the total is built from user input', evidence: 'eval(userInput)' });
    await loop.reviewRound(2, Object.fromEntries(REVIEWERS.map((r) => [r, r === 'security-reviewer' ? reviewWithIssues(r, [ghost]) : cleanReview(r)])));
    await loop.reviewerStop('security-reviewer', { stopHookActive: true });
    const verdict = loop.dir.readJson(verdictFile(2));
    expect(verdict.findings.find((f: any) => f.fingerprint === fp)).toMatchObject({ unverified: true, toFixer: true });
    expect(verdict.next).not.toBe('DONE');
    expect(loop.state().currentPhase).toBe('R2');
  });

  it("the fixer's answers as models write them (FIXED, no kind, a fence, a prefix) are read and written back as read", async () => {
    const loop = newLoop();
    await loop.start();
    await loop.reviewRound(1, Object.fromEntries(REVIEWERS.map((r) => [r, r === 'critic' ? reviewWithIssues(r) : cleanReview(r)])));
    await loop.dispatch(FIXER);
    const [fp] = loop.openFingerprints(1);
    loop.writeFixSummary(1);
    loop.dir.write(fixAnswersFile(1), `Here are my answers:\n\`\`\`json\n{"fixes": [{"fingerprint": "${fp!.slice(0, 8).toUpperCase()}", "status": "FIXED",}]}\n\`\`\`\n`);
    const stop = await loop.fixerStop();
    expect(blockReason(stop)).toBeUndefined();
    expect(stop.stdout?.systemMessage).toMatch(/fix round 1 done \(1 fixed\)/);
    expect(loop.dir.readJson(fixAnswersFile(1))).toEqual({ fixes: [{ fingerprint: fp, status: 'fixed', kind: 'patch' }], patterns: [] });
    expect(loop.dir.read('.agents/tmp/phases/review-1/REVIEW.md')).toContain('status "FIXED" read as fixed');
  });

  it('partially_fixed is sent back with what to write instead', async () => {
    const loop = newLoop();
    await loop.start();
    await loop.reviewRound(1, Object.fromEntries(REVIEWERS.map((r) => [r, r === 'critic' ? reviewWithIssues(r) : cleanReview(r)])));
    await loop.dispatch(FIXER);
    const [fp] = loop.openFingerprints(1);
    loop.writeFixSummary(1);
    loop.dir.write(fixAnswersFile(1), JSON.stringify({ fixes: [{ fingerprint: fp, status: 'partially_fixed' }] }));
    const reason = blockReason(await loop.fixerStop())!;
    expect(reason).toMatch(/fixes\[0\]\.status is "partially_fixed": write one of "fixed", "declined", "could_not_fix" or "escalate" \(a partial fix is "could_not_fix"/);
    expect(reason).toContain(loop.dir.abs(fixAnswersFile(1)));
  });
});
