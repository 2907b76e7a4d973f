/**
 * The project lock (.agents/tmp/state.lock): a lock left by a dead hook is taken over (stale after
 * 10 s), and a held lock makes a hook wait for it rather than write around it.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Loop, messages, projectTestdir } from '../helpers/loop';
import { REVIEWERS, cleanReview } from '../helpers/reviews';
import { cloneTestdir, removeTestdirs, type TestDir } from '../helpers/testdir';

afterAll(removeTestdirs);

const LOCK = '.agents/tmp/state.lock';
let ready: TestDir;

beforeAll(async () => {
  const loop = new Loop(projectTestdir());
  await loop.start('--max-iterations 2 lock');
  await loop.dispatchReviewers();
  for (const r of REVIEWERS) loop.writeReview(1, r, cleanReview(r));
  ready = loop.dir;
});

describe('the project lock', () => {
  it('a lock left behind by a dead hook a minute ago is taken over', async () => {
    const loop = new Loop(cloneTestdir(ready));
    fs.mkdirSync(loop.dir.abs(LOCK));
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(loop.dir.abs(LOCK), old, old);
    const r = await loop.reviewerStop('critic');
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout?.systemMessage).toMatch(/^minions: R1 Iteration 1\/2 — critic clean(?: \(1\/5 in\))?$/);
    expect(loop.state().iterations[0].r1.reviewers.critic.status).toBe('valid');
    expect(fs.existsSync(loop.dir.abs(LOCK))).toBe(false);
  });

  it('a held lock makes the hooks wait, then all five stops are applied once', async () => {
    const loop = new Loop(cloneTestdir(ready));
    fs.mkdirSync(loop.dir.abs(LOCK));
    const held = 1500;
    const release = new Promise<void>((resolve) =>
      setTimeout(() => {
        fs.rmdirSync(loop.dir.abs(LOCK));
        resolve();
      }, held),
    );
    const started = Date.now();
    const [stops] = await Promise.all([loop.reviewersStop(), release]);
    for (const s of stops) expect(s).toMatchObject({ code: 0, stderr: '' });
    for (const s of stops) expect(s.ms).toBeGreaterThanOrEqual(held - 200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(held);
    expect(messages(stops).filter((l) => / → DONE$/.test(l))).toHaveLength(1);
    expect(loop.state()).toMatchObject({ currentPhase: 'DONE' });
  });
});
