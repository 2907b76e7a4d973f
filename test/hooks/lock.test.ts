/**
 * The project lock (.agents/tmp/state.lock), through the built hooks: it names its holder's pid, so a
 * lock left by a killed hook is taken over at once and a live holder keeps it however long it works; a
 * lock directory of the older format is taken over when stale (10 s); a held lock makes a hook wait for
 * it rather than write around it.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
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

  const holderFile = (pid: number, ageMs: number) => JSON.stringify({ pid, host: os.hostname(), token: `t${pid}`, at: Date.now() - ageMs });

  it("a killed hook's lock (its pid is gone) is taken over at once", async () => {
    const loop = new Loop(cloneTestdir(ready));
    const dead = spawn('true');
    await new Promise((resolve) => dead.on('exit', resolve));
    fs.writeFileSync(loop.dir.abs(LOCK), holderFile(dead.pid!, 0));
    const r = await loop.reviewerStop('critic');
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(loop.state().iterations[0].r1.reviewers.critic.status).toBe('valid');
    expect(fs.existsSync(loop.dir.abs(LOCK))).toBe(false);
  });

  it('a live holder keeps the lock past the old 10 s stale mark; the hook goes on once the holder is gone', async () => {
    const loop = new Loop(cloneTestdir(ready));
    const holder = spawn('sleep', ['120']);
    fs.writeFileSync(loop.dir.abs(LOCK), holderFile(holder.pid!, 30_000));
    const old = new Date(Date.now() - 30_000);
    fs.utimesSync(loop.dir.abs(LOCK), old, old);
    let settled = false;
    const stopping = loop.reviewerStop('critic').finally(() => {
      settled = true;
    });
    // The hook is waiting: nothing recorded while the holder lives.
    for (let i = 0; i < 50 && !settled; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(settled).toBe(false);
    expect(loop.state().iterations[0].r1.reviewers.critic.status).toBe('running');
    holder.kill('SIGKILL');
    const r = await stopping;
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(loop.state().iterations[0].r1.reviewers.critic.status).toBe('valid');
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

// Found by an adversarial pass: a lock dated in the future, naming a live pid (1) or another host, was
// never dead, so /minions:cancel timed out for good and the task gate, unable to record a dispatch,
// let any agent through. A lock dated ahead of the clock is nobody's; a dispatch that cannot be
// recorded is refused.
describe('a forged lock', () => {
  const forged = (host: string) => JSON.stringify({ pid: 1, host, token: 'x', at: 9e15 });

  it.each([os.hostname(), 'another-host'])('dated in the future (host %s): taken over at once, and the loop goes on', async (host) => {
    const loop = new Loop(cloneTestdir(ready));
    fs.writeFileSync(loop.dir.abs(LOCK), forged(host));
    const r = await loop.reviewerStop('critic');
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(loop.state().iterations[0].r1.reviewers.critic.status).toBe('valid');
  });

  it('the task gate refuses a dispatch it cannot record (a live holder past the wait), instead of letting it through', async () => {
    const loop = new Loop(cloneTestdir(ready), undefined, { env: { MINIONS_LOCK_WAIT_MS: '300' } });
    const holder = spawn('sleep', ['60']);
    try {
      fs.writeFileSync(loop.dir.abs(LOCK), JSON.stringify({ pid: holder.pid, host: os.hostname(), token: 't', at: Date.now() }));
      const r = await loop.dispatch('general-purpose');
      expect(r.code).toBe(0);
      expect(r.stdout?.hookSpecificOutput?.permissionDecision).toBe('deny');
      expect(r.stdout?.hookSpecificOutput?.permissionDecisionReason).toMatch(/the loop's lock .* is held by another hook, so this dispatch cannot be recorded and is refused/);
    } finally {
      holder.kill();
    }
  });
});
