/**
 * The dispatch gate (PreToolUse Agent|Task): in R1 each reviewer once per iteration and no fixer; in
 * R2 the fixer once and no reviewer; every other agent (other minions:* names, general-purpose,
 * Explore, other plugins', untyped calls) denied while the loop runs; other sessions unaffected.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Loop, denyReason, projectTestdir } from '../helpers/loop';
import { OTHER_SESSION, agentDispatch } from '../helpers/payloads';
import { FIXER, REVIEWERS, agentType, cleanReview, reviewWithIssues } from '../helpers/reviews';
import { cloneTestdir, removeTestdirs, type TestDir } from '../helpers/testdir';

afterAll(removeTestdirs);

let r1: TestDir;
let r2: TestDir;

beforeAll(async () => {
  const loop = new Loop(projectTestdir());
  await loop.start('--max-iterations 3 dispatch');
  r1 = cloneTestdir(loop.dir);
  await loop.reviewRound(1, Object.fromEntries(REVIEWERS.map((r) => [r, r === 'critic' ? reviewWithIssues(r) : cleanReview(r)])));
  expect(loop.state().currentPhase).toBe('R2');
  r2 = loop.dir;
});

const fresh = (dir: () => TestDir) => new Loop(cloneTestdir(dir()));

describe.concurrent('the dispatch gate in R1', () => {
  it('lets each reviewer run once per iteration', async () => {
    const loop = fresh(() => r1);
    const first = await loop.dispatch(agentType('critic'));
    expect(first).toMatchObject({ code: 0, raw: '', stderr: '' });
    expect(loop.state().iterations[0].r1.reviewers.critic).toMatchObject({ status: 'running', dispatches: 1 });

    const again = await loop.dispatch(agentType('critic'));
    expect(again.code).toBe(0);
    expect(again.stdout?.hookSpecificOutput).toMatchObject({ hookEventName: 'PreToolUse', permissionDecision: 'deny' });
    expect(denyReason(again)).toBe(
      'minions R1 (Iteration 1/3): minions:critic is already running; each reviewer runs once per iteration. Wait for the others, then end your turn.',
    );

    loop.writeReview(1, 'critic', cleanReview('critic'));
    await loop.reviewerStop('critic');
    const afterReview = await loop.dispatch(agentType('critic'));
    expect(denyReason(afterReview)).toBe(
      'minions R1 (Iteration 1/3): minions:critic has already reviewed this iteration; each reviewer runs once per iteration. Wait for the others, then end your turn.',
    );
    expect(loop.state().iterations[0].r1.reviewers.critic).toMatchObject({ status: 'valid', dispatches: 1 });
  });

  it('matches the Task tool name too (the pre-2.1.63 name, still an alias)', async () => {
    const loop = fresh(() => r1);
    expect((await loop.dispatch(agentType('pedant'), { toolName: 'Task' })).raw).toBe('');
    expect(loop.state().iterations[0].r1.reviewers.pedant).toMatchObject({ status: 'running', dispatches: 1 });
    expect(denyReason(await loop.dispatch(agentType('pedant'), { toolName: 'Task' }))).toMatch(/minions:pedant is already running/);
    expect(denyReason(await loop.dispatch(agentType('pedant'), { toolName: 'Agent' }))).toMatch(/minions:pedant is already running/);
  });

  it('treats a background dispatch like a foreground one', async () => {
    const loop = fresh(() => r1);
    expect((await loop.dispatch(agentType('witness'), { runInBackground: true })).raw).toBe('');
    expect(denyReason(await loop.dispatch(agentType('witness'), { runInBackground: false }))).toMatch(/already running/);
  });

  it.each([
    [FIXER, /^minions R1 \(Iteration 1\/3\): the fixer runs in R2, after the reviewers' verdict\./],
    ['minions:reviewer', /^minions R1 \(Iteration 1\/3\): minions:reviewer is not part of this phase\. Dispatch the five reviewers named in the \[PHASE R1\] prompt\.$/],
    ['minions:critic-2', /is not part of this phase/],
    ['minions:', /is not part of this phase/],
  ])('denies %s', async (type, reason) => {
    const loop = fresh(() => r1);
    const before = loop.stateBytes();
    const r = await loop.dispatch(type);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(denyReason(r)).toMatch(reason);
    expect(loop.stateBytes()).toBe(before);
  });

  it.each(['general-purpose', 'Explore', 'other-plugin:critic', 'critic', 'MINIONS:critic'])('denies %s (not a minions agent) and records nothing', async (type) => {
    const loop = fresh(() => r1);
    const before = loop.stateBytes();
    const r = await loop.dispatch(type);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(denyReason(r)).toBe(
      `minions R1 (Iteration 1/3): ${type} is not part of the review loop; while it runs, only the five reviewers named in the [PHASE R1] prompt may be dispatched. ` +
        'Dispatch those, then end your turn; /minions:cancel ends the loop if you need other agents now.',
    );
    expect(loop.stateBytes()).toBe(before);
  });

  it.each([
    ['no subagent_type', { description: 'd', prompt: 'p' }],
    ['an empty subagent_type', { description: 'd', prompt: 'p', subagent_type: '' }],
  ])('denies an Agent call with %s (a general-purpose agent)', async (_, input) => {
    const loop = fresh(() => r1);
    const before = loop.stateBytes();
    const payload = { ...agentDispatch('x', loop.common()), tool_input: input };
    expect(denyReason(await loop.hook('on-task-gate', payload))).toMatch(/^minions R1 \(Iteration 1\/3\): an Agent call without a subagent_type starts a general-purpose agent, which is not part of the review loop;/);
    expect(loop.stateBytes()).toBe(before);
  });

  it("leaves another session's dispatches alone, typed or not", async () => {
    const other = new Loop(cloneTestdir(r1), OTHER_SESSION);
    const before = other.stateBytes();
    expect(await other.dispatch('general-purpose')).toMatchObject({ code: 0, raw: '', stderr: '' });
    expect(await other.hook('on-task-gate', { ...agentDispatch('x', other.common()), tool_input: { description: 'd', prompt: 'p' } })).toMatchObject({ code: 0, raw: '', stderr: '' });
    expect(other.stateBytes()).toBe(before);
  });
});

describe.concurrent('the dispatch gate in R2', () => {
  it('lets the fixer run once, and no reviewer', async () => {
    const loop = fresh(() => r2);
    for (const r of REVIEWERS) {
      expect(denyReason(await loop.dispatch(agentType(r)))).toBe(
        'minions R2 (Iteration 1/3): reviews are done for this iteration; dispatch minions:review-fixer once, then end your turn.',
      );
    }
    expect(denyReason(await loop.dispatch('minions:helper'))).toBe(
      'minions R2 (Iteration 1/3): minions:helper is not part of this phase. Dispatch minions:review-fixer.',
    );
    expect(denyReason(await loop.dispatch('other-plugin:review-fixer'))).toBe(
      'minions R2 (Iteration 1/3): other-plugin:review-fixer is not part of the review loop; while it runs, only minions:review-fixer may be dispatched. ' +
        'Dispatch those, then end your turn; /minions:cancel ends the loop if you need other agents now.',
    );
    expect(denyReason(await loop.dispatch('Explore'))).toMatch(/^minions R2 \(Iteration 1\/3\): Explore is not part of the review loop/);

    expect(await loop.dispatch(FIXER)).toMatchObject({ code: 0, raw: '', stderr: '' });
    expect(loop.state().iterations[0].r2).toMatchObject({ status: 'running', dispatches: 1 });
    expect(denyReason(await loop.dispatch(FIXER, { toolName: 'Task' }))).toBe(
      'minions R2 (Iteration 1/3): minions:review-fixer has already been dispatched this iteration. Wait for it, then end your turn.',
    );
  });

  it('in the next iteration the reviewers may run again', async () => {
    const loop = fresh(() => r2);
    await loop.dispatch(FIXER);
    loop.writeFixSummary(1);
    await loop.fixerStop();
    expect(loop.state()).toMatchObject({ currentPhase: 'R1', iteration: 2 });
    const results = await loop.dispatchReviewers();
    for (const r of results) expect(r).toMatchObject({ code: 0, raw: '' });
    for (const r of REVIEWERS) expect(loop.state().iterations[1].r1.reviewers[r]).toMatchObject({ status: 'running', dispatches: 1 });
    expect(denyReason(await loop.dispatch(FIXER))).toMatch(/^minions R1 \(Iteration 2\/3\): the fixer runs in R2/);
  });
});
