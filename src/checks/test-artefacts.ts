/**
 * What a test run leaves in a project that does not ignore it: caches, bytecode, coverage output and new
 * snapshots. The witness is told to run the tests; what its run leaves during a review is not a change
 * to the project the review missed, so it neither costs a round nor blocks DONE. Anything else written
 * during a review still is, and is named. Pure.
 */

/** Folders a test run writes anywhere in a project (caches and bytecode). */
const CACHE_DIRS = new Set(['__pycache__', '.pytest_cache', '.mypy_cache', '.ruff_cache', '.hypothesis', '.nyc_output', '.jest-cache', '.vitest-cache']);
/** Coverage reports: only at the project's top (a source folder may well be called coverage). */
const TOP_DIRS = new Set(['coverage', 'htmlcov']);
const FILES = /(?:^|\/)(?:[^/]+\.py[co]|\.coverage(?:\.[^/]+)?|coverage\.xml|lcov\.info|[^/]+\.tsbuildinfo)$/;

/**
 * Whether a path a review changed is a test run's artefact. `added`: the file did not exist when the
 * review began. `tracked`: the project's base commit has it (an artefact someone committed is code). A
 * new snapshot file is an artefact only when added (a snapshot rewritten by `-u` changes the project).
 */
export function isTestArtefact(path: string, added: boolean, tracked: boolean): boolean {
  if (tracked) return false;
  const parts = path.split('/');
  if (parts.slice(0, -1).some((p) => CACHE_DIRS.has(p))) return true;
  if (parts.length > 1 && TOP_DIRS.has(parts[0]!)) return true;
  if (FILES.test(path)) return true;
  return added && parts.includes('__snapshots__') && parts.length > 1;
}
