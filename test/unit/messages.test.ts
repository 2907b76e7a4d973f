/** The plugin's texts, split by audience (core/prompts, core/refusals, core/progress, cli/texts, report/texts, review/texts, checks/texts, shell/texts): these snapshots show what the model and the user read. */
import { describe, expect, it } from 'vitest';
import * as checkTexts from '../../src/checks/texts';
import * as progress from '../../src/core/progress';
import * as reportTexts from '../../src/report/texts';
import * as cliTexts from '../../src/cli/texts';
import * as prompts from '../../src/core/prompts';
import * as refusals from '../../src/core/refusals';
import * as reviewTexts from '../../src/review/texts';
import { loopFacts } from '../../src/report/facts';
import { LATER, OWNER, patchNote, stateBuilder } from './builders';
import { LAYER0_CHECKS } from '../../src/checks/layer0';
import type { Layer0Hit } from '../../src/checks/layer0';
import { F, agent, loopOf, tokens } from './report-builders';

const CHANGED = ['src/a.ts', 'src/b.ts'];
const pitfalls = [{ seen: 3, file: 'src/a.ts', category: 'correctness', description: 'the loop reads one past the end', rule: 'loop while i < n' }];

describe('phase prompts', () => {
  it('R1, iteration 1', () => {
    expect(prompts.r1Prompt(stateBuilder({ root: '/home/me/shop' }).build(), CHANGED)).toMatchSnapshot();
  });

  it('R1, iteration 2, two reviewers missing, known pitfalls', () => {
    const first = stateBuilder().inR2().build().iterations[0]!;
    const b = stateBuilder().reviewer('critic', { status: 'valid', dispatches: 1 }).reviewer('pedant', { status: 'valid', dispatches: 1 }).reviewer('witness', { status: 'valid', dispatches: 1 });
    const state = { ...b.build(), iteration: 2, iterations: [{ ...first, verdict: { ...first.verdict!, pitfalls } }, { ...b.build().iterations[0]!, iteration: 2 }] };
    expect(prompts.r1Prompt(state, [], ['security-reviewer', 'silent-failure-hunter'])).toMatchSnapshot();
  });

  it('R2', () => {
    const state = stateBuilder().inR2(3).build();
    expect(prompts.r2Prompt(state, { ...state.iterations[0]!.verdict!, pitfalls })).toMatchSnapshot();
  });

  it('R1, iteration 3: the change, the fix delta and an escalated class, every path absolute', () => {
    const state = stateBuilder({ root: '/home/me/shop' })
      .inR2()
      .nextRound()
      .inR2()
      .nextRound()
      .patches({ diff: patchNote(['src/a.ts', 'src/b.ts', 'README.md']), fixDelta: patchNote(['src/a.ts']) })
      .escalated([{ class: '5be1c0a2d9f4', reason: 'repeated' }, { class: '0b4d9e6c13aa', reason: 'fixer_escalated' }])
      .build();
    expect(prompts.r1Prompt(state, ['src/a.ts', 'src/b.ts', 'README.md'])).toMatchSnapshot();
  });

  it('R2, iteration 2: a class to fix together and an audit-first class', () => {
    const state = stateBuilder({ root: '/home/me/shop' })
      .inR2()
      .nextRound()
      .inR2(3)
      .classes([
        { id: 'aaaaaaaaaaaa', category: 'docs', fingerprints: ['fp0', 'fp1'], sites: ['README.md:3', 'docs/guide.md:9'], rung: 'new', attempts: [] },
        { id: 'bbbbbbbbbbbb', category: 'error-handling', fingerprints: ['fp2'], sites: ['src/config.ts:31'], rung: 'audit', attempts: [1] },
      ])
      .build();
    expect(prompts.r2Prompt(state, state.iterations[1]!.verdict!)).toMatchSnapshot();
  });
});

describe('files the hooks write for a round', () => {
  it('patch headers: the change (cut) and the fixer’s delta', () => {
    const cut = prompts.patchHeader('diff', 2, '0123456789abcdef', { files: ['src/a.ts', 'assets/logo.png'], truncated: true, limit: 256 * 1024, text: 'diff --git a/src/a.ts b/src/a.ts\n' });
    const delta = prompts.patchHeader('fix-delta', 2, null, { files: ['src/a.ts'], truncated: false, limit: 128 * 1024, text: 'a\nb\n' });
    expect(`${cut}\n${delta}`).toMatchSnapshot();
  });

  it('the escalation request and the stop detail of a stuck class', () => {
    const stuck = reviewTexts.stuckClasses([
      { class: '5be1c0a2d9f4', reason: 'repeated', category: 'error-handling', sites: ['src/a.ts:3', 'src/b.ts:9'], attempts: [1, 2], fixerReason: null, open: true, diagnosis: { class: '5be1c0a2d9f4', rootCause: 'every loader copies the catch', fix: 'one readJsonFile helper', recommend: 'structural' } },
      { class: '0b4d9e6c13aa', reason: 'fixer_escalated', category: 'docs', sites: ['README.md:4'], attempts: [2], fixerReason: 'same root cause, no new fix', open: false, diagnosis: null },
    ]);
    expect([prompts.escalationRequest(), stuck].join('\n\n')).toMatchSnapshot();
  });
});

describe('what the user reads', () => {
  it('outcomes', () => {
    const phases = '.agents/tmp/phases/';
    const clean = loopOf([{ reports: { pedant: [F.format] }, fix: 'complete', cost: [agent('pedant', tokens(5000, 200, 0, 12_000))] }, { reports: {}, cost: [agent('pedant', null)] }]);
    const worse = loopOf([{ reports: { pedant: [F.format] }, fix: 'complete' }, { reports: { pedant: [F.discount], critic: [F.swallowed] } }], {
      stopReason: 'stuck_issue',
      stopDetail: 'src/a.ts:3 (correctness) has not been fixed in 3 consecutive rounds: it needs structural work',
      openIssues: [
        { severity: 'critical', file: 'src/a.ts', line: 3, description: 'the loop reads one past the end' },
        { severity: 'warning', file: 'src/b.ts', line: null, description: 'errors are swallowed' },
      ],
    });
    const unreviewed = loopOf([{ reports: { pedant: [F.format] }, fix: 'complete' }, { reports: { pedant: [F.discount] }, fix: 'complete' }], { stopReason: 'budget', stopDetail: progress.budgetDetail(120_400, 100_000, 'review 3') });
    const facts = (l: ReturnType<typeof loopOf>) => loopFacts({ ...l, totalChange: null, phasesDir: phases });
    expect([clean, worse, unreviewed].map((l) => progress.outcome(l.state, facts(l))).join('\n\n')).toMatchSnapshot();
  });

  it('/minions:status', () => {
    const state = stateBuilder().reviewer('critic', { status: 'valid', dispatches: 1, counts: { critical: 1, warning: 0, info: 0 } }).reviewer('pedant', { status: 'running', dispatches: 1 }).build();
    expect(cliTexts.statusReport(state, LATER, OWNER, '.agents/tmp/phases/')).toMatchSnapshot();
  });

  it('/minions:status of a finished loop: each round’s standing, the best attempt, the cost, the report', () => {
    const l = loopOf([{ reports: { pedant: [F.format] }, fix: 'complete', cost: [agent('pedant', tokens(5000, 200))], checks: { passed: 2, failed: 0 } }, { reports: { pedant: [F.discount] }, checks: { passed: 1, failed: 1 } }], {
      rules: { ...stateBuilder().build().rules, maxTokens: 500_000 },
    });
    const facts = loopFacts({ ...l, totalChange: null, phasesDir: '.agents/tmp/phases/' });
    expect(cliTexts.statusReport(l.state, LATER, OWNER, '.agents/tmp/phases/', facts)).toMatchSnapshot();
  });

  it('/minions:status of a running loop: the best round so far and how the latest review compares', () => {
    const l = loopOf([{ reports: { pedant: [F.format] }, fix: 'complete' }, { reports: { pedant: [F.discount] }, fix: 'running' }]);
    const running = { ...l.state, status: 'in_progress' as const, currentPhase: 'R2' as const };
    const facts = loopFacts({ ...l, state: running, totalChange: null, phasesDir: '.agents/tmp/phases/' });
    const text = cliTexts.statusReport(running, LATER, OWNER, '.agents/tmp/phases/', facts);
    expect(text).toContain('Best so far: round 1 (round 2 ranks below it: 1 critical more, 1 warning fewer open; score 0.55 against 0.90).');
    expect(text).toContain('Cost so far: no agent runs recorded.');
    expect(text).not.toContain('Report:');
  });

  it('refusals say what to do next', () => {
    const state = stateBuilder().build();
    const texts = [
      refusals.refuse.badArgs('--max-iterations must be a whole number from 1 to 20, not "0"'),
      refusals.refuse.busy(state, 12),
      refusals.deny.fixerInR1(state),
      refusals.deny.orchestratorWrite(state),
      refusals.deny.gitMutation('minions:review-fixer', 'commit'),
      progress.notify.paused(state, '; missing: witness'),
      progress.notify.brokenState('.agents/tmp/state.json', 'not valid JSON'),
    ];
    expect(texts.join('\n')).toMatchSnapshot();
  });

  it('the Bash and dispatch gates\' refusals', () => {
    const state = stateBuilder().build();
    const texts = [
      refusals.deny.agentNotInPhase('general-purpose', state),
      refusals.deny.agentNotInPhase(null, stateBuilder().inR2().build()),
      refusals.deny.gitAlias('the orchestrator', 's', 'stash'),
      refusals.deny.gitAlias('minions:witness', 'x', '!rm -rf src'),
      refusals.deny.gitUnknown('minions:review-fixer', 'st'),
      refusals.deny.protectedWrite('minions:review-fixer', '/home/me/.gitconfig'),
      refusals.deny.fixerShellWrite('.agents/tmp/phases/review-1/r2-fix-summary.md', '/work/shop/.agents/notes.md'),
      refusals.deny.dynamicTarget('minions:review-fixer', '"$F"', true),
      refusals.deny.unparseable('minions:witness', 'not valid bash', false),
      refusals.deny.opaque('the orchestrator', 'echo rm -rf src | sh', 'stdin-code', false),
      refusals.deny.gateUnavailable('could not load tree-sitter-bash.wasm'),
      refusals.otherAgent('Explore'),
    ];
    expect(texts.join('\n')).toMatchSnapshot();
  });

  it("the hooks' record: tampering, rewritten reviews, a verdict that could not be computed", () => {
    const problems = [
      { file: '.agents/tmp/state.json', problem: 'changed' as const },
      { file: '.agents/tmp/phases/review-1/r1-verdict.json', problem: 'deleted' as const },
      { file: '.agents/tmp/state.json', problem: 'invariant' as const, detail: 'DONE with open findings or without a clean verdict' },
    ];
    const stopped = stateBuilder({ status: 'stopped', currentPhase: 'STOPPED', stopReason: 'tampered', stopDetail: progress.tamperDetail(problems) }).build();
    const failed = stateBuilder({ status: 'stopped', currentPhase: 'STOPPED', stopReason: 'aggregation_failed', stopDetail: progress.aggregationFailedDetail(1, 2, false) }).build();
    const texts = [
      progress.notify.tampered(stopped),
      progress.outcome(stopped, loopFacts({ state: stopped, verdicts: [], checks: [], totalChange: null, phasesDir: '.agents/tmp/phases/' })),
      progress.notify.tamperedAfterEnd(stateBuilder({ status: 'stopped', currentPhase: 'STOPPED', stopReason: 'max_iterations' }).build(), problems.slice(1, 2)),
      progress.notify.tamperedArchived([{ file: '.agents/tmp/state.json', problem: 'added' }]),
      progress.notify.cancelledTampered(problems.slice(0, 1)),
      progress.statusTampered(problems.slice(0, 1)),
      progress.notify.reviewsRewritten(stateBuilder().build(), ['critic', 'pedant']),
      reportTexts.rewrittenNote(),
      progress.notify.aggregationRetry(stateBuilder().build()),
      progress.notify.aggregationFailed(failed),
      progress.aggregationFailedDetail(1, 1, true),
    ];
    expect(texts.join('\n')).toMatchSnapshot();
  });
});

describe('pinned files outside the snapshot', () => {
  it('the git dir and what the checks run: the stop details, the fix-stop line and the outcome', () => {
    const git = [
      { file: '.git/config', problem: 'changed' as const },
      { file: '.git/hooks/pre-commit', problem: 'added' as const },
      { file: '~/.gitconfig', problem: 'deleted' as const },
    ];
    const checks = [{ file: 'node_modules/.bin/vitest', problem: 'changed' as const }];
    const stopped = stateBuilder({ status: 'stopped', currentPhase: 'STOPPED', stopReason: 'git_dir_changed', stopDetail: progress.gitDirChangedDetail(git) }).build();
    const checked = stateBuilder({ status: 'stopped', currentPhase: 'STOPPED', stopReason: 'check_changed', stopDetail: progress.checkChangedDetail(checks) }).build();
    const texts = [
      progress.notify.pinnedStopped(1, stopped),
      progress.notify.pinnedStopped(2, checked),
      progress.outcome(stopped, loopFacts({ state: stopped, verdicts: [], checks: [], totalChange: null, phasesDir: '.agents/tmp/phases/' })),
      progress.pinList(Array.from({ length: 7 }, (_, i) => ({ file: `.git/hooks/h${i}`, problem: 'added' as const }))),
    ];
    expect(texts.join('\n')).toMatchSnapshot();
  });
});

describe("the project's checks and Layer-0", () => {
  const failing = { command: 'npm test', exitCode: 1, signal: null, timedOut: false, durationMs: 3200, output: 'not ok 1 - total\n', outputBytes: 17, error: null };

  it('what the fixer is sent back with, and the finding a broken check becomes', () => {
    const texts = [
      prompts.checksBroken([{ run: failing, log: '/home/me/shop/.agents/tmp/phases/review-1/check-1.log', tail: 'not ok 1 - total\n  expected: 1120\n  actual: 420' }], 1, 2, 300),
      prompts.checksBroken([{ run: { ...failing, exitCode: null, timedOut: true, signal: 'SIGTERM' }, log: 'check-1.log', tail: '' }], 2, 2, 60),
      checkTexts.checkFailedDescription(failing, 2),
      checkTexts.checkFailedSuggestion('npm test', '.agents/tmp/phases/review-1/check-1.log'),
      refusals.refuse.badConfig('.minions.json', ['unknown key "maxIteration" (did you mean "maxIterations"?)', '"checks[0]" must be a command of 1 to 2000 characters, not ""']),
    ];
    expect(texts.join('\n\n')).toMatchSnapshot();
  });

  it('progress lines with checks', () => {
    const state = stateBuilder().with({
      checks: {
        commands: ['npm test', 'npx tsc --noEmit', 'sleep 999'],
        timeoutSeconds: 300,
        baseline: [
          { command: 'npm test', status: 'passed', exitCode: 0, durationMs: 3000 },
          { command: 'npx tsc --noEmit', status: 'failed', exitCode: 2, durationMs: 9000 },
          { command: 'sleep 999', status: 'timed_out', exitCode: null, durationMs: 300000 },
        ],
      },
    }).build();
    const done = { ...state.iterations[0]!, checks: [state.checks.baseline[0]!, state.checks.baseline[1]!], layer0: { files: 3, findings: 2 } };
    const next = { ...state, iteration: 2, iterations: [done, { ...done, iteration: 2, checks: null, layer0: null }] };
    expect([progress.notify.started(state, null), progress.notify.fixDone(1, next, '2 fixed')].join('\n')).toMatchSnapshot();
  });

  it('every Layer-0 check has a description and a suggestion', () => {
    const details: { [K in Layer0Hit['check']]: Extract<Layer0Hit, { check: K }>['detail'] } = {
      no_placeholder: { marker: 'TODO' },
      balanced_delimiters: { problems: 2, before: 0, kind: 'unclosed', char: '{' },
      json_valid: { error: 'Unexpected token } in JSON at position 9' },
      no_duplicate_headings: { heading: 'Install', count: 2, firstLine: 3 },
      no_text_loop: { similarTo: 12, percent: 91 },
      file_size_delta: { before: 20000, after: 90000 },
      test_skipped: { marker: 'it.skip' },
      test_removed: { before: 4, after: 3, deleted: false },
      assertion_removed: { before: 9, after: 7 },
      suppression_added: { marker: '@ts-ignore' },
      empty_catch: {},
      test_uncollected: { from: 'test/cart.test.js', tests: 3 },
      config_weakened: { tool: 'TypeScript', change: '"strict": false' },
    };
    const texts = LAYER0_CHECKS.map((check) => {
      const hit = { check, path: 'src/a.ts', line: 3, evidence: 'x', detail: details[check] } as Layer0Hit;
      return `${check}: ${checkTexts.layer0Description(hit)} — ${checkTexts.layer0Suggestion(check)}`;
    });
    texts.push(checkTexts.layer0Description({ check: 'test_removed', path: 'test/a.test.ts', line: null, evidence: 'deleted test file test/a.test.ts', detail: { before: 4, after: 0, deleted: true } }));
    expect(texts.join('\n')).toMatchSnapshot();
  });
});
