/**
 * Reviewing a branch, and the review-only pass CI runs, in the real Claude Code CLI against the scripted
 * model: a feature branch whose work is committed is reviewed with and without --base (diff.patch holds
 * the committed change); `claude -p "/minions:review --no-fix --base main --sarif minions.sarif"` ends
 * REVIEWED with no fixer and a SARIF file the official schema accepts; then `minions status --fail-on`
 * gates the job, as docs/ci.md's workflow runs them (short of the upload).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Ajv from 'ajv-draft-04';
import { describe, expect, test } from 'vitest';
import { paced } from '../helpers/pace';
import { spawnProcess, cleanEnv } from '../helpers/run';
import { makeGitProject } from './harness';
import { copyShippedPluginForFile } from './plugin-copy';
import { FINDING, SAMPLE_BASE, SAMPLE_CHANGE, runLoop, sampleScenario, type LoopReport, explain } from './scenarios';
import { identify, REVIEWER_NAMES as REVIEWERS } from './scripted-model';

const RUN_TIMEOUT_MS = paced(300_000);
let pluginDir: string;
copyShippedPluginForFile((dir) => (pluginDir = dir));

const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, encoding: 'utf8' });

/** The sample project with its change committed on `feature` (main holds the base); the tree is clean. */
function featureProject(): { dir: string; mainCommit: string } {
  const dir = makeGitProject(SAMPLE_BASE, 'e2e-branch-');
  const mainCommit = git(dir, 'rev-parse', 'HEAD').trim();
  git(dir, 'checkout', '-q', '-b', 'feature');
  for (const [rel, content] of Object.entries(SAMPLE_CHANGE)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), content);
  }
  git(dir, 'add', '-A');
  git(dir, '-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'commit.gpgsign=false', 'commit', '-q', '-m', 'cart totals');
  return { dir, mainCommit };
}

type State = { status: string; currentPhase: string; base: string; baseChoice: { ref: string | null; why: string }; reviewOnly: boolean; iterations: { r2: { dispatches: number } }[] };
const state = (r: LoopReport): State => r.state as unknown as State;

const schema = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'fixtures', 'sarif-schema-2.1.0.json'), 'utf8'));
const ajv = new Ajv({
  allErrors: true,
  formats: {
    uri: (s: string) => URL.canParse(s),
    'uri-reference': (s: string) => URL.canParse(s, 'http://base.invalid/'),
    'date-time': (s: string) => !Number.isNaN(Date.parse(s)) && /^\d{4}-\d\d-\d\dT/.test(s),
  },
});
const validateSarif = ajv.compile(schema);

/** `minions status …` as a CI step runs it: the installed plugin's CLI, in the project. */
const minions = (dir: string, ...args: string[]) => spawnProcess(process.execPath, [join(pluginDir, 'dist', 'cli.mjs'), ...args], { cwd: dir, env: cleanEnv() });

describe.concurrent('reviewing a branch in the real CLI', () => {
  test('a committed feature branch, no --base and no task: the merge base with main, diff.patch holds the committed change', async () => {
    const { dir, mainCommit } = featureProject();
    const r = await runLoop(sampleScenario({ name: 'branch-default', task: '' }), { pluginDir, projectDir: dir, timeoutMs: RUN_TIMEOUT_MS });
    explain(r, () => {
      expect(r.run.exitCode).toBe(0);
      expect(state(r).currentPhase).toBe('DONE');
      expect(state(r).base).toBe(mainCommit);
      expect(state(r).baseChoice).toEqual({ ref: 'main', why: 'default-branch' });
      expect(r.systemMessages[0]).toContain(`the change: ${mainCommit.slice(0, 12)} (the merge base with main; the tree is clean: the default branch) to the working tree`);
      const diff = r.readPhase('review-1/diff.patch') ?? '';
      expect(diff).toContain('+export function total(cart) {');
      expect(diff).toContain('src/config.js');
      const ups = r.hooks.find((h) => h.event === 'UserPromptSubmit');
      expect(ups?.additionalContext).toContain(`Changed files (against ${mainCommit.slice(0, 12)}): src/cart.js, src/config.js, src/price.js, test/cart.test.js`);
    });
  });

  test('CI: claude -p "/minions:review --no-fix --base main --sarif minions.sarif", then minions status --fail-on', async () => {
    const { dir, mainCommit } = featureProject();
    const scenario = sampleScenario({
      name: 'ci-review-only',
      task: '',
      // As docs/ci.md runs it: no mode that lets an agent edit without asking.
      permissionMode: 'default',
      flags: '--no-fix --base main --sarif minions.sarif',
      findings: (reviewer, i) => (i === 1 && reviewer === 'critic' ? [FINDING.offByOne] : []),
      fixer: () => {
        throw new Error('no fixer runs in a review-only pass');
      },
    });
    const r = await runLoop(scenario, { pluginDir, projectDir: dir, timeoutMs: RUN_TIMEOUT_MS });
    const critical = await minions(dir, 'status', '--fail-on', 'critical');
    const info = await minions(dir, 'status', '--fail-on', 'info');
    explain(r, () => {
      expect(r.run.exitCode).toBe(0);
      expect(state(r).status).toBe('reviewed');
      expect(state(r).currentPhase).toBe('REVIEWED');
      expect(state(r).reviewOnly).toBe(true);
      expect(state(r).base).toBe(mainCommit);
      expect(state(r).baseChoice).toEqual({ ref: 'main', why: 'flag' });
      expect(state(r).iterations).toHaveLength(1);
      expect(state(r).iterations[0]!.r2.dispatches).toBe(0);
      expect(r.dispatches.map((d) => d.agent)).not.toContain('minions:review-fixer');
      expect(r.server.requests.some((q) => q.request && identify(q.request) === 'review-fixer')).toBe(false);
      expect(r.readPhase('review-1/diff.patch')).toContain('+export function total(cart) {');
      expect(r.systemMessages[0]).toMatch(/^minions: review-only pass started — R1/);
      expect(r.systemMessages.at(-1)).toMatch(/^minions: REVIEWED \(review only, nothing was fixed\) — 1 issue \(1 critical\)/);
      expect(r.readPhase('REPORT.md')).toMatch(/^# minions review loop: REVIEWED/);
      // The SARIF file code scanning uploads: valid against the official schema, the finding in it.
      const sarif = JSON.parse(r.read('minions.sarif') ?? 'null');
      expect(validateSarif(sarif), JSON.stringify(validateSarif.errors, null, 2)).toBe(true);
      expect(sarif.runs[0].results).toHaveLength(1);
      expect(sarif.runs[0].results[0]).toMatchObject({ level: 'error', locations: [{ physicalLocation: { artifactLocation: { uri: 'src/cart.js' } } }] });
      // The job's gate.
      expect(critical.code).toBe(1);
      expect(critical.stderr).toContain('minions: --fail-on critical: 1 open finding at critical or above (1 critical) → exit 1');
      expect(info.code).toBe(1);
      // Nothing in the project was changed by the pass.
      expect(git(dir, 'status', '--porcelain', '--', '.', ':(exclude).agents', ':(exclude)minions.sarif')).toBe('');
    });
  });

  test('CI on a clean pull request: REVIEWED with no finding, and --fail-on passes', async () => {
    const { dir } = featureProject();
    const scenario = sampleScenario({ name: 'ci-clean', task: '', flags: '--no-fix --base main --sarif minions.sarif' });
    const r = await runLoop(scenario, { pluginDir, projectDir: dir, timeoutMs: RUN_TIMEOUT_MS });
    const gate = await minions(dir, 'status', '--fail-on', 'warning');
    explain(r, () => {
      expect(state(r).currentPhase).toBe('REVIEWED');
      const sarif = JSON.parse(r.read('minions.sarif') ?? 'null');
      expect(validateSarif(sarif), JSON.stringify(validateSarif.errors, null, 2)).toBe(true);
      expect(sarif.runs[0].results).toEqual([]);
      expect(gate.code).toBe(0);
      expect(gate.stdout).toContain('minions: --fail-on warning: no open finding at warning or above → exit 0');
    });
  });

  test("REVIEW.md: each reviewer is sent its own copy of the project's rules, a section headed with its name only in its own", async () => {
    const { dir } = featureProject();
    writeFileSync(join(dir, 'REVIEW.md'), '# Review rules\n\nEvery exported function has a test.\n\n## security-reviewer\n\nTreat any path read from config as untrusted.\n');
    git(dir, 'add', 'REVIEW.md');
    git(dir, '-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'commit.gpgsign=false', 'commit', '-q', '-m', 'rules');
    const r = await runLoop(sampleScenario({ name: 'project-rules', task: '', flags: '--no-fix --base main' }), { pluginDir, projectDir: dir, timeoutMs: RUN_TIMEOUT_MS });
    explain(r, () => {
      expect(state(r).currentPhase).toBe('REVIEWED');
      const prompts = new Map<string, string>();
      for (const q of r.server.requests) {
        if (!q.request || q.request.agentId !== undefined) continue;
        for (const b of q.response ?? []) if (b.type === 'tool_use' && b.name === 'Agent') prompts.set(String((b.input as Record<string, unknown>).subagent_type), String((b.input as Record<string, unknown>).prompt));
      }
      expect([...prompts.keys()].sort()).toEqual(REVIEWERS.map((n) => `minions:${n}`).sort());
      for (const [agent, prompt] of prompts) {
        const own = `.agents/tmp/phases/rules/${agent.replace('minions:', '')}.md`;
        expect(prompt).toContain(`Read the project's review rules at ${join(realpathSync(dir), own)} and apply them`);
        expect(prompt.match(/phases\/rules\//g)).toHaveLength(1);
        expect(readFileSync(join(dir, own), 'utf8').includes('Treat any path read from config as untrusted.')).toBe(agent === 'minions:security-reviewer');
      }
    });
  });
});
