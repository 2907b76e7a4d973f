/**
 * The review loop end to end in the other hosts: the real GitHub Copilot CLI and Codex CLI (pinned
 * devDependencies) run `/minions:review` typed as text (neither expands a plugin's slash command in
 * headless mode: the prompt hook reads it), with the plugin as each installs it, against the scripted
 * model on loopback (other-hosts.ts). Each host runs: a two-iteration loop to DONE, a loop that ends
 * STOPPED, a reviewer's shell write refused by the Bash gate, and the fixer dispatched during R1 refused
 * by the dispatch gate. They run side by side (their own vitest project, describe.concurrent).
 *
 * A failing assertion prints the run's state, phases, every tool result and the CLI's output, and keeps
 * the run's files (MINIONS_E2E_KEEP=1 keeps every run's).
 */
import { describe, expect, test } from 'vitest';
import { paced } from '../helpers/pace';
import { copyShippedPluginForFile } from './plugin-copy';
import { runHostLoop, type HostLoopReport } from './other-hosts';
import { FINDING, FIX, sampleScenario, explain } from './scenarios';
import { identify } from './scripted-model';

/** Only stops a hung run; the longest takes about 40 s on an idle machine. */
const RUN_TIMEOUT_MS = paced(400_000);
let pluginDir: string;
copyShippedPluginForFile((dir) => (pluginDir = dir));

function expectFinished(r: HostLoopReport, phase: 'DONE' | 'STOPPED', iteration: number): void {
  expect(r.run.timedOut, 'the CLI run timed out').toBe(false);
  expect(r.run.exitCode).toBe(0);
  expect(r.stateWhere, 'the Stop hook archives the state when it announces the end').toBe('archive');
  expect(r.state).toMatchObject({ host: r.host, currentPhase: phase, status: phase === 'DONE' ? 'done' : 'stopped', iteration });
}

/** How many times each agent was dispatched (Claude Code's name of the call, whatever the host called it). */
function dispatched(r: HostLoopReport): string[] {
  return r.results.filter((x) => x.name === 'Agent').map((x) => String(x.input.subagent_type).replace(/^minions:/, ''));
}

describe.concurrent.each(['copilot', 'codex'] as const)('minions review loop in %s', (host) => {
  test('issues → fix → clean review: DONE at iteration 2 with the defects fixed', async () => {
    const scenario = sampleScenario({
      name: `${host}-fix-once`,
      maxIterations: 3,
      findings: (reviewer, i) => (i !== 1 ? [] : reviewer === 'critic' ? [FINDING.offByOne] : reviewer === 'silent-failure-hunter' ? [FINDING.swallowed] : []),
      fixer: (i) => (i === 1 ? [FIX.offByOne, FIX.swallowed] : []),
    });
    const r = await runHostLoop(host, scenario, { pluginDir, timeoutMs: RUN_TIMEOUT_MS });
    explain(r, () => {
      expectFinished(r, 'DONE', 2);
      expect(r.state!.iterations[0]).toMatchObject({ verdict: { overall: 'issues_found', total: 2 }, r2: { status: 'complete', dispatches: 1 } });
      expect(r.read('src/cart.js')).toContain('for (let i = 0; i < cart.length; i++)');
      expect(r.read('src/config.js')).toContain("if (err.code === 'ENOENT') return {};");
      expect(r.readPhase('review-1/r2-fix-summary.md')).toMatch(/^- \[fixed\] src\/cart\.js:\d+ /m);
      expect(JSON.parse(r.readPhase('review-2/r1-verdict.json')!)).toMatchObject({ overall_verdict: 'clean', next: 'DONE' });
      // Every reviewer's review recorded in both rounds, and one fix round. (Codex may deliver a reviewer's
      // answer before its SubagentStop hook ran: a Stop in between names it missing and it runs again.)
      for (const it of r.state!.iterations) expect(Object.values(it.r1.reviewers).map((v: any) => v.status)).toEqual(Array(5).fill('valid'));
      expect(new Set(dispatched(r))).toEqual(new Set(['critic', 'pedant', 'witness', 'security-reviewer', 'silent-failure-hunter', 'review-fixer']));
      expect(dispatched(r).filter((a) => a === 'review-fixer')).toHaveLength(1);
    });
  });

  test('never clean with --max-iterations 2: STOPPED at iteration 2, the open issue named', async () => {
    const scenario = sampleScenario({
      name: `${host}-never-clean`,
      maxIterations: 2,
      findings: (reviewer, i) => (reviewer === 'critic' && i === 1 ? [FINDING.offByOne] : reviewer === 'pedant' && i === 2 ? [FINDING.discountUnit] : []),
      fixer: (i) => (i === 1 ? [FIX.offByOne] : []),
    });
    const r = await runHostLoop(host, scenario, { pluginDir, timeoutMs: RUN_TIMEOUT_MS });
    explain(r, () => {
      expectFinished(r, 'STOPPED', 2);
      expect(r.state!.stopReason).toBe('max_iterations');
      expect(r.state!.openIssues).toEqual([{ severity: 'critical', file: 'src/price.js', line: 3, description: FINDING.discountUnit.description }]);
      expect(r.read('src/cart.js')).toContain('for (let i = 0; i < cart.length; i++)');
      expect(r.read('src/price.js')).toContain('(cents * percent) / 10)');
    });
  });

  test("a reviewer's shell write to the project is refused by the Bash gate, and the loop goes on to DONE", async () => {
    const scenario = sampleScenario({
      name: `${host}-reviewer-write`,
      maxIterations: 2,
      findings: (reviewer) => (reviewer === 'witness' ? { shellFirst: "echo '// hacked' >> src/cart.js", findings: [] } : []),
    });
    const r = await runHostLoop(host, scenario, { pluginDir, timeoutMs: RUN_TIMEOUT_MS });
    explain(r, () => {
      expectFinished(r, 'DONE', 1);
      const shell = r.results.filter((x) => x.name === 'Bash');
      expect(shell).toHaveLength(1);
      expect(shell[0]!.text).toContain('minions R1: minions:witness is read-only; shell commands that write or delete project files are refused');
      expect(r.read('src/cart.js')).not.toContain('hacked');
      expect(r.state!.iterations[0].changedDuringReview).toEqual([]);
    });
  });

  test('the fixer dispatched during R1 is refused by the dispatch gate and never runs', async () => {
    const scenario = sampleScenario({ name: `${host}-fixer-in-r1`, maxIterations: 2, orchestrator: { dispatchFixerInR1: true } });
    const r = await runHostLoop(host, scenario, { pluginDir, timeoutMs: RUN_TIMEOUT_MS });
    explain(r, () => {
      expectFinished(r, 'DONE', 1);
      // Once, or again when the R1 prompt comes back (see the first scenario): refused each time.
      const fixer = r.results.filter((x) => x.name === 'Agent' && x.input.subagent_type === 'minions:review-fixer');
      expect(fixer.length).toBeGreaterThanOrEqual(1);
      for (const attempt of fixer) expect(attempt.text).toContain("the fixer runs in R2, after the reviewers' verdict");
      expect(r.server.requests.some((q) => q.request && q.request.agentId !== undefined && identify(q.request) === 'review-fixer')).toBe(false);
      expect(r.state!.iterations[0].r2.dispatches).toBe(0);
    });
  });
});

describe.concurrent('Copilot CLI, the plugin installed from the marketplace', () => {
  test('a clean review ends DONE at iteration 1, run by the installed hooks and agents', async () => {
    const r = await runHostLoop('copilot', sampleScenario({ name: 'copilot-installed', maxIterations: 2 }), { pluginDir, timeoutMs: RUN_TIMEOUT_MS, installed: true });
    explain(r, () => {
      expectFinished(r, 'DONE', 1);
      expect(new Set(dispatched(r))).toEqual(new Set(['critic', 'pedant', 'witness', 'security-reviewer', 'silent-failure-hunter']));
      for (const name of ['critic', 'pedant', 'witness', 'security-reviewer', 'silent-failure-hunter']) expect(r.readPhase(`review-1/r1-${name}.json`)).toContain('"verdict": "clean"');
    });
  });
});
