import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DEFAULT_TASK, REVIEW_FLAGS, parseCommand, parseOptions } from '../../src/core/args';
import { DEFAULT_RULES } from '../../src/review/aggregate';

const R = DEFAULT_RULES;

describe('parseCommand', () => {
  it.each([
    ['/minions:review fix the parser', { kind: 'review', task: 'fix the parser', maxIterations: 5, force: false, rules: R }],
    ['/minions:review --max-iterations 3 fix x', { kind: 'review', task: 'fix x', maxIterations: 3, force: false, rules: R }],
    ['/minions:review --max-iterations=20 fix x', { kind: 'review', task: 'fix x', maxIterations: 20, force: false, rules: R }],
    ['/minions:review --force --max-iterations 1 a b', { kind: 'review', task: 'a b', maxIterations: 1, force: true, rules: R }],
    // Options come before the task; from its first word on, flag-looking words are task text.
    ['/minions:review fix the --verbose flag --max-iterations 2', { kind: 'review', task: 'fix the --verbose flag --max-iterations 2', maxIterations: 5, force: false, rules: R }],
    ['/minions:review check that the CLI rejects --force without a task', { kind: 'review', task: 'check that the CLI rejects --force without a task', maxIterations: 5, force: false, rules: R }],
    ['/minions:review --max-iterations 2 document --max-iterations=9 and --force', { kind: 'review', task: 'document --max-iterations=9 and --force', maxIterations: 2, force: false, rules: R }],
    ['/minions:review --force -- --force is the task', { kind: 'review', task: '--force is the task', maxIterations: 5, force: true, rules: R }],
    ['/minions:review --', { kind: 'review', task: DEFAULT_TASK, maxIterations: 5, force: false, rules: R }],
    ['/minions:review -- --weird task', { kind: 'review', task: '--weird task', maxIterations: 5, force: false, rules: R }],
    ['/minions:review -- --max-iterations 3 in the docs', { kind: 'review', task: '--max-iterations 3 in the docs', maxIterations: 5, force: false, rules: R }],
    ['/minions:review', { kind: 'review', task: DEFAULT_TASK, maxIterations: 5, force: false, rules: R }],
    ['  /minions:review\n multi\nline task', { kind: 'review', task: 'multi line task', maxIterations: 5, force: false, rules: R }],
    ['/minions:review --max-critical 2 --stuck-rounds 4 --fixpoint-similarity 0.9 x', { kind: 'review', task: 'x', maxIterations: 5, force: false, rules: { maxCritical: 2, stuckRounds: 4, similarity: 0.9, maxTokens: null } }],
    ['/minions:review --max-tokens 250000 x', { kind: 'review', task: 'x', maxIterations: 5, force: false, rules: { ...R, maxTokens: 250_000 } }],
    ['/minions:review --max-critical=0 x', { kind: 'review', task: 'x', maxIterations: 5, force: false, rules: { ...R, maxCritical: 0 } }],
    ['/minions:status', { kind: 'status' }],
    ['/minions:cancel', { kind: 'cancel', force: false }],
    ['/minions:cancel --force', { kind: 'cancel', force: true }],
    ['/minions:cancel the loop, not with --force', { kind: 'cancel', force: false }],
    ['/minions:cancel -- --force', { kind: 'cancel', force: false }],
  ])('%j', (prompt, command) => {
    expect(parseCommand(prompt)).toEqual({ ok: true, command });
  });

  it.each([
    ['hello', null],
    ['/minions:reviewer x', null],
    ['please run /minions:review x', null],
    ['<task-notification>/minions:review</task-notification>', null],
  ])('ignores %j', (prompt, command) => {
    expect(parseCommand(prompt)).toEqual({ ok: true, command });
  });

  it.each([
    ['/minions:review --max-iterations 0 x', '--max-iterations must be a whole number from 1 to 20, not "0"'],
    ['/minions:review --max-iterations 21 x', '--max-iterations must be a whole number from 1 to 20, not "21"'],
    ['/minions:review --max-iterations abc x', '--max-iterations must be a whole number from 1 to 20, not "abc"'],
    ['/minions:review --max-iterations 2.5 x', '--max-iterations must be a whole number from 1 to 20, not "2.5"'],
    ['/minions:review --max-iterations -3 x', '--max-iterations must be a whole number from 1 to 20, not "-3"'],
    ['/minions:review --max-iterations', '--max-iterations needs a number'],
    ['/minions:review --max-iterations=', '--max-iterations needs a number'],
    ['/minions:review --maxiter 3 x', 'unknown option "--maxiter"'],
    ['/minions:review --stuck-rounds 0 x', '--stuck-rounds must be a whole number from 1 to 20, not "0"'],
    ['/minions:review --fixpoint-similarity 1.5 x', '--fixpoint-similarity must be a number from 0.5 to 1, not "1.5"'],
    ['/minions:review --max-critical -1 x', '--max-critical must be a whole number from 0 to 1000, not "-1"'],
    ['/minions:review --force=yes x', '--force takes no value'],
    ['/minions:review -f x', 'unknown option "-f"'],
    ['/minions:review --constructor x', 'unknown option "--constructor"'],
    ['/minions:cancel --forse', 'unknown option "--forse"'],
  ])('refuses %j', (prompt, error) => {
    expect(parseCommand(prompt)).toEqual({ ok: false, error });
  });
});

describe('options are read only before the task', () => {
  const word = fc.stringMatching(/^[A-Za-z0-9=.:-]{1,12}$/);
  const flag = fc.constantFrom(...Object.keys(REVIEW_FLAGS).map((f) => `--${f}`), '--', '-x');

  it('a task that starts with a plain word is the task, every later word included', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z][a-z]{0,8}$/), fc.array(fc.oneof(word, flag), { maxLength: 8 }), (first, rest) => {
        const task = [first, ...rest].join(' ');
        expect(parseCommand(`/minions:review ${task}`)).toEqual({ ok: true, command: { kind: 'review', task, maxIterations: 5, force: false, rules: R } });
      }),
    );
  });

  it('after --, nothing is an option', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(word, flag), { minLength: 1, maxLength: 8 }), (rest) => {
        const parsed = parseOptions(['--', ...rest], REVIEW_FLAGS);
        expect(parsed).toEqual({ ok: true, values: {}, rest });
      }),
    );
  });

  it('the flag table is the parser: every flag in it is read, with its range', () => {
    for (const [name, spec] of Object.entries(REVIEW_FLAGS)) {
      const value = spec.kind === 'switch' ? [] : [String(spec.max)];
      expect(parseOptions([`--${name}`, ...value, 'task'], REVIEW_FLAGS)).toEqual({ ok: true, values: { [name]: spec.kind === 'switch' ? true : spec.max }, rest: ['task'] });
    }
  });
});
