/**
 * The completion policy in the real Claude Code CLI (plugin/ as installed, the scripted model on
 * loopback): with --done-when warning --min-confidence 70, a low-confidence finding is listed in REVIEW.md
 * under its own heading and never sent to the fixer, an info finding goes to the fixer only as optional,
 * and the loop ends DONE with both still there.
 */
import { describe, expect, test } from 'vitest';
import { paced } from '../helpers/pace';
import { copyShippedPluginForFile } from './plugin-copy';
import { FINDING, FIX, runLoop, sampleScenario, type LoopReport, explain } from './scenarios';
import type { ScenarioFinding } from './scripted-model';

const RUN_TIMEOUT_MS = paced(300_000);
let pluginDir: string;
copyShippedPluginForFile((dir) => (pluginDir = dir));


/** A warning its one reviewer is not sure of, and a nit. */
const DOUBTFUL: ScenarioFinding = { ...FINDING.formatUnit, confidence: 40 };
const NIT: ScenarioFinding = {
  severity: 'info',
  category: 'naming',
  file: 'src/config.js',
  evidence: 'export function loadConfig(path) {',
  description: 'the parameter `path` reads like the node:path module; `file` would say what it is',
  suggestion: 'Rename the parameter to file.',
  confidence: 90,
};

describe('the completion policy in the real CLI', () => {
  test('a low-confidence finding is listed but not fixed; DONE with an info finding open under --done-when warning', async () => {
    const scenario = sampleScenario({
      name: 'completion-policy',
      flags: '--done-when warning --min-confidence 70',
      findings: (reviewer, i) =>
        reviewer === 'critic' && i === 1 ? [{ ...FINDING.offByOne, confidence: 95 }] : reviewer === 'pedant' ? [DOUBTFUL] : reviewer === 'silent-failure-hunter' ? [NIT] : [],
      fixer: (i) => (i === 1 ? { edits: [FIX.offByOne], answer: (f) => (f.file === 'src/cart.js' ? { status: 'fixed' } : { status: 'declined', reason: 'optional, and `path` is the name the docs use' }) } : []),
    });
    const r = await runLoop(scenario, { pluginDir, timeoutMs: RUN_TIMEOUT_MS });
    explain(r, () => {
      expect(r.run.timedOut, 'the CLI run timed out').toBe(false);
      expect(r.run.exitCode).toBe(0);
      const state = r.state as { currentPhase: string; iteration: number; rules: Record<string, unknown> };
      expect(state).toMatchObject({ currentPhase: 'DONE', iteration: 2, rules: { doneWhen: 'warning', minConfidence: 70 } });
      expect(r.systemMessages.at(-1)).toContain('minions: DONE —');

      // Round 1: the fixer got the critical and the nit (optional), never the doubtful warning.
      const brief = JSON.parse(r.readPhase('review-1/r2-findings.json')!) as { findings: { file: string; severity: string; optional?: boolean }[] };
      expect(brief.findings.map((f) => [f.file, f.severity, f.optional ?? false])).toEqual([
        ['src/cart.js', 'critical', false],
        ['src/config.js', 'info', true],
      ]);
      for (const n of [1, 2]) {
        const [table, below] = r.readPhase(`review-${n}/REVIEW.md`)!.split('## Below the confidence threshold');
        expect(below, `REVIEW.md of round ${n}`).toContain(DOUBTFUL.description);
        expect(below).toMatch(/\| warning \| 40 \| correctness \| pedant \|/);
        expect(table).not.toContain(DOUBTFUL.description);
      }

      // Round 2: only held findings: DONE at once, the nit reported, the doubtful warning listed, neither fixed.
      const verdict = JSON.parse(r.readPhase('review-2/r1-verdict.json')!) as { next: string; overall_verdict: string; total_issues: number; findings: { file: string; held: string | null; toFixer: boolean }[] };
      expect(verdict).toMatchObject({ next: 'DONE', overall_verdict: 'clean', total_issues: 0 });
      expect(verdict.findings.map((f) => [f.file, f.held, f.toFixer]).sort()).toEqual([
        ['src/config.js', 'level', false],
        ['src/price.js', 'confidence', false],
      ]);
      expect(r.readPhase('review-2/REVIEW.md')).toContain('BELOW --done-when: not blocking');
      expect(r.phases).not.toContain('review-2/r2-findings.json');
      expect(r.read('src/cart.js')).toContain('for (let i = 0; i < cart.length; i++)');
      expect(r.read('src/price.js')).toContain('(cents / 10).toFixed(2)');
      expect(r.read('src/config.js')).toContain('export function loadConfig(path) {');
      expect(r.readPhase('REPORT.md')).toContain('**Completion policy:** open critical and warning findings block DONE, lower ones are reported (--done-when warning); findings one reviewer scored below 70 are listed, not fixed (--min-confidence 70).');
    });
  });
});
