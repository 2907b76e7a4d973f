/**
 * /minions:status and /minions:cancel: dist/cli.mjs run as the commands' `!` lines run it (cwd = the
 * project, CLAUDE_CODE_SESSION_ID set, no CLAUDE_PROJECT_DIR). The session id decides ownership.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Loop, projectTestdir } from '../helpers/loop';
import { OTHER_SESSION, SESSION } from '../helpers/payloads';
import { REVIEWERS, STATE, cleanReview, reviewWithIssues } from '../helpers/reviews';
import { runCli, runCommandLine } from '../helpers/run';
import { rewriteState } from '../helpers/state';
import { cloneTestdir, removeTestdirs, type TestDir } from '../helpers/testdir';

afterAll(removeTestdirs);

let r1: TestDir;

beforeAll(async () => {
  const loop = new Loop(projectTestdir());
  await loop.start('--max-iterations 3 the cart');
  await loop.dispatchReviewers();
  loop.writeReview(1, 'critic', reviewWithIssues('critic'));
  await loop.reviewerStop('critic');
  r1 = loop.dir;
});

const fresh = (session = SESSION) => new Loop(cloneTestdir(r1), session);

/** Sets the loop's updatedAt to `ms` ago, as the hooks would write it. */
function age(loop: Loop, ms: number): void {
  rewriteState(loop.root, (state) => ({ ...state, updatedAt: new Date(Date.now() - ms).toISOString() }));
}

describe.concurrent('/minions:status', () => {
  it('with no loop ever run', async () => {
    const loop = new Loop(projectTestdir());
    const r = await runCli(['status'], { cwd: loop.root, sessionId: SESSION });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toBe('minions: no review loop has run in this project. Start one with /minions:review <what to review>.\n');
  });

  it('for the owning session and for another one', async () => {
    const loop = fresh();
    const mine = await runCli(['status'], { cwd: loop.root, sessionId: SESSION });
    expect(mine).toMatchObject({ code: 0, stderr: '' });
    const lines = mine.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('minions review loop — R1, Iteration 1/3 (in progress)');
    expect(lines[1]).toBe('Task: the cart');
    expect(lines[2]).toMatch(/^Started just now by this session; last update just now\.$/);
    expect(lines[3]).toBe('Reviewers (iteration 1): critic ✓ 1 warning, pedant … running, witness … running, security-reviewer … running, silent-failure-hunter … running');
    expect(lines).toContain('Files: .agents/tmp/phases/');
    expect(lines.at(-1)).toBe('End it with /minions:cancel.');

    const theirs = await runCli(['status'], { cwd: loop.root, sessionId: OTHER_SESSION });
    expect(theirs.stdout).toContain(`by session ${SESSION.slice(0, 8)};`);
    const anonymous = await runCli(['status'], { cwd: loop.root });
    expect(anonymous.stdout).toContain(`by session ${SESSION.slice(0, 8)};`);
  });

  it('after the loop ended and its state was archived: the last run', async () => {
    const loop = fresh();
    for (const r of REVIEWERS) if (r !== 'critic') loop.writeReview(1, r, cleanReview(r));
    await loop.reviewersStop(REVIEWERS.filter((r) => r !== 'critic'));
    expect(loop.state().currentPhase).toBe('R2');
    // Finish cleanly in iteration 2.
    await loop.dispatch('minions:review-fixer');
    loop.writeFixSummary(1);
    await loop.fixerStop();
    await loop.reviewRound(2, Object.fromEntries(REVIEWERS.map((r) => [r, cleanReview(r)])));
    await loop.stop();
    expect(loop.hasState()).toBe(false);
    const r = await runCli(['status'], { cwd: loop.root, sessionId: SESSION });
    expect(r.stdout).toMatch(/^No review loop is running\. The last one:\nminions review loop — DONE, Iteration 2\/3 \(done\)\n/);
    expect(r.stdout).toMatch(/^Review 1: 1 issue \(1 warning\) — \.agents\/tmp\/phases\/review-1\/r1-verdict\.json; fixed, see \.agents\/tmp\/phases\/review-1\/r2-fix-summary\.md$/m);
    expect(r.stdout).toMatch(/^Review 2: clean — \.agents\/tmp\/phases\/review-2\/r1-verdict\.json$/m);
    expect(r.stdout).toContain('Files: .agents/tmp/phases/');
  });
});

describe.concurrent('/minions:cancel', () => {
  it('by the owning session: cancelled, state and phases archived, the hooks go idle', async () => {
    const loop = fresh();
    const runId = loop.state().runId;
    const r = await runCli(['cancel'], { cwd: loop.root, sessionId: SESSION });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toBe(`minions: review loop cancelled in R1 (Iteration 1/3); files archived to .agents/tmp/archive/${runId}/\n`);
    expect(loop.hasState()).toBe(false);
    const archived = loop.dir.readJson(`.agents/tmp/archive/${runId}/state.json`);
    expect(archived).toMatchObject({ status: 'cancelled', currentPhase: 'CANCELLED', stopReason: 'cancelled' });
    expect(loop.dir.exists(`.agents/tmp/archive/${runId}/phases/review-1/r1-critic.json`)).toBe(true);
    expect(loop.dir.exists('.agents/tmp/phases')).toBe(false);
    for (const x of [await loop.stop(), await loop.dispatch('minions:critic'), await loop.gateWrite(loop.dir.abs('src/a.ts'), null)]) {
      expect(x).toMatchObject({ code: 0, raw: '', stderr: '' });
    }
    const again = await runCli(['cancel'], { cwd: loop.root, sessionId: SESSION });
    expect(again.stdout).toBe('minions: no review loop is running in this project.\n');
  });

  it('by another session: refused without --force, nothing changes', async () => {
    const loop = fresh();
    const before = loop.snapshot();
    for (const sessionId of [OTHER_SESSION, undefined]) {
      const r = await runCli(['cancel'], { cwd: loop.root, sessionId });
      expect(r).toMatchObject({ code: 0, stderr: '' });
      expect(r.stdout).toBe('minions: the review loop in this project belongs to another session; run /minions:cancel there, or /minions:cancel --force here.\n');
    }
    expect(loop.snapshot()).toEqual(before);
  });

  it('by another session with --force (through the command file\'s ! line): cancelled', async () => {
    const loop = fresh();
    const runId = loop.state().runId;
    const r = await runCommandLine('cancel', '--force', { cwd: loop.root, sessionId: OTHER_SESSION });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toMatch(/^minions: review loop cancelled in R1/);
    expect(loop.hasState()).toBe(false);
    expect(loop.dir.readJson(`.agents/tmp/archive/${runId}/state.json`).status).toBe('cancelled');
  });

  it('by another session when the loop is stale: cancelled without --force', async () => {
    const loop = fresh();
    age(loop, 3 * 3600_000);
    const r = await runCli(['cancel'], { cwd: loop.root, sessionId: OTHER_SESSION });
    expect(r.stdout).toMatch(/^minions: review loop cancelled in R1/);
    expect(loop.hasState()).toBe(false);
  });

  it('of a finished loop whose Stop has not run yet: archives it and says no loop is running', async () => {
    const loop = fresh();
    const runId = loop.state().runId;
    rewriteState(loop.root, (state) => ({ ...state, status: 'stopped', currentPhase: 'STOPPED', stopReason: 'max_iterations' }));
    const r = await runCli(['cancel'], { cwd: loop.root, sessionId: OTHER_SESSION });
    expect(r.stdout).toBe('minions: no review loop is running in this project.\n');
    expect(loop.hasState()).toBe(false);
    expect(loop.dir.exists(`.agents/tmp/archive/${runId}/state.json`)).toBe(true);
  });

  it('status through the command file\'s ! line, and an unknown command', async () => {
    const loop = fresh();
    const status = await runCommandLine('status', '', { cwd: loop.root, sessionId: SESSION });
    expect(status.stdout).toMatch(/^minions review loop — R1, Iteration 1\/3 \(in progress\)\n/);
    const unknown = await runCli(['frobnicate'], { cwd: loop.root, sessionId: SESSION });
    expect(unknown).toMatchObject({ code: 2, stdout: 'usage: minions status | minions cancel [--force]\n' });
  });
});
