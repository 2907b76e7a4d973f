/**
 * startFacts (one `git status`, run when a loop starts) gives what `git rev-parse HEAD` and
 * changedFiles (git diff + ls-files) give, in a real repository with every kind of change.
 */
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { changedFiles, head, startFacts } from '../../src/shell/git';
import { removeTestdirs, tempDir, testdir } from '../helpers/testdir';

afterAll(removeTestdirs);

describe('startFacts', () => {
  it('matches HEAD and changedFiles: modified, staged, deleted, renamed, untracked, ignored, spaces', () => {
    const dir = testdir(
      { 'src/a.ts': 'a\n', 'src/b c.ts': 'b\n', 'gone.ts': 'g\n', 'moved.ts': 'm\n', '.gitignore': 'build/\n' },
      { uncommitted: { 'src/a.ts': 'a2\n', 'gone.ts': null, 'new dir/n.ts': 'n\n', 'build/out.js': 'x\n', '.agents/tmp/state.json': '{}' } },
    );
    dir.git('mv', 'moved.ts', 'renamed.ts');
    dir.write('staged.ts', 's\n');
    dir.git('add', 'staged.ts');
    const indexBefore = fs.statSync(dir.abs('.git/index')).mtimeMs;
    const facts = startFacts(dir.root);
    // Before the other commands run: git diff may refresh the index itself.
    expect(fs.statSync(dir.abs('.git/index')).mtimeMs, "the user's index is not rewritten").toBe(indexBefore);
    expect(facts).toEqual({ head: head(dir.root), changedFiles: changedFiles(dir.root, head(dir.root)) });
    expect(facts.changedFiles).toEqual(['gone.ts', 'new dir/n.ts', 'renamed.ts', 'src/a.ts', 'staged.ts']);
  });

  it('before the first commit, and outside a repository', () => {
    const fresh = testdir({}, { git: false });
    fresh.git('init', '-q');
    fresh.write('a.ts', 'a\n');
    fresh.git('add', 'a.ts');
    fresh.write('u.ts', 'u\n');
    expect(startFacts(fresh.root)).toEqual({ head: null, changedFiles: changedFiles(fresh.root, null) });
    expect(startFacts(fresh.root).changedFiles).toEqual(['a.ts', 'u.ts']);
    expect(startFacts(tempDir())).toEqual({ head: null, changedFiles: [] });
  });
});
