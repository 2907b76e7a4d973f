/**
 * The ways a fixer makes a review or a test pass without fixing anything: tests skipped or removed,
 * assertions removed, suppressions and empty catch blocks added. Only what the fix introduced counts:
 * added lines are compared with the file before the fix, removals are counted over all the changed
 * test files together (a test moved to another file is not removed). Pure, O(n).
 */
import { spellingsFor } from './gaming-spellings';
import type { Layer0Hit } from './hit';
import { changedRegion, countMatches, introducedLines, matchLines, pattern, type FileChange, type Pattern, type Region, textOf } from './text';

/** Past the characters from j that may be blanks (any up to a space: a superset of \s in ASCII). */
const blanksFrom = (text: string, j: number): number => {
  while (text.charCodeAt(j) <= 0x20) j += 1;
  return j;
};

/**
 * False where a `catch` at `at` cannot start an empty catch block: after it, its blanks and its (…), the
 * next characters are not `{` then a blank, a comment or `}`. Most catch blocks are not empty: this spares
 * the regex. Unsure (a `.catch(…)`, a non-ASCII character that may be a space): true, the regex decides.
 */
function couldBeEmptyCatch(text: string, at: number): boolean {
  if (text.charCodeAt(at - 1) === 0x2e) return true;
  let j = blanksFrom(text, at + 5);
  let c = text.charCodeAt(j);
  if (c === 0x28) {
    // (…) holds no parenthesis and no newline.
    for (c = text.charCodeAt(++j); c !== 0x29; c = text.charCodeAt(++j)) if (c === 0x28 || c === 0x0a || Number.isNaN(c)) return false;
    j = blanksFrom(text, j + 1);
    c = text.charCodeAt(j);
  }
  if (c !== 0x7b) return c >= 0x80;
  c = text.charCodeAt(blanksFrom(text, j + 1));
  return c === 0x7d || c === 0x2f || c >= 0x80;
}

/** catch (e) {} (comments only count as empty), .catch(() => {}), and Python's except …: pass. */
const EMPTY_CATCH = pattern(
  /\bcatch\b\s*(?:\([^()\n]*\))?\s*\{(?:\s|\/\/[^\n]*|\/\*(?:[^*]|\*(?!\/))*\*\/)*\}|\.catch\s*\(\s*(?:\(\s*[\w$]*\s*\)|[\w$]+)\s*=>\s*(?:\{\s*\}|undefined|null|void 0)\s*\)|^[ \t]*except\b[^\n:]*:[ \t]*(?:#[^\n]*)?(?:\n[ \t]*(?:#[^\n]*)?)*\n?[ \t]*(?:pass|\.\.\.)[ \t]*(?:#[^\n]*)?$/gm,
  [['catch', 1, couldBeEmptyCatch], 'except'],
);

/** A test case: it(…), test(…), def test_…, func TestX(, #[test], @Test. */
export const TEST_CASE = pattern(/^[ \t]*(?:(?:it|test|specify)(?:\.[\w$]+(?:\([^\n]*?\))?)*\s*\(|(?:async[ \t]+)?def[ \t]+test\w*|func[ \t]+Test\w*\s*\(|#\[test\]|@Test\b)/gm, null);

/** An assertion: assert…(, expect(, require.…(, assert …, .should, t.Error/Fatal…(, assert!/assert_eq!. */
const ASSERTION = pattern(
  /\b(?:assert\w*!?|expect|require\.\w+)\s*[(.]|^[ \t]*assert\b|\.should\b|\bt\.(?:Error|Errorf|Fatal|Fatalf|Fail|FailNow)\s*\(/gm,
  null,
);

const markerOf = ({ re }: Pattern, line: string): string => {
  re.lastIndex = 0;
  const m = re.exec(line);
  re.lastIndex = 0;
  return m?.[0].trim() ?? '';
};

/** Skips in the spellings of the file's ecosystem (gaming-spellings.ts). */
export function testSkipped(path: string, before: string | null, after: string, region?: Region): Layer0Hit[] {
  const skips = spellingsFor('skips', path);
  if (!skips) return [];
  return introducedLines(skips, before, after, region).map((m) => ({ check: 'test_skipped', path, line: m.line, evidence: m.evidence, detail: { marker: markerOf(skips, m.evidence) } }));
}

/** Suppressions in the spellings of the file's ecosystem (gaming-spellings.ts). */
export function suppressionAdded(path: string, before: string | null, after: string, region?: Region): Layer0Hit[] {
  const suppressions = spellingsFor('suppressions', path);
  if (!suppressions) return [];
  return introducedLines(suppressions, before, after, region).map((m) => ({ check: 'suppression_added', path, line: m.line, evidence: m.evidence, detail: { marker: markerOf(suppressions, m.evidence) } }));
}

export function emptyCatch(path: string, before: string | null, after: string, region?: Region): Layer0Hit[] {
  return introducedLines(EMPTY_CATCH, before, after, region).map((m) => ({ check: 'empty_catch', path, line: m.line, evidence: m.evidence, detail: {} }));
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

/** What a file that was there before the fix lost (a new file only adds: see removedFromTests). */
function removals(pattern: Pattern, change: FileChange, known?: Region): Removal | null {
  const before = textOf(change.before);
  if (before === null) return null;
  const after = textOf(change.after);
  if (after === null) {
    if (change.after.kind !== 'absent') return null;
    const all = countMatches(pattern, before);
    return { path: change.path, before: all, after: 0, deleted: true, gone: matchLines(pattern, before).map((m) => m.evidence) };
  }
  const region = known ?? changedRegion(before, after);
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
export function removedFromTests(check: 'test_removed' | 'assertion_removed', changes: readonly FileChange[], regions?: ReadonlyMap<FileChange, Region>): Layer0Hit[] {
  const pattern = check === 'test_removed' ? TEST_CASE : ASSERTION;
  const all = changes.flatMap((c) => removals(pattern, c, regions?.get(c)) ?? []);
  if (!all.some((r) => r.before > r.after)) return [];
  // New test files only add (a test moved into one offsets a loss elsewhere): counted only when some file lost some.
  const added = changes.reduce((sum, c) => sum + (textOf(c.before) === null && c.after.kind === 'text' ? countMatches(pattern, c.after.text) : 0), 0);
  let net = all.reduce((sum, r) => sum + r.before - r.after, 0) - added;
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
