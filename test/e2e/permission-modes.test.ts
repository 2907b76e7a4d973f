/**
 * The loop in the permission modes people run, not only bypassPermissions. The edit gate answers
 * `allow` for exactly the plugin's own files (each reviewer's review in R1, the fixer's two summaries
 * in R2), so they are written without a permission prompt in `default` and `acceptEdits` mode too;
 * project files are left to the mode. In `default` mode under -p nobody can answer a prompt, so the
 * host refuses the fixer's project edits: the fixer reports "could not fix" and the loop runs to its
 * end instead of hanging. (Measured on 2.1.328 before relying on it: in `default` mode under -p a
 * Write or Edit is refused and listed in `permission_denials`; a PreToolUse `allow` skips that.)
 */
import { describe, expect, test } from 'vitest';
import { paced } from '../helpers/pace';
import { resultEvents, type PermissionMode } from './harness';
import { copyShippedPluginForFile } from './plugin-copy';
import { FINDING, FIX, runLoop, sampleScenario, type LoopReport } from './scenarios';
import type { Scenario } from './scripted-model';

let pluginDir: string;
copyShippedPluginForFile((dir) => (pluginDir = dir));

interface Denial {
  tool_name: string;
  tool_input: { file_path?: string };
}

/** What the host refused for want of a permission, over every turn of the run. */
const denials = (r: LoopReport): Denial[] => resultEvents(r.run.events).flatMap((e) => (e.permission_denials as Denial[] | undefined) ?? []);

/** The gate's allow answers, by tool. */
const allowed = (r: LoopReport): string[] => r.hooks.filter((h) => h.event === 'PreToolUse' && h.permissionDecision === 'allow').map((h) => h.name);

type State = { currentPhase: string; iteration: number; stopReason: string | null };

async function loop(mode: PermissionMode, scenario: Scenario, assertions: (r: LoopReport) => void): Promise<void> {
  const r = await runLoop({ ...scenario, permissionMode: mode }, { pluginDir, timeoutMs: paced(300_000) });
  try {
    expect(r.run.timedOut, 'the CLI run timed out').toBe(false);
    expect(r.run.exitCode).toBe(0);
    expect(r.stateWhere, 'the loop ended and was archived').toBe('archive');
    for (const h of r.run.events.filter((e) => e.type === 'system' && e.subtype === 'hook_response')) {
      expect({ hook: h.hook_name, exit: Number(h.exit_code), stderr: h.stderr }).toEqual({ hook: h.hook_name, exit: 0, stderr: '' });
    }
    // Nothing under .agents/ was ever refused: the plugin's own files never need the user.
    expect(denials(r).filter((d) => (d.tool_input.file_path ?? '').includes('/.agents/'))).toEqual([]);
    assertions(r);
  } catch (err) {
    if (err instanceof Error) err.message = `${err.message}\n\n${r.diagnostics()}`;
    throw err;
  }
  if (!process.env.MINIONS_E2E_KEEP) r.cleanup();
}

const fixOnce = sampleScenario({
  name: 'fix-once',
  findings: (reviewer, i) => (i === 1 && reviewer === 'critic' ? [FINDING.offByOne] : []),
  fixer: (i) => (i === 1 ? [FIX.offByOne] : []),
});

// Each scenario has its own project, HOME and model server: they run a few at a time (maxConcurrency).
describe.concurrent('permission modes', () => {
  test('default: a clean review ends DONE; the five reviews are written without a prompt', async () => {
    await loop('default', sampleScenario({ name: 'clean-default' }), (r) => {
      expect((r.state as State).currentPhase).toBe('DONE');
      expect(denials(r)).toEqual([]);
      expect(allowed(r)).toEqual(Array(5).fill('PreToolUse:Write'));
      expect(r.systemMessages.at(-1)).toMatch(/^minions: DONE — review 1\/5 found no issues\. Reviews: \.agents\/tmp\/phases\/review-1\/\n {2}Cost: [\d,]+ tokens over 5 agent runs · Report: \.agents\/tmp\/phases\/REPORT\.md$/);
    });
  });

  test('default: the host refuses the fixer\'s project edit; the loop reports "could not fix", and the class that keeps coming back stops it: stuck', async () => {
    const scenario = sampleScenario({
      name: 'refused-fix-default',
      maxIterations: 3,
      findings: (reviewer) => (reviewer === 'critic' ? [FINDING.offByOne] : []),
      fixer: (i) => (i === 1 ? [FIX.offByOne] : []),
    });
    await loop('default', scenario, (r) => {
      // Review 2 finds the same open finding (audit-first round), review 3 again: the class escalates and the loop stops.
      expect(r.state as State).toMatchObject({ currentPhase: 'STOPPED', iteration: 3, stopReason: 'stuck_issue' });
      // The only refusal is the fixer's edit of the project file (the scripted fixer tries it in round 1 only).
      expect(denials(r).map((d) => [d.tool_name, d.tool_input.file_path])).toEqual([['Edit', `${r.projectDir}/src/cart.js`]]);
      expect(r.read('src/cart.js')).toContain('for (let i = 1; i < cart.length; i++)');
      const answers = JSON.parse(r.readPhase('review-1/r2-fix-summary.json')!) as { fixes: { status: string; reason?: string }[] };
      expect(answers.fixes).toEqual([{ fingerprint: expect.any(String), status: 'could_not_fix', reason: expect.stringMatching(/^the edit of src\/cart\.js was refused: /) }]);
      expect(r.systemMessages).toContain('minions: fix round 1 done (0 fixed, 1 could not fix) → R1, Iteration 2/3');
      // Fifteen reviews and four summaries, each allowed by the gate.
      expect(allowed(r).sort()).toEqual([...Array(19).fill('PreToolUse:Write')]);
      expect(r.systemMessages.at(-1)).toMatch(/^minions: STOPPED — a finding is stuck: .*\n  critical src\/cart\.js:10 — total\(\) starts at index 1/s);
    });
  });

  test('acceptEdits: issues → fix → clean review, DONE at iteration 2 with the defect fixed and nothing refused', async () => {
    await loop('acceptEdits', fixOnce, (r) => {
      expect(r.state as State).toMatchObject({ currentPhase: 'DONE', iteration: 2 });
      expect(denials(r)).toEqual([]);
      expect(r.read('src/cart.js')).toContain('for (let i = 0; i < cart.length; i++)');
      expect(r.systemMessages).toContain('minions: fix round 1 done (1 fixed) → R1, Iteration 2/5');
      expect(allowed(r)).toHaveLength(12);
    });
  });
});
