// The straightforward Layer-0 as it was before the fast paths (a copy of src/checks/layer0/index.ts at that
// time): the reference test/unit/layer0-fast-paths.test.ts compares the real checks with. Not used by src.
/**
 * Layer-0: seed 000's output contract and the anti-gaming checks, run by the hooks on the files the
 * fixer changed in a round. Deterministic, no tokens, each check O(n) (bench/layer0.bench.ts).
 */
import { removedFromTests, emptyCatch, suppressionAdded, testSkipped } from './anti-gaming';
import { balancedDelimiters, fileSizeDelta, jsonValid, noDuplicateHeadings, noPlaceholder, noTextLoop } from './contract';
import type { Layer0Hit } from '../../../src/checks/layer0/hit';
import type { Layer0Check } from '../../../src/checks/layer0/names';
import { bytesOf, isCode, isJson, isMarkdown, isProse, isTestFile, lexerFor, textOf, type FileChange } from './text';

export type { Layer0Hit } from '../../../src/checks/layer0/hit';
export type { FileChange, Side } from './text';
export { LAYER0_CHECKS, type Layer0Check } from '../../../src/checks/layer0/names';

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
  test_uncollected: 'critical',
  config_weakened: 'critical',
};

/** Every check that applies to each changed file, then the removals over all changed test files. */
export function runLayer0(changes: readonly FileChange[], disabled: readonly Layer0Check[] = []): Layer0Hit[] {
  const hits: Layer0Hit[] = [];
  for (const change of changes) {
    const { path } = change;
    const before = textOf(change.before);
    const after = textOf(change.after);
    if (change.after.kind !== 'absent') hits.push(...fileSizeDelta(path, change.before.kind === 'absent' ? null : bytesOf(change.before), bytesOf(change.after)));
    if (after === null) continue;
    hits.push(...noPlaceholder(path, before, after));
    const lexer = lexerFor(path);
    if (lexer) hits.push(...balancedDelimiters(path, before, after, lexer));
    if (isJson(path)) hits.push(...jsonValid(path, before, after));
    if (isMarkdown(path)) hits.push(...noDuplicateHeadings(path, before, after));
    if (isProse(path)) hits.push(...noTextLoop(path, before, after));
    if (isCode(path)) hits.push(...testSkipped(path, before, after), ...suppressionAdded(path, before, after), ...emptyCatch(path, before, after));
  }
  const tests = changes.filter((c) => isTestFile(c.path) && isCode(c.path));
  hits.push(...removedFromTests('test_removed', tests), ...removedFromTests('assertion_removed', tests));
  return hits.filter((h) => !disabled.includes(h.check));
}
