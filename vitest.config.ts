import os from 'node:os';
import { defineConfig } from 'vitest/config';
import { publishPace } from './test/helpers/pace';

// Three levels, as separate projects: pure unit tables, hook processes (built dist/ bundles in temp
// git repos), and end-to-end runs of the real Claude Code CLI against a scripted model.
//
// The few wall-clock limits scale with the pace measured now (test/helpers/pace.ts): a busy machine
// gets proportionally longer. Test files run in parallel workers, more than the cores: a hook or CLI
// test spends much of its time waiting for the processes it starts.
const pace = publishPace();
const paced = (ms: number): number => Math.ceil(ms * pace.factor);
console.log(`minions tests: a node start takes ${Math.round(pace.nodeStartMs)} ms here now; limits × ${pace.factor.toFixed(2)}`);

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
          testTimeout: paced(600_000),
          hookTimeout: paced(300_000),
          // One file at a time; within one, the scenarios of a describe.concurrent run a few at once
          // (each has its own project, HOME and model server).
          fileParallelism: false,
          maxConcurrency: 3,
        },
      },
    ],
  },
});
