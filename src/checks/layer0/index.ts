/**
 * Layer-0: seed 000's output contract and the anti-gaming checks, run by the hooks on the files the
 * fixer changed in a round. Deterministic, no tokens, each check O(n) (bench/layer0.bench.ts).
 */
import { removedFromTests, emptyCatch, suppressionAdded, testSkipped } from './anti-gaming';
import { balancedDelimiters, fileSizeDelta, jsonValid, LOOP_MIN_WORDS, noDuplicateHeadings, noPlaceholder, noTextLoop } from './contract';
import { proseScan } from './simhash64';
import type { Layer0Hit } from './hit';
import type { Layer0Check } from './names';
import { bytesOf, isCode, isJson, isMarkdown, isProse, isTestFile, lexerFor, regionOf, textOf, type FileChange, type Region } from './text';

export type { Layer0Hit } from './hit';
export type { FileChange, Side } from './text';
export { LAYER0_CHECKS, type Layer0Check } from './names';

/** Files larger than this are only measured (file_size_delta), not read as text. */
export const MAX_LAYER0_BYTES = 16 * 1024 * 1024;

/** What each finding weighs in the verdict: what breaks the build or games a test is critical. */
export const LAYER0_SEVERITY: Record<Layer0Check, 'critical' | 'warning' | 'info'> = {
  no_placeholder: 'warning',
  balanced_delimiters: 'critical',
  json_valid: 'critical',
  no_duplicate_headings: 'warning',
  no_text_loop: 'warning',
  file_size_delta: 'warning',
  test_skipped: 'critical',
  test_removed: 'critical',
  assertion_removed: 'critical',
  suppression_added: 'warning',
  empty_catch: 'warning',
};

/** Every check that applies to each changed file, then the removals over all changed test files. */
export function runLayer0(changes: readonly FileChange[], disabled: readonly Layer0Check[] = []): Layer0Hit[] {
  const hits: Layer0Hit[] = [];
  // One at a time: a spread of a few hundred thousand hits (a file of TODO lines) overflows the stack.
  const add = (...found: readonly Layer0Hit[][]): void => {
    for (const some of found) for (const hit of some) hits.push(hit);
  };
  // Where each file changed, found once and shared by its checks.
  const regions = new Map<FileChange, Region>();
  for (const change of changes) {
    const { path } = change;
    const before = textOf(change.before);
    const after = textOf(change.after);
    if (change.after.kind !== 'absent') add(fileSizeDelta(path, change.before.kind === 'absent' ? null : bytesOf(change.before), bytesOf(change.after)));
    if (after === null) continue;
    const region = regionOf(before, after);
    regions.set(change, region);
    // A new prose file is read once for the simhash, which also finds the lines its other checks need.
    const scan = before === null && isProse(path) ? proseScan(after, LOOP_MIN_WORDS) : undefined;
    add(noPlaceholder(path, before, after, region, scan));
    const lexer = lexerFor(path);
    if (lexer) add(balancedDelimiters(path, before, after, lexer, region));
    if (isJson(path)) add(jsonValid(path, before, after, region));
    if (isMarkdown(path)) add(noDuplicateHeadings(path, before, after, region, scan));
    if (isProse(path)) add(noTextLoop(path, before, after, region, scan));
    if (isCode(path)) add(testSkipped(path, before, after, region), suppressionAdded(path, before, after, region), emptyCatch(path, before, after, region));
  }
  const tests = changes.filter((c) => isTestFile(c.path) && isCode(c.path));
  add(removedFromTests('test_removed', tests, regions), removedFromTests('assertion_removed', tests, regions));
  return hits.filter((h) => !disabled.includes(h.check));
}
