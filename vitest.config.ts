import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defineConfig } from 'vitest/config';
import { publishPace } from './test/helpers/pace.ts';

// Three levels, as separate projects: pure unit tables, hook processes (built dist/ bundles in temp
// git repos), and end-to-end runs of the real Claude Code CLI against a scripted model.
//
// The few wall-clock limits scale with the pace measured now (test/helpers/pace.ts): a busy machine
// gets proportionally longer. Test files run in parallel workers, more than the cores: a hook or CLI
// test spends much of its time waiting for the processes it starts.
const pace = publishPace();
const paced = (ms: number): number => Math.ceil(ms * pace.factor);
console.log(`minions tests: a node start takes ${Math.round(pace.nodeStartMs)} ms here now; limits × ${pace.factor.toFixed(2)}`);

// The run's temp projects go in one folder, removed when the run ends (test/helpers/testdir.ts): a
// worker that vitest stops does not run its own exit handlers, and left its repositories in the temp dir.
// Traversable, as the temp dir itself is: some tests run a hook as another user on a project inside it.
const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'minions-tests-')));
fs.chmodSync(tmp, 0o755);
process.env.MINIONS_TEST_TMP = tmp;
process.once('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));

export default defineConfig({
  test: {
    maxWorkers: Math.max(2, os.availableParallelism() + 1),
    projects: [
      { test: { name: 'unit', include: ['test/unit/**/*.test.ts'], testTimeout: paced(10_000) } },
      {
        test: {
          name: 'hooks',
          include: ['test/hooks/**/*.test.ts'],
          // One build of dist/ and one plugin data folder for the run (test/helpers/hooks-setup.ts).
          globalSetup: ['test/helpers/hooks-setup.ts'],
          testTimeout: paced(120_000),
          hookTimeout: paced(180_000),
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          exclude: ['test/e2e/other-hosts.test.ts'],
          testTimeout: paced(600_000),
          hookTimeout: paced(300_000),
          // One file at a time; within one, the scenarios of a describe.concurrent run a few at once
          // (each has its own project, HOME and model server).
          fileParallelism: false,
          maxConcurrency: 3,
        },
      },
      {
        // GitHub Copilot CLI and Codex CLI, beside the Claude Code runs (a project of their own, so that
        // their file runs alongside the e2e project's files rather than after them).
        test: {
          name: 'hosts-e2e',
          include: ['test/e2e/other-hosts.test.ts'],
          testTimeout: paced(600_000),
          hookTimeout: paced(300_000),
          maxConcurrency: 4,
        },
      },
    ],
  },
});
