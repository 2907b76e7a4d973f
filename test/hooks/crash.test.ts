/**
 * SIGKILL of the fifth review's SubagentStop hook (the one that aggregates the round) at random points of
 * its run. Each time: the state loads whole (never "tampered" by a commit cut short), a retry of the same
 * stop gives the verdict an uninterrupted run gives, and no temporary file, lock or guard is left. The
 * points are drawn from the hook's duration measured on this machine, so a slow machine moves them
 * with it; nothing asserts on wall-clock time.
 *
 * Also: a hook killed while aggregating, twice (as the host's timeout would), ends the round STOPPED
 * (aggregation_failed) at the next Stop instead of re-dispatching the reviewer.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { load } from '../../src/shell/store';
import { Loop, messages } from '../helpers/loop';
import { stop, subagentStop } from '../helpers/payloads';
import { COMMITTED, REVIEWERS, STATE, agentType, reviewWithIssues, verdictFile, type Issue, type Reviewer } from '../helpers/reviews';
import { hookEnv, runHook, type HookResult } from '../helpers/run';
import { recordDirOf } from '../helpers/state';
import { cloneTestdir, removeTestdirs, testdir, type TestDir } from '../helpers/testdir';
import { paced } from '../helpers/pace';

afterAll(removeTestdirs);

const KILLS = 200;
const MAX_ATTEMPTS = 400;
const BATCH = 4;
const FIFTH: Reviewer = 'silent-failure-hunter';
/** Findings per review: enough that the aggregation is a real part of the hook's run. */
const FINDINGS = 40;

/** A source file with one distinct line per finding, and reviews that quote those lines (grounded). */
function project(lines: number): Record<string, string> {
  return { ...COMMITTED, 'src/big.ts': Array.from({ length: lines }, (_, i) => `export const value${i} = compute(${i}, "${i.toString(36)}");`).join('\n') + '\n' };
}
function findings(reviewer: Reviewer, offset: number): Issue[] {
  return Array.from({ length: FINDINGS }, (_, i) => {
    const line = ((offset + i) % (FINDINGS * 3)) + 1;
    return {
      severity: i % 3 === 0 ? 'info' : 'warning',
      category: ['logic-error', 'naming', 'error-handling'][i % 3]!,
      file: 'src/big.ts',
      line,
      description: `${reviewer}: value${line - 1} is computed wrong`,
      evidence: `export const value${line - 1} = compute(${line - 1}, "${(line - 1).toString(36)}");`,
      suggestion: `check value${line - 1}`,
    };
  });
}

/** Everything a verdict says but its timestamp. */
const verdictOf = (dir: TestDir) => {
  const { createdAt: _, ...rest } = dir.readJson(verdictFile(1));
  return rest;
};

/** Temporary files, locks and guards anywhere the hooks write. */
function leftovers(dir: TestDir): string[] {
  const found: string[] = [];
  const walk = (base: string, rel = '') => {
    for (const entry of fs.readdirSync(path.join(base, rel), { withFileTypes: true })) {
      const name = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.name !== '.tmp' && /\.tmp$|\.lock|\.break$/.test(entry.name)) found.push(name);
      if (entry.isDirectory()) walk(base, name);
    }
  };
  walk(dir.abs('.agents'));
  walk(recordDirOf(dir.root));
  return found;
}

describe('SIGKILL during the fifth review’s aggregation', () => {
  let ready: TestDir;
  let reference: Record<string, unknown>;
  let duration: number;
  const fifthStop = (loop: Loop) => subagentStop(agentType(FIFTH), { ...loop.common(), lastAssistantMessage: 'Done.' });

  beforeAll(async () => {
    const loop = new Loop(testdir(COMMITTED, { uncommitted: project(FINDINGS * 3) }));
    await loop.start('--max-iterations 3 crash');
    await loop.dispatchReviewers();
    REVIEWERS.forEach((r, i) => loop.writeReview(1, r, reviewWithIssues(r, findings(r, i * 17))));
    for (const r of REVIEWERS.filter((r) => r !== FIFTH)) expect(await loop.reviewerStop(r)).toMatchObject({ code: 0, stderr: '' });
    ready = loop.dir;

    // An uninterrupted fifth stop, a few times: the verdict to match and how long the hook runs here.
    const times: number[] = [];
    for (let i = 0; i < 3; i++) {
      const run = new Loop(cloneTestdir(ready));
      const r = await runHook('on-subagent-stop', fifthStop(run), { projectDir: run.root });
      expect(r).toMatchObject({ code: 0, stderr: '' });
      expect(run.state().currentPhase).toBe('R2');
      const verdict = verdictOf(run.dir);
      if (i === 0) reference = verdict;
      else expect(verdict).toEqual(reference);
      times.push(r.ms);
    }
    duration = times.sort((a, b) => a - b)[1]!;
  }, paced(300_000));

  it(`the state stays whole, a retry gives the same verdict and nothing is left behind (≥ ${KILLS} kills)`, async () => {
    let kills = 0;
    let attempts = 0;
    const outcomes = new Map<string, number>();
    // The hook's duration as it runs now, in batches on this machine: the retries' (uninterrupted) times.
    const recent: number[] = [duration];
    const current = () => [...recent].sort((a, b) => a - b)[Math.floor(recent.length / 2)]!;
    while (kills < KILLS && attempts < MAX_ATTEMPTS) {
      const span = current();
      const batch = await Promise.all(
        Array.from({ length: BATCH }, async () => {
          const loop = new Loop(cloneTestdir(ready));
          // Kill points over the hook's whole run: node's start, the reviews' check, both commits, the verdict.
          const at = Math.max(1, Math.round(Math.random() * span));
          const killed: HookResult = await runHook('on-subagent-stop', fifthStop(loop), { projectDir: loop.root, timeoutMs: at });
          const loaded = load(loop.root, hookEnv(loop.root));
          const retry = await runHook('on-subagent-stop', fifthStop(loop), { projectDir: loop.root });
          return { loop, killed, loaded, retry, at };
        }),
      );
      for (const { loop, killed, loaded, retry, at } of batch) {
        attempts += 1;
        recent.push(retry.ms);
        if (recent.length > 16) recent.shift();
        const label = `killed at ${at} ms (${killed.signal ?? 'exited first'})`;
        expect(loaded.kind, label).toBe('ok');
        expect(retry, label).toMatchObject({ code: 0, stderr: '' });
        expect(loop.state().currentPhase, label).toBe('R2');
        expect(verdictOf(loop.dir), label).toEqual(reference);
        expect(leftovers(loop.dir), label).toEqual([]);
        if (killed.signal === 'SIGKILL') {
          kills += 1;
          const phase = loaded.kind === 'ok' ? (loaded.state.iterations[0]!.r1.aggregation ? 'aggregating' : loaded.state.currentPhase) : loaded.kind;
          outcomes.set(phase, (outcomes.get(phase) ?? 0) + 1);
        }
        fs.rmSync(loop.root, { recursive: true, force: true });
      }
    }
    console.log(`crash test: ${kills} kills in ${attempts} runs over a ${duration} ms hook (${current()} ms in batches of ${BATCH}); state after the kill: ${JSON.stringify(Object.fromEntries(outcomes))}`);
    expect(kills).toBeGreaterThanOrEqual(KILLS);
    // The kills landed in every window: before the fifth was recorded, while aggregating, after the verdict.
    expect(outcomes.get('R1') ?? 0).toBeGreaterThan(0);
    expect(outcomes.get('aggregating') ?? 0).toBeGreaterThan(0);
  }, paced(1_800_000));

  it('killed while aggregating twice (as by the host timeout): the next Stop ends the round STOPPED, without re-dispatching', async () => {
    const loop = new Loop(cloneTestdir(ready));
    await killWhenAggregating(loop, 'on-subagent-stop', fifthStop(loop), 1);
    const stopPayload = stop(loop.common());
    await killWhenAggregating(loop, 'on-stop', stopPayload, 2);
    const r = await loop.stop();
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout?.decision).toBeUndefined();
    expect(r.stdout?.hookSpecificOutput).toBeUndefined();
    const lines = messages([r]);
    expect(lines[0]).toMatch(/^minions: R1 Iteration 1\/3 → STOPPED \(the verdict could not be computed\): the verdict of round 1 was not computed: the hook computing it was stopped 2 times/);
    expect(lines.join('\n')).not.toMatch(/dispatching/);
    expect(loop.hasState()).toBe(false);
  }, paced(300_000));
});

/** Runs a hook and SIGKILLs it once the saved state says it is aggregating (attempt n). */
async function killWhenAggregating(loop: Loop, name: 'on-subagent-stop' | 'on-stop', payload: Record<string, unknown>, attempt: number): Promise<void> {
  const file = loop.dir.abs(STATE);
  let seen = false;
  const aggregating = (async () => {
    for (let i = 0; i < 20_000 && !seen; i++) {
      try {
        seen = JSON.parse(fs.readFileSync(file, 'utf8')).iterations[0].r1.aggregation?.attempts === attempt;
      } catch {
        // being replaced
      }
      if (!seen) await new Promise((r) => setTimeout(r, 2));
    }
  })();
  const r = await runHook(name, payload, { projectDir: loop.root, timeoutMs: paced(120_000), killOn: aggregating });
  expect(seen, `${name} never saved aggregation attempt ${attempt}`).toBe(true);
  expect(r.signal, `${name} should have been killed while aggregating`).toBe('SIGKILL');
}
