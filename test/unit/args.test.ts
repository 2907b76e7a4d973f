import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DEFAULT_REVIEW_ONLY_TASK, DEFAULT_TASK, REVIEW_FLAGS, parseCommand, parseOptions } from '../../src/core/args';
import { DEFAULT_RULES } from '../../src/protocol/stop-rules';
import { STANDARD_EFFORT } from '../../src/protocol/effort';

const R = DEFAULT_RULES;
/** What every /minions:review command carries besides the flags a row sets. */
const NO_CHECKS = { checks: { commands: [], timeoutSeconds: 300 }, layer0: { disabled: [] }, effort: STANDARD_EFFORT };

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
    ['/minions:review --max-critical 2 --stuck-rounds 4 --fixpoint-similarity 0.9 x', { kind: 'review', task: 'x', maxIterations: 5, force: false, rules: { ...R, maxCritical: 2, stuckRounds: 4, similarity: 0.9 } }],
    ['/minions:review --done-when critical --min-confidence 0 x', { kind: 'review', task: 'x', maxIterations: 5, force: false, rules: { ...R, doneWhen: 'critical', minConfidence: 0 } }],
    ['/minions:review --done-when=info --min-confidence=100 x', { kind: 'review', task: 'x', maxIterations: 5, force: false, rules: { ...R, doneWhen: 'info', minConfidence: 100 } }],
    ['/minions:review --max-tokens 250000 x', { kind: 'review', task: 'x', maxIterations: 5, force: false, rules: { ...R, maxTokens: 250_000 } }],
    ['/minions:review --max-critical=0 x', { kind: 'review', task: 'x', maxIterations: 5, force: false, rules: { ...R, maxCritical: 0 } }],
    ['/minions:status', { kind: 'status' }],
    ['/minions:cancel', { kind: 'cancel', force: false }],
    ['/minions:cancel --force', { kind: 'cancel', force: true }],
    ['/minions:cancel the loop, not with --force', { kind: 'cancel', force: false }],
    ['/minions:cancel -- --force', { kind: 'cancel', force: false }],
  ])('%j', (prompt, command) => {
    const scope = { base: null, baseFrom: 'flag', reviewOnly: false, sarif: null, taskGiven: 'task' in command && command.task !== DEFAULT_TASK };
    expect(parseCommand(prompt)).toEqual({ ok: true, command: command.kind === 'review' ? { ...NO_CHECKS, scope, ...command } : command });
  });

  it.each([
    ['/minions:review --check "npm test" x', ['npm test'], 'x'],
    ["/minions:review --check 'npx tsc --noEmit' --check \"npm test\" x", ['npx tsc --noEmit', 'npm test'], 'x'],
    ['/minions:review --check="npm run lint -- --max-warnings 0" x', ['npm run lint -- --max-warnings 0'], 'x'],
    ['/minions:review --check=make x', ['make'], 'x'],
    ['/minions:review --check "echo \\"a b\\"" x', ['echo "a b"'], 'x'],
    ['/minions:review --check "test -f a"\'b\' x', ['test -f ab'], 'x'],
    ['/minions:review --check npm\\ test x', ['npm test'], 'x'],
    ['/minions:review --max-iterations 2 --check make --force the "parser" it\'s', ['make'], 'the "parser" it\'s'],
    // Options come first: a --check inside the task is task text, and -- ends the options.
    ['/minions:review review "the parser" --check "npm test"', [], 'review "the parser" --check "npm test"'],
    ['/minions:review -- --check "npm test" is the task', [], '--check "npm test" is the task'],
  ])('--check: %j', (prompt, commands, task) => {
    const parsed = parseCommand(prompt);
    expect(parsed).toMatchObject({ ok: true, command: { kind: 'review', task, checks: { commands, timeoutSeconds: 300 } } });
  });

  it('--check-timeout sets the seconds each check may run', () => {
    expect(parseCommand('/minions:review --check-timeout 45 --check make x')).toMatchObject({ ok: true, command: { checks: { commands: ['make'], timeoutSeconds: 45 } } });
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
    ['/minions:review --done-when warn x', '--done-when must be one of critical, warning, info, not "warn"'],
    ['/minions:review --done-when', '--done-when needs one of critical, warning, info'],
    ['/minions:review --min-confidence 101 x', '--min-confidence must be a whole number from 0 to 100, not "101"'],
    ['/minions:review --min-confidence 0.8 x', '--min-confidence must be a whole number from 0 to 100, not "0.8"'],
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
    ['/minions:review --check', '--check needs a command, quoted when it has spaces: --check "npm test"'],
    ['/minions:review --check= x', '--check needs a command, quoted when it has spaces: --check "npm test"'],
    ['/minions:review --check "" x', '--check needs a command, quoted when it has spaces: --check "npm test"'],
    ['/minions:review --check "npm test x', '--check: the quote " opened at ""npm test x" is not closed'],
    ["/minions:review --check 'npm test x", '--check: the quote \' opened at "\'npm test x" is not closed'],
    ['/minions:review --check-timeout 0 x', '--check-timeout must be a whole number from 1 to 600, not "0"'],
    ['/minions:review --check-timeout 601 x', '--check-timeout must be a whole number from 1 to 600, not "601"'],
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
        expect(parseCommand(`/minions:review ${task}`)).toEqual({ ok: true, command: { kind: 'review', task, maxIterations: 5, force: false, rules: R, ...NO_CHECKS, scope: { base: null, baseFrom: 'flag', reviewOnly: false, sarif: null, taskGiven: true } } });
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
      const value = spec.kind === 'switch' ? [] : spec.kind === 'command' ? ['"npm test"'] : spec.kind === 'word' ? ["'a b'"] : spec.kind === 'choice' ? [spec.values[0]] : [String(spec.max)];
      const read = spec.kind === 'switch' ? true : spec.kind === 'command' ? ['npm test'] : spec.kind === 'word' ? 'a b' : spec.kind === 'choice' ? spec.values[0] : spec.max;
      expect(parseOptions([`--${name}`, ...value, 'task'], REVIEW_FLAGS)).toEqual({ ok: true, values: { [name]: read }, rest: ['task'] });
    }
  });
});

describe('what is reviewed: --base, --no-fix, --sarif', () => {
  const scope = (prompt: string) => {
    const parsed = parseCommand(prompt);
    return parsed.ok && parsed.command?.kind === 'review' ? { scope: parsed.command.scope, task: parsed.command.task } : parsed;
  };
  it.each([
    ['/minions:review --base origin/main', { base: 'origin/main', baseFrom: 'flag', reviewOnly: false, sarif: null, taskGiven: false }, DEFAULT_TASK],
    ['/minions:review --base=main~2 the parser', { base: 'main~2', baseFrom: 'flag', reviewOnly: false, sarif: null, taskGiven: true }, 'the parser'],
    ['/minions:review --no-fix', { base: null, baseFrom: 'flag', reviewOnly: true, sarif: null, taskGiven: false }, DEFAULT_REVIEW_ONLY_TASK],
    [
      '/minions:review --no-fix --base "origin/feature x" --sarif out/minions.sarif -- --no-fix in the task',
      { base: 'origin/feature x', baseFrom: 'flag', reviewOnly: true, sarif: 'out/minions.sarif', taskGiven: true },
      '--no-fix in the task',
    ],
    ['/minions:review the --base flag', { base: null, baseFrom: 'flag', reviewOnly: false, sarif: null, taskGiven: true }, 'the --base flag'],
  ])('%s', (prompt, expected, task) => {
    expect(scope(prompt)).toEqual({ scope: expected, task });
  });

  it.each([
    ['/minions:review --base', '--base needs a git ref, e.g. --base origin/main'],
    ['/minions:review --base --no-fix', '--base needs a git ref, e.g. --base origin/main'],
    ['/minions:review --base=', '--base needs a git ref, e.g. --base origin/main'],
    ['/minions:review --base main --base dev x', '--base may be given once'],
    ['/minions:review --sarif', '--sarif needs a file name, e.g. --sarif minions.sarif'],
    ['/minions:review --no-fix=yes', '--no-fix takes no value'],
    [`/minions:review --base ${'a'.repeat(1001)}`, '--base: at most 1000 characters'],
    ['/minions:review --base "main', '--base: the quote " opened at ""main" is not closed'],
  ])('%s is refused: %s', (prompt, error) => {
    expect(parseCommand(prompt)).toEqual({ ok: false, error });
  });
});
