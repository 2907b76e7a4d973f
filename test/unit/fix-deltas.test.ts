/** The fixpoint rule's comparison of two consecutive fix deltas (core/fix-stop.ts). */
import { describe, expect, it } from 'vitest';
import { compareDeltas } from '../../src/core/fix-stop';

const patch = (...lines: string[]): string => ['diff --git a/src/a.ts b/src/a.ts', 'index 1111111..2222222 100644', '--- a/src/a.ts', '+++ b/src/a.ts', ...lines, ''].join('\n');
const header = '# minions: what the fixer changed in round 1: the tree review 1 ended on → the tree the fixer left.\n# 1 file changed, 7 patch lines.\n';
const now = (text: string, truncated = false) => ({ text, truncated });

describe('compareDeltas', () => {
  it.each([
    ['the same change at another place', now(patch('@@ -3,1 +3,2 @@', ' a();', '+guard();')), header + patch('@@ -9,1 +9,2 @@', ' b();', '+guard();'), 'same'],
    ['the change undone', now(patch('@@ -5 +5 @@', '-x < n', '+x <= n')), header + patch('@@ -5 +5 @@', '-x <= n', '+x < n'), 'undone'],
    ['a different change', now(patch('@@ -5 +5 @@', '-a', '+b')), header + patch('@@ -5 +5 @@', '-a', '+c'), 'different'],
    ['a change in another file', now(patch('+x').replaceAll('src/a.ts', 'src/b.ts')), header + patch('+x'), 'different'],
    ['no change after a change', now(''), header + patch('+x'), 'different'],
    ['no change twice: left to the summaries', now(''), `${header}# No changes.\n`, 'unknown'],
    ['no previous delta (no git, or round 1)', now(patch('+x')), null, 'unknown'],
    ['no current delta', null, header + patch('+x'), 'unknown'],
    ['the current delta cut short', now(patch('+x'), true), header + patch('+x'), 'unknown'],
    ['the previous delta cut short', now(patch('+x')), `${header}# Cut at 256 KiB: the patch below stops early. Every changed file:\n#   src/a.ts\n${patch('+x')}`, 'unknown'],
  ] as const)('%s → %s', (_, current, previous, expected) => {
    expect(compareDeltas(current, previous)).toBe(expected);
  });
});
