/**
 * The loop's outcome in the real CLI: a fix that makes things worse, the loop stopping at its budget of
 * rounds, the report naming the better round, /minions:restore bringing its files back, and a restore
 * refused once the user has edited one of those files. Also the cost: the tokens the hooks read from each
 * subagent's transcript are exactly the usage the model server reported for that agent.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { copyCommittedPlugin, REPO_ROOT, runClaude } from './harness';
import { startModelServer } from './model-server';
import { FINDING, makeScenarioProject, runLoop, sampleScenario, SAMPLE_CHANGE, type LoopReport } from './scenarios';
import { scriptedModel, type ScenarioFinding } from './scripted-model';

const RUN_TIMEOUT_MS = 120_000;
let pluginDir: string;

beforeAll(() => {
  pluginDir = copyCommittedPlugin(REPO_ROOT);
});

afterAll(() => {
  rmSync(pluginDir, { recursive: true, force: true });
});

function explain(report: LoopReport, assertions: () => Promise<void> | void, alsoRemove: () => string[] = () => []): Promise<void> {
  return (async () => {
    if (process.env.MINIONS_E2E_VERBOSE) console.log(report.diagnostics());
    try {
      await assertions();
    } catch (err) {
      if (err instanceof Error) err.message = `${err.message}\n\n${report.diagnostics()}`;
      throw err;
    }
    if (!process.env.MINIONS_E2E_KEEP) {
      report.cleanup();
      for (const dir of alsoRemove()) rmSync(dir, { recursive: true, force: true });
    }
  })();
}

const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, encoding: 'utf8' });
/** What a restore must leave alone: HEAD, the index, the stash. */
const gitState = (cwd: string) => ({ head: git(cwd, 'rev-parse', 'HEAD'), index: git(cwd, 'ls-files', '-s'), stash: git(cwd, 'stash', 'list') });

type Cost = { agent: string; tokens: { input: number; output: number; cacheCreation: number; cacheRead: number } | null; wallMs: number | null };
type State = { status: string; currentPhase: string; iteration: number; stopReason: string | null; iterations: { cost: Record<string, Cost> }[] };

describe('the best attempt in the real CLI', () => {
  test('round 2 worse than round 1: STOPPED at max, the report names round 1, /minions:restore 1 brings its files back, a restore after a user edit is refused', async () => {
    // The fixer "fixes" a warning by dividing by 1000; the next review finds the critical it introduced.
    const wrongFix = { file: 'src/price.js', find: '(cents / 10).toFixed(2)', replace: '(cents / 1000).toFixed(2)', category: 'unit-error', what: 'cents divided by 1000' };
    const worse: ScenarioFinding = {
      severity: 'critical',
      category: 'unit-error',
      file: 'src/price.js',
      evidence: '  return (cents / 1000).toFixed(2);',
      description: 'formatPrice(1234) now returns "1.23": the fix divides cents by 1000',
      suggestion: 'Divide by 100.',
    };
    const scenario = sampleScenario({
      name: 'best-attempt',
      maxIterations: 2,
      findings: (reviewer, i) => (reviewer !== 'pedant' ? [] : i === 1 ? [FINDING.formatUnit] : i === 2 ? [worse] : []),
      fixer: (i) => (i === 1 ? [wrongFix] : []),
    });
    const r = await runLoop(scenario, { pluginDir, timeoutMs: RUN_TIMEOUT_MS });
    const state = r.state as unknown as State;
    const cli = (...args: string[]) => {
      try {
        return { code: 0, out: execFileSync(process.execPath, [join(pluginDir, 'dist', 'cli.mjs'), ...args], { cwd: r.projectDir, encoding: 'utf8' }) };
      } catch (err) {
        // A refusal is on stderr.
        const e = err as { status: number; stdout: string; stderr: string };
        return { code: e.status, out: `${e.stdout}${e.stderr}` };
      }
    };
    const restoreSession: { home?: string } = {};

    await explain(
      r,
      async () => {
        expect(r.run.timedOut).toBe(false);
        expect(state).toMatchObject({ status: 'stopped', currentPhase: 'STOPPED', iteration: 2, stopReason: 'max_iterations' });

        // The outcome line names the best round, says how the final tree falls short, and names the report.
        const last = r.systemMessages.at(-1)!;
        expect(last).toMatch(/^minions: STOPPED — the iteration budget is spent\b/);
        expect(last).toContain('  Best attempt: round 1. The final tree (round 2) ranks below it: 1 critical more, 1 warning fewer open; score 0.55 against 0.90. /minions:restore 1');
        expect(last).toMatch(/\n {2}Cost: [\d,]+ tokens over 11 agent runs · Report: \.agents\/tmp\/phases\/REPORT\.md$/);

        // REPORT.md beside the phases, REVIEW.md in each round.
        const report = r.readPhase('REPORT.md')!;
        expect(report).toMatch(/^# minions review loop: STOPPED after 2 review rounds\n/);
        expect(report).toContain('**Best attempt: round 1.');
        expect(report.split('\n').filter((l) => l.startsWith('| ['))).toEqual([
          expect.stringMatching(/^\| \[1\]\(review-1\/REVIEW\.md\) \| 0 \| 1 \| 0 \| 1 \| 0 \| – \| 0\.90 \| READY \| complete \| [\d,]+ \| .+ \| \*\*best\*\* \|$/),
          expect.stringMatching(/^\| \[2\]\(review-2\/REVIEW\.md\) \| 1 \| 0 \| 0 \| 1 \| 0 \| – \| 0\.55 \| ALMOST \| pending \| [\d,]+ \| .+ \|  \|$/),
        ]);
        expect(report).toContain('```mermaid');
        expect(report).toContain(' src/price.js | 2 +-');
        expect(r.readPhase('review-1/REVIEW.md')).toMatch(/\| `src\/price\.js:8` \| formatPrice\(1234\) returns "123\.40" instead of "12\.34": cents are divided by 10\. \| fixed \|/);
        expect(r.readPhase('review-2/REVIEW.md')).toContain('| 1 | `src/price.js:8` | critical | correctness | pedant | NEW |');

        // The cost: per agent, exactly what the model server reported for that agent's requests.
        const sent = new Map<string, { input: number; output: number }>();
        for (const q of r.server.requests) {
          const id = q.request?.agentId;
          if (!id || !q.usage) continue;
          const sum = sent.get(id) ?? { input: 0, output: 0 };
          sent.set(id, { input: sum.input + q.usage.input, output: sum.output + q.usage.output });
        }
        const recorded = state.iterations.flatMap((it) => Object.entries(it.cost));
        expect(recorded.map(([, c]) => c.agent).sort()).toEqual(
          [...['critic', 'pedant', 'witness', 'security-reviewer', 'silent-failure-hunter'].flatMap((a) => [a, a]), 'review-fixer'].sort(),
        );
        expect(Object.keys(state.iterations[0]!.cost)).toHaveLength(6);
        for (const [id, c] of recorded) {
          expect({ id, tokens: c.tokens }).toEqual({ id, tokens: { ...sent.get(id)!, cacheCreation: 0, cacheRead: 0 } });
          expect(c.wallMs).toBeGreaterThan(0);
        }

        // status --json gives the same facts.
        const status = JSON.parse(cli('status', '--json').out) as { loop: string; outcome: { best: number; final: { reviewedRound: number }; cost: { total: number } } };
        expect(status).toMatchObject({ loop: 'finished', outcome: { best: 1, final: { reviewedRound: 2 } } });
        expect(report).toContain(`${status.outcome.cost.total.toLocaleString('en-US')} tokens over 11 agent runs`);

        // /minions:restore 1 through the real CLI: round 1's files come back, nothing else moves.
        expect(r.read('src/price.js')).toContain('(cents / 1000).toFixed(2)');
        writeFileSync(join(r.projectDir, 'scratch.txt'), 'my own notes, not the loop’s\n');
        const before = gitState(r.projectDir);
        const server = await startModelServer(scriptedModel(sampleScenario({ name: 'restore-session' }), { projectDir: r.projectDir }));
        try {
          const restored = await runClaude({ pluginDir, projectDir: r.projectDir, prompt: '/minions:restore 1', serverUrl: server.url, timeoutMs: RUN_TIMEOUT_MS });
          restoreSession.home = restored.homeDir;
          expect(restored.exitCode).toBe(0);
          const shown = JSON.stringify(server.requests.filter((q) => q.request && q.request.agentId === undefined && q.request.tools.length > 0).map((q) => q.request!.messages));
          expect(shown).toContain("minions: restored round 1's files: 1 file written (src/price.js).");
        } finally {
          await server.close();
        }
        expect(r.read('src/price.js')).toBe(SAMPLE_CHANGE['src/price.js']);
        for (const file of ['src/cart.js', 'src/config.js', 'test/cart.test.js']) expect(r.read(file)).toBe(SAMPLE_CHANGE[file]);
        expect(r.read('scratch.txt')).toBe('my own notes, not the loop’s\n');
        expect(gitState(r.projectDir)).toEqual(before);

        // The user edits a file the loop changed: a restore is refused and the edit stays.
        const edited = `${SAMPLE_CHANGE['src/price.js']}\n// my edit\n`;
        writeFileSync(join(r.projectDir, 'src/price.js'), edited);
        const refused = cli('restore', 'undo');
        expect(refused.code).toBe(1);
        expect(refused.out).toContain('you changed 1 file the loop also changed since it ended (src/price.js)');
        expect(readFileSync(join(r.projectDir, 'src/price.js'), 'utf8')).toBe(edited);
        // With --force the undo goes ahead: the tree before the restore (the wrong fix) is back.
        expect(cli('restore', 'undo', '--force').code).toBe(0);
        expect(r.read('src/price.js')).toContain('(cents / 1000).toFixed(2)');
      },
      () => [restoreSession.home].filter((d): d is string => !!d),
    );
  });
});

describe("the commands' ! lines in the real CLI", () => {
  test('a refusal (stderr, non-zero exit) is shown to the user as the host reports a failed line, and the model is not called; an answer reaches the model', async () => {
    const scenario = sampleScenario({ name: 'command-lines' });
    const projectDir = makeScenarioProject(scenario);
    const server = await startModelServer(scriptedModel(scenario, { projectDir }));
    const homes: string[] = [];
    try {
      const run = async (prompt: string): Promise<{ result: string; model: string }> => {
        const before = server.requests.length;
        const r = await runClaude({ pluginDir, projectDir, prompt, serverUrl: server.url, timeoutMs: RUN_TIMEOUT_MS });
        homes.push(r.homeDir);
        expect(r.exitCode, r.stderr).toBe(0);
        const result = r.events.find((e) => e.type === 'result') as { result?: string } | undefined;
        return { result: result?.result ?? '', model: JSON.stringify(server.requests.slice(before).filter((q) => q.request && q.request.agentId === undefined).map((q) => q.request!.messages)) };
      };
      const report = await run('/minions:report --sarif');
      expect(report.result).toMatch(/^Shell command failed for pattern .*: \[stderr\]\nminions: no review loop has run in this project \(.*\), so there is nothing to report\.$/s);
      expect(report.model).toBe('[]');
      const restore = await run('/minions:restore abc');
      expect(restore.result).toContain('minions: restore takes a round number (1, 2 …) or "undo", not "abc"\nusage: minions <command> [options]');
      const status = await run('/minions:status');
      expect(status.model).toContain('minions: no review loop has run in this project');
    } finally {
      await server.close();
      if (!process.env.MINIONS_E2E_KEEP) for (const dir of [projectDir, ...homes]) rmSync(dir, { recursive: true, force: true });
    }
  });
});
