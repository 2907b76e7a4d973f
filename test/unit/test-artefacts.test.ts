/** What a test run leaves, told apart from a change to the project (checks/test-artefacts.ts). */
import { describe, expect, it } from 'vitest';
import { isTestArtefact } from '../../src/checks/test-artefacts';

describe('isTestArtefact', () => {
  it.each([
    ['src/__pycache__/a.cpython-312.pyc', true, false, true],
    ['a/b/__pycache__/x', false, false, true],
    ['.pytest_cache/v/cache/nodeids', false, false, true],
    ['pkg/.mypy_cache/3.12/x.json', true, false, true],
    ['.nyc_output/out.json', true, false, true],
    ['coverage/lcov-report/index.html', true, false, true],
    ['htmlcov/index.html', true, false, true],
    ['.coverage', true, false, true],
    ['.coverage.host.123', true, false, true],
    ['lib/x.pyc', false, false, true],
    ['tsconfig.tsbuildinfo', true, false, true],
    ['test/__snapshots__/a.test.ts.snap', true, false, true],
    // Not artefacts.
    ['test/__snapshots__/a.test.ts.snap', false, false, false],
    ['src/coverage/report.ts', true, false, false],
    ['coverage', true, false, false],
    ['src/__pycache__/a.pyc', true, true, false],
    ['__snapshots__', true, false, false],
    ['src/cart.ts', true, false, false],
    ['src/pycache/a.ts', true, false, false],
  ] as const)('%s (added %s, tracked %s) → %s', (path, added, tracked, expected) => {
    expect(isTestArtefact(path, added, tracked)).toBe(expected);
  });
});
