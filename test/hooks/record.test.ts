/**
 * The hooks' record through the built hooks: a hook-owned file deleted behind their back is named at the
 * next hook and the loop never ends DONE; a review rewritten after it was recorded does not change the
 * verdict and is reported; the fixer's accepted answers are pinned; the live-loop marker lives exactly as long as the loop's state file.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Loop, messages, projectTestdir } from '../helpers/loop';
import { FIXER, REVIEWERS, cleanReview, fixAnswersFile, issue, reviewWithIssues, reviewerFile, verdictFile, type Reviewer } from '../helpers/reviews';
import { OTHER_SESSION } from '../helpers/payloads';
import { pluginDataDir } from '../helpers/run';
import { removeTestdirs } from '../helpers/testdir';

afterAll(removeTestdirs);

const allClean = () => Object.fromEntries(REVIEWERS.map((r) => [r, cleanReview(r)])) as Record<Reviewer, ReturnType<typeof cleanReview>>;
const markerOf = (loop: Loop) => path.join(pluginDataDir(), `live${loop.root}`, 'loop');

describe.concurrent("the hooks' record", () => {
  it('rm r1-verdict.json during R2: the fixer’s stop names it, the loop is STOPPED (tampered), never DONE', async () => {
    const loop = new Loop(projectTestdir());
    await loop.start('--max-iterations 3 the cart');
    await loop.reviewRound(1, { ...allClean(), critic: reviewWithIssues('critic') });
    expect(loop.state().currentPhase).toBe('R2');
    await loop.dispatch(FIXER);
    fs.rmSync(loop.dir.abs(verdictFile(1)));
    loop.writeFixSummary(1);
    const r = await loop.fixerStop();
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout?.decision).toBeUndefined();
    expect(messages([r])[0]).toBe(
      "minions: STOPPED (the loop's files were changed outside the hooks): .agents/tmp/phases/review-1/r1-verdict.json was deleted. The loop cannot end DONE; the last state the hooks wrote is kept and goes to the archive.",
    );
    expect(loop.state()).toMatchObject({ currentPhase: 'STOPPED', stopReason: 'tampered', iteration: 1 });
    const end = await loop.stop();
    expect(end.stdout?.hookSpecificOutput).toBeUndefined();
    expect(messages([end])[0]).toMatch(/^minions: STOPPED — the loop's files were changed outside the hooks: \.agents\/tmp\/phases\/review-1\/r1-verdict\.json was deleted\. 1 issue open/);
    expect(loop.hasState()).toBe(false);
  });

  it('a FIFO in place of r1-verdict.json during R2: the fixer’s stop names it at once instead of blocking on it, the loop is STOPPED (tampered)', async () => {
    const loop = new Loop(projectTestdir());
    await loop.start('--max-iterations 3 the cart');
    await loop.reviewRound(1, { ...allClean(), critic: reviewWithIssues('critic') });
    await loop.dispatch(FIXER);
    fs.rmSync(loop.dir.abs(verdictFile(1)));
    execFileSync('mkfifo', [loop.dir.abs(verdictFile(1))]);
    loop.writeFixSummary(1);
    const r = await loop.fixerStop();
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(messages([r])[0]).toMatch(/^minions: STOPPED \(the loop's files were changed outside the hooks\): \.agents\/tmp\/phases\/review-1\/r1-verdict\.json was changed outside the hooks\./);
    expect(loop.state()).toMatchObject({ currentPhase: 'STOPPED', stopReason: 'tampered' });
  });

  it('a FIFO at the lock file is nobody’s lock: the next hook that locks takes it over at once and goes on', async () => {
    const loop = new Loop(projectTestdir());
    await loop.start('--max-iterations 3 the cart');
    await loop.dispatchReviewers(['critic']);
    const lock = loop.dir.abs('.agents/tmp/state.lock');
    execFileSync('mkfifo', [lock]);
    loop.writeReview(1, 'critic', reviewWithIssues('critic', [issue({ severity: 'critical' })]));
    const r = await loop.reviewerStop('critic');
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout?.systemMessage).toBe('minions: R1 Iteration 1/3 — critic 1 critical');
    expect(loop.state().iterations[0].r1.reviewers.critic).toMatchObject({ status: 'valid' });
    expect(fs.existsSync(lock)).toBe(false);
  });

  it('the witness rewrites r1-critic.json after the critic’s review was recorded: the verdict is unchanged and the rewrite reported', async () => {
    const loop = new Loop(projectTestdir());
    await loop.start('--max-iterations 3 the cart');
    await loop.dispatchReviewers();
    loop.writeReview(1, 'critic', reviewWithIssues('critic', [issue({ severity: 'critical' })]));
    expect((await loop.reviewerStop('critic')).stdout?.systemMessage).toBe('minions: R1 Iteration 1/3 — critic 1 critical');
    // The witness (it has Bash) erases the critic's finding, then writes its own clean review.
    loop.writeReview(1, 'critic', cleanReview('critic'));
    for (const r of REVIEWERS.filter((r) => r !== 'critic')) loop.writeReview(1, r, cleanReview(r));
    const stops = await loop.reviewersStop(REVIEWERS.filter((r) => r !== 'critic'));
    const lines = messages(stops);
    expect(lines).toContain(
      'minions: R1 Iteration 1/3 — .agents/tmp/phases/review-1/r1-critic.json changed after the hooks recorded it; the verdict uses the reviews as they were recorded, and the change is ignored',
    );
    expect(lines.filter((l) => / → R2: fixing$/.test(l))).toEqual([expect.stringMatching(/^minions: review 1\/3: 1 issue \(1 critical\)/)]);
    const verdict = loop.dir.readJson(verdictFile(1));
    expect(verdict).toMatchObject({ total_issues: 1, critical: 1, next: 'R2', reviewers: { critic: { critical: 1, notes: [expect.stringMatching(/changed after the hooks recorded it/)] } } });
    expect(loop.state()).toMatchObject({ currentPhase: 'R2' });
    // The file itself is left as it is now; the verdict is from the recorded text.
    expect(loop.dir.readJson(reviewerFile(1, 'critic')).issues).toEqual([]);
  });

  it('a review written in Latin-1 (bytes that are not UTF-8) is the text it was recorded as: not reported rewritten, the verdict as usual', async () => {
    const loop = new Loop(projectTestdir());
    await loop.start('--max-iterations 3 the cart');
    await loop.dispatchReviewers();
    const text = JSON.stringify(reviewWithIssues('critic', [issue({ severity: 'critical', description: 'the caf\u00e9 total skips the last item' })]));
    fs.writeFileSync(loop.dir.abs(reviewerFile(1, 'critic')), Buffer.from(text, 'latin1'));
    for (const r of REVIEWERS.filter((r) => r !== 'critic')) loop.writeReview(1, r, cleanReview(r));
    const lines = messages(await loop.reviewersStop());
    expect(lines.filter((l) => /changed after the hooks recorded it/.test(l))).toEqual([]);
    expect(lines.filter((l) => / → R2: fixing$/.test(l))).toEqual([expect.stringMatching(/^minions: review 1\/3: 1 issue \(1 critical\)/)]);
    expect(loop.dir.readJson(verdictFile(1)).reviewers.critic.notes).toEqual([]);
  });

  it("the fixer's accepted answers are pinned: rewriting round 1's declines during round 2 is named, the loop STOPPED (tampered)", async () => {
    const loop = new Loop(projectTestdir());
    await loop.start('--max-iterations 3 the cart');
    await loop.reviewRound(1, { ...allClean(), critic: reviewWithIssues('critic') });
    await loop.dispatch(FIXER);
    const [answer] = loop.writeFixSummary(1);
    await loop.fixerStop();
    expect(loop.state()).toMatchObject({ currentPhase: 'R1', iteration: 2 });
    // Two declines would make the finding CONTESTED: never sent to the fixer again, never blocking DONE.
    loop.dir.write(fixAnswersFile(1), JSON.stringify({ fixes: [answer, answer].map((a) => ({ fingerprint: a!.fingerprint, status: 'declined', reason: 'not a bug' })) }));
    // The next hook that takes the lock (here the reviewers' dispatch) checks every owned file.
    const dispatches = await loop.dispatchReviewers();
    expect(messages(dispatches)).toHaveLength(1);
    expect(messages(dispatches)[0]).toMatch(/^minions: STOPPED \(the loop's files were changed outside the hooks\): \.agents\/tmp\/phases\/review-1\/r2-fix-summary\.json was changed outside the hooks\./);
    expect(loop.state()).toMatchObject({ currentPhase: 'STOPPED', stopReason: 'tampered' });
  });

  it.each(['forged to unground its finding', 'forged to drop its finding', 'deleted'] as const)('a reviewer stop’s kept reading of its review %s: the verdict works it out again from the frozen review, the same', async (how) => {
    const loop = new Loop(projectTestdir());
    await loop.start('--max-iterations 3 the cart');
    await loop.dispatchReviewers();
    loop.writeReview(1, 'critic', reviewWithIssues('critic', [issue({ severity: 'critical' })]));
    await loop.reviewerStop('critic');
    const digest = loop.state().iterations[0].r1.reviewers.critic.reading as string;
    const object = loop.dir.abs(`.git/minions/record/top/objects/${digest}`);
    const kept = JSON.parse(fs.readFileSync(object, 'utf8'));
    // One row per finding: [status, reason, line, …] (src/review/reading.ts).
    expect(kept.rows).toEqual([['grounded', null, expect.any(Number), 'as-written', [], 1, 1, expect.any(String), expect.any(String), expect.stringMatching(/^[0-9a-f]{12}$/)]]);
    expect(kept.review.issues).toEqual([expect.objectContaining({ severity: 'critical' })]);
    // A forged reading would have the finding ungrounded (never sent to the fixer), or gone; it no longer matches its digest.
    if (how === 'forged to unground its finding') fs.writeFileSync(object, JSON.stringify({ ...kept, rows: kept.rows.map((r: unknown[]) => ['ungrounded', 'forged', ...r.slice(2)]) }));
    else if (how === 'forged to drop its finding') fs.writeFileSync(object, JSON.stringify({ ...kept, review: { ...kept.review, issues: [] }, rows: [] }));
    else fs.rmSync(object);
    for (const r of REVIEWERS.filter((r) => r !== 'critic')) loop.writeReview(1, r, cleanReview(r));
    await loop.reviewersStop(REVIEWERS.filter((r) => r !== 'critic'));
    expect(loop.dir.readJson(verdictFile(1))).toMatchObject({ total_issues: 1, critical: 1, next: 'R2', findings: [expect.objectContaining({ toFixer: true, grounding: expect.objectContaining({ status: 'grounded' }) })] });
    expect(loop.state()).toMatchObject({ currentPhase: 'R2' });
  });

  it('the live-loop marker is there while the state file is, and gone when the loop is archived', async () => {
    const loop = new Loop(projectTestdir());
    await loop.start('--max-iterations 2 the cart');
    expect(fs.existsSync(markerOf(loop))).toBe(true);
    await loop.reviewRound(1, allClean());
    expect(loop.state().currentPhase).toBe('DONE');
    expect(fs.existsSync(markerOf(loop))).toBe(true);
    expect(messages([await loop.stop()])[0]).toMatch(/^minions: DONE — review 1\/2 found no issues/);
    expect(loop.hasState()).toBe(false);
    expect(fs.existsSync(markerOf(loop))).toBe(false);
  });
});

// Found by an adversarial pass: an interpreter the Bash gate lets through (node -e, python -c) copies
// state.json into the archive as "cancelled" and deletes it. In a repository the CLI's cancel updates
// the record in the git dir, so that is no cancel: the loop is tampered with, and still ends STOPPED.
describe("a deleted state.json beside a forged 'cancelled' archive", () => {
  it('in a repository: the next Stop ends the loop STOPPED (tampered) instead of going idle', async () => {
    const loop = new Loop(projectTestdir());
    await loop.start('--max-iterations 3 the cart');
    await loop.dispatchReviewers(['critic']);
    const state = loop.state();
    const archive = loop.dir.abs(`.agents/tmp/archive/${state.runId}`);
    fs.mkdirSync(archive, { recursive: true });
    fs.writeFileSync(path.join(archive, 'state.json'), `${JSON.stringify({ ...state, status: 'cancelled', currentPhase: 'CANCELLED' }, null, 2)}\n`);
    fs.rmSync(loop.dir.abs('.agents/tmp/state.json'));
    // The gates still hold while the trusted state says the loop runs.
    const edit = await loop.gateWrite(loop.dir.abs('src/a.ts'), null);
    expect(edit.stdout?.hookSpecificOutput?.permissionDecision).toBe('deny');
    const r = await loop.stop();
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(messages([r]).join('\n')).toMatch(/the loop's files were changed outside the hooks: \.agents\/tmp\/state\.json was deleted/);
  });
});

// Found by an adversarial pass: with the record unreadable or gone, the hooks once fell back to trusting
// state.json as it was, so an interpreter that forged a DONE state beside it had its verdict printed.
describe('the record itself unreadable or deleted beside a forged DONE state', () => {
  const forgeDone = (loop: Loop) => loop.dir.write('.agents/tmp/state.json', `${JSON.stringify({ ...loop.state(), status: 'done', currentPhase: 'DONE' }, null, 2)}\n`);
  const record = (loop: Loop) => loop.dir.abs('.git/minions/record/top/record.json');

  it.each([
    ['a directory stands in its place', (loop: Loop) => (fs.rmSync(record(loop)), fs.mkdirSync(record(loop))), 'was changed outside the hooks'],
    ['it is deleted', (loop: Loop) => fs.rmSync(record(loop)), 'was deleted'],
    ['the whole record folder is deleted', (loop: Loop) => fs.rmSync(loop.dir.abs('.git/minions'), { recursive: true }), 'was deleted'],
  ] as const)('%s: the next Stop names it and never says DONE; the session is free after', async (_, damage, said) => {
    const loop = new Loop(projectTestdir());
    await loop.start('--max-iterations 3 the cart');
    await loop.dispatchReviewers(['critic']);
    forgeDone(loop);
    damage(loop);
    const r = await loop.stop();
    expect(r).toMatchObject({ code: 0, stderr: '' });
    const text = messages([r]).join('\n');
    expect(text).not.toMatch(/DONE/);
    expect(text).toContain(`.git/minions/record/top/record.json ${said}`);
    expect(r.stdout?.decision).toBeUndefined();
    // Nothing sound was left to keep: the forged file went to the archive, and nothing is gated.
    expect(loop.hasState()).toBe(false);
    expect(fs.existsSync(markerOf(loop))).toBe(false);
    expect(fs.statSync(record(loop)).isFile()).toBe(true);
    const again = await loop.stop();
    expect(again).toMatchObject({ code: 0, stderr: '', stdout: null });
  });

  it("another session's hooks leave it to the session the file names: only that session's Stop ends it", async () => {
    const loop = new Loop(projectTestdir());
    await loop.start('--max-iterations 3 the cart');
    await loop.dispatchReviewers(['critic']);
    fs.rmSync(record(loop));
    const other = new Loop(loop.dir, OTHER_SESSION);
    const theirs = await other.stop();
    expect(theirs).toMatchObject({ code: 0, stderr: '', stdout: null });
    expect(loop.hasState()).toBe(true);
    const mine = await loop.stop();
    expect(messages([mine]).join('\n')).toContain('.git/minions/record/top/record.json was deleted');
    expect(loop.hasState()).toBe(false);
  });

  it('state.json deleted with the record while the loop ran: the next Stop reports both, once', async () => {
    const loop = new Loop(projectTestdir());
    await loop.start('--max-iterations 3 the cart');
    await loop.dispatchReviewers(['critic']);
    fs.rmSync(loop.dir.abs('.agents/tmp/state.json'));
    fs.rmSync(loop.dir.abs('.git/minions'), { recursive: true });
    const r = await loop.stop();
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(messages([r]).join('\n')).toMatch(/record\.json was deleted; \.agents\/tmp\/state\.json was deleted/);
    expect(fs.existsSync(markerOf(loop))).toBe(false);
    expect(await loop.stop()).toMatchObject({ code: 0, stderr: '', stdout: null });
  });
});
