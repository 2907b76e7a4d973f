/**
 * An install holds plugin/ only: nothing is built and no node_modules exists. A copy of it, outside
 * this repository so no node_modules can be found by walking up, runs a whole loop with
 * CLAUDE_PLUGIN_ROOT pointing at it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Loop, additionalContext, messages, projectTestdir } from '../helpers/loop';
import { SESSION } from '../helpers/payloads';
import { FIXER, REVIEWERS, cleanReview, reviewWithIssues } from '../helpers/reviews';
import { PLUGIN_DIR } from '../../scripts/build';
import { REPO_ROOT, runCli } from '../helpers/run';
import { removeTestdirs, tempDir } from '../helpers/testdir';

afterAll(removeTestdirs);

let pluginRoot: string;

beforeAll(() => {
  pluginRoot = path.join(tempDir('minions-plugin-copy-'), 'minions');
  fs.cpSync(path.join(REPO_ROOT, PLUGIN_DIR), pluginRoot, { recursive: true });
});

describe.concurrent('the plugin from a copy of plugin/', () => {
  it('has its hooks, bundles and commands, and no node_modules anywhere up the tree', () => {
    for (const rel of ['hooks/hooks.json', '.claude-plugin/plugin.json', 'commands/review.md', 'commands/status.md', 'commands/cancel.md']) {
      expect(fs.existsSync(path.join(pluginRoot, rel)), rel).toBe(true);
    }
    for (const bundle of ['launch.cjs', 'on-prompt-submit.cjs', 'on-task-gate.cjs', 'on-edit-gate.cjs', 'on-bash-gate.cjs', 'on-subagent-stop.cjs', 'on-stop.cjs', 'cli.mjs']) {
      expect(fs.existsSync(path.join(pluginRoot, 'dist', bundle)), bundle).toBe(true);
    }
    for (const asset of ['web-tree-sitter.wasm', 'tree-sitter-bash.wasm']) expect(fs.existsSync(path.join(pluginRoot, 'dist', asset)), asset).toBe(true);
    for (let dir = pluginRoot; ; dir = path.dirname(dir)) {
      expect(fs.existsSync(path.join(dir, 'node_modules')), dir).toBe(false);
      if (path.dirname(dir) === dir) break;
    }
  });

  it('runs a whole loop: issues → R2 → fix → clean → DONE, then status', async () => {
    const loop = new Loop(projectTestdir(), SESSION, { pluginRoot, env: { NODE_PATH: undefined } });
    const start = await loop.start('--max-iterations 3 from a clone');
    expect(start.stderr).toBe('');
    expect(additionalContext(start)).toContain('[PHASE R1]');

    const round1 = await loop.reviewRound(1, Object.fromEntries(REVIEWERS.map((r) => [r, r === 'witness' ? reviewWithIssues(r) : cleanReview(r)])));
    for (const r of [...round1.dispatches, ...round1.stops]) expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(loop.state()).toMatchObject({ currentPhase: 'R2', iteration: 1 });
    expect(additionalContext(await loop.stop())).toContain('[PHASE R2]');

    expect(await loop.dispatch(FIXER)).toMatchObject({ code: 0, raw: '' });
    expect(await loop.gateWrite(loop.dir.abs('src/cart.ts'), FIXER)).toMatchObject({ code: 0, raw: '' });
    expect((await loop.gateWrite(loop.dir.abs('src/cart.ts'), null)).stdout?.hookSpecificOutput?.permissionDecision).toBe('deny');
    expect((await loop.gateBash('git stash', FIXER)).stdout?.hookSpecificOutput?.permissionDecision).toBe('deny');
    // The shell parser (WebAssembly next to the bundles) loads from the copy: a command that needs it.
    const parsed = await loop.gateBash("sed 's/a/b/' -i .agents/tmp/state.json 2>&1 | tail -1", FIXER);
    expect(parsed.stderr).toBe('');
    expect(parsed.stdout?.hookSpecificOutput?.permissionDecisionReason).toMatch(/belong to the hooks/);
    expect(await loop.gateBash('npm test 2>&1 | tail -20', FIXER)).toMatchObject({ code: 0, raw: '', stderr: '' });
    loop.writeFixSummary(1);
    expect((await loop.fixerStop()).stdout?.systemMessage).toMatch(/^minions: fix round 1 done \(1 fixed\) → R1, Iteration 2\/3$/);

    const round2 = await loop.reviewRound(2, Object.fromEntries(REVIEWERS.map((r) => [r, cleanReview(r)])));
    expect(messages(round2.stops).some((l) => / → DONE$/.test(l))).toBe(true);
    const status = await runCli(['status'], { cwd: loop.root, sessionId: SESSION, pluginRoot });
    expect(status).toMatchObject({ code: 0, stderr: '' });
    expect(status.stdout).toMatch(/^minions review loop — DONE, Iteration 2\/3 \(done\)/);

    const done = await loop.stop();
    expect(done.stdout?.systemMessage).toMatch(/^minions: DONE — review 2\/3 found no issues after 1 fix round\./);
    expect(loop.hasState()).toBe(false);
  });
});
