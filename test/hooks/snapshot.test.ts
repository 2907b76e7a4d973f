/** Tree snapshots through a private index: what they cover, and that the user's git state is never touched. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { EMPTY_TREE, changedPaths, commitTree, commitTreeSpec, diffStat, diffTrees, diffTreesOrNull, filterParameters, privateDir, readBlob, restorePaths, snapshotTree, snapshotWithDiff } from '../../src/shell/snapshot';
import { openTestdir, removeTestdirs, tempDir, testdir, type TestDir } from '../helpers/testdir';

afterAll(removeTestdirs);

const userGitState = (dir: ReturnType<typeof testdir>) => ({
  status: dir.git('status', '--porcelain=v1', '--untracked-files=all'),
  staged: dir.git('diff', '--cached', '--name-status'),
  head: dir.git('rev-parse', 'HEAD'),
  branch: dir.git('symbolic-ref', 'HEAD'),
  stash: dir.git('stash', 'list'),
  index: fs.readFileSync(dir.abs('.git/index')),
});

describe('snapshotTree', () => {
  test('covers tracked and untracked files, honours .gitignore, leaves out .agents/, and touches none of the user’s git state', () => {
    const dir = testdir(
      { 'src/a.ts': 'export const a = 1;\n', '.gitignore': 'build/\n*.log\n' },
      { uncommitted: { 'src/a.ts': 'export const a = 2;\n', 'src/new.ts': 'new\n', 'build/out.js': 'x', 'debug.log': 'x', '.agents/tmp/state.json': '{}' } },
    );
    dir.git('add', 'src/new.ts'); // something staged by the user
    const before = userGitState(dir);
    const tree = snapshotTree(dir.root)!;
    expect(tree).toMatch(/^[0-9a-f]{40}$/);
    const files = dir.git('ls-tree', '-r', '--name-only', tree).trim().split('\n');
    expect(files.sort()).toEqual(['.gitignore', 'src/a.ts', 'src/new.ts']);
    expect(readBlob(dir.root, tree, 'src/a.ts')).toBe('export const a = 2;\n');
    expect(userGitState(dir)).toEqual(before);
    expect(fs.readdirSync(privateDir(dir.root)!)).toEqual(['index']);
  });

  test('a file rewritten with the same size just after a snapshot is seen (racy git: the private index keeps its own time)', () => {
    // Before the fix about 1 in 75 of these rewrites kept the old blob; 300 make a miss all but certain.
    const dir = testdir({ 'src/a.ts': 'export const a = 0;\n' });
    const stale: number[] = [];
    for (let i = 1; i <= 300; i++) {
      const content = `export const a = ${i % 10};\n`;
      fs.rmSync(dir.abs('src/a.ts'));
      fs.writeFileSync(dir.abs('src/a.ts'), content);
      if (readBlob(dir.root, snapshotTree(dir.root)!, 'src/a.ts') !== content) stale.push(i);
    }
    expect(stale).toEqual([]);
  });

  test('the same tree twice gives the same id; a change gives another, and changedPaths names it', () => {
    const dir = testdir({ 'a.txt': 'one\n', 'b.txt': 'two\n' });
    const first = snapshotTree(dir.root)!;
    expect(snapshotTree(dir.root)).toBe(first);
    expect(first).toBe(commitTree(dir.root, dir.git('rev-parse', 'HEAD').trim()));
    dir.write('b.txt', 'TWO\n');
    fs.rmSync(dir.abs('a.txt'));
    dir.write('c/d.txt', 'new\n');
    const second = snapshotTree(dir.root)!;
    expect(second).not.toBe(first);
    expect(changedPaths(dir.root, first, second).sort()).toEqual(['a.txt', 'b.txt', 'c/d.txt']);
    expect(diffStat(dir.root, first, second)).toMatch(/3 files changed/);
    expect(changedPaths(dir.root, second, second)).toEqual([]);
  });

  test('a project in a subdirectory of the repository is snapshot on its own, with paths relative to it', () => {
    const dir = testdir({ 'outside.txt': 'x\n', 'app/src/a.ts': 'a\n' });
    dir.write('outside.txt', 'changed outside the project\n');
    const tree = snapshotTree(dir.abs('app'))!;
    expect(dir.git('ls-tree', '-r', '--name-only', tree).trim()).toBe('src/a.ts');
    expect(commitTree(dir.abs('app'), dir.git('rev-parse', 'HEAD').trim())).toBe(tree);
  });

  test('the repository is found as git finds it: through a symlink to the project, and from a linked worktree', () => {
    const dir = testdir({ 'app/src/a.ts': 'a\n' });
    const link = path.join(tempDir(), 'link');
    fs.symlinkSync(dir.abs('app'), link);
    const tree = snapshotTree(link)!;
    expect(dir.git('ls-tree', '-r', '--name-only', tree).trim()).toBe('src/a.ts');
    expect(commitTree(link, dir.git('rev-parse', 'HEAD').trim())).toBe(tree);
    expect(fs.realpathSync(privateDir(link)!)).toBe(fs.realpathSync(dir.abs('.git/minions')));

    const other = path.join(tempDir(), 'wt');
    dir.git('worktree', 'add', '-q', other);
    fs.writeFileSync(path.join(other, 'app/src/b.ts'), 'b\n');
    const wtTree = snapshotTree(path.join(other, 'app'))!;
    expect(dir.git('ls-tree', '-r', '--name-only', wtTree).trim().split('\n')).toEqual(['src/a.ts', 'src/b.ts']);
    expect(fs.realpathSync(privateDir(other)!)).toBe(fs.realpathSync(dir.abs('.git/worktrees/wt/minions')));
    expect(dir.git('status', '--porcelain')).toBe('');
  });

  test('with GIT_DIR and GIT_WORK_TREE set, the repository they name is snapshot', () => {
    const dir = testdir({ 'a.txt': 'a\n' });
    const elsewhere = path.join(tempDir(), 'gitdir');
    fs.renameSync(dir.abs('.git'), elsewhere);
    const saved = { dir: process.env.GIT_DIR, tree: process.env.GIT_WORK_TREE };
    process.env.GIT_DIR = elsewhere;
    process.env.GIT_WORK_TREE = dir.root;
    try {
      dir.write('b.txt', 'b\n');
      const tree = snapshotTree(dir.root)!;
      expect(readBlob(dir.root, tree, 'b.txt')).toBe('b\n');
      expect(fs.realpathSync(privateDir(dir.root)!)).toBe(fs.realpathSync(path.join(elsewhere, 'minions')));
    } finally {
      for (const [k, v] of [['GIT_DIR', saved.dir], ['GIT_WORK_TREE', saved.tree]] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });

  test('works before the first commit, and answers null outside a repository', () => {
    const fresh = testdir({}, { git: false });
    fresh.git('init', '-q');
    fresh.write('a.txt', 'a\n');
    expect(snapshotTree(fresh.root)).toMatch(/^[0-9a-f]{40}$/);
    const plain = tempDir();
    fs.writeFileSync(path.join(plain, 'a.txt'), 'a\n');
    expect(snapshotTree(plain)).toBeNull();
    expect(privateDir(plain)).toBeNull();
    expect(diffTrees(plain, EMPTY_TREE, EMPTY_TREE).text).toBe('');
  });

  test('a leftover private index lock from a killed hook does not stop the next snapshot', () => {
    const dir = testdir({ 'a.txt': 'a\n' });
    snapshotTree(dir.root);
    fs.writeFileSync(path.join(privateDir(dir.root)!, 'index.lock'), '');
    dir.write('a.txt', 'b\n');
    const tree = snapshotTree(dir.root)!;
    expect(readBlob(dir.root, tree, 'a.txt')).toBe('b\n');
  });
});

describe('diffTrees', () => {
  test('a unified patch that names binary files instead of dumping them', () => {
    const dir = testdir({ 'a.txt': 'one\n' });
    const before = snapshotTree(dir.root)!;
    dir.write('a.txt', 'one\ntwo\n');
    fs.writeFileSync(dir.abs('img.bin'), Buffer.from([0, 1, 2, 255, 0, 7]));
    const after = snapshotTree(dir.root)!;
    const patch = diffTrees(dir.root, before, after);
    expect(patch.truncated).toBe(false);
    expect(patch.text).toContain('+two');
    expect(patch.text).toMatch(/Binary files \/dev\/null and b\/img.bin differ/);
    expect(patch.files.sort()).toEqual(['a.txt', 'img.bin']);
  });

  test('one git call gives the patch and every changed path, both sides of a rename named; a tree git lacks answers null', () => {
    const dir = testdir({ 'old name.txt': `${'line\n'.repeat(40)}`, 'keep.txt': 'k\n', 'café.md': 'c\n' });
    const before = snapshotTree(dir.root)!;
    fs.renameSync(dir.abs('old name.txt'), dir.abs('new name.txt'));
    dir.write('keep.txt', 'k2\n');
    dir.write('sub/dir/new.txt', 'n\n');
    const after = snapshotTree(dir.root)!;
    const patch = diffTreesOrNull(dir.root, before, after)!;
    expect(patch.files).toEqual(changedPaths(dir.root, before, after));
    expect(patch.files).toEqual(['keep.txt', 'new name.txt', 'old name.txt', 'sub/dir/new.txt']);
    expect(patch.text).toMatch(/^diff --git a\/keep.txt b\/keep.txt$/m);
    expect(patch.text).toContain('rename from old name.txt');
    expect(patch.renamedFrom).toEqual(['old name.txt']);
    expect(diffTreesOrNull(dir.root, before, before)).toEqual({ text: '', truncated: false, files: [], renamedFrom: [] });
    // The base commit's tree named as `<commit>:<prefix>`: the same patch as from its tree id.
    const head = dir.git('rev-parse', 'HEAD').trim();
    expect(diffTreesOrNull(dir.root, commitTreeSpec(dir.root, head)!, after)).toEqual(diffTreesOrNull(dir.root, commitTree(dir.root, head)!, after));
    expect(diffTreesOrNull(dir.root, `${'1'.repeat(40)}:`, after)).toBeNull();
  });

  test('the snapshot and its diff from one shell: the tree snapshotTree makes and the patch diffTreesOrNull makes; a diff git cannot make leaves the tree', () => {
    const dir = testdir({ 'old name.txt': `${'line\n'.repeat(40)}`, 'keep.txt': 'k\n' });
    const head = dir.git('rev-parse', 'HEAD').trim();
    fs.renameSync(dir.abs('old name.txt'), dir.abs('new name.txt'));
    dir.write('keep.txt', 'k2\n');
    dir.write("it's $(odd) name.txt", 'n\n');
    const both = snapshotWithDiff(dir.root, commitTreeSpec(dir.root, head)!, 1 << 20);
    expect(both.tree).toBe(snapshotTree(dir.root));
    expect(both.diff).toEqual(diffTreesOrNull(dir.root, commitTreeSpec(dir.root, head)!, both.tree!));
    expect(both.diff!.files).toEqual(['it\'s $(odd) name.txt', 'keep.txt', 'new name.txt', 'old name.txt']);
    expect(snapshotWithDiff(dir.root, null)).toEqual({ tree: both.tree, diff: null });
    expect(snapshotWithDiff(dir.root, `${'1'.repeat(40)}:`)).toEqual({ tree: both.tree, diff: null });
    expect(snapshotWithDiff(dir.root, both.tree)).toEqual({ tree: both.tree, diff: { text: '', truncated: false, files: [], renamedFrom: [] } });
    // No private index left but the shared one.
    expect(fs.readdirSync(dir.abs('.git/minions')).filter((f) => f.startsWith('index'))).toEqual(['index']);
  });

  test("a snapshot past its time ends its git add as well: no process, no private index left behind", async () => {
    const dir = testdir({ 'a.txt': 'a\n' });
    // A git that hangs in `add`, as on a huge project or a stuck file system, and says where it runs.
    const bin = tempDir();
    const pidFile = path.join(bin, 'add.pid');
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    fs.writeFileSync(path.join(bin, 'git'), `#!/bin/sh\ncase " $* " in *" add "*) echo $$ > '${pidFile}'; exec sleep 60;; esac\nexec '${realGit}' "$@"\n`, { mode: 0o755 });
    const path0 = process.env.PATH;
    process.env.PATH = `${bin}:${path0}`;
    try {
      expect(snapshotWithDiff(dir.root, null, 1 << 20, 1500)).toEqual({ tree: null, diff: null });
    } finally {
      process.env.PATH = path0;
    }
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    const alive = () => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    // The shell's trap ends the add when the hook's timeout ends the shell (give it a moment to be reaped).
    for (let i = 0; i < 50 && alive(); i++) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(alive()).toBe(false);
    expect(fs.readdirSync(dir.abs('.git/minions')).filter((f) => f.startsWith('index'))).toEqual([]);
    // The next snapshot, with the real git, works.
    expect(snapshotTree(dir.root)).toMatch(/^[0-9a-f]{40}$/);
  });

  test('a patch over the cap is cut at a line end and lists every changed file', () => {
    const dir = testdir({ 'a.txt': 'x\n' });
    const before = snapshotTree(dir.root)!;
    for (let i = 0; i < 30; i++) dir.write(`f${i}.txt`, `${'line\n'.repeat(200)}`);
    const after = snapshotTree(dir.root)!;
    const patch = diffTrees(dir.root, before, after, 4096);
    expect(patch.truncated).toBe(true);
    expect(Buffer.byteLength(patch.text)).toBeLessThanOrEqual(4096);
    expect(patch.text.endsWith('\n')).toBe(true);
    expect(patch.files).toHaveLength(30);
  });
});

describe('restorePaths', () => {
  test('writes back what the tree has, deletes what it lacks, keeps the executable bit, and leaves other files alone', () => {
    const dir = testdir({ 'a.txt': 'a1\n', 'run.sh': '#!/bin/sh\n', 'keep.txt': 'k\n' });
    fs.chmodSync(dir.abs('run.sh'), 0o755);
    const tree = snapshotTree(dir.root)!;
    dir.write('a.txt', 'a2\n');
    fs.rmSync(dir.abs('run.sh'));
    dir.write('added.txt', 'new\n');
    dir.write('keep.txt', 'user edit\n');
    const result = restorePaths(dir.root, tree, ['a.txt', 'run.sh', 'added.txt']);
    expect(result).toEqual({ written: ['a.txt', 'run.sh'], deleted: ['added.txt'], failed: [] });
    expect(dir.read('a.txt')).toBe('a1\n');
    expect(fs.statSync(dir.abs('run.sh')).mode & 0o111).not.toBe(0);
    expect(dir.exists('added.txt')).toBe(false);
    expect(dir.read('keep.txt')).toBe('user edit\n');
  });
});

/**
 * An agent with a shell can change the repository's config, attributes and excludes between two snapshots.
 * Each case sets one such change after the loop's first snapshot, then changes the project: the next
 * snapshot must hold the change, and no program the agent configured may run.
 */
describe('a repository changed to hide a change from the snapshot', () => {
  const HOUR_AGO = new Date(Date.now() - 3600_000);
  /** A project whose files are older than any snapshot (no racy-git re-hash), snapshot at a loop's start. */
  const startedProject = (files: Record<string, string> = {}) => {
    const dir = testdir({ 'a.txt': 'hello one\n', 'run.sh': '#!/bin/sh\n', '.gitignore': '*.log\n', ...files });
    for (const rel of ['a.txt', 'run.sh', ...Object.keys(files)]) fs.utimesSync(dir.abs(rel), HOUR_AGO, HOUR_AGO);
    const start = snapshotWithDiff(dir.root, null, undefined, undefined, { loopStart: true }).tree!;
    expect(start).toMatch(/^[0-9a-f]{40}$/);
    return { dir, start };
  };
  /**
   * Same size, same mtime: only the ctime (and the content) tell. In the next second: a git built without
   * USE_NSEC compares whole seconds of ctime, so a rewrite within the second of the last snapshot would
   * pass for unchanged even with git's defaults.
   */
  const sameSizeSameTime = (dir: TestDir) => {
    // Into the next second by the file system's clock: the kernel stamps files from a coarse clock that
    // may lag Date.now() by a tick (4 ms at HZ=250), and git compares ctime in whole seconds here.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1030 - (Date.now() % 1000));
    fs.writeFileSync(dir.abs('a.txt'), 'hello two\n');
    fs.utimesSync(dir.abs('a.txt'), HOUR_AGO, HOUR_AGO);
  };
  const marker = () => path.join(tempDir(), 'ran');
  /** A program that leaves a marker and answers like a filter that maps every file to one frozen text. */
  const program = (ran: string, body = 'cat >/dev/null; printf "hello one\\n"') => {
    const file = path.join(tempDir(), 'agent-program');
    fs.writeFileSync(file, `#!/bin/sh\ntouch '${ran}'\n${body}\n`, { mode: 0o755 });
    return file;
  };

  test.each([
    ['core.checkStat=minimal', ['core.checkStat', 'minimal']],
    ['core.trustctime=false', ['core.trustctime', 'false']],
  ])('%s: a same-size rewrite with its mtime put back is seen', (_name, [key, value]) => {
    const { dir } = startedProject();
    dir.git('config', key!, value!);
    sameSizeSameTime(dir);
    expect(readBlob(dir.root, snapshotTree(dir.root)!, 'a.txt')).toBe('hello two\n');
  });

  test('core.ignoreStat=true: a snapshot taken while it is set does not mark files unchanged for the next ones', () => {
    const { dir } = startedProject();
    dir.git('config', 'core.ignoreStat', 'true');
    dir.write('a.txt', 'second\n');
    expect(readBlob(dir.root, snapshotTree(dir.root)!, 'a.txt')).toBe('second\n');
    dir.write('a.txt', 'third\n');
    expect(readBlob(dir.root, snapshotTree(dir.root)!, 'a.txt')).toBe('third\n');
  });

  test('core.fileMode=false: a chmod +x is seen', () => {
    const { dir } = startedProject();
    dir.git('config', 'core.fileMode', 'false');
    fs.chmodSync(dir.abs('run.sh'), 0o755);
    expect(dir.git('ls-tree', snapshotTree(dir.root)!, 'run.sh')).toMatch(/^100755 /);
  });

  test('core.ignoreCase=true on a case-sensitive file system: a new file differing only in case is seen', () => {
    const { dir } = startedProject();
    dir.git('config', 'core.ignoreCase', 'true');
    dir.write('A.txt', 'new\n');
    expect(readBlob(dir.root, snapshotTree(dir.root)!, 'A.txt')).toBe('new\n');
  });

  test('core.sparseCheckout=true with a sparse-checkout file: a new file outside it is seen', () => {
    const { dir } = startedProject();
    dir.git('config', 'core.sparseCheckout', 'true');
    fs.writeFileSync(dir.abs('.git/info/sparse-checkout'), '/a.txt\n');
    dir.write('new.txt', 'new\n');
    expect(readBlob(dir.root, snapshotTree(dir.root)!, 'new.txt')).toBe('new\n');
  });

  test('core.autocrlf=true with core.safecrlf=true: a file with mixed line ends does not fail the snapshot', () => {
    const { dir } = startedProject();
    dir.git('config', 'core.autocrlf', 'true');
    dir.git('config', 'core.safecrlf', 'true');
    dir.write('a.txt', 'one\r\ntwo\n');
    expect(readBlob(dir.root, snapshotTree(dir.root)!, 'a.txt')).toContain('two');
  });

  test.each([
    ['core.bare=true', (_dir: TestDir) => ['core.bare', 'true']],
    ['core.worktree naming another directory', (_dir: TestDir) => ['core.worktree', tempDir()]],
  ])('%s: the project is still what is snapshot', (_name, setting) => {
    const { dir } = startedProject();
    const [key, value] = setting(dir);
    dir.git('config', key!, value!);
    dir.write('a.txt', 'changed\n');
    expect(readBlob(dir.root, snapshotTree(dir.root)!, 'a.txt')).toBe('changed\n');
  });

  test('core.fsmonitor naming a program: it is not run, and it cannot say nothing changed', () => {
    const { dir } = startedProject();
    const ran = marker();
    dir.git('config', 'core.fsmonitor', program(ran, 'printf "/\\0"'));
    sameSizeSameTime(dir);
    expect(readBlob(dir.root, snapshotTree(dir.root)!, 'a.txt')).toBe('hello two\n');
    expect(fs.existsSync(ran)).toBe(false);
  });

  test('core.splitIndex=true: no shared index lands in the git dir', () => {
    const { dir } = startedProject();
    dir.git('config', 'core.splitIndex', 'true');
    dir.write('a.txt', 'changed\n');
    expect(readBlob(dir.root, snapshotTree(dir.root)!, 'a.txt')).toBe('changed\n');
    expect(fs.readdirSync(dir.abs('.git')).filter((f) => f.startsWith('sharedindex'))).toEqual([]);
  });

  test.each([
    ['.gitattributes', (dir: TestDir) => dir.write('.gitattributes', '* filter=agent\n')],
    ['.git/info/attributes', (dir: TestDir) => fs.writeFileSync(dir.abs('.git/info/attributes'), '* filter=agent\n')],
    [
      'core.attributesFile',
      (dir: TestDir) => {
        const file = path.join(tempDir(), 'attributes');
        fs.writeFileSync(file, '* filter=agent\n');
        dir.git('config', 'core.attributesFile', file);
      },
    ],
  ])('a clean filter set during the loop, named in %s: the agent’s program is not run, and the change is seen', (_name, attribute) => {
    const { dir } = startedProject();
    const ran = marker();
    dir.git('config', 'filter.agent.clean', program(ran));
    dir.git('config', 'filter.agent.required', 'true');
    attribute(dir);
    dir.write('a.txt', 'changed\n');
    expect(readBlob(dir.root, snapshotTree(dir.root)!, 'a.txt')).toBe('changed\n');
    expect(fs.existsSync(ran)).toBe(false);
  });

  test('a long-running filter process set during the loop (in an included config file) is not run', () => {
    const { dir } = startedProject();
    const ran = marker();
    const included = path.join(tempDir(), 'included.config');
    fs.writeFileSync(included, `[filter "Agent.Two"]\n\tprocess = ${program(ran, 'exit 1')}\n`);
    dir.git('config', 'include.path', included);
    fs.writeFileSync(dir.abs('.git/info/attributes'), '* filter=Agent.Two\n');
    dir.write('a.txt', 'changed\n');
    expect(readBlob(dir.root, snapshotTree(dir.root)!, 'a.txt')).toBe('changed\n');
    expect(fs.existsSync(ran)).toBe(false);
  });

  test('a filter configured before the loop started keeps working, and redefining it during the loop does not run the new program', () => {
    const dir = testdir({ '.gitattributes': '*.up filter=upper\n' });
    dir.git('config', 'filter.upper.clean', 'tr a-z A-Z');
    dir.write('x.up', 'shout\n');
    const start = snapshotWithDiff(dir.root, null, undefined, undefined, { loopStart: true }).tree!;
    expect(readBlob(dir.root, start, 'x.up')).toBe('SHOUT\n');
    const ran = marker();
    dir.git('config', 'filter.upper.clean', program(ran));
    dir.write('x.up', 'louder\n');
    expect(readBlob(dir.root, snapshotTree(dir.root)!, 'x.up')).toBe('LOUDER\n');
    expect(fs.existsSync(ran)).toBe(false);
  });

  test("the saved filter drivers are put back in the form every git reads ('key=value'; git before 2.31 fails on 'key'='value')", () => {
    const saved = "filter.lfs.clean\ngit-lfs clean -- %f\0filter.lfs.required\0filter.o'k.smudge\nsed 's/a=b/c/'\0filter.a=b.clean\ncat\0";
    expect(filterParameters(saved)).toBe("'filter.lfs.clean=git-lfs clean -- %f' 'filter.lfs.required' 'filter.o'\\''k.smudge=sed '\\''s/a=b/c/'\\''' 'filter.a=b.clean'='cat'");
    // As git itself reads them.
    const dir = testdir({});
    const env = { ...process.env, GIT_CONFIG_PARAMETERS: filterParameters(saved) };
    expect(execFileSync('git', ['config', '--get-regexp', '^filter\\.'], { cwd: dir.root, env, encoding: 'utf8' })).toBe(
      "filter.lfs.clean git-lfs clean -- %f\nfilter.lfs.required\nfilter.o'k.smudge sed 's/a=b/c/'\nfilter.a=b.clean cat\n",
    );
  });

  test('excludes added during the loop (.git/info/exclude, core.excludesFile) do not hide new files; those of the loop’s start and .gitignore still do', () => {
    const dir = testdir({ '.gitignore': '*.log\n' });
    fs.appendFileSync(dir.abs('.git/info/exclude'), 'local-notes.txt\n');
    const globalExcludes = path.join(tempDir(), 'ignore');
    fs.writeFileSync(globalExcludes, '.idea/\n');
    dir.git('config', 'core.excludesFile', globalExcludes);
    snapshotWithDiff(dir.root, null, undefined, undefined, { loopStart: true });

    fs.appendFileSync(dir.abs('.git/info/exclude'), 'hidden/\nsecret.txt\n');
    const agentExcludes = path.join(tempDir(), 'agent-ignore');
    fs.writeFileSync(agentExcludes, 'also-hidden.txt\n');
    dir.git('config', 'core.excludesFile', agentExcludes);
    for (const rel of ['hidden/a.txt', 'secret.txt', 'also-hidden.txt', 'local-notes.txt', '.idea/ws.xml', 'debug.log']) dir.write(rel, 'x\n');
    const files = dir.git('ls-tree', '-r', '--name-only', snapshotTree(dir.root)!).trim().split('\n');
    expect(files.sort()).toEqual(['.gitignore', 'also-hidden.txt', 'hidden/a.txt', 'secret.txt']);
  });

  test('nested repositories: an empty one does not fail the snapshot; one with a commit is recorded by its commit, not its files', () => {
    const { dir } = startedProject();
    const empty = dir.abs('scratch');
    fs.mkdirSync(empty);
    execFileSync('git', ['init', '-q'], { cwd: empty });
    fs.writeFileSync(path.join(empty, 'f.txt'), 'f\n');
    const nested = openTestdir(dir.abs('vendor/lib'));
    fs.mkdirSync(nested.root, { recursive: true });
    nested.git('init', '-q');
    nested.write('lib.txt', 'lib\n');
    nested.git('add', '-A');
    nested.git('commit', '-qm', 'lib');
    dir.write('a.txt', 'changed\n');
    const tree = snapshotTree(dir.root)!;
    expect(readBlob(dir.root, tree, 'a.txt')).toBe('changed\n');
    expect(dir.git('ls-tree', '-r', tree).trim().split('\n').filter((l) => !/\t(a\.txt|run\.sh|\.gitignore)$/.test(l))).toEqual([
      `160000 commit ${nested.git('rev-parse', 'HEAD').trim()}\tvendor/lib`,
    ]);
    nested.write('lib.txt', 'changed inside\n'); // not committed in the nested repository: not seen
    expect(snapshotTree(dir.root)).toBe(snapshotTree(dir.root));
  });
});
