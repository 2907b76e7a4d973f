/**
 * Layer-0: seed 000's output contract and the anti-gaming checks, run by the hooks on the files the
 * fixer changed in a round. Deterministic, no tokens, each check O(n) (bench/layer0.bench.ts).
 */
import { removedFromTests, emptyCatch, suppressionAdded, testSkipped } from './anti-gaming';
import { collects, RUNNER_CONFIG_FILES, uncollectedTests } from './collection';
import { configRulesFor, configWeakened } from './config-weakening';
import { balancedDelimiters, fileSizeDelta, jsonValid, LOOP_MIN_WORDS, noDuplicateHeadings, noPlaceholder, noTextLoop } from './contract';
import { proseScan } from './simhash64';
import type { Layer0Hit } from './hit';
import type { Layer0Check } from './names';
import { isLatex, noDuplicateLatexHeadings } from './latex-headings';
import { bytesOf, isCode, isJson, isMarkdown, isProse, isTestFile, lexerFor, regionOf, textOf, type FileChange, type Region } from './text';

export type { Layer0Hit } from './hit';
export type { FileChange, Side } from './text';
export { LAYER0_CHECKS, type Layer0Check } from './names';
export { renamedFrom, RUNNER_CONFIG_FILES } from './collection';

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

/**
 * Every check that applies to each changed file, then the removals over all changed test files.
 * `configs`: the texts of the project's RUNNER_CONFIG_FILES at the fix's end (what its test runners
 * collect); a changed one's text is taken from `changes`.
 */
export function runLayer0(changes: readonly FileChange[], disabled: readonly Layer0Check[] = [], configs: ReadonlyMap<string, string> = new Map()): Layer0Hit[] {
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
    if (isLatex(path)) add(noDuplicateLatexHeadings(path, before, after));
    if (isProse(path)) add(noTextLoop(path, before, after, region, scan));
    if (isCode(path)) add(testSkipped(path, before, after, region), suppressionAdded(path, before, after, region), emptyCatch(path, before, after, region));
    if (configRulesFor(path).length > 0) add(configWeakened(path, before, after, region));
  }
  // A test file renamed out of its runner's collection is not a move: its own finding, not a removal.
  // A file the runner does not collect, new or deleted, neither makes up for tests removed nor loses any.
  const runnerConfigs = new Map(configs);
  for (const c of changes) if ((RUNNER_CONFIG_FILES as readonly string[]).includes(c.path) && c.after.kind === 'text') runnerConfigs.set(c.path, c.after.text);
  const uncollected = uncollectedTests(changes, runnerConfigs);
  add(uncollected.hits);
  const collected = collects(runnerConfigs);
  const tests = changes.filter((c) => isTestFile(c.path) && isCode(c.path) && !uncollected.pairs.has(c) && !((c.before.kind === 'absent' || c.after.kind === 'absent') && collected(c.path) === false));
  add(removedFromTests('test_removed', tests, regions), removedFromTests('assertion_removed', tests, regions));
  return hits.filter((h) => !disabled.includes(h.check));
}
