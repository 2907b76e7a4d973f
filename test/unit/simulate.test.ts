import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { simulateLoop } from '../../sim/loop';
import { PROFILES, POLICIES, POLICY_OPTIONS, type Profile } from '../../sim/params';
import { DEFAULT_LOOPS, DEFAULT_SEED, main, renderTable, runCell } from '../../sim/simulate';
import { budgetProblems, budgetWithin, meanTokensAt, renderTypicalCost, runEffortCell, withModels } from '../../sim/effort';
import type { LoopResult } from '../../sim/loop';
import { EFFORTS, EFFORT_PROFILES, resolveEffort } from '../../src/protocol/effort';

const profile = (name: string): Profile => PROFILES.find((p) => p.name === name)!;

describe('the convergence simulator', () => {
  it('drives the real core to DONE in two rounds with the scripted model, every planted defect fixed, no churn', () => {
    for (let seed = 0; seed < 10; seed++) {
      const r = simulateLoop(profile('scripted'), 'info', seed);
      expect(r).toMatchObject({ outcome: 'DONE', rounds: 2, churn: 0, regressionsLeft: 0 });
      expect(r.plantedFixed).toBe(r.planted);
      expect(r.first.found).toBe(r.first.defects);
    }
  });

  it('is reproducible from its seed, and another seed gives other loops', () => {
    const noisy = profile('claude-code');
    expect(runCell(noisy, 'info', 5, 8)).toEqual(runCell(noisy, 'info', 5, 8));
    expect(runCell(noisy, 'info', 6, 8)).not.toEqual(runCell(noisy, 'info', 5, 8));
  });

  it('noisy reviewers end loops through the core’s own stop rules, and a stricter policy never blocks on more', () => {
    const info = runCell(profile('best-published'), 'info', 1, 10);
    const critical = runCell(profile('best-published'), 'critical', 1, 10);
    expect(info.done + Object.values(info.stopped).reduce((a, b) => a + b, 0)).toBeCloseTo(1);
    expect(info.churn).toBeGreaterThan(critical.churn);
    expect(info.firstPrecision).toBeLessThan(1);
  });

  it("passes each policy to the core as the plugin's options: the core, not the simulator, holds findings back", () => {
    const noisy = profile('claude-code');
    const held = (policy: (typeof POLICIES)[number]) => Array.from({ length: 6 }, (_, seed) => simulateLoop(noisy, policy, seed).held).reduce((a, b) => ({ level: a.level + b.level, confidence: a.confidence + b.confidence }));
    expect(held('info')).toEqual({ level: 0, confidence: 0 });
    expect(held('warning')).toMatchObject({ confidence: 0 });
    expect(held('warning').level).toBeGreaterThan(0);
    expect(held('conf80')).toMatchObject({ level: 0 });
    expect(held('conf80').confidence).toBeGreaterThan(0);
    expect(POLICY_OPTIONS['warning+conf80']).toEqual({ doneWhen: 'warning', minConfidence: 80 });
    // The scripted model (every finding real and confident) ends DONE under every policy.
    for (const policy of POLICIES) expect(simulateLoop(profile('scripted'), policy, 3).outcome).toBe('DONE');
  });

  it('renders one row per profile and policy', () => {
    const cells = PROFILES.map((p) => runCell(p, 'info', 1, 1));
    const table = renderTable(cells, 1, 1);
    for (const p of PROFILES) expect(table).toContain(`| ${p.name} | info |`);
    expect(table).toContain('npm run simulate -- --seed 1 --loops 1');
  });

  it('docs/convergence.md is the table of the default seed and loop count, for every profile and policy', () => {
    const doc = fs.readFileSync(path.join(__dirname, '../../docs/convergence.md'), 'utf8');
    expect(doc).toContain(`npm run simulate -- --seed ${DEFAULT_SEED} --loops ${DEFAULT_LOOPS}`);
    for (const p of PROFILES) for (const policy of POLICIES) expect(doc).toMatch(new RegExp(`\\| ${p.name} \\| ${policy.replace('+', '\\+')} \\| \\d+% \\|`));
  });

  describe('its command line', () => {
    const quiet = () => {
      const err = vi.spyOn(console, 'error').mockImplementation(() => {});
      const log = vi.spyOn(console, 'log').mockImplementation(() => {});
      return { err, restore: () => (err.mockRestore(), log.mockRestore()) };
    };

    it('refuses an unknown option and a loop count that is not a whole number', () => {
      const { err, restore } = quiet();
      expect(main(['--loop', '3'])).toBe(2);
      expect(err.mock.calls.flat().join('\n')).toContain('unknown option --loop');
      expect(main(['--loops', 'many'])).toBe(2);
      expect(main(['--loops', '0'])).toBe(2);
      restore();
    });

    it('--check fails on a file that differs from a fresh run, and passes on the file it wrote', () => {
      const out = path.join(fs.mkdtempSync(path.join(process.env.MINIONS_TEST_TMP ?? os.tmpdir(), 'sim-')), 'table.md');
      const { err, restore } = quiet();
      fs.writeFileSync(out, 'an old table\n');
      expect(main(['--loops', '1', '--out', out, '--check'])).toBe(1);
      expect(err.mock.calls.flat().join('\n')).toContain('differs from a fresh run');
      expect(main(['--loops', '1', '--out', out])).toBe(0);
      expect(main(['--loops', '1', '--out', out, '--check'])).toBe(0);
      expect(main(['--loops', '1', '--seed', '2', '--out', out, '--check'])).toBe(1);
      restore();
    });
  });
});

describe('the effort axis (sim/effort.ts)', () => {
  const noisy = profile('claude-code');

  it('standard (the session model) runs the noise profile unchanged; quick and deep scale it by their models', () => {
    expect(withModels(noisy, resolveEffort('standard'))).toEqual(noisy);
    const deep = withModels(noisy, resolveEffort('deep'));
    expect(deep.tokens.reviewer).toBeGreaterThan(noisy.tokens.reviewer);
    expect(deep.reviewers.critic.focusRecall).toBeGreaterThan(noisy.reviewers.critic.focusRecall);
    expect(deep.fixer.fix + deep.fixer.partial + deep.fixer.decline).toBeLessThanOrEqual(1);
    const haiku = withModels(noisy, resolveEffort('quick', { critic: 'haiku', witness: 'haiku', 'security-reviewer': 'haiku' }));
    expect(haiku.reviewers.critic.focusRecall).toBeLessThan(noisy.reviewers.critic.focusRecall);
    expect(haiku.falsePositives).toBeGreaterThan(noisy.falsePositives);
  });

  it('a quick loop reaches each verdict with its three reviewers (the simulator throws otherwise) and costs less than a standard one', () => {
    const quick = runEffortCell('quick', noisy, 3, 6);
    const standard = runEffortCell('standard', noisy, 3, 6);
    expect(quick.tokens).toBeLessThan(standard.tokens);
    expect(quick.rounds).toBeLessThanOrEqual(EFFORT_PROFILES.quick.maxIterations);
  });

  it('a budget is the most rounds whose loops stay within the cap', () => {
    const loop = (rounds: number, spentBy: number[]) => ({ rounds, tokens: spentBy[rounds - 1]!, spentBy }) as unknown as LoopResult;
    // One loop ends after 2 rounds (2 M), one runs on (1, 2, 3, 4 M by rounds 1 to 4).
    const open = [loop(2, [1e6, 2e6]), loop(4, [1e6, 2e6, 3e6, 4e6])];
    expect([1, 2, 3, 4, 5].map((b) => meanTokensAt(open, b))).toEqual([1e6, 2e6, 2.5e6, 3e6, 3e6]);
    expect(budgetWithin(open, 2.5e6)).toBe(3);
    expect(budgetWithin(open, 1e6)).toBe(1);
    expect(budgetWithin(open, 0)).toBe(1);
  });

  it("names a profile whose default budget is not the one its cap measures", () => {
    const cell = { ...runEffortCell('quick', noisy, 3, 2), profile: 'claude-code' };
    const budget = EFFORT_PROFILES.quick.maxIterations;
    expect(budgetProblems([{ ...cell, roundsNeeded: budget + 1 }]).filter((p) => p.startsWith('effort quick'))).toEqual([
      `effort quick: its default budget is ${budget} rounds, but ${budget + 1} rounds is the most whose simulated claude-code loops stay within its 2.5 M tokens`,
    ]);
    expect(budgetProblems([{ ...cell, roundsNeeded: budget - 1 }]).filter((p) => p.startsWith('effort quick'))).toHaveLength(1);
    expect(budgetProblems([{ ...cell, roundsNeeded: budget }]).filter((p) => p.startsWith('effort quick'))).toEqual([]);
    // Other noise profiles do not set the budget.
    expect(budgetProblems([{ ...cell, profile: 'real-prs', roundsNeeded: budget + 4 }]).filter((p) => p.startsWith('effort quick'))).toEqual(['effort quick: no simulated loops of the claude-code profile to set its budget from']);
  });

  it('src/report/typical-cost.ts is the mean of each profile on the claude-code noise profile, as rendered', () => {
    const cells = EFFORTS.map((e) => ({ ...runEffortCell(e, noisy, 1, 1), tokens: { quick: 1, standard: 2, deep: 3 }[e] }));
    expect(renderTypicalCost(cells, 1, 1)).toContain('export const TYPICAL_TOKENS = {"quick":1,"standard":2,"deep":3} as const;');
    expect(fs.readFileSync(path.join(__dirname, '../../src/report/typical-cost.ts'), 'utf8')).toContain(`seed ${DEFAULT_SEED}, ${DEFAULT_LOOPS} loops`);
  });
});
