/** /minions:review arguments, as the UserPromptSubmit hook sees the raw prompt. */
import { afterAll, describe, expect, it } from 'vitest';
import { Loop, additionalContext, projectTestdir } from '../helpers/loop';
import { removeTestdirs } from '../helpers/testdir';

afterAll(removeTestdirs);

const USAGE = 'Usage: /minions:review [--base <ref>] [--no-fix] [--sarif FILE] [--max-iterations N] [--max-critical N] [--stuck-rounds N] [--fixpoint-similarity X] [--done-when LEVEL] [--min-confidence N] [--max-tokens N] [--check "<command>"]… [--check-timeout S] [--effort quick|standard|deep] [--force] [--] <what to review>. Nothing was started; fix the command and send it again.';

describe.concurrent('/minions:review arguments', () => {
  it.each([
    ['--max-iterations 0 fix it', '--max-iterations must be a whole number from 1 to 20, not "0"'],
    ['--max-iterations 21 fix it', '--max-iterations must be a whole number from 1 to 20, not "21"'],
    ['--max-iterations abc fix it', '--max-iterations must be a whole number from 1 to 20, not "abc"'],
    ['--max-iterations -3 fix it', '--max-iterations must be a whole number from 1 to 20, not "-3"'],
    ['--max-iterations 2.5', '--max-iterations must be a whole number from 1 to 20, not "2.5"'],
    ['--max-iterations', '--max-iterations needs a number'],
    ['--max-iterations=', '--max-iterations needs a number'],
    ['--max-iterations= fix it', '--max-iterations needs a number'],
    ['--maxiter 3 fix it', 'unknown option "--maxiter"'],
  ])('`/minions:review %s` is refused with the usage and writes nothing', async (args, problem) => {
    const loop = new Loop(projectTestdir());
    const r = await loop.prompt(`/minions:review ${args}`);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toEqual({ decision: 'block', reason: `minions: ${problem}. ${USAGE}` });
    expect(loop.dir.exists('.agents')).toBe(false);
  });

  it('bad arguments leave a running loop as it is', async () => {
    const loop = new Loop(projectTestdir());
    await loop.start('--max-iterations 2 first');
    const before = loop.snapshot();
    const r = await loop.prompt('/minions:review --max-iterations 99 second');
    expect(r.stdout?.decision).toBe('block');
    expect(loop.snapshot()).toEqual(before);
  });

  it.each([
    ['--max-iterations=7 the parser', 7, 'the parser'],
    ['--max-iterations 20 the parser', 20, 'the parser'],
    ['--max-iterations 1', 1, null],
    // Options come before the task: after its first word they are task text.
    ['the parser --max-iterations 3', 5, 'the parser --max-iterations 3'],
    ['check that the CLI rejects --force without a task', 5, 'check that the CLI rejects --force without a task'],
    ['-- --verbose is part of the task', 5, '--verbose is part of the task'],
    ['--max-iterations 2 -- document --max-iterations 30', 2, 'document --max-iterations 30'],
    ['', 5, null],
  ])('`/minions:review %s` starts with maxIterations %s', async (args, max, task) => {
    const loop = new Loop(projectTestdir());
    const r = await loop.start(args);
    expect(r.stdout?.decision).toBeUndefined();
    expect(additionalContext(r)).toContain(`Iteration 1/${max}`);
    const state = loop.state();
    expect(state.maxIterations).toBe(max);
    if (task) expect(state.task).toBe(task);
    else expect(state.task).toMatch(/^Review the change in this repository/);
  });

  it.each(['/minions:status', '/minions:cancel', '/minions:cancel --force', 'please run /minions:review later', '/minions:reviewer x'])(
    '`%s` is not started by the hook',
    async (prompt) => {
      const loop = new Loop(projectTestdir());
      expect(await loop.prompt(prompt)).toMatchObject({ code: 0, raw: '', stderr: '' });
      expect(loop.dir.exists('.agents/tmp/state.json')).toBe(false);
    },
  );
});
