/**
 * The review loop end to end: the real Claude Code CLI (node_modules/.bin/claude) runs
 * `/minions:review` with the plugin as an install has it (plugin/), against a scripted model on loopback,
 * in a temp git project with planted defects and an isolated HOME.
 *
 * Each scenario asserts the final loop state (archived or live), the files under .agents/tmp/phases/,
 * the project's source, and the hook answers seen in stream-json. A failing assertion prints the hook
 * events, the state file and a compact model log, and keeps the run's files (MINIONS_E2E_VERBOSE=1 prints
 * the diagnostics of every run; MINIONS_E2E_KEEP=1 keeps every run's project, HOME and logs).
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { similarity } from '../../src/checks/layer0/simhash64';
import { paced } from '../helpers/pace';
import { runClaude, systemEvents } from './harness';
import { copyShippedPluginForFile } from './plugin-copy';
import { contentText, startModelServer } from './model-server';
import {
  FINDING,
  FIX,
  SAMPLE_CHANGE,
  mainDispatches,
  parseHookMessages,
  runLoop,
  sampleScenario,
  toolResults,
  type LoopReport,
  explain,
} from './scenarios';
import { identify, latestPhasePrompt, REVIEWER_NAMES, scriptedModel, type FixEdit, type ScenarioFinding } from './scripted-model';

/**
 * A whole CLI run may take this long on an idle machine (the longest takes about 20 s), paced to this
 * run (test/helpers/pace.ts); generous, since scenarios run side by side: it only stops a hung run.
 */
const RUN_TIMEOUT_MS = paced(300_000);
let pluginDir: string;
copyShippedPluginForFile((dir) => (pluginDir = dir));

/** Runs the assertions; on failure the error carries the run's diagnostics and the run's files are kept. */

type State = {
  status: string;
  currentPhase: string;
  iteration: number;
  maxIterations: number;
  stopReason: string | null;
  openIssues: { severity: string; file: string; line: number | null; description: string }[];
  iterations: { iteration: number; r1: { reviewers: Record<string, { status: string; dispatches: number; failures: number }> }; r2: { status: string; dispatches: number }; verdict: { overall: string; total: number } | null }[];
};

const state = (r: LoopReport): State => r.state as unknown as State;

/** The run ended normally and the loop reached `phase` at `iteration`, announced and archived. */
function expectFinished(r: LoopReport, phase: 'DONE' | 'STOPPED', iteration: number): void {
  expect(r.run.timedOut, 'the CLI run timed out').toBe(false);
  expect(r.run.exitCode).toBe(0);
  expect(r.stateWhere, 'the Stop hook archives the state when it announces the end').toBe('archive');
  expect(existsSync(join(r.projectDir, '.agents/tmp/state.json'))).toBe(false);
  expect(state(r).currentPhase).toBe(phase);
  expect(state(r).status).toBe(phase === 'DONE' ? 'done' : 'stopped');
  expect(state(r).iteration).toBe(iteration);
  const last = r.systemMessages.at(-1) ?? '';
  expect(last).toContain(`minions: ${phase} —`);
  const verdict = JSON.parse(r.readPhase(`review-${iteration}/r1-verdict.json`) ?? 'null') as { next: string; overall_verdict: string } | null;
  expect(verdict?.next).toBe(phase);
  expect(verdict?.overall_verdict).toBe(phase === 'DONE' ? 'clean' : 'issues_found');
  // No hook failed or complained.
  for (const h of r.run.events.filter((e) => e.type === 'system' && e.subtype === 'hook_response')) {
    expect({ hook: h.hook_name, exit: Number(h.exit_code), stderr: h.stderr }).toEqual({ hook: h.hook_name, exit: 0, stderr: '' });
  }
  expect(systemEvents(r.run.events, 'notification').filter((e) => e.key === 'stop-hook-block-cap')).toEqual([]);
}

/**
   * review-1 … review-n each hold the change under review, the five reviews, a verdict and its REVIEW.md;
   * the fix summaries and Layer-0's report where a fix round ran, and the fixer's change in the round after
   * it; REPORT.md; `extra` names any other file (the checks' reports and logs).
 */
function expectPhaseFiles(r: LoopReport, iterations: number, fixedIterations: number[], extra: string[] = []): void {
  const expected = ['run.json', 'REPORT.md', ...extra];
  for (let i = 1; i <= iterations; i++) {
    expected.push(`review-${i}/diff.patch`);
    if (fixedIterations.includes(i - 1)) expected.push(`review-${i}/fix-delta.patch`);
    for (const name of REVIEWER_NAMES) expected.push(`review-${i}/r1-${name}.json`);
      expected.push(`review-${i}/r1-verdict.json`, `review-${i}/REVIEW.md`);
      if (fixedIterations.includes(i)) expected.push(`review-${i}/r2-findings.json`, `review-${i}/r2-fix-summary.md`, `review-${i}/r2-fix-summary.json`, `review-${i}/layer0.json`);
  }
  expect(r.phases).toEqual(expected.sort());
}

/** Agent calls per "agent@iteration", as the main thread sent them. */
function dispatchCounts(r: LoopReport): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const d of r.dispatches) {
    const key = `${d.agent.replace(/^minions:/, '')}@${d.iteration}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

function oncePerIteration(reviewIterations: number, fixIterations: number[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (let i = 1; i <= reviewIterations; i++) for (const name of REVIEWER_NAMES) counts[`${name}@${i}`] = 1;
  for (const i of fixIterations) counts[`review-fixer@${i}`] = 1;
  return counts;
}

/** The closing line of a DONE loop: the outcome, then the cost every agent's transcript gave and the report. */
function expectDoneLine(r: LoopReport, head: string, agentRuns: number): void {
  const [first, second, ...rest] = (r.systemMessages.at(-1) ?? '').split('\n');
  expect(first).toBe(head);
  expect(second).toMatch(new RegExp(`^  Cost: [\\d,]+ tokens over ${agentRuns} agent runs · Report: \\.agents/tmp/phases/REPORT\\.md$`));
  expect(rest).toEqual([]);
}

const only = (reviewer: string, iteration: number, findings: ScenarioFinding[]) => (r: string, i: number) => (r === reviewer && i === iteration ? findings : []);

// Each scenario has its own project, HOME and model server: they run a few at a time (maxConcurrency).
describe.concurrent('minions review loop in the real CLI', () => {
  test('1. a clean first review ends DONE at iteration 1 without a fixer', async () => {
    const r = await runLoop(sampleScenario({ name: 'clean' }), { pluginDir, timeoutMs: RUN_TIMEOUT_MS });
    explain(r, () => {
      expectFinished(r, 'DONE', 1);
      expectPhaseFiles(r, 1, []);
      expect(dispatchCounts(r)).toEqual(oncePerIteration(1, []));
      expect(r.dispatches.every((d) => !d.background && d.result && !d.result.isError)).toBe(true);
      expect(r.server.requests.some((q) => q.request && identify(q.request) === 'review-fixer')).toBe(false);
      expect(r.systemMessages[0]).toMatch(/^minions: review loop started — R1, Iteration 1\/5/);
      expectDoneLine(r, 'minions: DONE — review 1/5 found no issues. Reviews: .agents/tmp/phases/review-1/', 5);
      // The R1 prompt reached the model through the UserPromptSubmit context.
      const ups = r.hooks.find((h) => h.event === 'UserPromptSubmit');
      expect(ups?.additionalContext).toMatch(/^\[PHASE R1\] minions review — Iteration 1\/5/);
      expect(r.read('src/cart.js')).toContain('for (let i = 1; i < cart.length; i++)');
      // The orchestration skill is listed under its own name and its description reaches the model
      // (skills/review/ was shadowed by the /minions:review command: FINDINGS.md #1).
      const init = r.run.events.find((e) => e.type === 'system' && e.subtype === 'init');
      expect(init?.skills).toEqual(expect.arrayContaining(['minions:review-loop']));
      const first = JSON.stringify(r.server.requests.find((q) => q.request !== undefined && q.request.agentId === undefined && q.request.tools.length > 0)?.request?.messages ?? []);
      expect(first).toContain('minions:review-loop: How to orchestrate a minions review loop.');
    });
  });

  test('2. issues → fix → clean review: DONE at iteration 2 with the defects fixed', async () => {
    const scenario = sampleScenario({
      name: 'fix-once',
      findings: (reviewer, i) =>
        i !== 1 ? [] : reviewer === 'critic' ? [FINDING.offByOne] : reviewer === 'witness' ? [FINDING.failingTest] : reviewer === 'silent-failure-hunter' ? [FINDING.swallowed] : [],
      fixer: (i) => (i === 1 ? [FIX.offByOne, FIX.swallowed] : []),
    });
    const r = await runLoop(scenario, { pluginDir, timeoutMs: RUN_TIMEOUT_MS });
    explain(r, () => {
      expectFinished(r, 'DONE', 2);
      expectPhaseFiles(r, 2, [1]);
      expect(dispatchCounts(r)).toEqual(oncePerIteration(2, [1]));
      expect(state(r).iterations[0]!.verdict).toMatchObject({ overall: 'issues_found', total: 3 });
      expect(state(r).iterations[0]!.r2.status).toBe('complete');
      expect(r.read('src/cart.js')).toContain('for (let i = 0; i < cart.length; i++)');
      expect(r.read('src/config.js')).toContain("if (err.code === 'ENOENT') return {};");
      expect(r.readPhase('review-1/r2-fix-summary.md')).toMatch(/^- \[fixed\] src\/cart\.js:10 /m);
      const verdict1 = JSON.parse(r.readPhase('review-1/r1-verdict.json')!) as { next: string; total_issues: number };
      expect(verdict1).toMatchObject({ next: 'R2', total_issues: 3 });
      expect(r.systemMessages).toContain('minions: fix round 1 done (3 fixed) → R1, Iteration 2/5');
      expectDoneLine(r, 'minions: DONE — review 2/5 found no issues after 1 fix round. Reviews: .agents/tmp/phases/review-2/', 11);
      // The Stop hook steered the model: R2 after the first review, R1 after the fix.
      const continued = r.hooks.filter((h) => h.event === 'Stop' && h.additionalContext).map((h) => h.additionalContext!.split('\n')[0]);
      expect(continued).toEqual(['[PHASE R2] minions review — Iteration 1/5', '[PHASE R1] minions review — Iteration 2/5']);
    });
  });

  test('3. never clean with --max-iterations 2: STOPPED at iteration 2 with the reason and the open issues reported', async () => {
    // Each round finds something new (the same open set twice would stop earlier, as no_progress).
    const scenario = sampleScenario({
      name: 'never-clean',
      maxIterations: 2,
      findings: (reviewer, i) => (reviewer === 'critic' && i === 1 ? [FINDING.offByOne] : reviewer === 'pedant' && i === 2 ? [FINDING.discountUnit] : []),
      fixer: (i) => (i === 1 ? [FIX.offByOne] : []),
    });
    const r = await runLoop(scenario, { pluginDir, timeoutMs: RUN_TIMEOUT_MS });
    explain(r, () => {
      expectFinished(r, 'STOPPED', 2);
      expectPhaseFiles(r, 2, [1]);
      expect(dispatchCounts(r)).toEqual(oncePerIteration(2, [1]));
      expect(state(r).stopReason).toBe('max_iterations');
      expect(state(r).openIssues).toEqual([{ severity: 'critical', file: 'src/price.js', line: 3, description: FINDING.discountUnit.description }]);
      const last = r.systemMessages.at(-1)!;
      expect(last).toMatch(/^minions: STOPPED — the iteration budget is spent\b.*1 issue open \(1 critical\)\. Verdict: \.agents\/tmp\/phases\/review-2\/r1-verdict\.json/);
      expect(last).toContain('\n  critical src/price.js:3 — discount() divides a percentage by 10');
      expect(r.read('src/cart.js')).toContain('for (let i = 0; i < cart.length; i++)');
      expect(r.read('src/price.js')).toContain('(cents * percent) / 10)');
    });
  });

  test('3b. terse fix summaries that read alike do not stop a loop that fixes a different finding each round', async () => {
    // FINDINGS.md #2: the no-progress fixpoint compared the prose only.
    // Near-identical (the same words, punctuated differently), not the same string: 100% similar.
    const first = '# Fix summary\n\n- [fixed] src/price.js docs — fixed\n\n## Tests run\n- none\n';
    const second = '# Fix summary\n\n* [fixed] src/price.js (docs): fixed.\n\n## Tests run\n* None.\n';
    const scenario = sampleScenario({
      name: 'terse-summaries',
      maxIterations: 3,
      findings: (reviewer, i) => (reviewer === 'pedant' && i === 1 ? [FINDING.discountUnit] : reviewer === 'pedant' && i === 2 ? [FINDING.formatUnit] : []),
      fixer: (i) => (i === 1 ? { edits: [FIX.discountUnit], summary: first } : i === 2 ? { edits: [FIX.formatUnit], summary: second } : []),
    });
    const r = await runLoop(scenario, { pluginDir, timeoutMs: RUN_TIMEOUT_MS });
    explain(r, () => {
      expectFinished(r, 'DONE', 3);
      expectPhaseFiles(r, 3, [1, 2]);
      expect(r.readPhase('review-1/r2-fix-summary.md')).toBe(first);
      expect(r.readPhase('review-2/r2-fix-summary.md')).toBe(second);
      expect(similarity(first, second), 'the summaries read alike: only the findings tell the rounds apart').toBe(1);
      expect(r.systemMessages).toContain('minions: fix round 2 done (1 fixed) → R1, Iteration 3/3');
      expect(r.read('src/price.js')).toContain('(cents / 100).toFixed(2)');
    });
  });

  test('4. a reviewer that writes invalid JSON is continued with the validation error, rewrites, and the loop completes', async () => {
    const invalid = '{"issues":[{"severity":"dire","category":"style","file":"src/cart.js","line":1,"description":"x"}],"summary":{"verdict":"issues_found"}}';
    const scenario = sampleScenario({
      name: 'invalid-first',
      findings: (reviewer, i) => (reviewer === 'pedant' && i === 1 ? { invalidFirst: invalid, findings: [] } : []),
    });
    const r = await runLoop(scenario, { pluginDir, timeoutMs: RUN_TIMEOUT_MS });
    explain(r, () => {
      expectFinished(r, 'DONE', 1);
      expectPhaseFiles(r, 1, []);
      const continued = r.hooks.filter((h) => h.event === 'SubagentStop' && h.decision === 'block');
      expect(continued).toHaveLength(1);
      expect(continued[0]!.reason).toMatch(/^Your review at \/\S+\.agents\/tmp\/phases\/review-1\/r1-pedant\.json cannot be read as written: issues\[0\]\.severity is "dire": write one of/);
      // The pedant saw the error as a continuation (a user turn after its final text; the host's own
      // wording around the reason differs between versions) and wrote again.
      const pedant = r.server.requests.filter((q) => q.request && identify(q.request) === 'pedant').map((q) => q.request!);
      const saw = pedant.filter((q) => q.messages.slice(1).some((m) => m.role === 'user' && contentText(m.content).includes('cannot be read as written')));
      expect(saw.length).toBeGreaterThan(0);
      const writes = pedant.flatMap((q) => r.server.requests.find((x) => x.request === q)!.response ?? []).filter((b) => b.type === 'tool_use' && b.name === 'Write');
      expect(writes).toHaveLength(2);
      const results = toolResults(r.server.requests);
      expect(writes.map((w) => results.get((w as { id: string }).id)?.isError)).toEqual([false, false]);
      expect(JSON.parse(r.readPhase('review-1/r1-pedant.json')!)).toMatchObject({ issues: [], summary: { verdict: 'clean' } });
      expect(state(r).iterations[0]!.r1.reviewers.pedant).toMatchObject({ status: 'valid', dispatches: 1 });
      expect(dispatchCounts(r)).toEqual(oncePerIteration(1, []));
    });
  });

  test('5. a reviewer that only answers with a ```json fence gets its file written by the hook', async () => {
    const scenario = sampleScenario({
      name: 'fence-only',
      findings: (reviewer, i) => (reviewer === 'silent-failure-hunter' && i === 1 ? { fenceOnly: true, findings: [FINDING.swallowed] } : []),
      fixer: (i) => (i === 1 ? [FIX.swallowed] : []),
    });
    const r = await runLoop(scenario, { pluginDir, timeoutMs: RUN_TIMEOUT_MS });
    explain(r, () => {
      expectFinished(r, 'DONE', 2);
      expectPhaseFiles(r, 2, [1]);
      const hunter1 = r.server.requests.filter((q) => q.request && identify(q.request) === 'silent-failure-hunter' && JSON.stringify(q.request.messages).includes('review-1/r1-silent-failure-hunter.json'));
      expect(hunter1.flatMap((q) => q.response ?? []).filter((b) => b.type === 'tool_use')).toEqual([]);
      const written = JSON.parse(r.readPhase('review-1/r1-silent-failure-hunter.json')!) as { issues: { category: string; file: string; line: number }[] };
      expect(written.issues).toEqual([expect.objectContaining({ category: 'swallowed-error', file: 'src/config.js', line: 7 })]);
      expect(r.systemMessages.some((m) => m.includes('silent-failure-hunter 1 warning, taken from its final message'))).toBe(true);
      expect(r.hooks.filter((h) => h.event === 'SubagentStop' && h.decision === 'block')).toEqual([]);
      expect(r.read('src/config.js')).toContain("if (err.code === 'ENOENT') return {};");
    });
  });

  test('5b. the same defect from three reviewers and one ungrounded finding: the fixer gets one finding, the loop ends DONE', async () => {
    // An info finding: an ungrounded critical or warning goes to the fixer unverified (scenario 14, test/hooks/reader.test.ts).
    const ghost = { severity: 'info' as const, category: 'injection', file: 'src/payments.js', line: 12, evidence: 'db.query("SELECT * FROM cards WHERE id=" + id)', description: 'card lookup builds SQL from input', suggestion: 'use a parameterised query' };
    const scenario = sampleScenario({
      name: 'merge-and-ground',
      findings: (reviewer, i) => {
        if (i !== 1) return [];
        if (reviewer === 'critic') return [FINDING.offByOne];
        if (reviewer === 'pedant') return [{ ...FINDING.offByOne, severity: 'warning', category: 'logic-error', description: 'loop index starts at 1' }];
        if (reviewer === 'witness') return [{ ...FINDING.offByOne, severity: 'info', category: 'bug', description: 'first line missing from the total' }];
        if (reviewer === 'security-reviewer') return [ghost];
        return [];
      },
      fixer: (i) => (i === 1 ? [FIX.offByOne] : []),
    });
    const r = await runLoop(scenario, { pluginDir, timeoutMs: RUN_TIMEOUT_MS });
    explain(r, () => {
      expectFinished(r, 'DONE', 2);
      const verdict = JSON.parse(r.readPhase('review-1/r1-verdict.json')!) as { total_issues: number; findings: { reporters: string[]; toFixer: boolean; severity: string; grounding: { status: string; reason: string | null } }[] };
      expect(verdict.total_issues).toBe(1);
      expect(verdict.findings).toHaveLength(2);
      expect(verdict.findings).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ reporters: ['critic', 'pedant', 'witness'], severity: 'critical', toFixer: true }),
          expect.objectContaining({ toFixer: false, grounding: expect.objectContaining({ status: 'ungrounded', reason: 'src/payments.js does not exist' }) }),
        ]),
      );
      const brief = JSON.parse(r.readPhase('review-1/r2-findings.json')!) as { findings: { fingerprint: string; file: string }[] };
      expect(brief.findings).toEqual([expect.objectContaining({ file: 'src/cart.js' })]);
      const answers = JSON.parse(r.readPhase('review-1/r2-fix-summary.json')!) as { fixes: { fingerprint: string; status: string; kind?: string }[] };
      expect(answers.fixes).toEqual([{ fingerprint: brief.findings[0]!.fingerprint, status: 'fixed', kind: 'patch' }]);
      expect(r.read('src/cart.js')).toContain('for (let i = 0; i < cart.length; i++)');
      // The reviewer whose only finding matched no file was told so once by the real host.
      const told = r.hooks.filter((h) => h.event === 'SubagentStop' && h.decision === 'block' && /^1 finding in \/\S+ does not match the files \(ungrounded\)/.test(h.reason ?? ''));
      expect(told).toHaveLength(1);
      expect(r.systemMessages.some((m) => /review 1\/5: 1 issue \(1 critical\) \[2 duplicate reports merged, 1 ungrounded\]/.test(m))).toBe(true);
      expect(dispatchCounts(r)).toEqual(oncePerIteration(2, [1]));
    });
  });

  test('6. the orchestrator dispatching the fixer and editing a source file in R1 is denied by the host, without effect', async () => {
    const sneaky = { file: 'src/price.js', find: '(cents / 10).toFixed(2)', replace: '(cents / 10).toFixed(2) /* orchestrator was here */' };
    const scenario = sampleScenario({ name: 'orchestrator-quirks', orchestrator: { dispatchFixerInR1: true, editSourceInR1: sneaky } });
    const r = await runLoop(scenario, { pluginDir, timeoutMs: RUN_TIMEOUT_MS });
    explain(r, () => {
      expectFinished(r, 'DONE', 1);
      expectPhaseFiles(r, 1, []);
      const results = toolResults(r.server.requests);
      const mainUses = r.server.requests.filter((q) => q.request && q.request.agentId === undefined).flatMap((q) => q.response ?? []);
      const edit = mainUses.find((b) => b.type === 'tool_use' && b.name === 'Edit') as { id: string } | undefined;
      expect(edit).toBeDefined();
      expect(results.get(edit!.id)).toEqual({ isError: true, text: expect.stringContaining('project files are changed only by minions:review-fixer in R2') });
      const fixer = r.dispatches.find((d) => d.agent === 'minions:review-fixer');
      expect(fixer?.result).toEqual({ isError: true, text: expect.stringContaining('the fixer runs in R2, after the reviewers\' verdict') });
      const denies = r.hooks.filter((h) => h.permissionDecision === 'deny').map((h) => h.name).sort();
      expect(denies).toEqual(['PreToolUse:Agent', 'PreToolUse:Edit']);
      // Nothing happened: no fixer subagent ever ran, the source is untouched, reviewers ran once.
      expect(r.server.requests.some((q) => q.request && identify(q.request) === 'review-fixer')).toBe(false);
      expect(r.read('src/price.js')).not.toContain('orchestrator was here');
      expect(dispatchCounts(r)).toEqual({ ...oncePerIteration(1, []), 'review-fixer@1': 1 });
      expect(state(r).iterations[0]!.r2.dispatches).toBe(0);
    });
  });

  test('7. reviewers launched with run_in_background: true are not dispatched twice and the loop completes', async () => {
    const scenario = sampleScenario({
      name: 'background',
      agentDelayMs: 400, // the reviewers are surely still running when the orchestrator's turn ends
      orchestrator: { background: true },
      findings: only('critic', 1, [FINDING.offByOne]),
      fixer: (i) => (i === 1 ? [FIX.offByOne] : []),
    });
    const r = await runLoop(scenario, { pluginDir, timeoutMs: RUN_TIMEOUT_MS });
    explain(r, () => {
      expectFinished(r, 'DONE', 2);
      expectPhaseFiles(r, 2, [1]);
      expect(r.dispatches.every((d) => d.background)).toBe(true);
      expect(dispatchCounts(r)).toEqual(oncePerIteration(2, [1]));
      expect(r.read('src/cart.js')).toContain('for (let i = 0; i < cart.length; i++)');
      // While they ran, the Stop hook waited instead of re-injecting the phase prompt.
      expect(r.systemMessages.some((m) => /^minions: R1 Iteration 1\/5 — waiting for /.test(m))).toBe(true);
    });
  });

  test('8. five iterations (issues in 1–4, clean at 5) complete DONE under the default stop-hook block cap', async () => {
    const perIteration: Record<number, [string, ScenarioFinding]> = {
      1: ['critic', FINDING.offByOne],
      2: ['silent-failure-hunter', FINDING.swallowed],
      3: ['pedant', FINDING.discountUnit],
      4: ['pedant', FINDING.formatUnit],
    };
    const fixes = { 1: FIX.offByOne, 2: FIX.swallowed, 3: FIX.discountUnit, 4: FIX.formatUnit } as Record<number, (typeof FIX)[keyof typeof FIX]>;
    const scenario = sampleScenario({
      name: 'five-iterations',
      maxIterations: 5,
      findings: (reviewer, i) => (perIteration[i]?.[0] === reviewer ? [perIteration[i]![1]] : []),
      fixer: (i) => (fixes[i] ? [fixes[i]!] : []),
    });
    const r = await runLoop(scenario, { pluginDir, timeoutMs: RUN_TIMEOUT_MS, env: { CLAUDE_CODE_STOP_HOOK_BLOCK_CAP: undefined } });
    explain(r, () => {
      expectFinished(r, 'DONE', 5);
      expectPhaseFiles(r, 5, [1, 2, 3, 4]);
      expect(dispatchCounts(r)).toEqual(oncePerIteration(5, [1, 2, 3, 4]));
      // 8 Stop continuations in one turn (R2 ×4, R1 ×4), each followed by tool calls.
      expect(r.hooks.filter((h) => h.event === 'Stop' && h.additionalContext)).toHaveLength(8);
      expect(r.run.events.filter((e) => e.type === 'result')).toHaveLength(1);
      const src = `${r.read('src/cart.js')}${r.read('src/config.js')}${r.read('src/price.js')}`;
      for (const fix of Object.values(fixes)) expect(src).toContain(fix.replace);
      expectDoneLine(r, 'minions: DONE — review 5/5 found no issues after 4 fix rounds. Reviews: .agents/tmp/phases/review-5/', 29);
      // The pedant's unit-error is a correctness finding, not error handling (FINDINGS.md #3).
      const verdict3 = JSON.parse(r.readPhase('review-3/r1-verdict.json')!) as { findings: { file: string; category: string; categories: string[] }[] };
      expect(verdict3.findings).toEqual([expect.objectContaining({ file: 'src/price.js', category: 'correctness', categories: ['unit-error'] })]);
    });
  });

  test('8b. seven iterations (12 Stop continuations, beyond the 8-block cap) still complete: tool calls between blocks reset the count', async () => {
    const docFinding = (n: number): ScenarioFinding => ({
      severity: 'info',
      category: 'docs',
      file: 'README.md',
      evidence: n === 5 ? 'A tiny shop library: cart lines, prices, settings.' : 'A tiny shop library: cart lines, prices in cents, settings.',
      description: `round ${n}: the README does not say prices are in cents / what loadConfig returns`,
    });
    const perIteration: Record<number, [string, ScenarioFinding]> = {
      1: ['critic', FINDING.offByOne],
      2: ['silent-failure-hunter', FINDING.swallowed],
      3: ['pedant', FINDING.discountUnit],
      4: ['pedant', FINDING.formatUnit],
      5: ['pedant', docFinding(5)],
      6: ['pedant', docFinding(6)],
    };
    // Each fix summary must read differently: two near-identical summaries in a row stop the loop (no_progress).
    const fixes: Record<number, FixEdit> = {
      1: FIX.offByOne,
      2: FIX.swallowed,
      3: FIX.discountUnit,
      4: FIX.formatUnit,
      5: { file: 'README.md', find: 'prices, settings.', replace: 'prices in cents, settings.', what: 'the README says prices are in cents' },
      6: { file: 'README.md', find: 'in cents, settings.', replace: 'in cents, settings ({} when the file is missing).', what: 'the README documents the empty config for a missing file' },
    };
    const scenario = sampleScenario({
      name: 'seven-iterations',
      maxIterations: 7,
      // The info findings of rounds 5 and 6 keep the loop going only under today's rule.
      flags: '--done-when info',
      findings: (reviewer, i) => (perIteration[i]?.[0] === reviewer ? [perIteration[i]![1]] : []),
      fixer: (i) => (fixes[i] ? [fixes[i]!] : []),
    });
    const r = await runLoop(scenario, { pluginDir, timeoutMs: RUN_TIMEOUT_MS, env: { CLAUDE_CODE_STOP_HOOK_BLOCK_CAP: undefined } });
    explain(r, () => {
      expectFinished(r, 'DONE', 7);
      expectPhaseFiles(r, 7, [1, 2, 3, 4, 5, 6]);
      expect(dispatchCounts(r)).toEqual(oncePerIteration(7, [1, 2, 3, 4, 5, 6]));
      expect(r.hooks.filter((h) => h.event === 'Stop' && h.additionalContext)).toHaveLength(12);
      expect(r.read('README.md')).toContain('prices in cents, settings ({} when the file is missing).');
    });
  });

  test('10. every reviewer is handed an existing diff.patch and, from iteration 2, the fix-delta.patch holding the fixer’s change, and reads them without Bash', async () => {
    const scenario = sampleScenario({
      name: 'diff-files',
      reviewersReadPatches: true,
      findings: only('critic', 1, [FINDING.offByOne]),
      fixer: (i) => (i === 1 ? [FIX.offByOne] : []),
    });
    const r = await runLoop(scenario, { pluginDir, timeoutMs: RUN_TIMEOUT_MS });
    explain(r, () => {
      expectFinished(r, 'DONE', 2);
      expectPhaseFiles(r, 2, [1]);
      const root = realpathSync(r.projectDir);
      const phase = (i: number, name: string) => `${root}/.agents/tmp/phases/review-${i}/${name}`;

      // The orchestrator's Agent calls (as the model server recorded them) carry the absolute paths.
      const calls = r.server.requests
        .filter((q) => q.request && q.request.agentId === undefined)
        .flatMap((q) => q.response ?? [])
        .flatMap((b) => (b.type === 'tool_use' && b.name === 'Agent' ? [b.input as { subagent_type: string; prompt: string }] : []))
        .filter((input) => input.subagent_type !== 'minions:review-fixer');
      expect(calls.map((c) => c.subagent_type).sort()).toEqual([...REVIEWER_NAMES, ...REVIEWER_NAMES].map((n) => `minions:${n}`).sort());
      for (const call of calls) {
        const i = Number(/review-(\d+)\/r1-/.exec(call.prompt)![1]);
        expect(call.prompt, call.subagent_type).toContain(phase(i, 'diff.patch'));
        expect(call.prompt.includes(phase(i, 'fix-delta.patch')), call.subagent_type).toBe(i === 2);
      }

      // diff.patch: the whole change against HEAD, the untracked files included; then as the fixer left it.
      const diff1 = r.readPhase('review-1/diff.patch')!;
      expect(diff1).toContain('+  for (let i = 1; i < cart.length; i++) {');
      for (const file of ['src/config.js', 'src/price.js', 'test/cart.test.js']) expect(diff1).toMatch(new RegExp(`^diff --git a/${file} b/${file}\nnew file mode`, 'm'));
      const diff2 = r.readPhase('review-2/diff.patch')!;
      expect(diff2).toContain('+  for (let i = 0; i < cart.length; i++) {');
      expect(diff2).not.toContain('i = 1;');
      // fix-delta.patch: exactly the fixer's one edit, nothing of the change it was given.
      const delta = r.readPhase('review-2/fix-delta.patch')!;
      expect([...delta.matchAll(/^diff --git (\S+)/gm)].map((m) => m[1])).toEqual(['a/src/cart.js']);
      expect(delta).toContain('-  for (let i = 1; i < cart.length; i++) {\n+  for (let i = 0; i < cart.length; i++) {');
      expect(delta.match(/^[+-](?![+-])/gm)).toHaveLength(2);

      // Each reviewer, the critic (no Bash) included, read the patches with Read while it ran.
      const results = toolResults(r.server.requests);
      for (const name of REVIEWER_NAMES) {
        const reads = r.server.requests
          .filter((q) => q.request && identify(q.request) === name)
          .flatMap((q) => q.response ?? [])
          .flatMap((b) => (b.type === 'tool_use' && b.name === 'Read' ? [{ id: b.id!, path: String((b.input as { file_path: string }).file_path) }] : []));
        expect(reads.map((x) => x.path).sort(), name).toEqual([phase(1, 'diff.patch'), phase(2, 'diff.patch'), phase(2, 'fix-delta.patch')].sort());
        for (const x of reads) {
          const result = results.get(x.id);
          expect(result?.isError, `${name} read ${x.path}`).toBe(false);
          expect(result?.text, `${name} read ${x.path}`).toContain('# minions: ');
        }
      }
      const critic = r.server.requests.find((q) => q.request && identify(q.request) === 'critic')!.request!;
      expect(critic.tools.map((t) => t.name)).not.toContain('Bash');
    });
  });

  test('9. a second session in the same project at the same time is neither gated nor steered', async () => {
    const scenario = sampleScenario({
      name: 'owner-session',
      agentDelayMs: 700,
      findings: only('critic', 1, [FINDING.offByOne]),
      fixer: (i) => (i === 1 ? [FIX.offByOne] : []),
    });
    const noteEdit = { file: 'NOTES.md', find: '- ship the cart totals this week', replace: '- ship the cart totals this week\n- second session was here' };
    const observed: { loopLiveAtEdit: boolean | null; second: Awaited<ReturnType<typeof runClaude>> | null; phasePrompts: number; agentCalls: number } = {
      loopLiveAtEdit: null,
      second: null,
      phasePrompts: -1,
      agentCalls: -1,
    };

    const alongside = async (projectDir: string): Promise<void> => {
      const statePath = join(projectDir, '.agents/tmp/state.json');
      const deadline = Date.now() + paced(30_000);
      while (!existsSync(statePath) && Date.now() < deadline) await new Promise((res) => setTimeout(res, 50));
      const plain = sampleScenario({ name: 'second-session', plainEdits: [noteEdit] });
      const server = await startModelServer(
        scriptedModel(plain, {
          projectDir,
          beforePlainEdit: () => {
            try {
              const s = JSON.parse(readFileSync(statePath, 'utf8')) as { status: string };
              observed.loopLiveAtEdit = s.status === 'in_progress';
            } catch {
              observed.loopLiveAtEdit = false;
            }
          },
        }),
      );
      try {
        observed.second = await runClaude({ pluginDir, projectDir, prompt: 'Add a line to NOTES.md saying the second session was here.', serverUrl: server.url, timeoutMs: RUN_TIMEOUT_MS });
        observed.phasePrompts = server.requests.filter((q) => q.request && latestPhasePrompt(q.request) !== null).length;
        observed.agentCalls = mainDispatches(server.requests).length;
      } finally {
        await server.close();
      }
    };

    const r = await runLoop(scenario, { pluginDir, timeoutMs: RUN_TIMEOUT_MS, alongside });
    explain(r, () => {
      // The loop is not steered by the other session, but it sees the other session's edit: a review that
      // ran while NOTES.md changed names it (and saves the patch), and a clean review of a tree that changed
      // under it is not DONE, so the loop takes one more review when the edit landed in a clean round.
      const iterations = state(r).iteration;
      expect(iterations === 2 || iterations === 3, `DONE at iteration ${iterations}`).toBe(true);
      expectFinished(r, 'DONE', iterations);
      const changedRounds = r.phases.filter((f) => f.endsWith('/r1-changed-during-review.patch'));
      expect(changedRounds.length).toBeLessThanOrEqual(1);
      for (const patch of changedRounds) expect(r.readPhase(patch)).toContain('+- second session was here');
      expect(changedRounds.length > 0 || iterations === 2, 'a third review only follows an edit during a clean review').toBe(true);
      expectPhaseFiles(r, iterations, [1], changedRounds);
      expect(r.read('src/cart.js')).toContain('for (let i = 0; i < cart.length; i++)');

      const second = observed.second!;
      expect(second.exitCode).toBe(0);
      expect(second.timedOut).toBe(false);
      expect(observed.loopLiveAtEdit, 'the second session edited while the loop was in progress').toBe(true);
      expect(r.read('NOTES.md')).toContain('- second session was here');
      const secondHooks = parseHookMessages(second.events);
      expect(secondHooks.map((h) => h.name)).toEqual(expect.arrayContaining(['UserPromptSubmit', 'PreToolUse:Edit', 'Stop']));
      for (const h of secondHooks) expect({ hook: h.name, output: h.raw.trim() }).toEqual({ hook: h.name, output: '' });
      expect(secondHooks.filter((h) => h.event === 'Stop' && h.additionalContext)).toEqual([]);
      expect(observed.agentCalls).toBe(0);
      expect(observed.phasePrompts, 'no [PHASE …] prompt reached the second session').toBe(0);
      expect(second.events.filter((e) => e.type === 'result').map((e) => e.result)).toEqual(['Done: edited NOTES.md.']);
    }, observed.second ? [observed.second.homeDir] : []);
  });
  test('10. a reviewer\'s shell write to the project during R1 (one the Bash gate cannot see) is named and the loop does not end DONE', async () => {
    // The witness has Bash: an interpreter writing a file is not a redirection or a known writer, so the
    // gate lets it run; the snapshot at the end of the review sees it.
    const write = `python3 -c "open('src/cart.js','a').write('// written by the witness during the review\\n')"`;
    const scenario = sampleScenario({ name: 'reviewer-shell-write', maxIterations: 1, findings: (reviewer) => (reviewer === 'witness' ? { shellFirst: write, findings: [] } : []) });
    const r = await runLoop(scenario, { pluginDir, timeoutMs: RUN_TIMEOUT_MS });
    explain(r, () => {
      expect(r.run.timedOut, 'the CLI run timed out').toBe(false);
      expect(r.run.exitCode).toBe(0);
      expect(r.read('src/cart.js')).toContain('// written by the witness during the review');
      // Named in the verdict, the progress line and a patch; every review was clean, and still not DONE.
      const verdict = JSON.parse(r.readPhase('review-1/r1-verdict.json') ?? 'null') as { overall_verdict: string; next: string; stopReason: string | null; changedDuringReview: string[] };
      expect(verdict).toMatchObject({ overall_verdict: 'clean', next: 'STOPPED', stopReason: 'changed_during_review', changedDuringReview: ['src/cart.js'] });
      expect(r.readPhase('review-1/r1-changed-during-review.patch')).toContain('+// written by the witness during the review');
      const lines = r.systemMessages.flatMap((m) => m.split('\n'));
      expect(lines).toContainEqual(expect.stringMatching(/^minions: review 1\/1: no issues.*; 1 project file changed during the review \(src\/cart\.js\): see .*r1-changed-during-review\.patch → STOPPED/));
      expect(state(r)).toMatchObject({ currentPhase: 'STOPPED', stopReason: 'changed_during_review' });
      expect(lines.filter((l) => /^minions: DONE/.test(l))).toEqual([]);
      expect(r.systemMessages.at(-1)).toMatch(/^minions: STOPPED — the project changed while it was being reviewed/);
      for (const h of r.run.events.filter((e) => e.type === 'system' && e.subtype === 'hook_response')) {
        expect({ hook: h.hook_name, exit: Number(h.exit_code), stderr: h.stderr }).toEqual({ hook: h.hook_name, exit: 0, stderr: '' });
      }
    });
  });

  test('11. another reviewer\'s interpreter makes the critic\'s review clean before the critic stops: the critic\'s own review is recorded', async () => {
    // The witness's python waits for the critic's file, then writes a clean review over it; the critic's
    // final message waits for that. The critic's stop reads what it wrote from its transcript.
    const output = '.agents/tmp/phases/review-1/r1-critic.json';
    const clean = JSON.stringify({ reviewer: 'critic', issues: [], summary: { critical: 0, warning: 0, info: 0, verdict: 'clean' } });
    const overwrite =
      `python3 -c "import time, os\np='${output}'\nfor _ in range(600):\n  if os.path.exists(p) and 'issues_found' in open(p).read(): break\n  time.sleep(0.1)\nopen(p,'w').write('${clean.replace(/"/g, '\\"')}')"`;
    const changed = async (file: string, written: string): Promise<void> => {
      for (let i = 0; i < 600 && (() => { try { return readFileSync(file, 'utf8') === written; } catch { return true; } })(); i++) await new Promise((r) => setTimeout(r, 100));
    };
    const scenario = sampleScenario({
      name: 'review-overwritten-before-stop',
      maxIterations: 1,
      findings: (reviewer, i) =>
        i !== 1 ? [] : reviewer === 'critic' ? { thenWait: changed, findings: [FINDING.offByOne] } : reviewer === 'witness' ? { shellFirst: overwrite, findings: [] } : [],
    });
    const r = await runLoop(scenario, { pluginDir, timeoutMs: RUN_TIMEOUT_MS });
    explain(r, () => {
      expect(r.run.timedOut, 'the CLI run timed out').toBe(false);
      expect(r.run.exitCode).toBe(0);
      const lines = r.systemMessages.flatMap((m) => m.split('\n'));
      expect(lines).toContainEqual(expect.stringMatching(/^minions: R1 Iteration 1\/1 — \.agents\/tmp\/phases\/review-1\/r1-critic\.json changed after critic wrote it and before its stop; the review recorded is the one critic wrote \(its transcript\), and the file is put back/));
      const verdict = JSON.parse(r.readPhase('review-1/r1-verdict.json') ?? 'null') as { overall_verdict: string; findings: { reporters: string[]; file: string }[] };
      expect(verdict.overall_verdict).toBe('issues_found');
      expect(verdict.findings).toContainEqual(expect.objectContaining({ reporters: ['critic'], file: 'src/cart.js' }));
      expect(r.readPhase('review-1/r1-critic.json')).toContain('issues_found');
      expect(lines.filter((l) => /^minions: DONE/.test(l))).toEqual([]);
      expect(state(r).currentPhase).not.toBe('DONE');
    });
  });

  test('12. the fixer breaks the project\'s test: sent back twice with the failing output, then the broken check keeps the loop from DONE', async () => {
    // The change under review works (its test passes at the start); the fixer fixes formatPrice and breaks total().
    const working = { ...SAMPLE_CHANGE, 'src/cart.js': SAMPLE_CHANGE['src/cart.js']!.replace('let i = 1;', 'let i = 0;') };
    const breakTotal: FixEdit = { file: 'src/cart.js', find: 'for (let i = 0; i < cart.length; i++)', replace: 'for (let i = 1; i < cart.length; i++)', what: 'tidied the loop' };
    const scenario = sampleScenario({
      name: 'fixer-breaks-test',
      files: working,
      maxIterations: 2,
      checks: ['node --test'],
      findings: only('pedant', 1, [FINDING.formatUnit]),
      fixer: (i) => (i === 1 ? [FIX.formatUnit, breakTotal] : []),
    });
    const r = await runLoop(scenario, { pluginDir, timeoutMs: RUN_TIMEOUT_MS });
    explain(r, () => {
      // Five clean reviews in round 2, and still not DONE: the check that passed at the start fails.
      expectFinished(r, 'STOPPED', 2);
      expectPhaseFiles(r, 2, [1], ['baseline/checks.json', 'baseline/check-1.log', 'review-1/checks.json', 'review-1/check-1.log']);
      expect(state(r).stopReason).toBe('max_iterations');
      const baseline = JSON.parse(r.readPhase('baseline/checks.json')!) as { checks: { command: string; status: string }[] };
      expect(baseline.checks).toEqual([expect.objectContaining({ command: 'node --test', status: 'passed' })]);
      // The real host continued the fixer with the command and the test's output, twice.
      const sentBack = r.hooks.filter((h) => h.event === 'SubagentStop' && h.decision === 'block');
      expect(sentBack).toHaveLength(2);
      for (const [i, h] of sentBack.entries()) {
        expect(h.reason).toContain('`node --test` passed when the loop started and fails now (exit 1 after');
        expect(h.reason).toContain('420 !== 1120'); // the tail of the failing test's output
        expect(h.reason).toContain(`sent back ${i + 1} of 2`);
      }
      const fixerSaw = r.server.requests.filter((q) => q.request && identify(q.request) === 'review-fixer' && JSON.stringify(q.request.messages).includes('passed when the loop started and fails now'));
      expect(fixerSaw.length).toBeGreaterThan(0);
      const checks = JSON.parse(r.readPhase('review-1/checks.json')!) as { attempt: number; checks: { status: string; regressed: boolean }[]; findings: { category: string }[] };
      expect(checks).toMatchObject({ attempt: 3, checks: [{ status: 'failed', regressed: true }], findings: [{ category: 'check_failed' }] });
      expect(r.readPhase('review-1/check-1.log')).toMatch(/not ok 1 - total adds every line/);
      const verdict2 = JSON.parse(r.readPhase('review-2/r1-verdict.json')!) as { gate: unknown; findings: { reporters: string[]; categories: string[]; severity: string }[]; reviewers: Record<string, { critical: number; warning: number; info: number }> };
      expect(Object.values(verdict2.reviewers).every((v) => v.critical + v.warning + v.info === 0)).toBe(true);
      expect(verdict2.gate).toEqual({ reviewClean: true, checksPassing: false, layer0Clean: true });
      expect(verdict2.findings).toEqual([expect.objectContaining({ reporters: ['checks'], categories: ['check_failed'], severity: 'critical' })]);
      expect(state(r).openIssues).toEqual([expect.objectContaining({ severity: 'critical', file: 'check: node --test' })]);
      expect(r.systemMessages).toContain('minions: fix round 1 done (1 fixed); checks 0/1 passing (`node --test` not) → R1, Iteration 2/2');
    });
  });

  test('13. the fixer adds a TODO and an it.skip: sent back at once, twice, before any reviewer runs; then the next verdict has both Layer-0 findings, and the loop ends DONE once they are gone', async () => {
    const addTodo: FixEdit = { file: 'src/price.js', find: '/** Formats cents as "12.34". */', replace: '/** Formats cents as "12.34". TODO: negative amounts */' };
    const importIt: FixEdit = { file: 'test/cart.test.js', find: "import { test } from 'node:test';", replace: "import { it, test } from 'node:test';" };
    const skip: FixEdit = { file: 'test/cart.test.js', find: "test('total adds every line'", replace: "it.skip('total adds every line'" };
    const removeTodo: FixEdit = { file: 'src/price.js', find: ' TODO: negative amounts */', replace: ' */' };
    const unskip: FixEdit = { file: 'test/cart.test.js', find: "it.skip('total adds every line'", replace: "it('total adds every line'" };
    const scenario = sampleScenario({
      name: 'layer0-todo-skip',
      maxIterations: 3,
      findings: only('pedant', 1, [FINDING.formatUnit]),
      fixer: (i) => (i === 1 ? [FIX.formatUnit, addTodo, importIt, skip] : i === 2 ? [removeTodo, unskip] : []),
    });
    const r = await runLoop(scenario, { pluginDir, timeoutMs: RUN_TIMEOUT_MS });
    explain(r, () => {
      expectFinished(r, 'DONE', 3);
      expectPhaseFiles(r, 3, [1, 2]);
      const layer0 = JSON.parse(r.readPhase('review-1/layer0.json')!) as { files: string[]; findings: { category: string; file: string; evidence: string }[] };
      expect(layer0.files.sort()).toEqual(['src/price.js', 'test/cart.test.js']);
      expect(layer0.findings.map((f) => [f.category, f.file, f.evidence])).toEqual([
        ['no_placeholder', 'src/price.js', '/** Formats cents as "12.34". TODO: negative amounts */'],
        ['test_skipped', 'test/cart.test.js', "it.skip('total adds every line', () => {"],
      ]);
      // The fixer's own stop sent it back twice (one dispatch, continued), before round 2's reviewers.
      const sentBack = r.hooks.filter((h) => h.event === 'SubagentStop' && h.decision === 'block' && /Layer-0 checks found this in your change/.test(h.reason ?? ''));
      expect(sentBack.map((h) => /\(sent back (\d) of 2\)/.exec(h.reason!)?.[1])).toEqual(['1', '2']);
      expect(sentBack[0]!.reason).toContain('- src/price.js:6 (no_placeholder): ');
      const iterations = (r.state as { iterations: { r2: { dispatches: number; layer0Blocks: number } }[] }).iterations;
      expect(iterations[0]!.r2).toMatchObject({ dispatches: 1, layer0Blocks: 2 });
      expect(iterations[1]!.r2).toMatchObject({ layer0Blocks: 0 });
      // The reviewers of round 2 found nothing: the verdict holds the two Layer-0 findings, sent to the fixer.
      const verdict2 = JSON.parse(r.readPhase('review-2/r1-verdict.json')!) as { next: string; gate: unknown; findings: { reporters: string[]; categories: string[]; toFixer: boolean }[] };
      expect(verdict2.next).toBe('R2');
      expect(verdict2.gate).toEqual({ reviewClean: true, checksPassing: true, layer0Clean: false });
      expect(verdict2.findings.map((f) => [f.reporters, f.categories, f.toFixer])).toEqual([
        [['layer0'], ['no_placeholder'], true],
        [['layer0'], ['test_skipped'], true],
      ]);
      const brief2 = JSON.parse(r.readPhase('review-2/r2-findings.json')!) as { findings: { reporters: string[] }[] };
      expect(brief2.findings.map((f) => f.reporters)).toEqual([['layer0'], ['layer0']]);
      expect(r.systemMessages).toContain('minions: fix round 1 done (1 fixed); Layer-0: 2 findings for the next review → R1, Iteration 2/3');
      const verdict3 = JSON.parse(r.readPhase('review-3/r1-verdict.json')!) as { statuses: { status: string }[] };
      expect(verdict3.statuses.map((s) => s.status)).toEqual(['FIXED', 'FIXED']);
      expect(r.read('test/cart.test.js')).toContain("it('total adds every line'");
      expect(r.read('src/price.js')).not.toContain('TODO');
    });
  });
  test('14. reviews as models write them (a fence, `findings`, P0, `src/cart.js:10` paths, gutters, a diff quote): read as meant, the critical reaches the fixer, DONE', async () => {
    // Written the way frontier models commonly write a review file, not the way the contract says.
    const critic = [
      'Here is my review of the change.',
      '',
      '```json',
      JSON.stringify({ findings: [{ severity: 'P0', type: 'off-by-one', path: '`src/cart.js:10`', message: FINDING.offByOne.description, code: `10:${FINDING.offByOne.evidence}` }] }, null, 2),
      '```',
      '',
    ].join('\n');
    const hunter = JSON.stringify(
      [{ severity: 'Medium', category: 'swallowed-error', file: '/src/config.js', lines: '7-9', description: FINDING.swallowed.description, evidence: `-${FINDING.swallowed.evidence.split('\n').join('\n-')}\n+  } catch (err) {\n+    if (err.code !== 'ENOENT') throw err;` }],
      null,
      2,
    );
    const scenario = sampleScenario({
      name: 'model-written-reviews',
      findings: (reviewer, i) => (i !== 1 ? [] : reviewer === 'critic' ? { invalidFirst: critic } : reviewer === 'silent-failure-hunter' ? { invalidFirst: hunter } : []),
      fixer: (i) => (i === 1 ? [FIX.offByOne, FIX.swallowed] : []),
    });
    const r = await runLoop(scenario, { pluginDir, timeoutMs: RUN_TIMEOUT_MS });
    explain(r, () => {
      expectFinished(r, 'DONE', 2);
      // Neither reviewer was sent back: both files were read as meant.
      expect(r.hooks.filter((h) => h.event === 'SubagentStop' && h.decision === 'block')).toEqual([]);
      const verdict = JSON.parse(r.readPhase('review-1/r1-verdict.json')!) as { findings: { severity: string; file: string; line: number; toFixer: boolean; unverified: boolean; interpretations: string[]; grounding: { status: string } }[] };
      expect(verdict.findings).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ severity: 'critical', file: 'src/cart.js', line: 10, toFixer: true, unverified: false, grounding: expect.objectContaining({ status: 'grounded' }) }),
          expect.objectContaining({ severity: 'warning', file: 'src/config.js', line: 7, toFixer: true, grounding: expect.objectContaining({ status: 'grounded' }) }),
        ]),
      );
      expect(verdict.findings.find((f) => f.file === 'src/cart.js')!.interpretations).toEqual(expect.arrayContaining(['severity "P0" read as critical', 'line 10 taken from the path']));
      const brief = JSON.parse(r.readPhase('review-1/r2-findings.json')!) as { findings: { severity: string; file: string }[] };
      expect(brief.findings).toEqual(expect.arrayContaining([expect.objectContaining({ severity: 'critical', file: 'src/cart.js' })]));
      expect(r.read('src/cart.js')).toContain('for (let i = 0; i < cart.length; i++)');
      expect(r.readPhase('review-1/REVIEW.md')).toContain('## Read as meant');
    });
  });
});
