/**
 * `git diff $(git merge-base main HEAD)`: the Bash gate reads a word of such substitutions as object
 * names, never an option (src/bash/words.ts, printsNames). Held to real bash and git here: for
 * generated substitutions, wherever the analysis takes a word for names, bash expands it in a real
 * repository into fields none of which starts with "-" (so none can be `--output=<file>`).
 */
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTestdirs, testdir } from '../helpers/testdir';
import { analyse } from '../unit/bash';

afterAll(removeTestdirs);

const repo = testdir({ 'src/a.ts': 'a\n' });
repo.git('branch', 'base');
repo.git('branch', 'feat-x');

/** The fields bash makes of `word` in the repository, after `prelude` runs: each printed on a line of its own. */
function fields(word: string, prelude = ''): string[] {
  const out = spawnSync('/bin/bash', ['-c', `${prelude}for f in ${word}; do printf '<%s>\\n' "$f"; done`], { cwd: repo.root, encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' } });
  return [...out.stdout.matchAll(/<([^>]*)>/g)].map((m) => m[1]!);
}

/** Nothing the gate refuses: only where git runs. */
const takenAsNames = (word: string, prelude = ''): boolean => analyse(`${prelude}git diff ${word}`).every((e) => e.kind === 'git-cwd');

// The last character of base's name, and one it does not hold: IFS set to either splits a name there.
const baseName = repo.git('rev-parse', 'base').trim();
const last = baseName.slice(-1);
const absent = [...'0123456789abcdef'].find((c) => !baseName.includes(c)) ?? 'g';

// Forms the gate takes for names, and near misses: half of each word's parts come from the first kind.
const SAFE_ARG = fc.constantFrom('HEAD', 'base', 'feat-x', 'HEAD~1', 'HEAD@{0}', 'nonexistent', 'a-b', 'x..y', '^HEAD', 'HEAD:src/a.ts', '@', '--all', '-a', '--octopus', '--independent', '--is-ancestor', '--fork-point', '--verify', '-q', '--short', '--short=7', `HEAD${absent}--output${absent}x`, 'HEAD1--output1x');
const RISKY_ARG = fc.constantFrom('-h', '--help', '--flags', '--sq-quote', '--symbolic', '--output=x', '-O/tmp/x', '--', '--end-of-options', "'--output=x'", '"$X"', '~', '{a,-b}', '*');
const ARG = fc.oneof(SAFE_ARG, RISKY_ARG);
const SUBSTITUTION_TEXT = '$(git merge-base base base)';
const SUBSTITUTION = fc.record({
  sub: fc.oneof(fc.constantFrom('merge-base', 'rev-parse'), fc.constantFrom('log -1 --format=%H', 'config user.name')),
  args: fc.oneof(fc.array(SAFE_ARG, { maxLength: 4 }), fc.array(ARG, { maxLength: 4 })),
  backquotes: fc.boolean(),
}).map(({ sub, args, backquotes }) => (backquotes ? `\`git ${sub} ${args.join(' ')}\`` : `$(git ${sub} ${args.join(' ')})`));
const WORD = fc
  .tuple(
    fc.oneof(fc.constantFrom('', 'HEAD..', '"'), fc.constantFrom('-', '--output=', 'x', '{--output=,x}', '{,-}')),
    SUBSTITUTION,
    fc.oneof(fc.constantFrom('', '..HEAD'), fc.constantFrom('-x', '--output=y', '*', 'z', '{,--output=y}', 'z--output=y', `z${SUBSTITUTION_TEXT}--output=y`)),
  )
  .map(([before, sub, after]) => (before === '"' ? `"${sub}"${after}` : `${before}${sub}${after}`));
/** What may run before the command: IFS set under names the text does not spell, a function named git. */
const PRELUDE = fc.oneof(
  fc.constant(''),
  fc.constantFrom(`read -r I""FS <<< ${absent}; `, `v=I; printf -v "\${v}FS" %s ${last}; `, 'read -r I""FS <<< 1; ', "eval 'git(' ')' '{ echo --output=x; }'; "),
);

describe('object names printed by git, as real bash expands them', () => {
  it('everyday forms are taken as names, and their fields are names', () => {
    for (const word of ['$(git merge-base HEAD base)', '"$(git merge-base HEAD base)"...HEAD', '`git rev-parse --short HEAD`', '$(git merge-base --all base feat-x)..HEAD']) {
      expect(takenAsNames(word), word).toBe(true);
      expect(fields(word).length, word).toBeGreaterThan(0);
      for (const f of fields(word)) expect(f, word).toMatch(/^[0-9a-f]{7,40}(?:\.\.\.?HEAD)?$/);
    }
  });

  it('a word can print an option where the gate does not take it for names', () => {
    // The reason for the rules: real git prints these.
    expect(fields('$(git rev-parse --flags --output=x)')).toEqual(['--output=x']);
    expect(fields('$(git merge-base -h)').some((f) => f.startsWith('-'))).toBe(true);
    expect(fields('$(git merge-base nonexistent base)--output=y')).toEqual(['--output=y']);
    for (const word of ['$(git rev-parse --flags --output=x)', '$(git merge-base -h)', '$(git merge-base nonexistent base)--output=y']) expect(takenAsNames(word), word).toBe(false);
  });

  it('IFS set under a name the text does not spell splits what git prints into an option', () => {
    // rev-parse without --verify echoes a word it cannot resolve; a literal part after a name starts a
    // field when the name ends in a character of IFS; brace expansion comes before either; eval defines git.
    const cases: [string, string, string][] = [
      ['read -r I""FS <<< 1; ', '$(git rev-parse HEAD1--output1x)', '--output'],
      [`v=I; printf -v "\${v}FS" %s ${last}; `, 'HEAD..$(git merge-base base base)--output=y', '--output=y'],
      ['', '{--output=,x}$(git merge-base base base)', `--output=${baseName}`],
      ["eval 'git(' ')' '{ echo --output=x; }'; ", '$(git merge-base base base)', '--output=x'],
    ];
    for (const [prelude, word, option] of cases) {
      expect(fields(word, prelude), prelude + word).toContain(option);
      expect(takenAsNames(word, prelude), prelude + word).toBe(false);
    }
  });

  it('whatever is generated, a word taken as names expands to no field that starts with "-"', () => {
    let taken = 0;
    fc.assert(
      fc.property(PRELUDE, WORD, (prelude, word) => {
        if (!takenAsNames(word, prelude)) return;
        taken += 1;
        for (const f of fields(word, prelude)) expect(f.startsWith('-'), `${prelude}${word} → ${JSON.stringify(fields(word, prelude))}`).toBe(false);
      }),
      { numRuns: Number(process.env.NAMES_RUNS ?? 2000) },
    );
    expect(taken, 'some generated words are taken as names').toBeGreaterThan(0);
  });
});
