/**
 * The seed's flows, walked through the hook processes: the hooks.json commands run by /bin/sh with
 * the payloads the host sends, in temp git repos. Each step asserts the hook's answer, state.json and
 * the files under .agents/tmp/phases/.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Loop, additionalContext, blockReason, messages, projectTestdir } from '../helpers/loop';
import { backgroundTask, userPromptSubmit } from '../helpers/payloads';
import {
  FIXER,
  REVIEWERS,
  STATE,
  agentType,
  cleanReview,
  fencedMessage,
  findingsFile,
  fixAnswersFile,
  fixSummaryFile,
  issue,
  issueAt,
  reviewWithIssues,
  reviewerFile,
  verdictFile,
  type Reviewer,
} from '../helpers/reviews';
import type { HookResult } from '../helpers/run';
import { removeTestdirs } from '../helpers/testdir';

afterAll(removeTestdirs);

const allClean = () => Object.fromEntries(REVIEWERS.map((r) => [r, cleanReview(r)])) as Record<Reviewer, ReturnType<typeof cleanReview>>;

function newLoop(): Loop {
  return new Loop(projectTestdir());
}

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A reviewer's progress line ("minions: R1 Iteration 1/3 — critic clean"; an "(n/5 in)" count may follow). */
const PROGRESS = (iteration: number, max: number, what: string): RegExp => new RegExp(`^minions: R1 Iteration ${iteration}/${max} — ${escape(what)}(?: \\(\\d/5 in\\))?$`);

/** The one verdict line among progress lines: "minions: review N/M: … → NEXT". */
const verdictLines = (lines: string[]): string[] => lines.filter((l) => /^minions: review \d+\/\d+: /.test(l));

/** Every hook answer is exit 0 with nothing on stderr. */
function expectQuiet(results: HookResult | HookResult[]): void {
  for (const r of [results].flat()) {
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
  }
}

function expectR1Prompt(text: string | undefined, iteration: number, max: number, reviewers: readonly Reviewer[] = REVIEWERS): void {
  expect(text).toBeDefined();
  expect(text).toContain('[PHASE R1]');
  expect(text).toContain(`Iteration ${iteration}/${max}`);
  for (const r of REVIEWERS) {
    // Every path handed to an agent is absolute.
    const line = new RegExp(`^- ${escape(agentType(r))} → /\\S+/${escape(reviewerFile(iteration, r))}$`, 'm');
    if (reviewers.includes(r)) expect(text).toMatch(line);
    else expect(text).not.toMatch(line);
  }
}

describe.concurrent('clean first pass → DONE', () => {
  it('starts, takes five clean reviews, writes a clean verdict, announces DONE once and archives the state', async () => {
    const loop = newLoop();
    const start = await loop.start('--max-iterations 3 check the cart');
    expectQuiet(start);
    expect(start.stdout?.decision).toBeUndefined();
    expect(start.stdout?.hookSpecificOutput?.hookEventName).toBe('UserPromptSubmit');
    const r1 = additionalContext(start);
    expectR1Prompt(r1, 1, 3);
    expect(r1).toContain('Task: check the cart');
    // The plugin's own files are not "changed files".
    expect(r1).toMatch(/^Changed files \(against [0-9a-f]{12}\): src\/a\.ts, src\/cart\.ts$/m);
    expect(r1).not.toContain('Previous round');
    expect(start.stdout?.systemMessage).toBe(`minions: review loop started — R1, Iteration 1/3: effort standard: five reviewers on "check the cart"; the change: uncommitted work against HEAD ${loop.dir.git('rev-parse', 'HEAD').trim().slice(0, 12)}`);

    let state = loop.state();
    expect(state).toMatchObject({ version: 1, status: 'in_progress', sessionId: loop.session, iteration: 1, maxIterations: 3, currentPhase: 'R1', task: 'check the cart' });
    expect(state.base).toBe(loop.dir.git('rev-parse', 'HEAD').trim());
    expect(loop.dir.readJson('.agents/tmp/phases/run.json')).toEqual({ runId: state.runId, task: 'check the cart', startedAt: state.startedAt, maxIterations: 3 });
    expect(loop.dir.exists('.agents/tmp/phases/review-1')).toBe(true);

    const dispatches = await loop.dispatchReviewers();
    expectQuiet(dispatches);
    expect(dispatches.map((d) => d.stdout)).toEqual([null, null, null, null, null]);
    state = loop.state();
    for (const r of REVIEWERS) expect(state.iterations[0].r1.reviewers[r]).toMatchObject({ status: 'running', dispatches: 1 });

    // Each reviewer may write its own output: the edit gate allows exactly that, without a permission prompt.
    const gates = await Promise.all(REVIEWERS.map((r) => loop.gateWrite(loop.dir.abs(reviewerFile(1, r)), agentType(r))));
    expect(gates.map((g) => g.stdout?.hookSpecificOutput?.permissionDecision)).toEqual(['allow', 'allow', 'allow', 'allow', 'allow']);
    for (const r of REVIEWERS) loop.writeReview(1, r, cleanReview(r));

    const stops = await loop.reviewersStop();
    expectQuiet(stops);
    for (const s of stops) expect(s.stdout?.hookSpecificOutput).toBeUndefined();
    const lines = messages(stops);
    for (const r of REVIEWERS) expect(lines.filter((l) => PROGRESS(1, 3, `${r} clean`).test(l))).toHaveLength(1);
    // One progress line per reviewer, then one verdict line.
    expect(lines).toHaveLength(6);
    expect(verdictLines(lines)).toHaveLength(1);
    expect(verdictLines(lines)[0]).toMatch(/^minions: review 1\/3: no issues\b.* → DONE$/);

    const verdict = loop.dir.readJson(verdictFile(1));
    expect(verdict).toMatchObject({ iteration: 1, maxIterations: 3, task: 'check the cart', overall_verdict: 'clean', total_issues: 0, critical: 0, warning: 0, info: 0, findings: [], next: 'DONE', stopReason: null });
    for (const r of REVIEWERS) expect(verdict.reviewers[r]).toMatchObject({ status: 'valid', critical: 0, warning: 0, info: 0, error: null });
    expect(loop.dir.exists(findingsFile(1))).toBe(false);
    state = loop.state();
    expect(state).toMatchObject({ status: 'done', currentPhase: 'DONE', iteration: 1, stopReason: null });
    expect(state.iterations).toHaveLength(1);
    expect(state.iterations[0].verdict).toMatchObject({ overall: 'clean', total: 0, critical: 0, warning: 0, info: 0 });
    const runId = state.runId;

    const done = await loop.stop();
    expectQuiet(done);
    expect(Object.keys(done.stdout ?? {})).toEqual(['systemMessage']);
    expect(done.stdout?.systemMessage).toBe(
      'minions: DONE — review 1/3 found no issues. Reviews: .agents/tmp/phases/review-1/\n  Cost: unknown (no readable transcript for 5 agent runs) · Report: .agents/tmp/phases/REPORT.md',
    );
    expect(loop.hasState()).toBe(false);
    expect(loop.dir.readJson(`.agents/tmp/archive/${runId}/state.json`)).toEqual(state);
    // The phases stay where the user looks for them until the next loop starts.
    expect(loop.dir.list('.agents/tmp/phases')).toEqual([
      'REPORT.md',
      'review-1/REVIEW.md',
      'review-1/diff.patch',
      'review-1/r1-critic.json',
      'review-1/r1-pedant.json',
      'review-1/r1-security-reviewer.json',
      'review-1/r1-silent-failure-hunter.json',
      'review-1/r1-verdict.json',
      'review-1/r1-witness.json',
      'run.json',
    ]);

    // Later stops (and everything else) are silent and cheap: the gate commands exit before node.
    for (const later of [await loop.stop(), await loop.stop({ stopHookActive: true }), await loop.prompt('thanks'), await loop.gateWrite('src/a.ts', null)]) {
      expect(later).toMatchObject({ code: 0, raw: '', stderr: '' });
    }

    // The next loop archives this run's phases next to its state.
    const next = await loop.start('the next one');
    expectQuiet(next);
    expectR1Prompt(additionalContext(next), 1, 5);
    expect(loop.state().runId).not.toBe(runId);
    expect(loop.dir.list(`.agents/tmp/archive/${runId}`)).toEqual([
      'phases/REPORT.md',
      'phases/review-1/REVIEW.md',
      'phases/review-1/diff.patch',
      'phases/review-1/r1-critic.json',
      'phases/review-1/r1-pedant.json',
      'phases/review-1/r1-security-reviewer.json',
      'phases/review-1/r1-silent-failure-hunter.json',
      'phases/review-1/r1-verdict.json',
      'phases/review-1/r1-witness.json',
      'phases/run.json',
      'state.json',
    ]);
    expect(loop.dir.list('.agents/tmp/phases')).toEqual(['review-1/diff.patch', 'run.json']);
  });
});

describe.concurrent('issues → R2 → fix → iteration 2 → clean → DONE', () => {
  it('walks two iterations', async () => {
    const loop = newLoop();
    await loop.start('--done-when info --max-iterations 4 fix the cart');
    const offByOne = issue({ severity: 'critical', description: 'total() reads items[items.length], which is undefined' });
    const reviews = {
      ...allClean(),
      critic: reviewWithIssues('critic', [offByOne]),
      // The witness reports the same defect (same file, family and evidence): merged, not counted twice.
      witness: reviewWithIssues('witness', [issue({ severity: 'warning', category: 'boundary', description: 'off by one' })]),
      pedant: reviewWithIssues('pedant', [issueAt('src/cart.ts', 15, { severity: 'info', category: 'naming', description: 'label() builds a string by concatenation' })]),
    };
    const round1 = await loop.reviewRound(1, reviews);
    expectQuiet([...round1.dispatches, ...round1.stops]);
    const lines = messages(round1.stops);
    expect(verdictLines(lines)).toHaveLength(1);
    expect(verdictLines(lines)[0]).toMatch(/^minions: review 1\/4: 2 issues \(1 critical, 1 info\).* → R2: fixing$/);
    expect(verdictLines(lines)[0]).toContain('1 duplicate report merged');
    expect(lines.filter((l) => PROGRESS(1, 4, 'critic 1 critical').test(l))).toHaveLength(1);
    expect(lines.filter((l) => PROGRESS(1, 4, 'pedant 1 info').test(l))).toHaveLength(1);

    const verdict = loop.dir.readJson(verdictFile(1));
    expect(verdict).toMatchObject({ overall_verdict: 'issues_found', total_issues: 2, critical: 1, warning: 0, info: 1, next: 'R2' });
    expect(verdict.findings).toHaveLength(2);
    const merged = verdict.findings.find((f: any) => f.line === 5);
    expect(merged).toMatchObject({ severity: 'critical', file: 'src/cart.ts', reporters: ['critic', 'witness'], status: 'NEW', toFixer: true, grounding: { status: 'grounded' } });
    const brief = loop.dir.readJson(findingsFile(1));
    expect(brief.findings.map((f: any) => f.fingerprint).sort()).toEqual(verdict.findings.map((f: any) => f.fingerprint).sort());
    let state = loop.state();
    expect(state).toMatchObject({ status: 'in_progress', currentPhase: 'R2', iteration: 1 });
    expect(state.iterations[0].verdict).toMatchObject({ overall: 'issues_found', total: 2, critical: 1, warning: 0, info: 1 });

    // The orchestrator ends its turn: the Stop hook re-injects the R2 prompt.
    const r2stop = await loop.stop();
    expectQuiet(r2stop);
    const r2 = additionalContext(r2stop)!;
    expect(r2stop.stdout?.decision).toBeUndefined();
    expect(r2).toMatch(/^\[PHASE R2\] minions review — Iteration 1\/4$/m);
    expect(r2).toMatch(/^The review found 2 findings to fix \(1 critical, 1 info\).*Verdict: \/\S+\/\.agents\/tmp\/phases\/review-1\/r1-verdict\.json$/m);
    expect(r2).toMatch(new RegExp(`^- ${escape(FIXER)} → /\\S+/${escape(fixSummaryFile(1))}$`, 'm'));
    expect(r2).toContain(findingsFile(1));
    expect(r2).toContain(fixAnswersFile(1));
    expect(r2stop.stdout?.systemMessage).toBe('minions: R2 Iteration 1/4 — dispatching the fixer');

    // A user prompt in the owning session gets the same reminder.
    const reminder = await loop.prompt('how is it going?');
    expectQuiet(reminder);
    expect(additionalContext(reminder)).toBe(r2);
    // A background agent's wake-up prompt is not the user's: nothing is added.
    const wake = await loop.prompt('<task-notification>\n<task-id>a1</task-id>\n<status>completed</status>\n</task-notification>');
    expect(wake).toMatchObject({ code: 0, raw: '', stderr: '' });

    const fixer = await loop.dispatch(FIXER);
    expect(fixer).toMatchObject({ code: 0, raw: '', stderr: '' });
    expect(loop.state().iterations[0].r2).toEqual({ status: 'running', dispatches: 1, failures: 0, checkBlocks: 0, layer0Blocks: 0 });
    // The fixer edits the project (no answer: the user's permission mode decides) and writes its
    // summaries (allowed without a prompt).
    const edits = await Promise.all([FIXER, FIXER, FIXER].map((f, i) => loop.gateWrite(loop.dir.abs(['src/cart.ts', fixSummaryFile(1), fixAnswersFile(1)][i]!), f)));
    expect(edits.map((e) => e.stdout?.hookSpecificOutput?.permissionDecision ?? e.raw)).toEqual(['', 'allow', 'allow']);
    loop.dir.write('src/cart.ts', loop.dir.read('src/cart.ts').replace('i <= items.length', 'i < items.length'));
    const [first, second] = loop.openFingerprints(1);
    loop.writeFixSummary(1, { answers: [{ fingerprint: first!, status: 'fixed', kind: 'patch' }, { fingerprint: second!, status: 'declined', reason: 'concatenation is the house style' }] });

    const fixed = await loop.fixerStop();
    expectQuiet(fixed);
    expect(fixed.stdout).toEqual({ systemMessage: 'minions: fix round 1 done (1 fixed, 1 declined) → R1, Iteration 2/4' });
    state = loop.state();
    expect(state).toMatchObject({ currentPhase: 'R1', iteration: 2, status: 'in_progress' });
    expect(state.iterations.map((it: any) => it.iteration)).toEqual([1, 2]);
    expect(state.iterations[0].r2).toEqual({ status: 'complete', dispatches: 1, failures: 0, checkBlocks: 0, layer0Blocks: 0 });
    expect(loop.dir.exists('.agents/tmp/phases/review-2')).toBe(true);

    const r1again = await loop.stop();
    const prompt2 = additionalContext(r1again);
    expectR1Prompt(prompt2, 2, 4);
    expect(prompt2).toMatch(/^Previous round — verify it first: what the fixer changed in round 1, \/\S+\/\.agents\/tmp\/phases\/review-2\/fix-delta\.patch \(1 file: src\/cart\.ts;/m);
    expect(prompt2).toContain(findingsFile(1));
    expect(prompt2).toContain(fixAnswersFile(1));
    expect(prompt2).toContain(fixSummaryFile(1));

    const round2 = await loop.reviewRound(2, allClean());
    expectQuiet([...round2.dispatches, ...round2.stops]);
    expect(verdictLines(messages(round2.stops))).toHaveLength(1);
    expect(verdictLines(messages(round2.stops))[0]).toMatch(/^minions: review 2\/4: no issues\b.* → DONE$/);
    const verdict2 = loop.dir.readJson(verdictFile(2));
    expect(verdict2).toMatchObject({ iteration: 2, overall_verdict: 'clean', total_issues: 0, next: 'DONE' });
    // From iteration 2 the verdict says what became of each earlier finding.
    expect(verdict2.statuses.map((s: any) => s.status)).toEqual(['FIXED', 'FIXED']);
    state = loop.state();
    expect(state).toMatchObject({ status: 'done', currentPhase: 'DONE', iteration: 2 });
    expect(state.iterations).toHaveLength(2);

    const done = await loop.stop();
    expect(done.stdout?.systemMessage).toBe(
      'minions: DONE — review 2/4 found no issues after 1 fix round. Reviews: .agents/tmp/phases/review-2/\n  Cost: unknown (no readable transcript for 11 agent runs) · Report: .agents/tmp/phases/REPORT.md',
    );
    expect(loop.hasState()).toBe(false);
    expect(loop.dir.readJson(`.agents/tmp/archive/${state.runId}/state.json`)).toEqual(state);
    expect(loop.dir.list('.agents/tmp/phases/review-1')).toEqual(
      ['REVIEW.md', 'diff.patch', 'layer0.json', 'r1-critic.json', 'r1-pedant.json', 'r1-security-reviewer.json', 'r1-silent-failure-hunter.json', 'r1-verdict.json', 'r1-witness.json', 'r2-findings.json', 'r2-fix-summary.json', 'r2-fix-summary.md'],
    );
  });

  it('continues a fixer that wrote no summary once, then moves on', async () => {
    const loop = newLoop();
    await loop.start('--max-iterations 3');
    await loop.reviewRound(1, { ...allClean(), critic: reviewWithIssues('critic') });
    await loop.dispatch(FIXER);
    const first = await loop.fixerStop({ message: 'Fixed it.' });
    expectQuiet(first);
    expect(blockReason(first)).toMatch(/^Your fix summary is not complete: \.agents\/tmp\/phases\/review-1\/r2-fix-summary\.md is missing or empty; /);
    expect(blockReason(first)).toContain(fixAnswersFile(1));
    expect(loop.state()).toMatchObject({ currentPhase: 'R2', iteration: 1 });
    const second = await loop.fixerStop({ stopHookActive: true });
    expectQuiet(second);
    expect(second.stdout?.systemMessage).toBe('minions: fix round 1 ended without a summary → R1, Iteration 2/3 re-reviews the code as it is');
    expect(loop.state()).toMatchObject({ currentPhase: 'R1', iteration: 2 });
    expect(loop.state().iterations[0].r2.status).toBe('no_summary');
  });
});

describe.concurrent('never clean → STOPPED at the iteration budget', () => {
  it('stops after max iterations with the open issues in the state and the closing message', async () => {
    const loop = newLoop();
    await loop.start('--done-when info --max-iterations 2 fix everything');
    await loop.reviewRound(1, { ...allClean(), witness: reviewWithIssues('witness') });
    expect(loop.state().currentPhase).toBe('R2');
    await loop.dispatch(FIXER);
    loop.writeFixSummary(1);
    expect((await loop.fixerStop()).stdout?.systemMessage).toMatch(/^minions: fix round 1 done \(1 fixed\) → R1, Iteration 2\/2$/);

    // Round 2 finds six new things (none of them the fixed one).
    const open = [
      issueAt('src/cart.ts', 9, { severity: 'critical', description: 'a discount over 100% makes the total negative' }),
      issueAt('src/cart.ts', 12, { severity: 'warning', category: 'swallowed-error', description: 'parse() hides malformed input' }),
      issueAt('src/cart.ts', 15, { severity: 'info', category: 'naming', description: 'label() concatenates' }),
      issueAt('src/a.ts', 1, { severity: 'warning', description: 'a changed from 1 to 2 without a reason' }),
    ];
    const more = [
      issueAt('README.md', 3, { severity: 'info', category: 'docs', description: 'the README does not mention TAX' }),
      issueAt('src/cart.ts', 2, { severity: 'info', category: 'types', description: 'qty may be fractional' }),
    ];
    const round2 = await loop.reviewRound(2, { ...allClean(), critic: reviewWithIssues('critic', open), pedant: reviewWithIssues('pedant', more) });
    expectQuiet(round2.stops);
    expect(verdictLines(messages(round2.stops))).toHaveLength(1);
    expect(verdictLines(messages(round2.stops))[0]).toMatch(/^minions: review 2\/2: 6 issues \(1 critical, 2 warning, 3 info\).* → STOPPED \(the iteration budget is spent\)$/);

    const state = loop.state();
    expect(state).toMatchObject({ status: 'stopped', currentPhase: 'STOPPED', stopReason: 'max_iterations', iteration: 2 });
    expect(state.openIssues).toEqual([...open, ...more].map(({ severity, file, line, description }) => ({ severity, file, line, description })));
    expect(loop.dir.readJson(verdictFile(2))).toMatchObject({ overall_verdict: 'issues_found', total_issues: 6, next: 'STOPPED', stopReason: 'max_iterations' });
    expect(loop.dir.exists(findingsFile(2))).toBe(false);

    // No fixer in a stopped loop.
    const late = await loop.dispatch(FIXER);
    expect(late).toMatchObject({ code: 0, raw: '' });

    const stopped = await loop.stop();
    expectQuiet(stopped);
    expect(stopped.stdout?.hookSpecificOutput).toBeUndefined();
    const text: string = stopped.stdout?.systemMessage;
    const [head, ...rows] = text.split('\n');
    expect(head).toMatch(/^minions: STOPPED — the iteration budget is spent\b.*6 issues open \(1 critical, 2 warning, 3 info\)\. Verdict: \.agents\/tmp\/phases\/review-2\/r1-verdict\.json$/);
    expect(rows).toEqual([
      '  critical src/cart.ts:9 — a discount over 100% makes the total negative',
      '  warning src/cart.ts:12 — parse() hides malformed input',
      '  info src/cart.ts:15 — label() concatenates',
      '  warning src/a.ts:1 — a changed from 1 to 2 without a reason',
      '  info README.md:3 — the README does not mention TAX',
      '  … and 1 more in the verdict',
      // Round 1 (one warning) ranks above the final tree: the outcome says so and how to get it back.
      '  Best attempt: round 1. The final tree (round 2) ranks below it: 1 critical more, 1 warning more, 3 info more open; score 0.29 against 0.90. /minions:restore 1 (or `minions restore 1`) puts its files back.',
      '  Cost: unknown (no readable transcript for 11 agent runs) · Report: .agents/tmp/phases/REPORT.md',
    ]);
    expect(loop.hasState()).toBe(false);
    expect(loop.dir.readJson(`.agents/tmp/archive/${state.runId}/state.json`)).toEqual(state);
    expect(await loop.stop()).toMatchObject({ code: 0, raw: '', stderr: '' });
  });

  it('with --max-iterations 1 an issue stops the loop without a fix round', async () => {
    const loop = newLoop();
    await loop.start('--max-iterations 1');
    const round = await loop.reviewRound(1, { ...allClean(), 'security-reviewer': reviewWithIssues('security-reviewer', [issueAt('src/cart.ts', 12, { severity: 'critical', category: 'injection' })]) });
    expect(verdictLines(messages(round.stops))[0]).toMatch(/^minions: review 1\/1: 1 issue \(1 critical\).* → STOPPED \(the iteration budget is spent\)$/);
    expect(loop.state()).toMatchObject({ currentPhase: 'STOPPED', stopReason: 'max_iterations' });
    expect(loop.dir.exists(findingsFile(1))).toBe(false);
    expect(loop.dir.exists(fixSummaryFile(1))).toBe(false);
  });
});

describe.concurrent('reviewer output validation', () => {
  it('continues a reviewer whose JSON is invalid with the precise error, then accepts the rewrite', async () => {
    const loop = newLoop();
    await loop.start();
    await loop.dispatchReviewers();
    const bad = { ...reviewWithIssues('critic'), issues: [{ ...issue(), severity: 'dire' }] };
    loop.writeReview(1, 'critic', JSON.stringify(bad));
    const first = await loop.reviewerStop('critic', { agentId: 'a-critic-1' });
    expectQuiet(first);
    expect(first.stdout?.decision).toBe('block');
    expect(first.stdout?.systemMessage).toBeUndefined();
    const reason = blockReason(first)!;
    expect(reason).toMatch(/^Your review at \/\S+ cannot be read as written: issues\[0\]\.severity is "dire": write one of "critical", "warning" or "info"/);
    expect(reason).toMatch(new RegExp(`write the whole JSON object again to /\\S+/${escape(reviewerFile(1, 'critic'))} with the Write tool`));
    expect(loop.state().iterations[0].r1.reviewers.critic).toMatchObject({ status: 'running', failures: 1 });
    expect(loop.state().iterations[0].r1.reviewers.critic.error).toMatch(/^issues\[0\]\.severity is "dire"/);

    loop.writeReview(1, 'critic', reviewWithIssues('critic'));
    const second = await loop.reviewerStop('critic', { agentId: 'a-critic-1', stopHookActive: true });
    expectQuiet(second);
    expect(Object.keys(second.stdout ?? {})).toEqual(['systemMessage']);
    expect(second.stdout?.systemMessage).toMatch(PROGRESS(1, 5, 'critic 1 warning'));
    expect(loop.state().iterations[0].r1.reviewers.critic).toMatchObject({ status: 'valid', failures: 1, error: null, counts: { critical: 0, warning: 1, info: 0 } });
  });

  it('names the precise error for each kind of bad output, each to its own reviewer at once', async () => {
    const cases: [Reviewer, string | null, RegExp][] = [
      ['critic', 'I found nothing wrong.', /^Your review at \/\S+ cannot be read as written: no JSON object was found in the file: write the JSON object alone, starting with \{/],
      ['pedant', JSON.stringify({ findings: 'none' }), /^Your review at \/\S+ cannot be read as written: found `findings` as a string \("none"\), expected a list/],
      ['witness', JSON.stringify({ issues: [], summary: { verdict: 'issues_found' } }), /^Your review at \/\S+ cannot be read as written: summary\.verdict is "issues_found" but issues\[\] is empty/],
      ['security-reviewer', JSON.stringify({ issues: [{ ...issue(), file: ' ' }], summary: { verdict: 'issues_found' } }), /^Your review at \/\S+ cannot be read as written: issues\[0\] has no file: add "file"/],
      ['silent-failure-hunter', null, /^No review found: \/\S+\/\.agents\/tmp\/phases\/review-1\/r1-silent-failure-hunter\.json is missing or empty, and your final message holds no JSON review\. Write your JSON findings to \/\S+ with the Write tool\. Use \{"issues":\[\]\} if you found nothing\./],
    ];
    const loop = newLoop();
    await loop.start();
    await loop.dispatchReviewers();
    for (const [r, text] of cases) if (text !== null) loop.writeReview(1, r, text);
    const stops = await Promise.all(cases.map(([r]) => loop.reviewerStop(r, { message: 'All done.' })));
    expectQuiet(stops);
    stops.forEach((stop, i) => {
      const [r, , expected] = cases[i]!;
      expect(stop.stdout?.systemMessage, r).toBeUndefined();
      expect(blockReason(stop), r).toMatch(expected);
      expect(blockReason(stop), r).toContain(reviewerFile(1, r));
      expect(loop.state().iterations[0].r1.reviewers[r], r).toMatchObject({ status: 'running', failures: 1 });
    });
  });

  it('a FIFO at a review file (the witness has Bash) is no output: its stop answers at once and the reviewer is told to write the file', async () => {
    const loop = newLoop();
    await loop.start();
    await loop.dispatchReviewers(['witness']);
    fs.mkdirSync(path.dirname(loop.dir.abs(reviewerFile(1, 'witness'))), { recursive: true });
    execFileSync('mkfifo', [loop.dir.abs(reviewerFile(1, 'witness'))]);
    const stop = await loop.reviewerStop('witness', { message: 'All done.' });
    expectQuiet(stop);
    expect(blockReason(stop)).toMatch(/^No review found: \/\S+ is missing or empty/);
    expect(loop.state().iterations[0].r1.reviewers.witness).toMatchObject({ status: 'running', failures: 1 });
  });

  it('a review of more findings than a review may hold is refused at once with what to do, and the reviewer continued', async () => {
    const loop = newLoop();
    await loop.start();
    await loop.dispatchReviewers(['pedant']);
    loop.writeReview(1, 'pedant', reviewWithIssues('pedant', Array.from({ length: 5_001 }, (_, i) => issue({ line: (i % 5) + 1, description: `finding ${i}` }))));
    const stop = await loop.reviewerStop('pedant', { message: 'All done.' });
    expectQuiet(stop);
    expect(blockReason(stop)).toMatch(/^Your review at \/\S+ cannot be read as written: issues lists 5,001 findings: a review may list at most 5,000; keep the most important ones/);
    expect(loop.state().iterations[0].r1.reviewers.pedant).toMatchObject({ status: 'running', failures: 1 });
  });

  it('records a reviewer that fails twice as invalid and counts it as issues found (the next iteration re-reviews)', async () => {
    const loop = newLoop();
    await loop.start('--max-iterations 3');
    await loop.dispatchReviewers();
    for (const r of REVIEWERS) loop.writeReview(1, r, r === 'silent-failure-hunter' ? '{"issues": [' : cleanReview(r));
    const stops = await loop.reviewersStop();
    expectQuiet(stops);
    const hunter = stops[REVIEWERS.indexOf('silent-failure-hunter')]!;
    expect(blockReason(hunter)).toMatch(/^Your review at \/\S+ cannot be read as written: the JSON is not valid: line 1: the JSON ends before it is closed/);
    expect(loop.state().currentPhase).toBe('R1');
    expect(loop.dir.exists(verdictFile(1))).toBe(false);

    // Continued, it fails again: recorded invalid, the fifth review is in, the verdict is written.
    const again = await loop.reviewerStop('silent-failure-hunter', { stopHookActive: true, message: 'Still broken, sorry.' });
    expectQuiet(again);
    expect(blockReason(again)).toBeUndefined();
    const [progress, verdictLine, ...others] = (again.stdout?.systemMessage as string).split('\n');
    expect(progress).toMatch(PROGRESS(1, 3, 'silent-failure-hunter output invalid, counted as issues found'));
    expect(verdictLine).toMatch(/^minions: review 1\/3: no findings to fix \(a review was invalid\).* → R1: re-reviewing \(iteration 2\)$/);
    expect(others).toEqual([]);
    const verdict = loop.dir.readJson(verdictFile(1));
    expect(verdict).toMatchObject({ overall_verdict: 'issues_found', total_issues: 0, next: 'R1', findings: [] });
    expect(verdict.reviewers['silent-failure-hunter'].status).toBe('invalid');
    expect(verdict.reviewers['silent-failure-hunter'].error).toMatch(/^the JSON is not valid: line 1: /);
    const state = loop.state();
    expect(state).toMatchObject({ currentPhase: 'R1', iteration: 2 });
    expect(state.iterations[0].r1.reviewers['silent-failure-hunter']).toMatchObject({ status: 'invalid', failures: 2 });
    expect(state.iterations[0].r2.status).toBe('skipped');
    expect(state.iterations[0].verdict).toMatchObject({ overall: 'issues_found', total: 0, critical: 0, warning: 0, info: 0 });
    expect(loop.dir.exists('.agents/tmp/phases/review-2')).toBe(true);
  });

  it('takes the JSON from a ```json fence in the final message and writes the file', async () => {
    const loop = newLoop();
    await loop.start();
    await loop.dispatchReviewers();
    for (const r of REVIEWERS) if (r !== 'witness') loop.writeReview(1, r, cleanReview(r));
    const review = reviewWithIssues('witness', [issue({ severity: 'warning', category: 'failing-test', evidence: '$ npm test\ntotal() returned NaN\n1 failed' })]);
    const stops = await Promise.all(REVIEWERS.map((r) => (r === 'witness' ? loop.reviewerStop(r, { message: fencedMessage(review) }) : loop.reviewerStop(r))));
    expectQuiet(stops);
    const witnessLine = messages(stops).find((l) => l.includes('— witness'));
    expect(witnessLine).toMatch(PROGRESS(1, 5, 'witness 1 warning, taken from its final message'));
    // Written as read: the contract's shape, the counts from the findings.
    expect(loop.dir.readJson(reviewerFile(1, 'witness'))).toEqual({ issues: review.issues, summary: { critical: 0, warning: 1, info: 0, verdict: 'issues_found' } });
    expect(loop.dir.readJson(verdictFile(1))).toMatchObject({ total_issues: 1, next: 'R2' });
    expect(loop.state().currentPhase).toBe('R2');
  });

  it('takes a final message that is the JSON object itself', async () => {
    const loop = newLoop();
    await loop.start();
    await loop.dispatch(agentType('critic'));
    const r = await loop.reviewerStop('critic', { message: JSON.stringify(cleanReview('critic')) });
    expect(r.stdout?.systemMessage).toMatch(PROGRESS(1, 5, 'critic clean, taken from its final message'));
    expect(loop.dir.readJson(reviewerFile(1, 'critic'))).toEqual({ issues: [], summary: { critical: 0, warning: 0, info: 0, verdict: 'clean' } });
  });
});

describe.concurrent('grounding: findings are checked against the files', () => {
  it('continues a reviewer whose findings mostly do not match the files once, then reports them as ungrounded', async () => {
    const loop = newLoop();
    await loop.start();
    await loop.dispatchReviewers();
    for (const r of REVIEWERS) if (r !== 'pedant') loop.writeReview(1, r, cleanReview(r));
    loop.writeReview(1, 'pedant', reviewWithIssues('pedant', [
      { ...issue(), file: 'src/missing.ts' },
      { ...issue(), line: 40, evidence: 'nothing like this line is anywhere in the cart' },
      { ...issue(), evidence: 'this code is not in the file' },
    ]));
    const stops = await loop.reviewersStop();
    expectQuiet(stops);
    const pedant = stops[REVIEWERS.indexOf('pedant')]!;
    const reason = blockReason(pedant)!;
    expect(reason).toMatch(/^3 findings in \/\S+ do not match the files \(ungrounded\):\n/);
    expect(reason).toContain('- issues[0] (warning, src/missing.ts:5: the loop reads one item past the end): src/missing.ts does not exist');
    expect(reason).toContain('- issues[1] (warning, src/cart.ts:40: the loop reads one item past the end): line 40 is past the end of src/cart.ts (16 lines), and the quoted evidence does not occur in it');
    expect(reason).toContain('- issues[2] (warning, src/cart.ts:5: the loop reads one item past the end): the quoted evidence does not occur in src/cart.ts');
    expect(reason).toContain('An ungrounded finding is not fixed and not counted');
    expect(reason).toMatch(new RegExp(`write /\\S+/${escape(reviewerFile(1, 'pedant'))} again`));
    expect(loop.state().currentPhase).toBe('R1');

    // The pedant insists: its warnings are kept as ungrounded, and go to the fixer marked unverified.
    const again = await loop.reviewerStop('pedant', { stopHookActive: true });
    expectQuiet(again);
    expect(blockReason(again)).toBeUndefined();
    const verdict = loop.dir.readJson(verdictFile(1));
    expect(verdict.findings.map((f: any) => [f.grounding.status, f.toFixer, f.unverified])).toEqual([
      ['ungrounded', true, true],
      ['ungrounded', true, true],
      ['ungrounded', true, true],
    ]);
    expect(verdict).toMatchObject({ overall_verdict: 'issues_found', total_issues: 3, next: 'R2' });
    expect(loop.dir.readJson(findingsFile(1)).findings.map((f: any) => f.unverified)).toEqual([true, true, true]);
  });
});

describe.concurrent('the Stop hook while the loop runs', () => {
  it('waits for reviewers running in the background instead of re-injecting', async () => {
    const loop = newLoop();
    await loop.start();
    await loop.dispatchReviewers();
    const before = loop.stateBytes();
    const waiting = await loop.stop({ backgroundTasks: [backgroundTask(agentType('critic')), backgroundTask(agentType('pedant')), backgroundTask('other:helper')] });
    expectQuiet(waiting);
    expect(waiting.stdout).toEqual({ systemMessage: 'minions: R1 Iteration 1/5 — waiting for critic, pedant (running in the background)' });
    expect(loop.stateBytes()).toBe(before);
  });

  it('re-dispatches reviewers that ended without output and lets an idle orchestrator go after two blocks', async () => {
    const loop = newLoop();
    await loop.start();
    await loop.dispatchReviewers(['critic', 'pedant']);
    loop.writeReview(1, 'critic', cleanReview('critic'));
    await loop.reviewerStop('critic');

    const first = await loop.stop();
    expectR1Prompt(additionalContext(first), 1, 5, ['pedant', 'witness', 'security-reviewer', 'silent-failure-hunter']);
    expect(additionalContext(first)).toContain('Still missing 4 of 5 reviews.');
    expect(first.stdout?.systemMessage).toBe('minions: R1 Iteration 1/5 — dispatching pedant, witness, security-reviewer, silent-failure-hunter');
    expect(loop.state().iterations[0].r1.reviewers.pedant).toMatchObject({ status: 'pending', error: 'ended without output', dispatches: 1 });

    const second = await loop.stop({ stopHookActive: true });
    expect(additionalContext(second)).toContain('[PHASE R1]');
    const third = await loop.stop({ stopHookActive: true });
    expectQuiet(third);
    expect(third.stdout?.hookSpecificOutput).toBeUndefined();
    expect(third.stdout?.systemMessage).toBe(
      'minions: paused in R1 (Iteration 1/5; missing: pedant, witness, security-reviewer, silent-failure-hunter): the orchestrator stopped twice without progress. ' +
        'Type "continue" to resume, /minions:status to inspect, /minions:cancel to end.',
    );
    expect(loop.hasState()).toBe(true);

    // The user's next prompt resumes: the reminder comes back and the Stop hook blocks again.
    const resumed = await loop.prompt('continue');
    expect(additionalContext(resumed)).toContain('Still missing 4 of 5 reviews.');
    expect(additionalContext(await loop.stop())).toContain('[PHASE R1]');
    // The pedant may be dispatched again.
    expect((await loop.dispatch(agentType('pedant'))).raw).toBe('');
    expect(loop.state().iterations[0].r1.reviewers.pedant).toMatchObject({ status: 'running', dispatches: 2 });
  });

  it('a prompt from the owning session while no loop runs adds nothing', async () => {
    const loop = newLoop();
    const r = await loop.hook('on-prompt-submit', userPromptSubmit('/minions:status', loop.common()));
    expect(r).toMatchObject({ code: 0, raw: '', stderr: '' });
    expect(loop.dir.exists(STATE)).toBe(false);
  });
});
