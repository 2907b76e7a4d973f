import { describe, expect, it } from 'vitest';
import { parseStatus } from '../../src/shell/git';

const SHA = '69452f2223ff06ee7bdc7e5c9d0aaa89975c3da3';
const Z = '0000000000000000000000000000000000000000';
const status = (...entries: string[]): string => `${entries.join('\0')}\0`;

describe('parseStatus (git status --porcelain=v2 -z --branch)', () => {
  it('reads HEAD and every changed, staged, deleted, renamed (new name), unmerged and untracked path, sorted, once each', () => {
    const out = status(
      `# branch.oid ${SHA}`,
      '# branch.head main',
      `1 .M N... 100644 100644 100644 ${SHA} ${SHA} src/a.ts`,
      `1 D. N... 100644 000000 000000 ${SHA} ${Z} old name.ts`,
      `1 A. N... 000000 100644 100644 ${Z} ${SHA} d/new.ts`,
      `2 R. N... 100644 100644 100644 ${SHA} ${SHA} R100 renamed to.ts`,
      'renamed from.ts',
      `u UU N... 100644 100644 100644 100644 ${SHA} ${SHA} ${SHA} merge me.ts`,
      '? old name.ts',
      '? notes/todo with spaces.md',
    );
    expect(parseStatus(out)).toEqual({ head: SHA, changedFiles: ['d/new.ts', 'merge me.ts', 'notes/todo with spaces.md', 'old name.ts', 'renamed to.ts', 'src/a.ts'] });
  });

  it('before the first commit HEAD is null; staged and untracked files are listed', () => {
    const out = status('# branch.oid (initial)', '# branch.head main', `1 A. N... 000000 100644 100644 ${Z} ${SHA} a.ts`, '? u.ts');
    expect(parseStatus(out)).toEqual({ head: null, changedFiles: ['a.ts', 'u.ts'] });
  });

  it("leaves out the plugin's own files and says nothing of a clean tree", () => {
    expect(parseStatus(status(`# branch.oid ${SHA}`, '? .agents/tmp/state.json', '? .agents/tmp/phases/run.json'))).toEqual({ head: SHA, changedFiles: [] });
    expect(parseStatus('')).toEqual({ head: null, changedFiles: [] });
  });
});
