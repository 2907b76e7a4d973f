/**
 * A second Claude Code session in the same project (another terminal, same repository): the loop
 * belongs to the session that started it. Every hook of the other session allows and prints nothing;
 * starting a loop there is refused while the first is fresh, allowed with --force or once it is stale.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Loop, additionalContext, projectTestdir } from '../helpers/loop';
import { OTHER_SESSION, SESSION, backgroundTask } from '../helpers/payloads';
import { FIXER, REVIEWERS, STATE, agentType, cleanReview, fencedMessage, reviewWithIssues, reviewerFile } from '../helpers/reviews';
import { rewriteState } from '../helpers/state';
import { cloneTestdir, removeTestdirs, type TestDir } from '../helpers/testdir';
import { runCommandLine } from '../helpers/run';

afterAll(removeTestdirs);

const HOURS = 3600_000;

/** Sets the loop's updatedAt to `ms` ago (as if its session had been silent that long), as the hooks would write it. */
function age(loop: Loop, ms: number): void {
  rewriteState(loop.root, (state) => ({ ...state, updatedAt: new Date(Date.now() - ms).toISOString() }));
}

describe.concurrent('a second session in the same project', () => {
  /** Session 1's loop in R1 with the critic and pedant dispatched, and in R2 with the fixer running. */
  let r1: TestDir;
  let r2: TestDir;

  beforeAll(async () => {
    const first = new Loop(projectTestdir(), SESSION);
    await first.start('--max-iterations 3 session one');
    await first.dispatchReviewers(['critic', 'pedant']);
    r1 = cloneTestdir(first.dir);
    await first.dispatchReviewers(['witness', 'security-reviewer', 'silent-failure-hunter']);
    for (const r of REVIEWERS) first.writeReview(1, r, r === 'critic' ? reviewWithIssues(r) : cleanReview(r));
    await first.reviewersStop();
    await first.dispatch(FIXER);
    expect(first.state()).toMatchObject({ currentPhase: 'R2', sessionId: SESSION });
    r2 = first.dir;
  });

  it.each([
    ['R1', () => r1],
    ['R2', () => r2],
  ])('every hook of the other session allows and prints nothing in %s', async (_phase, dir) => {
    const other = new Loop(cloneTestdir(dir()), OTHER_SESSION);
    const before = other.snapshot();
    const results = await Promise.all([
      other.prompt('refactor the parser'),
      other.prompt('<task-notification>\n<status>completed</status>\n</task-notification>'),
      other.stop(),
      other.stop({ backgroundTasks: [backgroundTask(agentType('critic'))] }),
      other.dispatch(agentType('critic')),
      other.dispatch(agentType('witness'), { toolName: 'Task' }),
      other.dispatch(FIXER),
      other.dispatch('minions:nonexistent'),
      other.gateWrite(other.dir.abs('src/a.ts'), null),
      other.gateWrite(other.dir.abs('src/a.ts'), agentType('critic')),
      other.gateWrite(other.dir.abs(reviewerFile(1, 'pedant')), agentType('critic')),
      other.gateWrite(other.dir.abs('src/new/dir/x.ts'), FIXER),
      other.gateBash('git commit -am wip', agentType('critic')),
      other.gateBash('echo x > src/a.ts', agentType('pedant')),
      other.gateBash('git stash', FIXER),
      other.reviewerStop('critic', { message: fencedMessage(reviewWithIssues('critic')) }),
      other.reviewerStop('witness', { message: 'no output' }),
      other.fixerStop(),
    ]);
    for (const r of results) expect(r).toMatchObject({ code: 0, raw: '', stderr: '' });
    expect(other.snapshot()).toEqual(before);
  });

  it('the hook-owned files stay protected from the other session too', async () => {
    const other = new Loop(cloneTestdir(r1), OTHER_SESSION);
    const r = await other.gateWrite(other.dir.abs(STATE), null);
    expect(r.stdout?.hookSpecificOutput?.permissionDecision).toBe('deny');
  });

  it('starting a loop there is refused while the first is fresh; nothing is written', async () => {
    const other = new Loop(cloneTestdir(r1), OTHER_SESSION);
    age(other, 30 * 60_000);
    const before = other.snapshot();
    const r = await other.start('session two');
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout?.decision).toBe('block');
    expect(r.stdout?.hookSpecificOutput).toBeUndefined();
    expect(r.stdout?.reason).toBe(
      'minions: another session\'s review loop is running in this project (R1, Iteration 1/3, "session one", updated 30 min ago). ' +
        'Wait for it to finish, run /minions:cancel in that session, or take over with /minions:review --force <task>.',
    );
    expect(other.snapshot()).toEqual(before);
  });

  it('a --force inside the task is task text: the live loop is not taken over (issue 7)', async () => {
    const other = new Loop(cloneTestdir(r1), OTHER_SESSION);
    const before = other.snapshot();
    const r = await other.prompt('/minions:review check that the CLI rejects --force without a task');
    expect(r.stdout?.decision).toBe('block');
    expect(r.stdout?.reason).toMatch(/^minions: another session's review loop is running in this project/);
    expect(other.snapshot()).toEqual(before);
    // /minions:cancel runs the CLI from its command file; words after it are refused by name, so a --force
    // among them is never read.
    const cancel = await runCommandLine('cancel', 'the old loop, not --force', { cwd: other.root, sessionId: OTHER_SESSION });
    expect(cancel).toMatchObject({ code: 2, stdout: '' });
    expect(cancel.stderr.split('\n')[0]).toBe('minions: cancel takes no argument "the"');
    expect(other.snapshot()).toEqual(before);
    const plain = await runCommandLine('cancel', '', { cwd: other.root, sessionId: OTHER_SESSION });
    expect(plain).toMatchObject({ code: 0, stderr: '' });
    expect(plain.stdout.trim()).toBe('minions: the review loop in this project belongs to another session; run /minions:cancel there, or /minions:cancel --force here.');
    expect(other.snapshot()).toEqual(before);
  });

  it('--force takes it over: the first loop is archived, the new one belongs to the second session', async () => {
    const other = new Loop(cloneTestdir(r2), OTHER_SESSION);
    const firstState = other.state();
    const r = await other.start('--force session two');
    expect(r.stdout?.decision).toBeUndefined();
    expect(additionalContext(r)).toContain('[PHASE R1]');
    expect(additionalContext(r)).toContain('Task: session two');
    expect(r.stdout?.systemMessage).toBe(`minions: review loop started — R1, Iteration 1/5: effort standard: five reviewers on "session two" (previous loop archived to .agents/tmp/archive/${firstState.runId}/); the change: uncommitted work against HEAD ${firstState.base.slice(0, 12)}`);
    expect(other.state()).toMatchObject({ sessionId: OTHER_SESSION, task: 'session two', iteration: 1, currentPhase: 'R1' });
    expect(other.dir.readJson(`.agents/tmp/archive/${firstState.runId}/state.json`)).toEqual(firstState);
    expect(other.dir.exists(`.agents/tmp/archive/${firstState.runId}/phases/review-1/r1-critic.json`)).toBe(true);
    expect(other.dir.list('.agents/tmp/phases')).toEqual(['review-1/diff.patch', 'run.json']);

    // Now the first session is the outsider: its hooks step aside.
    const first = new Loop(other.dir, SESSION);
    const before = first.snapshot();
    const results = await Promise.all([first.stop(), first.fixerStop(), first.gateWrite(first.dir.abs('src/a.ts'), FIXER), first.dispatch(FIXER)]);
    for (const x of results) expect(x).toMatchObject({ code: 0, raw: '', stderr: '' });
    expect(first.snapshot()).toEqual(before);
  });

  it('a stale loop (updated more than 2 h ago) may be replaced without --force', async () => {
    const other = new Loop(cloneTestdir(r1), OTHER_SESSION);
    age(other, 2 * HOURS + 60_000);
    const runId = other.state().runId;
    const r = await other.start('session two');
    expect(r.stdout?.decision).toBeUndefined();
    expect(additionalContext(r)).toContain('[PHASE R1]');
    expect(other.state()).toMatchObject({ sessionId: OTHER_SESSION, task: 'session two' });
    expect(other.dir.exists(`.agents/tmp/archive/${runId}/state.json`)).toBe(true);
  });

  it('a loop updated just under 2 h ago is still fresh', async () => {
    const other = new Loop(cloneTestdir(r1), OTHER_SESSION);
    age(other, 2 * HOURS - 5 * 60_000);
    const r = await other.start('session two');
    expect(r.stdout?.decision).toBe('block');
    expect(r.stdout?.reason).toContain('updated 115 min ago');
    expect(other.state().sessionId).toBe(SESSION);
  });

  it('a finished loop (DONE, not yet archived by its Stop) does not hold the project', async () => {
    const first = new Loop(cloneTestdir(r1), SESSION);
    await first.dispatchReviewers(['witness', 'security-reviewer', 'silent-failure-hunter']);
    for (const r of REVIEWERS) first.writeReview(1, r, cleanReview(r));
    await first.reviewersStop();
    expect(first.state().currentPhase).toBe('DONE');
    const other = new Loop(first.dir, OTHER_SESSION);
    // The other session's Stop neither announces nor archives session 1's outcome.
    expect(await other.stop()).toMatchObject({ code: 0, raw: '' });
    expect(other.hasState()).toBe(true);
    const r = await other.start('session two');
    expect(r.stdout?.decision).toBeUndefined();
    expect(other.state().sessionId).toBe(OTHER_SESSION);
  });
});
