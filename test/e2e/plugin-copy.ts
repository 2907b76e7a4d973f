/** The e2e test files' copy of the shipped plugin (a test-only module: it registers vitest hooks). */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import { copyShippedPlugin } from './harness';

/**
 * One copy of the shipped plugin for the test file that calls this: made before its tests (and handed to
 * `take`), removed after them.
 */
export function copyShippedPluginForFile(take: (dir: string) => void): void {
  let dir: string | null = null;
  beforeAll(() => take((dir = copyShippedPlugin())));
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
}
