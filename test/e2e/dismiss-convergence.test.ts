/**
 * Dismissals that last and the witness's test artefacts, end to end: the real Claude Code CLI runs
 * `/minions:review` with the plugin as an install has it, against the scripted model (see
 * review-loop.test.ts for the harness). The dismissal is made with the shipped `minions` CLI, as
 * /minions:dismiss runs it.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { paced } from '../helpers/pace';
import { copyShippedPluginForFile } from './plugin-copy';
import { FINDING, SAMPLE_BASE, runLoop, sampleScenario, type LoopReport } from './scenarios';
import type { ScenarioFinding } from './scripted-model';

const RUN_TIMEOUT_MS = paced(300_000);
let pluginDir: string;
copyShippedPluginForFile((dir) => (pluginDir = dir));

function explain(report: LoopReport, assertions: () => void): void {
  try {
    assertions();
  } catch (err) {
    if (err instanceof Error) err.message = `${err.message}\n\n${report.diagnostics()}`;
    throw err;
  }
}

type Verdict = { next: string; stopReason: string | null; changedDuringReview: string[]; testArtefacts: string[]; total_issues: number; findings: { fingerprint: string; dismissed: string | null; toFixer: boolean }[] };
const verdictOf = (r: LoopReport, n = 1): Verdict => JSON.parse(r.readPhase(`review-${n}/r1-verdict.json`) ?? 'null') as Verdict;
const critic = (findings: ScenarioFinding[]) => (reviewer: string) => (reviewer === 'critic' ? findings : []);

describe.concurrent('dismissals and test artefacts in the real CLI', () => {
  test('a dismissed finding stays out of the next run, then comes back when its line changes', async () => {
    const scenario = sampleScenario({ name: 'dismiss', maxIterations: 1, findings: critic([FINDING.offByOne]) });
    const first = await runLoop(scenario, { pluginDir, timeoutMs: RUN_TIMEOUT_MS });
    const project = first.projectDir;
    let fingerprint = '';
    explain(first, () => {
      expect(first.run.exitCode).toBe(0);
      const v = verdictOf(first);
      expect(v).toMatchObject({ next: 'STOPPED', stopReason: 'max_iterations', total_issues: 1 });
      fingerprint = v.findings[0]!.fingerprint;
    });

    const dismissed = spawnSync(process.execPath, [join(pluginDir, 'dist', 'cli.mjs'), 'dismiss', fingerprint, '--reason', 'the first line is a header row'], { cwd: project, encoding: 'utf8' });
    expect({ code: dismissed.status, stderr: dismissed.stderr }).toEqual({ code: 0, stderr: '' });
    expect(dismissed.stdout).toContain(`minions: dismissed ${fingerprint} (src/cart.js:10, correctness)`);

    const second = await runLoop(scenario, { pluginDir, timeoutMs: RUN_TIMEOUT_MS, projectDir: project });
    explain(second, () => {
      expect(second.run.exitCode).toBe(0);
      const v = verdictOf(second);
      expect(v).toMatchObject({ next: 'DONE', total_issues: 0 });
      expect(v.findings).toEqual([expect.objectContaining({ fingerprint, dismissed: 'the first line is a header row', toFixer: false })]);
      expect(second.readPhase('REPORT.md')).toMatch(/## Dismissed[\s\S]*— dismissed: the first line is a header row/);
    });

    // The loop's line changes: the dismissal no longer holds, and the finding is back.
    const cart = join(project, 'src/cart.js');
    writeFileSync(cart, readFileSync(cart, 'utf8').replace('for (let i = 1; i < cart.length; i++) {', 'for (let i = 1; i < cart.length; i += 1) {'));
    const moved = { ...FINDING.offByOne, evidence: '  for (let i = 1; i < cart.length; i += 1) {' };
    const third = await runLoop({ ...scenario, findings: critic([moved]) }, { pluginDir, timeoutMs: RUN_TIMEOUT_MS, projectDir: project });
    explain(third, () => {
      expect(third.run.exitCode).toBe(0);
      const v = verdictOf(third);
      expect(v).toMatchObject({ next: 'STOPPED', total_issues: 1 });
      expect(v.findings[0]).toMatchObject({ dismissed: null, toFixer: true });
    });
    for (const r of [first, second, third]) r.cleanup();
  });

  test("the witness's test run leaves untracked artefacts, and the loop still ends DONE", async () => {
    const scenario = sampleScenario({
      name: 'witness-artefacts',
      maxIterations: 1,
      base: { ...SAMPLE_BASE, 'test_smoke.py': 'def test_smoke():\n    assert 1 + 1 == 2\n' },
      // Bytecode is written whatever the machine's environment says; pytest's own cache ignores itself in git.
      findings: (reviewer) => (reviewer === 'witness' ? { shellFirst: 'env -u PYTHONDONTWRITEBYTECODE python3 -m pytest -q test_smoke.py', findings: [] } : []),
    });
    const r = await runLoop(scenario, { pluginDir, timeoutMs: RUN_TIMEOUT_MS });
    explain(r, () => {
      expect(r.run.exitCode).toBe(0);
      const v = verdictOf(r);
      expect(v).toMatchObject({ next: 'DONE', changedDuringReview: [] });
      expect(v.testArtefacts).toEqual([expect.stringMatching(/^__pycache__\/test_smoke\..*\.pyc$/)]);
      expect(r.systemMessages.at(-1)).toMatch(/^minions: DONE —/);
    });
    r.cleanup();
  });
});
