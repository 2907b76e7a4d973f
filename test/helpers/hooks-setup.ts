/**
 * Set-up shared by every hook-process test of a run (vitest globalSetup of the hooks project):
 * - one build of dist/ from src/ into a temp dir, for the tests that compare or inspect bundles;
 * - one plugin data folder (CLAUDE_PLUGIN_DATA), as the host gives one per plugin, so the hooks'
 *   code cache (dist/launch.cjs) is written once per bundle rather than once per test.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { buildAll } from '../../scripts/build';
import { PLUGIN_DATA_ENV } from './run';

export interface Build {
  /** The built dist/ folder. */
  dist: string;
  /** Each built file's bundled sources, relative to the repository. */
  sources: Record<string, string[]>;
}

declare module 'vitest' {
  export interface ProvidedContext {
    build: Build;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'minions-run-')));
  const dist = path.join(root, 'dist');
  project.provide('build', { dist, sources: await buildAll(dist) });
  fs.mkdirSync(path.join(root, 'plugin-data'));
  // The test processes inherit this environment (they start after the global set-up).
  process.env[PLUGIN_DATA_ENV] = path.join(root, 'plugin-data');
  return () => fs.rmSync(root, { recursive: true, force: true });
}
