import { defineConfig } from 'vitest/config';

// Three levels, as separate projects: pure unit tables, hook processes (built dist/ bundles in temp
// git repos), and end-to-end runs of the real Claude Code CLI against a scripted model.
export default defineConfig({
  test: {
    projects: [
      { test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      { test: { name: 'hooks', include: ['test/hooks/**/*.test.ts'], testTimeout: 60_000, hookTimeout: 120_000 } },
      { test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'], testTimeout: 300_000, hookTimeout: 300_000, fileParallelism: false } },
    ],
  },
});
