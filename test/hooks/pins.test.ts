/**
 * Pins of the files outside the snapshot, through the built hooks in temp git repos: the git dir's config,
 * hooks and info files changed during a review or a fix end the loop STOPPED with the file named; a test
 * runner under node_modules/.bin (gitignored) rewritten during a fix never lets the loop end DONE; an
 * unrelated ignored file (build output, __pycache__) changing does not matter.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Loop, messages, projectTestdir } from '../helpers/loop';
import { FIXER, REVIEWERS, cleanReview, issue, reviewWithIssues, verdictFile, type Reviewer, type ReviewOutput } from '../helpers/reviews';
import { cloneTestdir, removeTestdirs, type TestDir } from '../helpers/testdir';
import { checkSurface, gitDirKeys, outsideSnapshot, readPins, startCheckPins } from '../../src/shell/pins';
import { snapshotTree } from '../../src/shell/snapshot';
import { readRecord, recordDir } from '../../src/shell/record';

afterAll(removeTestdirs);

const allClean = (): Record<Reviewer, ReviewOutput> => Object.fromEntries(REVIEWERS.map((r) => [r, cleanReview(r)])) as Record<Reviewer, ReviewOutput>;
const withIssue = (): Record<Reviewer, ReviewOutput> => ({ ...allClean(), critic: reviewWithIssues('critic', [issue()]) });
const REVIEW_MD = (n: number) => `.agents/tmp/phases/review-${n}/REVIEW.md`;
const REPORT = '.agents/tmp/phases/REPORT.md';

/** A program git would run, that leaves a trace when it does. */
function plantProgram(dir: TestDir): string {
  const trace = path.join(dir.root, '..', `${path.basename(dir.root)}.planted-ran`);
  const program = path.join(dir.root, '..', `${path.basename(dir.root)}.planted.sh`);
  fs.writeFileSync(program, `#!/bin/sh\ntouch '${trace}'\n`, { mode: 0o755 });
  return trace;
}

/** The three writes into the git dir the attack used or could have used. */
const GIT_WRITES: [string, string, (dir: TestDir) => void][] = [
  [
    '.git/config (core.fsmonitor)',
    '.git/config was changed',
    (dir) => dir.write('.git/config', `${dir.read('.git/config')}[core]\n\tfsmonitor = ${path.join(dir.root, '..', `${path.basename(dir.root)}.planted.sh`)}\n`),
  ],
  [
    '.git/hooks/pre-commit',
    '.git/hooks/pre-commit was added',
    (dir) => {
      dir.write('.git/hooks/pre-commit', '#!/bin/sh\nexit 0\n');
      fs.chmodSync(dir.abs('.git/hooks/pre-commit'), 0o755);
    },
  ],
  ['.git/info/attributes', '.git/info/attributes was added', (dir) => dir.write('.git/info/attributes', '*.ts diff=planted\n')],
];

describe('the git dir, pinned', () => {
  it.each(GIT_WRITES)('%s written during R1: five clean reviews end STOPPED, the file named everywhere the user reads', async (_, named, write) => {
    const dir = projectTestdir();
    const trace = plantProgram(dir);
    const loop = new Loop(dir);
    await loop.start('--max-iterations 2 --check "git status --short" review the cart');
    expect(loop.state().currentPhase).toBe('R1');
    await loop.dispatchReviewers();
    for (const r of REVIEWERS) loop.writeReview(1, r, cleanReview(r));
    write(dir);
    const stops = await loop.reviewersStop();
    expect(stops.every((s) => s.code === 0 && s.stderr === '')).toBe(true);

    const state = loop.state();
    expect(state).toMatchObject({ status: 'stopped', currentPhase: 'STOPPED', stopReason: 'git_dir_changed' });
    expect(state.stopDetail).toContain(named);
    expect(loop.dir.readJson(verdictFile(1))).toMatchObject({ overall_verdict: 'clean', next: 'STOPPED', stopReason: 'git_dir_changed' });
    const line = messages(stops).find((m) => /^minions: review 1\/2: /.test(m));
    expect(line).toMatch(/→ STOPPED \(the repository's git configuration or hooks changed during the loop\)$/);
    expect(loop.dir.read(REVIEW_MD(1))).toContain(named);
    expect(loop.dir.read(REPORT)).toContain(named);
    // The Stop hook's closing line names it too.
    const closing = messages([await loop.stop()]).join('\n');
    expect(closing).toContain('STOPPED');
    expect(closing).toContain(named);
    // The hooks never ran the planted program (their git calls turn fsmonitor off).
    expect(fs.existsSync(trace)).toBe(false);
  });

  it.each(GIT_WRITES)("%s written during R2: the fixer's stop ends the loop STOPPED with the file named, and runs no check", async (_, named, write) => {
    const dir = projectTestdir();
    const trace = plantProgram(dir);
    const loop = new Loop(dir);
    await loop.start('--max-iterations 3 --check "git status --short" review the cart');
    await loop.reviewRound(1, withIssue());
    expect(loop.state().currentPhase).toBe('R2');
    await loop.dispatch(FIXER);
    dir.write('src/cart.ts', dir.read('src/cart.ts').replace('i <= items.length', 'i < items.length'));
    loop.writeFixSummary(1);
    write(dir);
    const stop = await loop.fixerStop();
    expect(stop.stderr).toBe('');
    const state = loop.state();
    expect(state).toMatchObject({ status: 'stopped', currentPhase: 'STOPPED', stopReason: 'git_dir_changed', iteration: 1 });
    expect(state.stopDetail).toContain(named);
    expect(messages([stop]).join('\n')).toMatch(new RegExp(`^minions: fix round 1 → STOPPED \\(the repository's git configuration or hooks changed during the loop\\): .*${named.replace(/[.]/g, '\\.')}`, 'm'));
    expect(loop.dir.read(REPORT)).toContain(named);
    // The check (a git command) did not run on the planted config.
    expect(loop.dir.exists('.agents/tmp/phases/review-1/checks.json')).toBe(false);
    expect(fs.existsSync(trace)).toBe(false);
  });

  it('an untouched git dir: the same loop ends DONE (a hook sample read, the record keeps the pins)', async () => {
    const loop = new Loop(projectTestdir());
    await loop.start('--max-iterations 2 review the cart');
    const pins = readRecord(recordDir(loop.root)!)!.pins!;
    // Kept relative to the project (a copied clone keeps them, as it keeps its record).
    expect(Object.keys(pins.gitDir)).toEqual(expect.arrayContaining(['.git/config', '.git/hooks/', '.git/info/']));
    expect(pins.gitDir['.git/config']).toMatch(/^sha256:[0-9a-f]{64}$/);
    // git's own bookkeeping (the index, refs, logs) is no pin: a commit during the loop is not a planted program.
    loop.dir.git('add', '-A');
    loop.dir.git('commit', '-qm', 'during the review');
    await loop.reviewRound(1, allClean());
    expect(loop.state()).toMatchObject({ currentPhase: 'DONE' });
  });

  it('a copied clone keeps its pins: its loop ends DONE, and a change to the original is not its own', async () => {
    const original = new Loop(projectTestdir());
    await original.start('--max-iterations 2 review the cart');
    const copy = new Loop(cloneTestdir(original.dir));
    original.dir.write('.git/config', `${original.dir.read('.git/config')}[core]\n\tfsmonitor = /bin/true\n`);
    await copy.reviewRound(1, allClean());
    expect(copy.state()).toMatchObject({ currentPhase: 'DONE', stopReason: null });
    copy.dir.write('.git/hooks/post-checkout', '#!/bin/sh\n');
    await original.reviewRound(1, allClean());
    expect(original.state()).toMatchObject({ currentPhase: 'STOPPED', stopReason: 'git_dir_changed' });
    expect(original.state().stopDetail).toMatch(/^\.git\/config was changed since/);
  });

  it("a worktree's .git file is followed: the common config, the worktree's own files and the .git file are pinned", () => {
    const dir = projectTestdir();
    const tree = path.join(dir.root, '..', `${path.basename(dir.root)}-wt`);
    dir.git('worktree', 'add', '-q', '-b', 'side', tree);
    try {
      const keys = gitDirKeys(tree, {});
      const gitDir = path.join(dir.root, '.git', 'worktrees', path.basename(tree));
      expect(keys).toEqual(
        expect.arrayContaining([path.join(tree, '.git'), path.join(dir.root, '.git', 'config'), path.join(dir.root, '.git', 'hooks') + '/', path.join(gitDir, 'commondir'), path.join(gitDir, 'config.worktree')]),
      );
      const before = readPins(keys);
      fs.appendFileSync(path.join(dir.root, '.git', 'config'), '[core]\n\tfsmonitor = /bin/true\n');
      const after = readPins(keys);
      expect(after[path.join(dir.root, '.git', 'config')]).not.toBe(before[path.join(dir.root, '.git', 'config')]);
    } finally {
      fs.rmSync(tree, { recursive: true, force: true });
    }
  });
});

/** A project whose `npm test` runs a gitignored runner under node_modules/.bin, which checks status.txt. */
function runnerProject(): TestDir {
  const dir = projectTestdir();
  dir.write('.gitignore', 'node_modules/\nbuild/\n__pycache__/\n');
  dir.write('package.json', `${JSON.stringify({ name: 'cart', private: true, scripts: { test: 'cart-runner' } }, null, 2)}\n`);
  dir.write('status.txt', 'ok\n');
  dir.write('node_modules/cart-runner/package.json', '{"name":"cart-runner","bin":"bin.js"}\n');
  dir.write('node_modules/cart-runner/bin.js', '#!/bin/sh\ngrep -q "^ok$" status.txt\n');
  fs.chmodSync(dir.abs('node_modules/cart-runner/bin.js'), 0o755);
  fs.mkdirSync(dir.abs('node_modules/.bin'), { recursive: true });
  fs.symlinkSync('../cart-runner/bin.js', dir.abs('node_modules/.bin/cart-runner'));
  dir.git('add', '-A');
  dir.git('commit', '-qm', 'the runner');
  return dir;
}

describe('the ignored files a check runs, pinned', () => {
  it('the fixer rewrites the runner npm test calls (and breaks what it checks): the loop never ends DONE, the runner named', async () => {
    const dir = runnerProject();
    const loop = new Loop(dir);
    await loop.start('--max-iterations 3 --check "npm test --silent" review the cart');
    expect(loop.state().checks.baseline).toMatchObject([{ command: 'npm test --silent', status: 'passed' }]);
    const pinned = Object.keys(readRecord(recordDir(loop.root)!)!.pins!.checks);
    expect(pinned.sort()).toEqual(['node_modules/.bin/cart-runner', 'node_modules/cart-runner/**', 'node_modules/cart-runner/bin.js']);
    // package.json is tracked: the snapshot and the reviews see it, so it is no pin.

    await loop.reviewRound(1, withIssue());
    await loop.dispatch(FIXER);
    dir.write('src/cart.ts', dir.read('src/cart.ts').replace('i <= items.length', 'i < items.length'));
    dir.write('status.txt', 'broken\n');
    dir.write('node_modules/cart-runner/bin.js', '#!/bin/sh\nexit 0\n');
    loop.writeFixSummary(1);
    const stop = await loop.fixerStop();
    expect(stop.stderr).toBe('');
    const state = loop.state();
    expect(state.currentPhase).not.toBe('DONE');
    expect(state).toMatchObject({ currentPhase: 'STOPPED', stopReason: 'check_changed' });
    expect(state.stopDetail).toContain('node_modules/cart-runner/bin.js was changed');
    expect(messages([stop]).join('\n')).toContain('→ STOPPED (a file the checks run changed where no review sees it)');
    expect(loop.dir.read(REPORT)).toContain('node\\_modules/cart-runner/bin.js was changed');
  });

  it('a runner rewritten during R1 and a clean review: STOPPED instead of DONE, the runner named in the verdict', async () => {
    const dir = runnerProject();
    const loop = new Loop(dir);
    await loop.start('--max-iterations 2 --check "npm test --silent" review the cart');
    await loop.dispatchReviewers();
    for (const r of REVIEWERS) loop.writeReview(1, r, cleanReview(r));
    dir.write('node_modules/cart-runner/bin.js', '#!/bin/sh\nexit 0\n');
    await loop.reviewersStop();
    expect(loop.state()).toMatchObject({ currentPhase: 'STOPPED', stopReason: 'check_changed' });
    expect(loop.dir.readJson(verdictFile(1)).stopDetail).toContain('node_modules/cart-runner/bin.js was changed');
  });

  it('the .bin link pointed elsewhere: named', async () => {
    const dir = runnerProject();
    const loop = new Loop(dir);
    await loop.start('--max-iterations 3 --check "npm test --silent" review the cart');
    await loop.reviewRound(1, withIssue());
    await loop.dispatch(FIXER);
    dir.write('node_modules/other/pass.sh', '#!/bin/sh\nexit 0\n');
    fs.chmodSync(dir.abs('node_modules/other/pass.sh'), 0o755);
    fs.rmSync(dir.abs('node_modules/.bin/cart-runner'));
    fs.symlinkSync('../other/pass.sh', dir.abs('node_modules/.bin/cart-runner'));
    loop.writeFixSummary(1);
    await loop.fixerStop();
    expect(loop.state()).toMatchObject({ currentPhase: 'STOPPED', stopReason: 'check_changed' });
    expect(loop.state().stopDetail).toContain('node_modules/.bin/cart-runner was changed');
  });

  it('unrelated ignored files (build output, __pycache__, a package the check does not run) change: the loop ends DONE', async () => {
    const dir = runnerProject();
    dir.write('node_modules/left-pad/index.js', 'module.exports = 1;\n');
    const loop = new Loop(dir);
    await loop.start('--max-iterations 3 --check "npm test --silent" review the cart');
    await loop.reviewRound(1, withIssue());
    await loop.dispatch(FIXER);
    dir.write('src/cart.ts', dir.read('src/cart.ts').replace('i <= items.length', 'i < items.length'));
    dir.write('build/cart.js', 'exports.total = () => 0;\n');
    dir.write('__pycache__/cart.cpython-312.pyc', 'compiled\n');
    dir.write('node_modules/left-pad/index.js', 'module.exports = 2;\n');
    loop.writeFixSummary(1);
    await loop.fixerStop();
    expect(loop.state()).toMatchObject({ currentPhase: 'R1', iteration: 2 });
    expect(loop.dir.readJson('.agents/tmp/phases/review-1/checks.json')).toMatchObject({ checks: [{ command: 'npm test --silent', status: 'passed', regressed: false }] });
    await loop.reviewRound(2, allClean());
    expect(loop.state()).toMatchObject({ currentPhase: 'DONE', stopReason: null });
  });
});

describe('what a check resolves to, and what of it the snapshot does not hold', () => {
  it('a virtualenv tool and a tracked script: the ignored tool is pinned, the tracked script is left to the reviews', () => {
    const dir = projectTestdir();
    dir.write('.gitignore', '.venv/\n');
    dir.write('.venv/bin/pytest', '#!/bin/sh\nexit 0\n');
    dir.write('scripts/check.sh', '#!/bin/sh\nexit 0\n');
    dir.git('add', '-A');
    dir.git('commit', '-qm', 'tools');
    const commands = ['pytest -q && sh scripts/check.sh'];
    const surface = checkSurface(dir.root, commands);
    expect(surface).toEqual([dir.abs('.venv/bin/pytest'), dir.abs('scripts/check.sh')]);
    const tree = snapshotTree(dir.root);
    expect(outsideSnapshot(dir.root, tree, surface)).toEqual([dir.abs('.venv/bin/pytest')]);
    // Without a tree to ask, everything is pinned.
    expect(outsideSnapshot(dir.root, null, surface)).toEqual(surface);
    expect(Object.keys(startCheckPins(dir.root, commands, tree))).toEqual([dir.abs('.venv/bin/pytest')]);
    expect(startCheckPins(dir.root, [], tree)).toEqual({});
  });
});
