/** The pins of files outside the snapshot: which names a check runs, what changed, and what the core makes of it. Tables over pure code. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REVIEWERS } from '../../src/protocol/agents';
import { transition, type Effect } from '../../src/core/transition';
import { withPinned, pinnedStop } from '../../src/core/pinned';
import { checkNames, mergeChanges, pinChanges, simpleCommands, type PinChange, type Pins } from '../../src/checks/pins';
import { pinName } from '../../src/shell/pins';
import { stateProblems } from '../../src/state/invariants';
import { parseCommand } from '../../src/core/args';
import type { PinRecord } from '../../src/checks/pins';
import { LATER, OWNER, answers, finding, fixerStop, reviewJson, reviewerStop, stateBuilder, throughRound } from './builders';

/** The loop's start, with the pins the shell observed. */
function initialStateForCommand(pins: PinRecord | undefined) {
  const parsed = parseCommand('/minions:review the parser');
  if (!parsed.ok || !parsed.command) throw new Error('the command does not parse');
  return transition({ kind: 'none' }, { kind: 'command', command: parsed.command, sessionId: OWNER, now: LATER, head: null, changedFiles: [], pins });
}

describe('pinChanges', () => {
  it.each<[string, Pins, Pins, PinChange[]]>([
    ['nothing pinned, nothing now', {}, {}, []],
    ['the same', { '/r/.git/config': 'sha256:a' }, { '/r/.git/config': 'sha256:a' }, []],
    ['changed', { '/r/.git/config': 'sha256:a' }, { '/r/.git/config': 'sha256:b' }, [{ file: '/r/.git/config', problem: 'changed' }]],
    ['absent then present: added', { '/r/.git/hooks/pre-commit': null }, { '/r/.git/hooks/pre-commit': 'sha256:x' }, [{ file: '/r/.git/hooks/pre-commit', problem: 'added' }]],
    ['a name only now: added', {}, { '/r/.git/hooks/pre-commit': 'sha256:x' }, [{ file: '/r/.git/hooks/pre-commit', problem: 'added' }]],
    ['present then null: deleted', { '/r/a': 'sha256:a' }, { '/r/a': null }, [{ file: '/r/a', problem: 'deleted' }]],
    ['a name gone now: deleted', { '/r/a': 'sha256:a' }, {}, [{ file: '/r/a', problem: 'deleted' }]],
    ['absent both times', { '/r/a': null }, {}, []],
    ['a file became a link', { '/r/a': 'sha256:a' }, { '/r/a': 'link:/tmp/x' }, [{ file: '/r/a', problem: 'changed' }]],
    [
      'several, sorted by name',
      { '/r/b': 'sha256:1', '/r/a': 'sha256:1', '/r/c': 'sha256:1' },
      { '/r/c': 'sha256:2', '/r/a': 'sha256:2', '/r/b': 'sha256:1' },
      [
        { file: '/r/a', problem: 'changed' },
        { file: '/r/c', problem: 'changed' },
      ],
    ],
    ['an inherited name is no pin', {}, { constructor: null }, []],
  ])('%s', (_, before, now, expected) => {
    expect(pinChanges(before, now)).toEqual(expected);
  });

  it('is empty exactly when both sides agree on every name (absent and null alike)', () => {
    const pins = fc.dictionary(fc.constantFrom('/a', '/b', '/c', '/d'), fc.option(fc.constantFrom('sha256:1', 'sha256:2', 'link:x'), { nil: null }));
    fc.assert(
      fc.property(pins, pins, (before, now) => {
        const names = new Set([...Object.keys(before), ...Object.keys(now)]);
        const same = [...names].every((n) => (before[n] ?? null) === (now[n] ?? null));
        expect(pinChanges(before, now).length === 0).toBe(same);
        expect(pinChanges(before, before)).toEqual([]);
      }),
    );
  });
});

describe('mergeChanges', () => {
  it('names each file once, its first reading first, sorted', () => {
    expect(
      mergeChanges(
        [{ file: 'node_modules/.bin/vitest', problem: 'changed' }],
        [
          { file: 'node_modules/.bin/vitest', problem: 'deleted' },
          { file: 'a', problem: 'added' },
        ],
      ),
    ).toEqual([
      { file: 'a', problem: 'added' },
      { file: 'node_modules/.bin/vitest', problem: 'changed' },
    ]);
  });
});

describe('simpleCommands', () => {
  it.each<[string, string[][]]>([
    ['npm test', [['npm', 'test']]],
    ['vitest run && eslint .', [['vitest', 'run'], ['eslint', '.']]],
    ["node 'scripts/my test.js' --flag", [['node', 'scripts/my test.js', '--flag']]],
    ['a; b | c || d & e', [['a'], ['b'], ['c'], ['d'], ['e']]],
    ['CI=1 jest # a comment\nmake check', [['CI=1', 'jest'], ['make', 'check']]],
    ['( cd sub && ./run.sh )', [['cd', 'sub'], ['./run.sh']]],
    ['echo "a \\"b\\" c"', [['echo', 'a "b" c']]],
    ['', []],
  ])('%j', (text, expected) => {
    expect(simpleCommands(text)).toEqual(expected);
  });
});

describe('checkNames', () => {
  const scripts = {
    pretest: 'node scripts/prepare.mjs',
    test: 'vitest run --config vitest.config.ts',
    posttest: 'eslint .',
    lint: 'eslint src && tsc --noEmit',
    loop: 'npm run loop',
    deep: 'npm run deep2',
    deep2: 'npm run deep3',
    deep3: 'npm run deep4',
    deep4: 'npm run deep5',
    deep5: 'npm run deep6',
    deep6: 'never-reached',
  };
  it.each<[string, { bins: string[]; files: string[] }]>([
    ['npm test', { bins: ['eslint', 'node', 'npm', 'vitest'], files: ['package.json', 'scripts/prepare.mjs', 'vitest.config.ts'] }],
    ['npm t', { bins: ['eslint', 'node', 'npm', 'vitest'], files: ['package.json', 'scripts/prepare.mjs', 'vitest.config.ts'] }],
    ['npm run lint', { bins: ['eslint', 'npm', 'tsc'], files: ['package.json'] }],
    ['yarn lint', { bins: ['eslint', 'tsc', 'yarn'], files: ['package.json'] }],
    ['pnpm run --silent lint', { bins: ['eslint', 'pnpm', 'tsc'], files: ['package.json'] }],
    ['npm ci', { bins: ['npm'], files: [] }],
    ['npx vitest run', { bins: ['npx', 'vitest'], files: [] }],
    ['npx --yes jest', { bins: ['jest', 'npx'], files: [] }],
    ['pnpm exec mocha', { bins: ['mocha', 'pnpm'], files: [] }],
    ['./node_modules/.bin/vitest run', { bins: [], files: ['./node_modules/.bin/vitest'] }],
    ['node dist/test.js', { bins: ['node'], files: ['dist/test.js'] }],
    ['python3 -m pytest tests/', { bins: ['python3'], files: ['tests/'] }],
    ['sh scripts/check.sh --out=build/report.txt', { bins: ['sh'], files: ['build/report.txt', 'scripts/check.sh'] }],
    ['CI=1 env FOO=bar jest', { bins: ['jest'], files: [] }],
    ['make check', { bins: ['make'], files: [] }],
    ['node $SCRIPT "$(echo x)" ./*.js', { bins: ['node'], files: [] }],
    ['npm run loop', { bins: ['npm'], files: ['package.json'] }],
  ])('%j', (command, expected) => {
    expect(checkNames(command, scripts)).toEqual(expected);
  });

  it('follows scripts a few levels deep, no further', () => {
    expect(checkNames('npm run deep', scripts).bins).not.toContain('never-reached');
    expect(checkNames('npm run deep3', scripts).bins).toContain('never-reached');
  });

  it('never names a bin that is not one path segment', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (command) => {
        for (const bin of checkNames(command, {}).bins) expect(bin).toMatch(/^[\w@.+-]+$/);
      }),
    );
  });
});

describe('pinName', () => {
  it.each([
    ['/p/.git/config', '.git/config'],
    ['/p/.git/hooks/', '.git/hooks/'],
    ['/p/node_modules/vitest/**', 'node_modules/vitest/'],
    ['/home/u/.gitconfig', '~/.gitconfig'],
    ['/elsewhere/main/.git/config', '/elsewhere/main/.git/config'],
  ])('%s → %s', (key, name) => {
    expect(pinName('/p', key, '/home/u')).toBe(name);
  });
});

describe('the core at a phase end', () => {
  const GIT: PinChange[] = [{ file: '.git/config', problem: 'changed' }];
  const CHECK: PinChange[] = [{ file: 'node_modules/vitest/vitest.mjs', problem: 'changed' }];

  it.each<[string, Parameters<typeof pinnedStop>[0], Parameters<typeof pinnedStop>[1], string | null]>([
    ['no record', null, 'DONE', null],
    ['nothing changed', { gitDir: [], checks: [] }, 'DONE', null],
    ['the git dir, a DONE round', { gitDir: GIT, checks: [] }, 'DONE', 'git_dir_changed'],
    ['the git dir, a round with findings', { gitDir: GIT, checks: [] }, 'R2', 'git_dir_changed'],
    ['the git dir and a check file: the git dir first', { gitDir: GIT, checks: CHECK }, 'R1', 'git_dir_changed'],
    ['a check file, a DONE round', { gitDir: [], checks: CHECK }, 'DONE', 'check_changed'],
    ['a check file, a round with findings: goes on', { gitDir: [], checks: CHECK }, 'R2', null],
    ['a check file, a re-review: goes on', { gitDir: [], checks: CHECK }, 'R1', null],
    ['a check file at the fixer\'s stop', { gitDir: [], checks: CHECK }, 'fix-end', 'check_changed'],
  ])('%s', (_, pinned, next, reason) => {
    expect(pinnedStop(pinned, next)?.stopReason ?? null).toBe(reason);
  });

  it('the stop names every changed file (five, then how many more)', () => {
    const many: PinChange[] = Array.from({ length: 7 }, (_, i) => ({ file: `.git/hooks/h${i}`, problem: 'added' }));
    const detail = pinnedStop({ gitDir: many, checks: [] }, 'R2')!.stopDetail;
    expect(detail).toMatch(/^\.git\/hooks\/h0 was added; .*\.git\/hooks\/h4 was added; and 2 more since the loop started/);
  });

  it('a clean fifth review with the git dir changed: STOPPED, never DONE, the file named in the verdict and the progress line', () => {
    const clean = reviewJson();
    let b = stateBuilder().dispatched();
    for (const r of REVIEWERS.slice(0, 4)) b = b.reviewer(r, { status: 'valid', dispatches: 1 });
    const all = Object.fromEntries(REVIEWERS.map((r) => [r, clean])) as Record<(typeof REVIEWERS)[number], string>;
    const out = throughRound(b.loaded(), reviewerStop('silent-failure-hunter', all), all, { pinned: { gitDir: GIT, checks: [] } });
    expect(out.state).toMatchObject({ status: 'stopped', currentPhase: 'STOPPED', stopReason: 'git_dir_changed' });
    expect(out.state!.stopDetail).toContain('.git/config was changed');
    expect(stateProblems(out.state!)).toEqual([]);
    const verdict = JSON.parse((out.effects.find((e) => e.type === 'write') as Extract<Effect, { type: 'write' }>).content);
    expect(verdict).toMatchObject({ next: 'STOPPED', stopReason: 'git_dir_changed' });
    const notes = out.effects.flatMap((e) => (e.type === 'notify' ? [e.text] : []));
    expect(notes.at(-1)).toMatch(/→ STOPPED \(the repository's git configuration or hooks changed during the loop\)/);
    expect(out.effects.some((e) => e.type === 'write-report')).toBe(true);
  });

  it('a clean fifth review with a check file changed: STOPPED; with an unrelated pin set empty: DONE', () => {
    const clean = reviewJson();
    let b = stateBuilder().dispatched();
    for (const r of REVIEWERS.slice(0, 4)) b = b.reviewer(r, { status: 'valid', dispatches: 1 });
    const all = Object.fromEntries(REVIEWERS.map((r) => [r, clean])) as Record<(typeof REVIEWERS)[number], string>;
    const changed = throughRound(b.loaded(), reviewerStop('silent-failure-hunter', all), all, { pinned: { gitDir: [], checks: CHECK } });
    expect(changed.state).toMatchObject({ currentPhase: 'STOPPED', stopReason: 'check_changed' });
    expect(changed.state!.stopDetail).toContain('node_modules/vitest/vitest.mjs was changed');
    const untouched = throughRound(b.loaded(), reviewerStop('silent-failure-hunter', all), all, { pinned: { gitDir: [], checks: [] } });
    expect(untouched.state).toMatchObject({ currentPhase: 'DONE' });
  });

  it('a round with findings and a check file changed goes on to the fix (the fixer\'s stop ends it)', () => {
    const withIssue = reviewJson([finding({ severity: 'critical' })]);
    let b = stateBuilder().dispatched();
    for (const r of REVIEWERS.slice(0, 4)) b = b.reviewer(r, { status: 'valid', dispatches: 1 });
    const all = Object.fromEntries(REVIEWERS.map((r) => [r, withIssue])) as Record<(typeof REVIEWERS)[number], string>;
    const out = throughRound(b.loaded(), reviewerStop('silent-failure-hunter', all), all, { pinned: { gitDir: [], checks: CHECK } });
    expect(out.state).toMatchObject({ currentPhase: 'R2' });
  });

  it.each<[string, PinChange[], PinChange[], string]>([
    ['the git dir', GIT, [], 'git_dir_changed'],
    ['a check file', [], CHECK, 'check_changed'],
  ])("the fixer's stop with %s changed: STOPPED whatever the summaries, the file named", (_, gitDir, checks, reason) => {
    const loaded = stateBuilder().inR2(1).r2({ status: 'running', dispatches: 1 }).loaded();
    const out = transition(loaded, { ...fixerStop('- [fixed] fp0', answers(['fp0'])), pinned: { gitDir, checks }, tree: 'abc' });
    expect(out.state).toMatchObject({ status: 'stopped', currentPhase: 'STOPPED', stopReason: reason });
    expect(out.state!.stopDetail).toContain([...gitDir, ...checks][0]!.file);
    expect(out.state!.iterations[0]!.trees.fixEnd).toBe('abc');
    expect(stateProblems(out.state!)).toEqual([]);
    const notes = out.effects.flatMap((e) => (e.type === 'notify' ? [e.text] : []));
    expect(notes[0]).toMatch(/^minions: fix round 1 → STOPPED \(/);
    expect(out.effects.some((e) => e.type === 'write-report')).toBe(true);
    // A missing summary does not send the fixer back first.
    const bare = transition(loaded, { ...fixerStop(null, null), pinned: { gitDir, checks } });
    expect(bare.state).toMatchObject({ currentPhase: 'STOPPED', stopReason: reason });
  });

  it("the fixer's stop with nothing changed goes on as before", () => {
    const loaded = stateBuilder().inR2(1).r2({ status: 'running', dispatches: 1 }).loaded();
    const out = transition(loaded, { ...fixerStop('- [fixed] fp0', answers(['fp0'])), pinned: { gitDir: [], checks: [] } });
    expect(out.state).toMatchObject({ currentPhase: 'R1', iteration: 2 });
  });

  it('withPinned leaves a verdict with nothing changed as it is', () => {
    const verdict = { next: 'DONE', stopReason: null, stopDetail: null } as unknown as Parameters<typeof withPinned>[0];
    expect(withPinned(verdict, { gitDir: [], checks: [] })).toBe(verdict);
    expect(withPinned(verdict, null)).toBe(verdict);
  });

  it("the loop's start asks the record to keep the pins it observed (empty ones outside git)", () => {
    const pins = { gitDir: { '/p/.git/config': 'sha256:a' }, checks: {} };
    const start = initialStateForCommand(pins);
    expect(start.effects).toContainEqual({ type: 'pin-repo', pins });
    expect(initialStateForCommand(undefined).effects).toContainEqual({ type: 'pin-repo', pins: { gitDir: {}, checks: {} } });
  });
});
