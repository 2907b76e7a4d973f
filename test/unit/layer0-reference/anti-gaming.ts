// The straightforward Layer-0 as it was before the fast paths (a copy of src/checks/layer0/anti-gaming.ts at that
// time): the reference test/unit/layer0-fast-paths.test.ts compares the real checks with. Not used by src.
/**
 * The ways a fixer makes a review or a test pass without fixing anything: tests skipped or removed,
 * assertions removed, suppressions and empty catch blocks added. Only what the fix introduced counts:
 * added lines are compared with the file before the fix, removals are counted over all the changed
 * test files together (a test moved to another file is not removed). Pure, O(n).
 */
import { spellingsFor } from '../../../src/checks/layer0/gaming-spellings';
import type { Layer0Hit } from '../../../src/checks/layer0/hit';
import { changedRegion, countMatches, introducedLines, matchLines, type FileChange, textOf } from './text';

// The spellings are the table's (src/checks/layer0/gaming-spellings.ts): what is compared here is how they are searched.
const SKIP = (path: string): RegExp | undefined => spellingsFor('skips', path)?.re;
const SUPPRESSION = (path: string): RegExp | undefined => spellingsFor('suppressions', path)?.re;

/** catch (e) {} (comments only count as empty), .catch(() => {}), and Python's except …: pass. */
const EMPTY_CATCH =
  /\bcatch\b\s*(?:\([^()\n]*\))?\s*\{(?:\s|\/\/[^\n]*|\/\*(?:[^*]|\*(?!\/))*\*\/)*\}|\.catch\s*\(\s*(?:\(\s*[\w$]*\s*\)|[\w$]+)\s*=>\s*(?:\{\s*\}|undefined|null|void 0)\s*\)|^[ \t]*except\b[^\n:]*:[ \t]*(?:#[^\n]*)?(?:\n[ \t]*(?:#[^\n]*)?)*\n?[ \t]*(?:pass|\.\.\.)[ \t]*(?:#[^\n]*)?$/gm;

/** A test case: it(…), test(…), def test_…, func TestX(, #[test], @Test. */
const TEST_CASE = /^[ \t]*(?:(?:it|test|specify)(?:\.[\w$]+(?:\([^\n]*?\))?)*\s*\(|(?:async[ \t]+)?def[ \t]+test\w*|func[ \t]+Test\w*\s*\(|#\[test\]|@Test\b)/gm;

/** An assertion: assert…(, expect(, require.…(, assert …, .should, t.Error/Fatal…(, assert!/assert_eq!. */
const ASSERTION = /\b(?:assert\w*!?|expect|require\.\w+)\s*[(.]|^[ \t]*assert\b|\.should\b|\bt\.(?:Error|Errorf|Fatal|Fatalf|Fail|FailNow)\s*\(/gm;

const markerOf = (pattern: RegExp, line: string): string => {
  pattern.lastIndex = 0;
  const m = pattern.exec(line);
  pattern.lastIndex = 0;
  return m?.[0].trim() ?? '';
};

export function testSkipped(path: string, before: string | null, after: string): Layer0Hit[] {
  const re = SKIP(path);
  if (!re) return [];
  return introducedLines(re, before, after).map((m) => ({ check: 'test_skipped', path, line: m.line, evidence: m.evidence, detail: { marker: markerOf(re, m.evidence) } }));
}

export function suppressionAdded(path: string, before: string | null, after: string): Layer0Hit[] {
  const re = SUPPRESSION(path);
  if (!re) return [];
  return introducedLines(re, before, after).map((m) => ({ check: 'suppression_added', path, line: m.line, evidence: m.evidence, detail: { marker: markerOf(re, m.evidence) } }));
}

export function emptyCatch(path: string, before: string | null, after: string): Layer0Hit[] {
  return introducedLines(EMPTY_CATCH, before, after).map((m) => ({ check: 'empty_catch', path, line: m.line, evidence: m.evidence, detail: {} }));
}

interface Removal {
  path: string;
  /** How many there were before and are now, in this file (in its changed region: the rest is the same). */
  before: number;
  after: number;
  deleted: boolean;
  /** Lines that had a match before and have none now, in order. */
  gone: string[];
}

function removals(pattern: RegExp, change: FileChange): Removal | null {
  const before = textOf(change.before);
  if (before === null) {
    const after = textOf(change.after);
    return after === null ? null : { path: change.path, before: 0, after: countMatches(pattern, after), deleted: false, gone: [] };
  }
  const after = textOf(change.after);
  if (after === null) {
    if (change.after.kind !== 'absent') return null;
    const all = countMatches(pattern, before);
    return { path: change.path, before: all, after: 0, deleted: true, gone: matchLines(pattern, before).map((m) => m.evidence) };
  }
  const region = changedRegion(before, after);
  const was = matchLines(pattern, before, region.start, region.beforeEnd).map((m) => m.evidence);
  const now = new Map<string, number>();
  for (const m of matchLines(pattern, after, region.start, region.afterEnd)) now.set(m.evidence, (now.get(m.evidence) ?? 0) + 1);
  const gone = was.filter((line) => {
    const left = now.get(line) ?? 0;
    if (left > 0) now.set(line, left - 1);
    return left === 0;
  });
  return {
    path: change.path,
    before: countMatches(pattern, before, region.start, region.beforeEnd),
    after: countMatches(pattern, after, region.start, region.afterEnd),
    deleted: false,
    gone,
  };
}

/**
 * Removed test cases (test_removed) or assertions (assertion_removed) across the changed test files:
 * only a net loss over all of them is reported, on the files that lost some, the lost lines as evidence.
 */
export function removedFromTests(check: 'test_removed' | 'assertion_removed', changes: readonly FileChange[]): Layer0Hit[] {
  const pattern = check === 'test_removed' ? TEST_CASE : ASSERTION;
  const all = changes.flatMap((c) => removals(pattern, c) ?? []);
  let net = all.reduce((sum, r) => sum + r.before - r.after, 0);
  const hits: Layer0Hit[] = [];
  for (const r of all) {
    if (net <= 0) break;
    if (r.before <= r.after) continue;
    const change = changes.find((c) => c.path === r.path)!;
    // The message gives the whole file's counts (the region's were enough to find the loss).
    const before = countMatches(pattern, textOf(change.before) ?? '');
    const after = countMatches(pattern, textOf(change.after) ?? '');
    if (check === 'test_removed' && r.deleted) {
      hits.push({ check, path: r.path, line: null, evidence: `deleted test file ${r.path}`, detail: { before, after: 0, deleted: true } });
    } else {
      for (const line of r.gone.slice(0, Math.min(net, r.before - r.after, 5))) {
        hits.push(check === 'test_removed' ? { check, path: r.path, line: null, evidence: line, detail: { before, after, deleted: false } } : { check, path: r.path, line: null, evidence: line, detail: { before, after } });
      }
    }
    net -= r.before - r.after;
  }
  return hits;
}
