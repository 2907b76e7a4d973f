/**
 * What a loop's start observes of the project (startObservation: HEAD read from the git dir, one shell
 * for the snapshot and its diff) against what git itself says: `git rev-parse HEAD`, and changedFiles
 * (git diff + ls-files), in real repositories with every kind of change and HEAD in every form.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { changedFiles, head } from '../../src/shell/git';
import { startObservation } from '../../src/shell/observe-tree';
import { headCommit, headFromFiles } from '../../src/shell/snapshot';
import { removeTestdirs, tempDir, testdir, type TestDir } from '../helpers/testdir';

afterAll(removeTestdirs);

describe('startObservation', () => {
  it('matches HEAD and changedFiles: modified, staged, deleted, renamed, untracked, ignored, spaces; the user index untouched', () => {
    const dir = testdir(
      { 'src/a.ts': 'a\n', 'src/b c.ts': 'b\n', 'gone.ts': 'g\n', 'moved.ts': 'm\nm\nm\n', '.gitignore': 'build/\n' },
      { uncommitted: { 'src/a.ts': 'a2\n', 'gone.ts': null, 'new dir/n.ts': 'n\n', 'build/out.js': 'x\n', '.agents/tmp/state.json': '{}' } },
    );
    dir.git('mv', 'moved.ts', 'renamed.ts');
    dir.write('staged.ts', 's\n');
    dir.git('add', 'staged.ts');
    const indexBefore = fs.readFileSync(dir.abs('.git/index'));
    const seen = startObservation(dir.root);
    expect(fs.readFileSync(dir.abs('.git/index')).equals(indexBefore), "the user's index is not rewritten").toBe(true);
    expect(seen.head).toBe(head(dir.root));
    expect(seen.changedFiles).toEqual(changedFiles(dir.root, head(dir.root)));
    expect(seen.changedFiles).toEqual(['gone.ts', 'new dir/n.ts', 'renamed.ts', 'src/a.ts', 'staged.ts']);
    // diff.patch names both sides of the rename; the prompts name the new path.
    expect(seen.patches.diff?.files).toEqual(['gone.ts', 'moved.ts', 'new dir/n.ts', 'renamed.ts', 'src/a.ts', 'staged.ts']);
    expect(seen.patches.diff?.text).toContain('rename to renamed.ts');
    expect(seen.tree).toBe(dir.git('rev-parse', `${seen.tree}^{tree}`).trim());
  });

  it('before the first commit, and outside a repository', () => {
    const fresh = testdir({}, { git: false });
    fresh.git('init', '-q');
    fresh.write('a.ts', 'a\n');
    fresh.git('add', 'a.ts');
    fresh.write('u.ts', 'u\n');
    const seen = startObservation(fresh.root);
    expect(seen).toMatchObject({ head: null, changedFiles: ['a.ts', 'u.ts'] });
    expect(seen.changedFiles).toEqual(changedFiles(fresh.root, null));
    expect(seen.patches.diff?.text).toContain('+++ b/u.ts');
    expect(startObservation(tempDir())).toEqual({ head: null, tree: null, patches: { diff: null, fixDelta: null }, changedFiles: [] });
  });

  it('in a project below the top of its repository: its own files, named from the project (git status would name the whole repository)', () => {
    const dir = testdir({ 'app/src/a.ts': 'a\n', 'other/b.ts': 'b\n' }, { uncommitted: { 'app/src/a.ts': 'a2\n', 'other/b.ts': 'b2\n', 'app/new.ts': 'n\n' } });
    const seen = startObservation(dir.abs('app'));
    expect(seen.head).toBe(head(dir.root));
    expect(seen.changedFiles).toEqual(['new.ts', 'src/a.ts']);
    expect(seen.patches.diff?.text).toContain('+++ b/src/a.ts');
    expect(seen.patches.diff?.text).not.toContain('other/b.ts');
  });

  it('a diff that cannot be made leaves the tree: the snapshot stands alone', () => {
    const dir = testdir({ 'a.ts': 'a\n' }, { uncommitted: { 'a.ts': 'a2\n' } });
    fs.writeFileSync(dir.abs('.git/HEAD'), `${'0'.repeat(40)}\n`);
    const seen = startObservation(dir.root);
    expect(seen.head).toBe('0'.repeat(40));
    expect(seen.tree).toMatch(/^[0-9a-f]{40}$/);
    expect(seen.patches.diff).toBeNull();
    expect(seen.changedFiles).toEqual([]);
  });
});

describe('HEAD read from the git dir', () => {
  const gitHead = (dir: TestDir, at = dir.root): string | null => {
    try {
      return dir.git('-C', at, 'rev-parse', '--verify', '-q', 'HEAD').trim() || null;
    } catch {
      return null;
    }
  };
  const commit = (dir: TestDir, message: string): void => {
    dir.write('c.txt', `${message}\n`);
    dir.git('add', 'c.txt');
    dir.git('commit', '-qm', message);
  };

  it('is what git rev-parse says: a loose branch, packed refs, a detached HEAD, a branch of a ref, a new branch, a linked worktree', () => {
    const dir = testdir({ 'a.ts': 'a\n' });
    // A loose branch ref.
    expect(headCommit(dir.root)).toBe(gitHead(dir));
    expect(headFromFiles(dir.abs('.git'))).toBe(gitHead(dir));
    // Packed refs, with a peeled tag line.
    dir.git('tag', '-a', 'v1', '-m', 'v1');
    dir.git('pack-refs', '--all');
    expect(fs.existsSync(dir.abs('.git/refs/heads/main')) || fs.existsSync(dir.abs('.git/refs/heads/master'))).toBe(false);
    expect(headFromFiles(dir.abs('.git'))).toBe(gitHead(dir));
    // A loose ref newer than its packed line.
    commit(dir, 'second');
    expect(headFromFiles(dir.abs('.git'))).toBe(gitHead(dir));
    // Detached.
    dir.git('checkout', '-q', '--detach');
    expect(headFromFiles(dir.abs('.git'))).toBe(gitHead(dir));
    // HEAD naming a ref that names another ref.
    dir.git('checkout', '-q', '-b', 'topic');
    dir.git('symbolic-ref', 'refs/heads/alias', 'refs/heads/topic');
    dir.git('symbolic-ref', 'HEAD', 'refs/heads/alias');
    expect(headFromFiles(dir.abs('.git'))).toBe(gitHead(dir));
    // A branch with no commit yet.
    dir.git('symbolic-ref', 'HEAD', 'refs/heads/unborn');
    expect(gitHead(dir)).toBeNull();
    expect(headFromFiles(dir.abs('.git'))).toBeNull();
    expect(headCommit(dir.root)).toBeNull();
    dir.git('symbolic-ref', 'HEAD', 'refs/heads/topic');
    // A linked worktree: its HEAD in its own git dir, its branch in the common dir.
    const linked = path.join(tempDir(), 'wt');
    dir.git('worktree', 'add', '-q', '-b', 'side', linked);
    fs.writeFileSync(path.join(linked, 'side.txt'), 'side\n');
    dir.git('-C', linked, 'add', 'side.txt');
    dir.git('-C', linked, 'commit', '-qm', 'on side');
    const wtGitDir = fs.readFileSync(path.join(linked, '.git'), 'utf8').replace(/^gitdir:\s*/, '').trim();
    expect(headFromFiles(wtGitDir)).toBe(gitHead(dir, linked));
    expect(headCommit(linked)).toBe(gitHead(dir, linked));
    expect(headCommit(linked)).not.toBe(headCommit(dir.root));
  });

  it('a git dir it cannot read (reftable, a ref it cannot follow) is asked with git rev-parse', () => {
    const dir = testdir({ 'a.ts': 'a\n' });
    const expected = gitHead(dir);
    const branch = dir.git('symbolic-ref', 'HEAD').trim();
    fs.mkdirSync(dir.abs('.git/reftable'));
    expect(headFromFiles(dir.abs('.git'))).toBeUndefined();
    fs.rmSync(dir.abs('.git/reftable'), { recursive: true });
    fs.writeFileSync(dir.abs('.git/HEAD'), 'ref: refs/heads/../../config\n');
    expect(headFromFiles(dir.abs('.git'))).toBeUndefined();
    fs.writeFileSync(dir.abs('.git/HEAD'), 'something else\n');
    expect(headFromFiles(dir.abs('.git'))).toBeUndefined();
    expect(headCommit(dir.root)).toBeNull();
    fs.writeFileSync(dir.abs('.git/HEAD'), `ref: ${branch}\n`);
    expect(headCommit(dir.root)).toBe(expected);
    // A reftable repository's HEAD names no readable ref: git is asked, and knows the commit.
    fs.mkdirSync(dir.abs('.git/reftable'));
    expect(headCommit(dir.root)).toBe(expected);
  });
});
