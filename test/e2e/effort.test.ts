/**
 * `--effort quick` in the real Claude Code CLI against the scripted model: three reviewers and the fixer,
 * each dispatched with the model the phase prompt names, reach DONE; the scripted server sees the
 * subagents' requests on that model.
 */
import { describe, expect, test } from 'vitest';
import { paced } from '../helpers/pace';
import { copyShippedPluginForFile } from './plugin-copy';
import { FINDING, FIX, runLoop, sampleScenario, type LoopReport, explain } from './scenarios';
import { identify } from './scripted-model';

const RUN_TIMEOUT_MS = paced(300_000);
let pluginDir: string;
copyShippedPluginForFile((dir) => (pluginDir = dir));

describe('cost profiles in the real CLI', () => {
  test('--effort quick: three reviewers and the fixer on sonnet, DONE at iteration 2', async () => {
    const scenario = sampleScenario({
      name: 'effort-quick',
      flags: '--effort quick',
      findings: (reviewer, i) => (i === 1 && reviewer === 'critic' ? [FINDING.offByOne] : []),
      fixer: (i) => (i === 1 ? [FIX.offByOne] : []),
    });
    const r = await runLoop(scenario, { pluginDir, timeoutMs: RUN_TIMEOUT_MS });
    explain(r, () => {
      expect(r.run.timedOut, 'the CLI run timed out').toBe(false);
      expect(r.run.exitCode).toBe(0);
      const state = r.state as unknown as { currentPhase: string; iteration: number; maxIterations: number; effort: { profile: string } };
      expect(state).toMatchObject({ currentPhase: 'DONE', iteration: 2, maxIterations: 4, effort: { profile: 'quick' } });
      expect(r.systemMessages[0]).toMatch(/^minions: review loop started — R1, Iteration 1\/4: effort quick: critic, witness, security-reviewer \(sonnet\)/);
      // Each Agent call named the model the prompt asked; none was refused.
      expect(r.dispatches.map((d) => d.agent).sort()).toEqual(
        ['critic', 'critic', 'security-reviewer', 'security-reviewer', 'witness', 'witness', 'review-fixer'].map((n) => `minions:${n}`).sort(),
      );
      expect(r.dispatches.every((d) => d.result && !d.result.isError)).toBe(true);
      // The subagents' requests reached the model server on sonnet; pedant and silent-failure-hunter never ran.
      const sub = r.server.requests.flatMap((q) => (q.request && q.request.agentId !== undefined ? [q.request] : []));
      const roles = new Set(sub.map((q) => identify(q)));
      expect([...roles].sort()).toEqual(['critic', 'review-fixer', 'security-reviewer', 'witness']);
      for (const q of sub) expect(q.model, identify(q)).toMatch(/sonnet/i);
      // Not inherited: the session itself runs on another model.
      const main = r.server.requests.flatMap((q) => (q.request && q.request.agentId === undefined ? [q.request.model] : []));
      expect(main.length).toBeGreaterThan(0);
      for (const m of main) expect(m).not.toMatch(/sonnet/i);
      expect(r.read('src/cart.js')).toContain('for (let i = 0; i < cart.length; i++)');
    });
  });
});
