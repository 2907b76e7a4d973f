/**
 * The project's checks and the completion gate, in the pure core: the baseline at the start, a check the
 * fix broke sends the fixer back twice and then becomes a finding, Layer-0 on the fix, and DONE only when
 * the review is clean, the checks still pass and Layer-0 found nothing.
 */
import { describe, expect, it } from 'vitest';
import { regressions, statusOf, tailOf, type CheckOutcome, type CheckRun } from '../../src/protocol/check-runs';
import type { FileChange } from '../../src/checks/layer0';
import { checkFailedFinding, layer0Finding } from '../../src/checks/machine-finding';
import type { MachineFinding } from '../../src/protocol/machine-finding';
import { ChecksReport, Layer0Report } from '../../src/checks/reports';
import { REVIEWERS } from '../../src/protocol/agents';
import { fixerStopRunsChecks } from '../../src/core/fix-stop';
import { transition, type Effect, type Event, type Loaded } from '../../src/core/transition';
import { DEFAULT_RULES } from '../../src/protocol/stop-rules';
import { aggregateRound } from '../../src/review/aggregate';
import { LATER, NOW, OWNER, answers, finding, fixerStop, reviewJson, stateBuilder, SOURCES } from './builders';

const find = <T extends Effect['type']>(effects: Effect[], type: T) => effects.find((e): e is Extract<Effect, { type: T }> => e.type === type);
const writes = (effects: Effect[]) => Object.fromEntries(effects.flatMap((e) => (e.type === 'write' ? [[e.path, e.content]] : [])));

const run = (command: string, exitCode: number | null, over: Partial<CheckRun> = {}): CheckRun => ({
  command,
  exitCode,
  signal: null,
  timedOut: false,
  durationMs: 1200,
  output: exitCode === 0 ? 'ok\n' : `\u001b[31mFAIL\u001b[0m test/cart.test.js\n  expected 1120, got 420\n`,
  outputBytes: 40,
  error: null,
  ...over,
});

const CHECKS = ['npm test', 'npx tsc --noEmit'];
const passedBaseline: CheckOutcome[] = CHECKS.map((command) => ({ command, status: 'passed', exitCode: 0, durationMs: 900 }));

/** R2 with the fixer running, the project's two checks passing at the baseline. */
const inFix = (over: { checkBlocks?: number; layer0Blocks?: number; baseline?: typeof passedBaseline; root?: string } = {}) =>
  stateBuilder({ root: over.root ?? '/home/me/shop' })
    .inR2(2)
    // Sent back by Layer-0 as often as it may be, unless a test says otherwise: the checks and reports come next.
    .r2({ status: 'running', dispatches: 1, checkBlocks: over.checkBlocks ?? 0, layer0Blocks: over.layer0Blocks ?? 2 })
    .trees({ reviewStart: 'a'.repeat(40), reviewEnd: 'b'.repeat(40) })
    .with({ checks: { commands: CHECKS, timeoutSeconds: 300, baseline: over.baseline ?? passedBaseline } });

const SUMMARY = '- [fixed] a\n- [fixed] b\n';
const stopWith = (checks: CheckRun[] | null, more: Partial<Extract<Event, { kind: 'fixer-stop' }>> = {}): Event => ({
  ...fixerStop(SUMMARY, answers(['fp0', 'fp1'])),
  tree: 'c'.repeat(40),
  checks,
  ...more,
} as Event);

describe('the baseline, when the loop starts', () => {
  const start = (baseline: CheckRun[]): Event => ({
    kind: 'command',
    sessionId: OWNER,
    now: LATER,
    head: 'def456',
    changedFiles: [],
    command: { kind: 'review', task: 'check a', maxIterations: 5, force: false, rules: DEFAULT_RULES, checks: { commands: CHECKS, timeoutSeconds: 120 }, layer0: { disabled: ['no_text_loop'] } },
    baseline,
  });

  it('is recorded in the state, written to phases/baseline/ and reported, a failing check as pre-existing', () => {
    const out = transition({ kind: 'none' }, start([run('npm test', 0), run('npx tsc --noEmit', 2)]));
    expect(out.state!.checks).toEqual({
      commands: CHECKS,
      timeoutSeconds: 120,
      baseline: [
        { command: 'npm test', status: 'passed', exitCode: 0, durationMs: 1200 },
        { command: 'npx tsc --noEmit', status: 'failed', exitCode: 2, durationMs: 1200 },
      ],
    });
    expect(out.state!.layer0).toEqual({ disabled: ['no_text_loop'] });
    const files = writes(out.effects);
    expect(Object.keys(files).sort()).toEqual(['.agents/tmp/phases/baseline/check-1.log', '.agents/tmp/phases/baseline/check-2.log', '.agents/tmp/phases/baseline/checks.json', '.agents/tmp/phases/run.json']);
    const report = ChecksReport.parse(JSON.parse(files['.agents/tmp/phases/baseline/checks.json']!));
    expect(report).toMatchObject({ kind: 'baseline', iteration: 0, findings: [] });
    expect(report.checks.map((c) => [c.command, c.status, c.baseline, c.regressed, c.tail])).toEqual([
      ['npm test', 'passed', null, false, 'ok'],
      ['npx tsc --noEmit', 'failed', null, false, 'FAIL test/cart.test.js\n  expected 1120, got 420'],
    ]);
    // The archive of an earlier run comes first, so the baseline is not archived with it.
    expect(out.effects[0]).toEqual({ type: 'archive-previous', into: null });
    expect(find(out.effects, 'notify')!.text).toContain('checks at the start: `npm test` passed; `npx tsc --noEmit` failed (exit 2): pre-existing, not blamed on the fixer');
  });
});

describe('after the fix: the project\'s checks', () => {
  it('all passing: the round ends, checks.json written, the progress line says so', () => {
    const out = transition(inFix().loaded(), stopWith([run('npm test', 0), run('npx tsc --noEmit', 0)]));
    expect(out.state).toMatchObject({ currentPhase: 'R1', iteration: 2 });
    expect(out.state!.iterations[0]!.checks!.map((c) => c.status)).toEqual(['passed', 'passed']);
    const report = ChecksReport.parse(JSON.parse(writes(out.effects)['.agents/tmp/phases/review-1/checks.json']!));
    expect(report).toMatchObject({ kind: 'after_fix', iteration: 1, attempt: 1, findings: [] });
    expect(report.checks.map((c) => [c.status, c.baseline, c.regressed, c.log])).toEqual([
      ['passed', 'passed', false, '.agents/tmp/phases/review-1/check-1.log'],
      ['passed', 'passed', false, '.agents/tmp/phases/review-1/check-2.log'],
    ]);
    expect(find(out.effects, 'notify')!.text).toBe('minions: fix round 1 done (2 fixed); checks 2/2 passing → R1, Iteration 2/3');
  });

  it('a check that passed at the baseline and fails now sends the fixer back with the command, the tail and the log', () => {
    const out = transition(inFix().loaded(), stopWith([run('npm test', 1), run('npx tsc --noEmit', 0)]));
    expect(out.state!.currentPhase).toBe('R2');
    expect(out.state!.iterations[0]!.r2.checkBlocks).toBe(1);
    const reason = find(out.effects, 'block')!.reason;
    expect(reason).toContain('`npm test` passed when the loop started and fails now (exit 1 after 1.2 s)');
    expect(reason).toContain('FAIL test/cart.test.js\n  expected 1120, got 420');
    expect(reason).toContain('Full output: /home/me/shop/.agents/tmp/phases/review-1/check-1.log');
    expect(reason).toContain('sent back 1 of 2');
    expect(reason).not.toContain('npx tsc');
    expect(reason).not.toContain('\u001b');
    const report = ChecksReport.parse(JSON.parse(writes(out.effects)['.agents/tmp/phases/review-1/checks.json']!));
    expect(report.checks.map((c) => c.regressed)).toEqual([true, false]);
    expect(report.findings).toEqual([]);
  });

  it('sent back twice, then the failing check becomes a critical check_failed finding for the next verdict', () => {
    let loaded: Loaded = inFix().loaded();
    const broken = [run('npm test', 1), run('npx tsc --noEmit', 0)];
    const reasons: string[] = [];
    for (let i = 0; i < 2; i++) {
      const out = transition(loaded, stopWith(broken));
      reasons.push(find(out.effects, 'block')!.reason);
      loaded = { kind: 'ok', state: out.state! };
    }
    expect(reasons[1]).toContain('sent back 2 of 2');
    expect(reasons[1]).toContain('If it still fails, it becomes a critical finding in the next review.');
    const last = transition(loaded, stopWith(broken));
    expect(find(last.effects, 'block')).toBeUndefined();
    expect(last.state).toMatchObject({ currentPhase: 'R1', iteration: 2 });
    const report = ChecksReport.parse(JSON.parse(writes(last.effects)['.agents/tmp/phases/review-1/checks.json']!));
    expect(report.attempt).toBe(3);
    expect(report.findings).toEqual([
      {
        reporter: 'checks',
        severity: 'critical',
        category: 'check_failed',
        file: 'check: npm test',
        line: null,
        description: '`npm test` passed when the loop started and fails after the fix (exit 1 after 1.2 s), also after the fixer was sent back 2 times.',
        evidence: '$ npm test',
        suggestion: 'Run `npm test`, read .agents/tmp/phases/review-1/check-1.log and fix what the change broke; the check must pass again.',
      },
    ]);
    expect(find(last.effects, 'notify')!.text).toContain('checks 1/2 passing (`npm test` not)');
  });

  it('a check that already failed at the baseline is not blamed on the fixer', () => {
    const baseline = [passedBaseline[0]!, { command: 'npx tsc --noEmit', status: 'failed' as const, exitCode: 2, durationMs: 900 }];
    const out = transition(inFix({ baseline }).loaded(), stopWith([run('npm test', 0), run('npx tsc --noEmit', 2)]));
    expect(find(out.effects, 'block')).toBeUndefined();
    expect(out.state!.currentPhase).toBe('R1');
    const report = ChecksReport.parse(JSON.parse(writes(out.effects)['.agents/tmp/phases/review-1/checks.json']!));
    expect(report.checks.map((c) => [c.status, c.baseline, c.regressed])).toEqual([
      ['passed', 'passed', false],
      ['failed', 'failed', false],
    ]);
    expect(report.findings).toEqual([]);
  });

  it('a timeout counts as failing', () => {
    const out = transition(inFix().loaded(), stopWith([run('npm test', null, { timedOut: true, signal: 'SIGTERM' }), run('npx tsc --noEmit', 0)]));
    expect(find(out.effects, 'block')!.reason).toContain('`npm test` passed when the loop started and fails now (timed out after 300 s and was killed)');
  });

  it('a summary problem is answered first; the checks run at the next stop', () => {
    const state = inFix().build();
    expect(fixerStopRunsChecks(state, SUMMARY, answers(['fp0', 'fp1']))).toBe(true);
    expect(fixerStopRunsChecks(state, '', null)).toBe(false);
    expect(fixerStopRunsChecks({ ...state, checks: { ...state.checks, commands: [] } }, SUMMARY, answers(['fp0', 'fp1']))).toBe(false);
    // The second bad summary is not sent back again: the round ends, so the checks run.
    const again = inFix().r2({ status: 'running', dispatches: 1, failures: 1 }).build();
    expect(fixerStopRunsChecks(again, '', null)).toBe(true);
  });
});

describe('after the fix: Layer-0', () => {
  const test = "import { it } from 'vitest';\nit('adds', () => {\n  expect(add(1, 2)).toBe(3);\n});\n";
  const changes: FileChange[] = [
    { path: 'test/add.test.ts', before: { kind: 'text', text: test }, after: { kind: 'text', text: test.replace("it('adds'", "it.skip('adds'") } },
    { path: 'src/add.ts', before: { kind: 'text', text: 'export const add = (a, b) => a - b;\n' }, after: { kind: 'text', text: 'export const add = (a, b) => a + b; // TODO: overflow\n' } },
  ];

  it('Layer-0 hits on the fix send the fixer back at once, with the list, up to the limit', () => {
    for (const sent of [0, 1]) {
      const out = transition(inFix({ layer0Blocks: sent }).with({ checks: { commands: [], timeoutSeconds: 300, baseline: [] } }).loaded(), stopWith(null, { changes, recheck: [] }));
      expect(out.state!.currentPhase).toBe('R2');
      expect(out.state!.iterations[0]!.r2).toMatchObject({ status: 'running', layer0Blocks: sent + 1 });
      const reason = find(out.effects, 'block')!.reason;
      expect(reason).toMatch(new RegExp(`^The hooks' Layer-0 checks found this in your change \\(sent back ${sent + 1} of 2\\):\\n- test/add\\.test\\.ts:2 \\(test_skipped\\): `));
      expect(reason).toContain('/home/me/shop/.agents/tmp/phases/review-1/layer0.json');
      expect(reason.includes('becomes a finding of the next review')).toBe(sent === 1);
      expect(Object.keys(writes(out.effects))).toEqual(['.agents/tmp/phases/review-1/layer0.json']);
    }
  });

  it('the fixer\'s changes are checked and the hits written to layer0.json for the next verdict', () => {
    const out = transition(inFix().with({ checks: { commands: [], timeoutSeconds: 300, baseline: [] } }).loaded(), stopWith(null, { changes, recheck: [] }));
    const report = Layer0Report.parse(JSON.parse(writes(out.effects)['.agents/tmp/phases/review-1/layer0.json']!));
    expect(report).toMatchObject({ iteration: 1, from: 'b'.repeat(40), to: 'c'.repeat(40), files: ['test/add.test.ts', 'src/add.ts'], skipped: [] });
    expect(report.findings.map((f) => [f.reporter, f.category, f.file, f.line, f.severity])).toEqual([
      ['layer0', 'test_skipped', 'test/add.test.ts', 2, 'critical'],
      ['layer0', 'no_placeholder', 'src/add.ts', 1, 'warning'],
    ]);
    expect(out.state!.iterations[0]!.layer0).toEqual({ files: 2, findings: 2 });
    expect(out.state!.iterations[0]!.checks).toBeNull();
    expect(find(out.effects, 'notify')!.text).toBe('minions: fix round 1 done (2 fixed); Layer-0: 2 findings for the next review → R1, Iteration 2/3');
  });

  it('checks the project disabled are left out', () => {
    const state = inFix().with({ checks: { commands: [], timeoutSeconds: 300, baseline: [] }, layer0: { disabled: ['no_placeholder'] } });
    const out = transition(state.loaded(), stopWith(null, { changes, recheck: [] }));
    expect(Layer0Report.parse(JSON.parse(writes(out.effects)['.agents/tmp/phases/review-1/layer0.json']!)).findings.map((f) => f.category)).toEqual(['test_skipped']);
  });

  it('an open Layer-0 finding the fixer left in place is still reported, though the text was there before this fix', () => {
    const todo = layer0Finding({ check: 'no_placeholder', path: 'src/add.ts', line: 1, evidence: 'export const add = (a, b) => a + b; // TODO: overflow', detail: { marker: 'TODO' } });
    // The round's verdict, in which the fixer was given the TODO.
    const clean = Object.fromEntries(REVIEWERS.map((r) => [r, { text: reviewJson([]), valid: true, error: null }])) as Parameters<typeof aggregateRound>[0]['reviews'];
    const verdict = aggregateRound({ iteration: 1, maxIterations: 3, task: 't', now: NOW, rules: DEFAULT_RULES, reviews: clean, sources: {}, history: [], declines: {}, machine: [todo] });
    expect(verdict.findings.map((f) => [f.reporters, f.toFixer])).toEqual([[['layer0'], true]]);
    const now = 'export const add = (a, b) => a + b; // TODO: overflow\nexport const sub = (a, b) => a - b;\n';
    const base = 'export const add = (a, b) => a - b;\n';
    const event = stopWith(null, {
      // This round the fixer changed the file again but kept the TODO: not new against the review's end ...
      changes: [{ path: 'src/add.ts', before: { kind: 'text', text: todo.evidence + '\n' }, after: { kind: 'text', text: now } }],
      // ... but still there against the loop's start.
      recheck: [{ path: 'src/add.ts', before: { kind: 'text', text: base }, after: { kind: 'text', text: now } }],
      verdict,
    });
    const out = transition(inFix().with({ checks: { commands: [], timeoutSeconds: 300, baseline: [] } }).loaded(), event);
    const report = Layer0Report.parse(JSON.parse(writes(out.effects)['.agents/tmp/phases/review-1/layer0.json']!));
    expect(report.rechecked).toEqual(['src/add.ts']);
    expect(report.findings.map((f) => [f.category, f.evidence])).toEqual([['no_placeholder', todo.evidence]]);
    // Once it is gone it is not reported again.
    const fixed = stopWith(null, {
      changes: [{ path: 'src/add.ts', before: { kind: 'text', text: now }, after: { kind: 'text', text: base } }],
      recheck: [{ path: 'src/add.ts', before: { kind: 'text', text: base }, after: { kind: 'text', text: base } }],
      verdict,
    });
    const gone = transition(inFix().with({ checks: { commands: [], timeoutSeconds: 300, baseline: [] } }).loaded(), fixed);
    expect(Layer0Report.parse(JSON.parse(writes(gone.effects)['.agents/tmp/phases/review-1/layer0.json']!)).findings).toEqual([]);
  });

  it('outside git (no changes observed) Layer-0 does not run', () => {
    const out = transition(inFix().with({ checks: { commands: [], timeoutSeconds: 300, baseline: [] } }).loaded(), stopWith(null));
    expect(writes(out.effects)['.agents/tmp/phases/review-1/layer0.json']).toBeUndefined();
    expect(out.state!.iterations[0]!.layer0).toBeNull();
  });
});

describe('the completion gate, in the verdict', () => {
  const clean = Object.fromEntries(REVIEWERS.map((r) => [r, { text: reviewJson([]), valid: true, error: null }])) as Parameters<typeof aggregateRound>[0]['reviews'];
  const verdictWith = (machine: MachineFinding[], over: Partial<Parameters<typeof aggregateRound>[0]> = {}) =>
    aggregateRound({ iteration: 2, maxIterations: 5, task: 't', now: NOW, rules: DEFAULT_RULES, reviews: clean, sources: SOURCES, history: [], declines: {}, machine, ...over });
  const todo = layer0Finding({ check: 'no_placeholder', path: 'src/a.ts', line: 2, evidence: '// TODO: handle n = 0', detail: { marker: 'TODO' } });
  const skip = layer0Finding({ check: 'test_skipped', path: 'test/a.test.ts', line: 3, evidence: "it.skip('sums', () => {", detail: { marker: 'it.skip' } });
  const broken = checkFailedFinding(run('npm test', 1), '.agents/tmp/phases/review-1/check-1.log', 2);

  it('five clean reviews and nothing from the hooks: DONE', () => {
    const v = verdictWith([]);
    expect(v).toMatchObject({ overall_verdict: 'clean', next: 'DONE', gate: { reviewClean: true, checksPassing: true, layer0Clean: true } });
  });

  it.each([
    ['a Layer-0 finding', [todo], { reviewClean: true, checksPassing: true, layer0Clean: false }],
    ['a check the fix broke', [broken], { reviewClean: true, checksPassing: false, layer0Clean: true }],
    ['both', [todo, skip, broken], { reviewClean: true, checksPassing: false, layer0Clean: false }],
  ])('five clean reviews and %s: not DONE, the findings go to the fixer', (_, machine, gate) => {
    const v = verdictWith(machine);
    expect(v).toMatchObject({ overall_verdict: 'issues_found', next: 'R2', gate, total_issues: machine.length });
    expect(v.findings.map((f) => [f.reporters, f.categories, f.toFixer, f.grounding.status])).toEqual(
      machine.map((m) => [[m.reporter], [m.category], true, 'grounded']),
    );
  });

  it('on the last iteration a broken check stops the loop instead of ending DONE', () => {
    const v = verdictWith([broken], { iteration: 5 });
    expect(v).toMatchObject({ next: 'STOPPED', stopReason: 'max_iterations', gate: { checksPassing: false } });
    expect(v.critical).toBe(1);
  });

  it('a reviewer reporting the same defect as Layer-0 is merged with it: one finding, both reporters', () => {
    const reviews = { ...clean, pedant: { text: reviewJson([finding({ file: 'src/a.ts', line: 2, category: 'placeholder', evidence: '// TODO: handle n = 0' })]), valid: true, error: null } };
    const sameFamily = { ...todo, category: 'placeholder' };
    const v = verdictWith([sameFamily], { reviews, sources: { 'src/a.ts': { kind: 'file', text: 'export function f(n) {\n  // TODO: handle n = 0\n}\n' } } });
    expect(v.findings).toHaveLength(1);
    expect(v.findings[0]!.reporters).toEqual(['pedant', 'layer0']);
    expect(v.gate).toEqual({ reviewClean: false, checksPassing: true, layer0Clean: false });
  });

  it('the same machine finding in the next round keeps its fingerprint (NOT_FIXED), and is never contested', () => {
    const first = verdictWith([broken], { iteration: 1 });
    const fp = first.findings[0]!.fingerprint;
    const second = verdictWith([checkFailedFinding(run('npm test', 2), '.agents/tmp/phases/review-2/check-1.log', 2)], { history: [first], declines: { [fp]: 5 } });
    expect(second.findings[0]).toMatchObject({ fingerprint: fp, status: 'NOT_FIXED', toFixer: true });
    expect(second.statuses).toEqual([expect.objectContaining({ fingerprint: fp, status: 'NOT_FIXED' })]);
  });
});

describe('check runs as data', () => {
  it.each([
    [{ exitCode: 0, timedOut: false }, 'passed'],
    [{ exitCode: 1, timedOut: false }, 'failed'],
    [{ exitCode: null, timedOut: false }, 'failed'],
    [{ exitCode: null, timedOut: true }, 'timed_out'],
  ] as const)('%j is %s', (r, status) => {
    expect(statusOf(r)).toBe(status);
  });

  it('regressions: passed at the baseline, not now; an unknown or failing baseline blames nobody', () => {
    const baseline = [
      { command: 'a', status: 'passed' as const, exitCode: 0, durationMs: 1 },
      { command: 'b', status: 'failed' as const, exitCode: 1, durationMs: 1 },
      { command: 'c', status: 'passed' as const, exitCode: 0, durationMs: 1 },
    ];
    expect(regressions(baseline, [run('a', 1), run('b', 1), run('c', 0), run('d', 1)])).toEqual([0]);
    expect(regressions([], [run('a', 1)])).toEqual([]);
  });

  it('tailOf: the last lines, without terminal escapes or control characters', () => {
    const output = `${Array.from({ length: 50 }, (_, i) => `line ${i}`).join('\n')}\n\u001b[1;31mError\u001b[0m: \u001b]8;;http://x\u0007link\u001b]8;;\u0007 done\r\n\n`;
    const tail = tailOf(output);
    expect(tail.split('\n')).toHaveLength(30);
    expect(tail.endsWith('Error: link done')).toBe(true);
    expect(tail).not.toMatch(/[\u0000-\u0008\u000b-\u001f]/);
    expect(tailOf('x'.repeat(5000), 30, 100)).toHaveLength(100);
  });
});
