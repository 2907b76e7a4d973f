import { describe, expect, it } from 'vitest';
import { REVIEWERS } from '../../src/protocol/agents';
import { transition, type Effect, type Event, type Loaded } from '../../src/core/transition';
import { DEFAULT_RULES } from '../../src/protocol/stop-rules';
import { decodeReading, heldReading } from '../../src/review/reading';
import { sha256 } from '../../src/state/digest';
import { State } from '../../src/state/schema';
import { LATER, NOW, OTHER, OWNER, answers, dispatch, finding, fixerStop, noFiles, reviewJson, reviewerStop, stateBuilder, stop, throughRound } from './builders';

const types = (effects: Effect[]) => effects.map((e) => e.type);
const find = <T extends Effect['type']>(effects: Effect[], type: T) => effects.find((e): e is Extract<Effect, { type: T }> => e.type === type);
const start = (prompt: Partial<{ task: string; maxIterations: number; force: boolean }> = {}, sessionId = OWNER, now = LATER): Event => ({
  kind: 'command',
  sessionId,
  now,
  head: 'def456',
  changedFiles: ['src/a.ts'],
  command: { kind: 'review', task: 'check a', maxIterations: 5, force: false, rules: DEFAULT_RULES, checks: { commands: [], timeoutSeconds: 300 }, layer0: { disabled: [] }, ...prompt },
});
const cancel = (sessionId = OWNER, force = false): Event => ({ kind: 'command', sessionId, now: LATER, head: null, changedFiles: [], command: { kind: 'cancel', force } });
const NONE: Loaded = { kind: 'none' };
const BROKEN: Loaded = { kind: 'broken', problem: 'not valid JSON' };

describe('starting a loop', () => {
  it('from nothing: R1, iteration 1, the R1 prompt as context', () => {
    const { state, effects } = transition(NONE, start({ maxIterations: 3 }));
    expect(state).toMatchObject({ status: 'in_progress', currentPhase: 'R1', iteration: 1, maxIterations: 3, sessionId: OWNER, base: 'def456', task: 'check a' });
    expect(state!.iterations).toHaveLength(1);
    expect(types(effects)).toEqual(['archive-previous', 'pin-repo', 'mkdir', 'write', 'context', 'notify']);
    const context = find(effects, 'context')!.text;
    expect(context).toContain('[PHASE R1]');
    expect(context).toContain('Iteration 1/3');
    for (const r of REVIEWERS) expect(context).toContain(`- minions:${r} → .agents/tmp/phases/review-1/r1-${r}.json`);
  });

  it("refuses while another session's loop is fresh, naming --force", () => {
    const loaded = stateBuilder({ sessionId: OTHER }).loaded();
    const out = transition(loaded, start());
    expect(out.state).toBe((loaded as { state: unknown }).state);
    expect(types(out.effects)).toEqual(['refuse']);
    expect(find(out.effects, 'refuse')!.reason).toMatch(/another session.*--force/);
  });

  it.each([
    ['--force', stateBuilder({ sessionId: OTHER }).loaded(), { force: true }, LATER],
    ['a stale loop (3 h)', stateBuilder({ sessionId: OTHER }).loaded(), {}, '2026-11-30T13:00:01.000Z'],
    ['the same session', stateBuilder().loaded(), {}, LATER],
    ['a finished loop', stateBuilder({ sessionId: OTHER, status: 'done', currentPhase: 'DONE' }).loaded(), {}, LATER],
  ])('takes over with %s and archives the old run', (_, loaded, flags, now) => {
    const out = transition(loaded, start(flags, OWNER, now));
    expect(out.state).toMatchObject({ sessionId: OWNER, iteration: 1, currentPhase: 'R1' });
    expect(out.effects[0]).toEqual({ type: 'archive-previous', into: (loaded as { state: { runId: string } }).state.runId });
  });

  it('archives a broken state file and starts', () => {
    const out = transition(BROKEN, start());
    expect(out.state?.currentPhase).toBe('R1');
    expect(out.effects[0]).toEqual({ type: 'archive-previous', into: null });
  });
});

describe('cancelling', () => {
  it('the owner cancels: state marked, everything archived', () => {
    const out = transition(stateBuilder().loaded(), cancel());
    expect(out.state).toMatchObject({ status: 'cancelled', currentPhase: 'CANCELLED', stopReason: 'cancelled' });
    expect(out.effects).toContainEqual({ type: 'archive-run', into: out.state!.runId, phases: true });
    expect(find(out.effects, 'notify')!.text).toMatch(/cancelled in R1/);
  });
  it("refuses another session's fresh loop without --force", () => {
    expect(types(transition(stateBuilder({ sessionId: OTHER }).loaded(), cancel()).effects)).toEqual(['refuse']);
  });
  it("--force cancels another session's loop", () => {
    expect(transition(stateBuilder({ sessionId: OTHER }).loaded(), cancel(OWNER, true)).state?.status).toBe('cancelled');
  });
  it('nothing to cancel', () => {
    expect(transition(NONE, cancel())).toEqual({ state: null, effects: [{ type: 'context', text: expect.stringMatching(/no review loop/) }] });
  });
  it('a broken state is archived', () => {
    expect(types(transition(BROKEN, cancel()).effects)).toEqual(['archive-previous', 'notify']);
  });
  it('a finished loop is retired, not re-cancelled', () => {
    const out = transition(stateBuilder({ status: 'done', currentPhase: 'DONE' }).loaded(), cancel());
    expect(out.state?.status).toBe('done');
    expect(types(out.effects)).toEqual(['archive-run', 'context']);
  });
});

describe('the dispatch gate', () => {
  it.each(REVIEWERS)('R1 allows %s once, then denies it', (r) => {
    const first = transition(stateBuilder().loaded(), dispatch(`minions:${r}`));
    expect(first.effects).toEqual([]);
    const run = first.state!.iterations[0]!.r1.reviewers[r];
    expect(run).toMatchObject({ status: 'running', dispatches: 1 });
    const second = transition({ kind: 'ok', state: first.state! }, dispatch(`minions:${r}`));
    expect(second.state).toBe(first.state);
    expect(find(second.effects, 'deny')!.reason).toMatch(/already running/);
  });

  it.each([
    ['a reviewer already valid', stateBuilder().reviewer('critic', { status: 'valid', dispatches: 1 }), 'minions:critic', /already reviewed/],
    ['a reviewer recorded invalid', stateBuilder().reviewer('critic', { status: 'invalid', dispatches: 1 }), 'minions:critic', /already reviewed/],
    ['the fixer in R1', stateBuilder(), 'minions:review-fixer', /fixer runs in R2/],
    ['another minions agent in R1', stateBuilder(), 'minions:planner', /not part of this phase/],
    ['a reviewer in R2', stateBuilder().inR2(), 'minions:pedant', /reviews are done/],
    ['the fixer twice in R2', stateBuilder().inR2().r2({ status: 'running', dispatches: 1 }), 'minions:review-fixer', /already been dispatched/],
    ['another minions agent in R2', stateBuilder().inR2(), 'minions:planner', /not part of this phase/],
  ])('denies %s', (_, builder, type, reason) => {
    const out = transition(builder.loaded(), dispatch(type));
    expect(out.state).toBe(builder.build());
    expect(find(out.effects, 'deny')!.reason).toMatch(reason);
    expect(find(out.effects, 'deny')!.reason).toMatch(/^minions R[12] \(Iteration \d\/\d\)/);
  });

  it('R2 allows the fixer once when the verdict has issues', () => {
    const out = transition(stateBuilder().inR2().loaded(), dispatch('minions:review-fixer'));
    expect(out.effects).toEqual([]);
    expect(out.state!.iterations[0]!.r2).toMatchObject({ status: 'running', dispatches: 1 });
  });

  it.each([
    ['general-purpose in R1', stateBuilder(), 'general-purpose', /^minions R1 \(Iteration 1\/3\): general-purpose is not part of the review loop; while it runs, only the five reviewers/],
    ['Explore in R2', stateBuilder().inR2(), 'Explore', /^minions R2 \(Iteration 1\/3\): Explore is not part of the review loop; while it runs, only minions:review-fixer may be dispatched/],
    ["another plugin's agent", stateBuilder(), 'other:helper', /other:helper is not part of the review loop/],
    ['an untyped Agent call', stateBuilder().inR2(), null, /an Agent call without a subagent_type starts a general-purpose agent/],
  ])('denies %s while the loop runs, saying what to do', (_, builder, type, reason) => {
    const out = transition(builder.loaded(), dispatch(type));
    expect(out.state).toBe(builder.build());
    expect(find(out.effects, 'deny')!.reason).toMatch(reason);
    expect(find(out.effects, 'deny')!.reason).toMatch(/Dispatch those, then end your turn; \/minions:cancel ends the loop/);
  });

  it.each([
    ["another session's general-purpose agent", stateBuilder(), 'general-purpose', OTHER],
    ["another session's untyped Agent call", stateBuilder(), null, OTHER],
    ['general-purpose after the loop', stateBuilder({ status: 'done', currentPhase: 'DONE' }), 'general-purpose', OWNER],
    ['another session', stateBuilder(), 'minions:review-fixer', OTHER],
    ['a finished loop', stateBuilder({ status: 'done', currentPhase: 'DONE' }), 'minions:review-fixer', OWNER],
  ])('allows %s without a word', (_, builder, type, session) => {
    expect(transition(builder.loaded(), dispatch(type, session))).toEqual({ state: builder.build(), effects: [] });
  });
});

describe('a reviewer stops', () => {
  const clean = reviewJson();
  const withIssue = reviewJson([finding({ severity: 'critical' })]);
  const files = (over: Partial<Record<string, string | null>>) => ({ ...noFiles(), ...over });

  it('valid file: recorded, progress shown, no verdict before the fifth', () => {
    const out = transition(stateBuilder().reviewer('critic', { status: 'running', dispatches: 1 }).loaded(), reviewerStop('critic', files({ critic: withIssue })));
    const critic = out.state!.iterations[0]!.r1.reviewers.critic;
    expect(critic).toMatchObject({ status: 'valid', counts: { critical: 1, warning: 0, info: 0 }, frozen: sha256(withIssue) });
    // Kept beside the frozen review: how this stop read it (each finding's grounding and identity).
    const reading = out.effects.filter((e) => e.type === 'freeze')[1] as { content: string };
    expect(critic.reading).toBe(sha256(reading.content));
    expect(decodeReading(reading.content, sha256(withIssue))!.rows).toEqual([
      { grounding: expect.objectContaining({ status: 'grounded', line: 3 }), key: { file: 'src/a.ts', family: 'correctness', text: 'for(leti=0;i<=n;i++)' } },
    ]);
    expect(out.effects).toEqual([{ type: 'freeze', content: withIssue }, reading, expect.objectContaining({ type: 'notify' })]);
    expect(find(out.effects, 'notify')!.text).toBe('minions: R1 Iteration 1/3 — critic 1 critical');
  });

  it('invalid file: continued with the precise error, once', () => {
    const builder = stateBuilder().reviewer('pedant', { status: 'running', dispatches: 1 });
    const bad = reviewJson([finding({ severity: 'dire' as never })]);
    const out = transition(builder.loaded(), reviewerStop('pedant', files({ pedant: bad })));
    expect(out.state!.iterations[0]!.r1.reviewers.pedant).toMatchObject({ status: 'running', failures: 1 });
    const block = find(out.effects, 'block')!.reason;
    expect(block).toContain('issues[0].severity');
    expect(block).toContain('.agents/tmp/phases/review-1/r1-pedant.json');

    const again = transition({ kind: 'ok', state: out.state! }, reviewerStop('pedant', files({ pedant: bad })));
    expect(again.state!.iterations[0]!.r1.reviewers.pedant).toMatchObject({ status: 'invalid', failures: 2, frozen: sha256(bad) });
    expect(types(again.effects)).toEqual(['freeze', 'notify']);
    expect(find(again.effects, 'notify')!.text).toMatch(/pedant output invalid, counted as issues found/);
  });

  it('no output at all: continued with where to write it', () => {
    const out = transition(stateBuilder().dispatched().loaded(), reviewerStop('witness', noFiles(), 'I looked around.'));
    expect(find(out.effects, 'block')!.reason).toMatch(/^No review found: \.agents\/tmp\/phases\/review-1\/r1-witness\.json is missing or empty/);
  });

  it('JSON in the final message: the hook writes the file', () => {
    const out = transition(stateBuilder().dispatched().loaded(), reviewerStop('witness', noFiles(), `Findings:\n\`\`\`json\n${withIssue}\n\`\`\``));
    const write = find(out.effects, 'write')!;
    expect(write.path).toBe('.agents/tmp/phases/review-1/r1-witness.json');
    expect(JSON.parse(write.content)).toEqual(JSON.parse(withIssue));
    expect(out.state!.iterations[0]!.r1.reviewers.witness.status).toBe('valid');
    expect(find(out.effects, 'notify')!.text).toMatch(/taken from its final message/);
  });

  it.each<[string, string | null | undefined, string, boolean]>([
    ['the transcript shows what the file holds', 'WITH', 'WITH', false],
    ['the file holds it with CRLF line endings', 'WITH', 'WITH_CRLF', false],
    ['the file holds other text than the reviewer wrote: its own is recorded and put back', 'WITH', 'CLEAN', true],
    ['the file was deleted after the reviewer wrote it', 'WITH', 'NONE', true],
    ['the transcript cannot tell', null, 'CLEAN', false],
    ['no transcript reading at all', undefined, 'CLEAN', false],
  ])('the reviewer’s own write (its transcript): %s', (_name, own, onDisk, replaced) => {
    const text = (t: string) => (t === 'WITH' ? withIssue : t === 'WITH_CRLF' ? withIssue.replace(/\n/g, '\r\n') : t === 'CLEAN' ? clean : null);
    const event = reviewerStop('critic', files({ critic: text(onDisk) }), null, OWNER, { ownWrite: own === undefined ? undefined : text(own as string) });
    const out = transition(stateBuilder().dispatched().loaded(), event);
    const expected = replaced ? withIssue : text(onDisk)!;
    expect(out.state!.iterations[0]!.r1.reviewers.critic).toMatchObject({ status: 'valid', frozen: sha256(expected) });
    expect(find(out.effects, 'write')).toEqual(replaced ? { type: 'write', path: '.agents/tmp/phases/review-1/r1-critic.json', content: withIssue } : undefined);
    expect(out.effects.some((e) => e.type === 'notify' && /changed after critic wrote it/.test(e.text))).toBe(replaced);
  });

  // A file another agent changed is put back whatever the stop decides: a reviewer sent back reads its
  // own review there, not the other agent's.
  it('the reviewer’s own write, sent back (a finding ungrounded): the file is put back before it goes on', () => {
    const ghost = reviewJson([finding({ file: 'src/missing.ts' })]);
    const out = transition(stateBuilder().dispatched().loaded(), reviewerStop('critic', files({ critic: clean }), null, OWNER, { ownWrite: ghost }));
    expect(find(out.effects, 'block')!.reason).toMatch(/^1 finding in \.agents\/tmp\/phases\/review-1\/r1-critic\.json does not match the files \(ungrounded\)/);
    expect(find(out.effects, 'write')).toEqual({ type: 'write', path: '.agents/tmp/phases/review-1/r1-critic.json', content: ghost });
    expect(out.effects.some((e) => e.type === 'notify' && /changed after critic wrote it/.test(e.text))).toBe(true);
  });

  it('the reviewer’s own write is invalid and the file another agent wrote is valid: sent back with its own error, the file put back', () => {
    const out = transition(stateBuilder().dispatched().loaded(), reviewerStop('critic', files({ critic: clean }), null, OWNER, { ownWrite: '{oops' }));
    expect(find(out.effects, 'block')!.reason).toMatch(/cannot be read as written: the JSON is not valid: line 1: /);
    expect(find(out.effects, 'write')).toEqual({ type: 'write', path: '.agents/tmp/phases/review-1/r1-critic.json', content: '{oops' });
    expect(out.state!.iterations[0]!.r1.reviewers.critic).toMatchObject({ status: 'running', failures: 1 });
  });

  it('the reviewer’s own write is invalid at its last chance: recorded invalid as it wrote it, and the file put back', () => {
    const out = transition(stateBuilder().reviewer('critic', { status: 'running', dispatches: 1, failures: 1 }).loaded(), reviewerStop('critic', files({ critic: clean }), null, OWNER, { ownWrite: '{oops' }));
    expect(out.state!.iterations[0]!.r1.reviewers.critic).toMatchObject({ status: 'invalid', frozen: sha256('{oops') });
    expect(find(out.effects, 'write')).toEqual({ type: 'write', path: '.agents/tmp/phases/review-1/r1-critic.json', content: '{oops' });
  });

  it('the reviewer’s own write recorded: its reading says so, and the verdict has a note where that reviewer’s result is', () => {
    const first = transition(stateBuilder().dispatched().loaded(), reviewerStop('critic', files({ critic: clean }), null, OWNER, { ownWrite: withIssue }));
    const reading = decodeReading(find(first.effects.filter((e) => e.type === 'freeze').slice(1), 'freeze')!.content, sha256(withIssue));
    expect(reading).toMatchObject({ replaced: true });
    let b = stateBuilder().dispatched().reviewer('critic', { status: 'valid', dispatches: 1 });
    for (const r of REVIEWERS.slice(1, 4)) b = b.reviewer(r, { status: 'valid', dispatches: 1 });
    const all = Object.fromEntries(REVIEWERS.map((r) => [r, clean])) as Record<(typeof REVIEWERS)[number], string>;
    const out = throughRound(b.loaded(), reviewerStop('silent-failure-hunter', all), { ...all, critic: withIssue }, { readings: { critic: reading! } });
    const verdict = JSON.parse(find(out.effects.filter((e) => e.type === 'write' && e.path.endsWith('r1-verdict.json')), 'write')!.content);
    expect(verdict.reviewers.critic.notes).toContainEqual(expect.stringMatching(/changed by someone else after critic wrote it and before its stop/));
    expect(verdict.reviewers.pedant.notes).toEqual([]);
  });

  it('the fifth review recorded from its reviewer’s own write: the reading it holds for the verdict says so', () => {
    const { builder, files: all } = fourDone(clean);
    transition(builder.loaded(), reviewerStop('silent-failure-hunter', all, null, OWNER, { ownWrite: withIssue }));
    expect(heldReading(sha256(withIssue))).toMatchObject({ replaced: true });
  });

  it('an invalid file is sent back, even with a valid review in the final message: the file is the review', () => {
    const out = transition(stateBuilder().dispatched().loaded(), reviewerStop('witness', files({ witness: '{oops' }), `\`\`\`json\n${clean}\n\`\`\``));
    expect(out.state!.iterations[0]!.r1.reviewers.witness).toMatchObject({ status: 'running', failures: 1 });
    expect(find(out.effects, 'block')!.reason).toMatch(/your final message does not replace it/);
  });

  it('an empty file gives way to the final message', () => {
    const out = transition(stateBuilder().dispatched().loaded(), reviewerStop('witness', files({ witness: ' \n' }), `\`\`\`json\n${clean}\n\`\`\``));
    expect(out.state!.iterations[0]!.r1.reviewers.witness.status).toBe('valid');
  });

  it.each([
    ['never dispatched in this iteration (a stop from an earlier one)', stateBuilder()],
    ['already valid', stateBuilder().reviewer('critic', { status: 'valid' })],
    ['already invalid', stateBuilder().reviewer('critic', { status: 'invalid' })],
    ['in R2', stateBuilder().inR2()],
    ['after DONE', stateBuilder({ status: 'done', currentPhase: 'DONE' })],
  ])('a late or repeated stop changes nothing (%s)', (_, builder) => {
    expect(transition(builder.loaded(), reviewerStop('critic', files({ critic: withIssue })))).toEqual({ state: builder.build(), effects: [] });
  });

  const fourDone = (text: string) => {
    let b = stateBuilder().dispatched();
    for (const r of REVIEWERS.slice(0, 4)) b = b.reviewer(r, { status: 'valid', dispatches: 1 });
    return { builder: b, files: Object.fromEntries(REVIEWERS.map((r) => [r, text])) as Record<(typeof REVIEWERS)[number], string> };
  };

  it('the fifth review\'s stop holds its reading for the verdict it goes on to compute, and keeps none', () => {
    const { builder, files: all } = fourDone(withIssue);
    const out = transition(builder.loaded(), reviewerStop('silent-failure-hunter', all));
    const run = out.state!.iterations[0]!.r1.reviewers['silent-failure-hunter'];
    expect(run).toMatchObject({ status: 'valid', frozen: sha256(withIssue), reading: null });
    expect(out.effects.filter((e) => e.type === 'freeze')).toEqual([{ type: 'freeze', content: withIssue }]);
    expect(heldReading(sha256(withIssue))!.rows).toEqual([expect.objectContaining({ grounding: expect.objectContaining({ status: 'grounded', line: 3 }) })]);
    expect(out.state!.iterations[0]!.r1.aggregation).not.toBeNull();
  });

  it('the fifth clean review: verdict written, DONE', () => {
    const { builder, files: all } = fourDone(clean);
    const out = throughRound(builder.loaded(), reviewerStop('silent-failure-hunter', all), all);
    expect(out.state).toMatchObject({ status: 'done', currentPhase: 'DONE' });
    const verdict = JSON.parse(find(out.effects, 'write')!.content);
    expect(verdict).toMatchObject({ iteration: 1, overall_verdict: 'clean', total_issues: 0, next: 'DONE' });
    expect(find(out.effects.filter((e) => e.type === 'notify').slice(-1), 'notify')!.text).toBe('minions: review 1/3: no issues; score 1.00 accept, 10/10 READY → DONE');
  });

  it('the fifth review with issues and budget left: R2, the merged findings written for the fixer', () => {
    const { builder, files: all } = fourDone(withIssue);
    const out = throughRound(builder.loaded(), reviewerStop('silent-failure-hunter', all), all);
    expect(out.state).toMatchObject({ status: 'in_progress', currentPhase: 'R2', iteration: 1 });
    const [verdictWrite, reviewReport, findingsWrite] = out.effects.filter((e) => e.type === 'write') as Extract<Effect, { type: 'write' }>[];
    expect(reviewReport!.path).toBe('.agents/tmp/phases/review-1/REVIEW.md');
    const verdict = JSON.parse(verdictWrite!.content);
    expect(verdict.findings).toHaveLength(1);
    expect(verdict.findings[0]).toMatchObject({ reporters: [...REVIEWERS], severity: 'critical', file: 'src/a.ts', status: 'NEW', toFixer: true });
    expect(out.state!.iterations[0]!.verdict).toMatchObject({ overall: 'issues_found', total: 1, critical: 1, open: [verdict.findings[0].fingerprint], score: 0.55, readiness: 'ALMOST' });
    expect(findingsWrite!.path).toBe('.agents/tmp/phases/review-1/r2-findings.json');
    expect(JSON.parse(findingsWrite!.content).findings).toEqual([expect.objectContaining({ fingerprint: verdict.findings[0].fingerprint, severity: 'critical' })]);
    expect(find(out.effects.filter((e) => e.type === 'notify').slice(-1), 'notify')!.text).toBe(
      'minions: review 1/3: 1 issue (1 critical) [4 duplicate reports merged]; score 0.55 repair, 6/10 ALMOST → R2: fixing',
    );
  });

  it('a reviewer any of whose findings do not match the files is shown them once, then accepted', () => {
    const ghost = reviewJson([finding({ file: 'src/missing.ts' })]);
    const first = transition(stateBuilder().reviewer('critic', { status: 'running', dispatches: 1 }).loaded(), reviewerStop('critic', files({ critic: ghost })));
    expect(find(first.effects, 'block')!.reason).toMatch(/^1 finding in \S+ does not match the files \(ungrounded\):\n- issues\[0\] \(warning, src\/missing\.ts:3: [^)]*\): src\/missing\.ts does not exist/);
    expect(first.state!.iterations[0]!.r1.reviewers.critic).toMatchObject({ status: 'running', groundingWarned: true });
    const second = transition({ kind: 'ok', state: first.state! }, reviewerStop('critic', files({ critic: ghost })));
    expect(second.state!.iterations[0]!.r1.reviewers.critic.status).toBe('valid');
  });

  it('the fifth review with issues on the last iteration: STOPPED with the open issues', () => {
    const { builder, files: all } = fourDone(withIssue);
    const out = throughRound(builder.with({ maxIterations: 1 }).loaded(), reviewerStop('silent-failure-hunter', all), all);
    expect(out.state).toMatchObject({ status: 'stopped', currentPhase: 'STOPPED', stopReason: 'max_iterations' });
    expect(out.state!.openIssues).toHaveLength(1);
    expect(JSON.parse(find(out.effects, 'write')!.content).next).toBe('STOPPED');
  });

  it('an invalid review and no findings: issues_found, the next iteration re-reviews without a fixer', () => {
    let b = stateBuilder().dispatched().reviewer('critic', { status: 'invalid', dispatches: 1, error: 'not valid JSON' });
    for (const r of REVIEWERS.slice(1, 4)) b = b.reviewer(r, { status: 'valid', dispatches: 1 });
    const all = { ...Object.fromEntries(REVIEWERS.map((r) => [r, clean])), critic: '{bad' } as Record<(typeof REVIEWERS)[number], string>;
    const out = throughRound(b.loaded(), reviewerStop('silent-failure-hunter', all), all);
    expect(out.state).toMatchObject({ currentPhase: 'R1', iteration: 2 });
    expect(out.state!.iterations[0]!.r2.status).toBe('skipped');
    const verdict = JSON.parse(find(out.effects, 'write')!.content);
    expect(verdict).toMatchObject({ overall_verdict: 'issues_found', total_issues: 0, next: 'R1', reviewers: { critic: { status: 'invalid' } } });
    expect(find(out.effects, 'mkdir')!.path).toBe('.agents/tmp/phases/review-2');
  });
});

describe('the fixer stops', () => {
  it('with a summary: next iteration, back to R1', () => {
    const json = JSON.stringify({ fixes: [{ fingerprint: 'fp0', status: 'fixed', kind: 'patch' }, { fingerprint: 'fp1', status: 'fixed', kind: 'structural' }, { fingerprint: 'fp2', status: 'declined', reason: 'wrong' }] });
    const out = transition(stateBuilder().inR2(3).r2({ status: 'running', dispatches: 1 }).loaded(), fixerStop('- [fixed] a\n- [fixed] b\n- [declined] c — wrong', json));
    expect(out.state).toMatchObject({ currentPhase: 'R1', iteration: 2 });
    expect(out.state!.iterations.map((i) => i.iteration)).toEqual([1, 2]);
    expect(out.state!.iterations[0]!.r2.status).toBe('complete');
    expect(out.effects).toEqual([
      // The accepted answers are pinned in the hooks' record: later rounds count their declines.
      { type: 'pin', path: '.agents/tmp/phases/review-1/r2-fix-summary.md', content: '- [fixed] a\n- [fixed] b\n- [declined] c — wrong' },
      { type: 'pin', path: '.agents/tmp/phases/review-1/r2-fix-summary.json', content: json },
      { type: 'mkdir', path: '.agents/tmp/phases/review-2' },
      { type: 'notify', text: 'minions: fix round 1 done (2 fixed, 1 declined) → R1, Iteration 2/3' },
    ]);
  });

  it.each([
    ['no summary at all', '  \n', null, /r2-fix-summary\.md is missing or empty; the per-finding answers \(r2-fix-summary\.json\) are missing/],
    ['answers not JSON', '- [fixed] x', '{', /r2-fix-summary\.json: the JSON is not valid: line 1: the JSON ends before it is closed/],
    ['a decline without a reason', '- [declined] x', JSON.stringify({ fixes: [{ fingerprint: 'fp0', status: 'declined' }, { fingerprint: 'fp1', status: 'fixed', kind: 'patch' }] }), /fixes\[0\]\.reason: a declined, could_not_fix or escalate entry needs a reason/],
    ['a finding not answered', '- [fixed] x', answers(['fp0']), /has no answer for fp1/],
  ])('%s: the fixer is continued with what is wrong', (_, md, json, problem) => {
    const out = transition(stateBuilder().inR2().r2({ status: 'running', dispatches: 1 }).loaded(), fixerStop(md, json));
    expect(find(out.effects, 'block')!.reason).toMatch(problem);
    expect(out.state!.currentPhase).toBe('R2');
  });

  it('without a summary: continued once, then the loop moves on', () => {
    const first = transition(stateBuilder().inR2().r2({ status: 'running', dispatches: 1 }).loaded(), fixerStop('  \n', null));
    expect(find(first.effects, 'block')!.reason).toMatch(/r2-fix-summary\.md/);
    expect(first.state!.currentPhase).toBe('R2');
    const second = transition({ kind: 'ok', state: first.state! }, fixerStop(null, null));
    expect(second.state).toMatchObject({ currentPhase: 'R1', iteration: 2 });
    expect(second.state!.iterations[0]!.r2.status).toBe('no_summary');
  });

  it.each([
    ['in R1', stateBuilder()],
    ['already complete', stateBuilder().inR2().r2({ status: 'complete' })],
    ['never dispatched in this R2', stateBuilder().inR2()],
  ])('changes nothing %s', (_, builder) => {
    expect(transition(builder.loaded(), fixerStop('x', answers(['fp0', 'fp1'])))).toEqual({ state: builder.build(), effects: [] });
  });

  /** Round 2 in R2, after a round 1 whose open findings were `before`. */
  function secondRound(before: string[], now: string[], similarityThreshold = 0.95) {
    const first = stateBuilder().inR2().r2({ status: 'complete' }).build().iterations[0]!;
    const second = stateBuilder().inR2().r2({ status: 'running', dispatches: 1 }).build().iterations[0]!;
    const state = stateBuilder().build();
    return {
      kind: 'ok' as const,
      state: {
        ...state,
        currentPhase: 'R2' as const,
        iteration: 2,
        rules: { ...DEFAULT_RULES, similarity: similarityThreshold },
        iterations: [{ ...first, verdict: { ...first.verdict!, open: before } }, { ...second, iteration: 2, verdict: { ...second.verdict!, open: now } }],
      },
    };
  }
  // Near-identical, never the same string: the rule compares meaning (simhash of word shingles), not bytes.
  const previous = '- [fixed] src/a.ts:3 correctness — changed <= to < in the loop bound\nTests run: npm test, 3 passed';
  /** The same words, punctuated and cased differently: 100% similar. */
  const reworded = '* [FIXED] src/a.ts:3 (correctness): changed `<=` to `<` in the loop bound.\nTests run — npm test: 3 passed.';
  const longer = (passed: number) =>
    `- [fixed] src/a.ts:3 correctness — changed <= to < in the loop bound, so sum() stops at the last element\n- [fixed] src/a.ts:1 docs — documented that n is the number of elements to add\nTests run: npm test, ${passed} passed`;

  it('no_progress when two consecutive summaries about the same findings are near-identical', () => {
    expect(reworded).not.toBe(previous);
    const out = transition(secondRound(['fp0', 'fp1'], ['fp0', 'fp1']), fixerStop(reworded, answers(['fp0', 'fp1']), previous));
    expect(out.state).toMatchObject({ currentPhase: 'STOPPED', status: 'stopped', stopReason: 'no_progress', stopDetail: expect.stringMatching(/100% similar/) });
    expect(find(out.effects, 'notify')!.text).toBe('minions: fix round 2 repeated the previous one → STOPPED (no progress)');
  });

  it('one word apart (94% similar): no_progress under --fixpoint-similarity 0.9, not under the default 0.95', () => {
    const stopped = transition(secondRound(['fp0', 'fp1'], ['fp0', 'fp1'], 0.9), fixerStop(longer(4), answers(['fp0', 'fp1']), longer(3)));
    expect(stopped.state).toMatchObject({ currentPhase: 'STOPPED', stopReason: 'no_progress', stopDetail: expect.stringMatching(/ 94% similar/) });
    const carriesOn = transition(secondRound(['fp0', 'fp1'], ['fp0', 'fp1']), fixerStop(longer(4), answers(['fp0', 'fp1']), longer(3)));
    expect(carriesOn.state).toMatchObject({ currentPhase: 'R1', iteration: 3 });
  });

  it.each([
    ['the threshold is not reached', ['fp0'], ['fp0'], 1.01],
    ['the rounds fixed different findings', ['fp9'], ['fp0', 'fp1'], 0.95],
  ])('no no_progress when %s', (_, before, now, threshold) => {
    const out = transition(secondRound(before, now, threshold), fixerStop(reworded, answers(now), previous));
    expect(out.state).toMatchObject({ currentPhase: 'R1', iteration: 3 });
  });
});

describe('the orchestrator stops', () => {
  it('R1, idle: the prompt is re-injected twice, then the stop is let through with a way to resume', () => {
    let loaded: Loaded = stateBuilder().loaded();
    for (const n of [1, 2]) {
      const out = transition(loaded, stop());
      expect(find(out.effects, 'block')!.reason).toContain('[PHASE R1]');
      expect(out.state!.stopGuard.blocks).toBe(n);
      loaded = { kind: 'ok', state: out.state! };
    }
    const third = transition(loaded, stop());
    expect(types(third.effects)).toEqual(['notify']);
    expect(find(third.effects, 'notify')!.text).toMatch(/paused in R1.*Type "continue" to resume/);
  });

  it('progress between stops resets the guard', () => {
    const first = transition(stateBuilder().loaded(), stop());
    const second = transition({ kind: 'ok', state: first.state! }, stop());
    expect(second.state!.stopGuard.blocks).toBe(2);
    const progress = transition({ kind: 'ok', state: second.state! }, dispatch('minions:critic'));
    const third = transition({ kind: 'ok', state: progress.state! }, stop());
    expect(third.state!.stopGuard.blocks).toBe(1);
    expect(find(third.effects, 'block')).toBeDefined();
  });

  it('R1 names only the reviewers still missing', () => {
    const b = stateBuilder().reviewer('critic', { status: 'valid', dispatches: 1 }).reviewer('pedant', { status: 'valid', dispatches: 1 }).reviewer('witness', { status: 'invalid', dispatches: 1 });
    const reason = find(transition(b.loaded(), stop()).effects, 'block')!.reason;
    expect(reason).toContain('Still missing 2 of 5 reviews');
    expect(reason).toContain('- minions:security-reviewer →');
    expect(reason).toContain('- minions:silent-failure-hunter →');
    expect(reason).not.toContain('- minions:critic');
  });

  it('a reviewer recorded as running but gone is pending again, so it may be re-dispatched', () => {
    const out = transition(stateBuilder().reviewer('witness', { status: 'running', dispatches: 1 }).loaded(), stop());
    expect(out.state!.iterations[0]!.r1.reviewers.witness).toMatchObject({ status: 'pending', dispatches: 1, error: 'ended without output' });
    expect(transition({ kind: 'ok', state: out.state! }, dispatch('minions:witness')).effects).toEqual([]);
  });

  it('phase agents running in the background: the turn ends without a re-dispatch', () => {
    const builder = stateBuilder().reviewer('critic', { status: 'running', dispatches: 1 });
    const out = transition(builder.loaded(), stop(['minions:critic', 'other:thing']));
    expect(out.state).toBe(builder.build());
    expect(out.effects).toEqual([{ type: 'notify', text: 'minions: R1 Iteration 1/3 — waiting for critic (running in the background)' }]);
  });

  it('R2: the fixer prompt', () => {
    const reason = find(transition(stateBuilder().inR2(3).loaded(), stop()).effects, 'block')!.reason;
    expect(reason).toContain('[PHASE R2]');
    expect(reason).toContain('The review found 3 findings to fix (1 critical, 2 warning); score 0.35, 4/10 NOT READY');
    expect(reason).toContain('- minions:review-fixer → .agents/tmp/phases/review-1/r2-fix-summary.md');
    expect(reason).toContain('.agents/tmp/phases/review-1/r2-findings.json');
    expect(reason).toContain('.agents/tmp/phases/review-1/r2-fix-summary.json');
    // The five reviews are named; the fixer is given the merged findings file, not them.
    for (const r of REVIEWERS) expect(reason).toContain(`.agents/tmp/phases/review-1/r1-${r}.json`);
    expect(reason).toMatch(/Give it: the task, "Fix every finding, at every severity, in \.agents\/tmp\/phases\/review-1\/r2-findings\.json/);
  });

  it.each([
    ['DONE', 'done', /^minions: DONE — review 1\/3 found no issues\. Reviews: \.agents\/tmp\/phases\/review-1\/\n  Report: \.agents\/tmp\/phases\/REPORT\.md$/],
    ['STOPPED', 'stopped', /^minions: STOPPED — the iteration budget is spent\. No verdict for round 1\. Files: .*\n  critical src\/a\.ts:3 — off by one\n  Report: \.agents\/tmp\/phases\/REPORT\.md$/],
  ] as const)('%s: the outcome once, and the state file retired', (phase, status, pattern) => {
    const b = stateBuilder({ currentPhase: phase, status, stopReason: phase === 'STOPPED' ? 'max_iterations' : null, openIssues: [{ severity: 'critical', file: 'src/a.ts', line: 3, description: 'off by one' }] });
    const out = transition(b.loaded(), stop());
    expect(find(out.effects, 'notify')!.text).toMatch(pattern);
    expect(find(out.effects, 'archive-run')).toEqual({ type: 'archive-run', into: b.build().runId, phases: false });
    expect(find(out.effects, 'block')).toBeUndefined();
  });

  it('a broken state never blocks: it says which file and how to clear it', () => {
    const out = transition(BROKEN, stop([], OTHER));
    expect(types(out.effects)).toEqual(['notify']);
    expect(find(out.effects, 'notify')!.text).toMatch(/\.agents\/tmp\/state\.json is unreadable \(not valid JSON\).*\/minions:cancel/);
  });

  it("another session's stop is left alone", () => {
    const b = stateBuilder();
    expect(transition(b.loaded(), stop([], OTHER))).toEqual({ state: b.build(), effects: [] });
  });
});

describe("the R1 prompts' changed files", () => {
  const changedLine = (text: string) => text.split('\n').find((l) => l.startsWith('Changed files'));

  it('are taken when the loop starts and re-injected from the state, without git, by Stop and prompts', () => {
    const started = transition(NONE, { ...(start() as Extract<Event, { kind: 'command' }>), changedFiles: ['src/a.ts', 'src/b.ts'] });
    expect(started.state!.changedFiles).toEqual(['src/a.ts', 'src/b.ts']);
    expect(changedLine(find(started.effects, 'context')!.text)).toBe('Changed files (against def456): src/a.ts, src/b.ts');
    const loaded: Loaded = { kind: 'ok', state: started.state! };
    expect(changedLine(find(transition(loaded, stop()).effects, 'block')!.reason)).toBe('Changed files (against def456): src/a.ts, src/b.ts');
    expect(changedLine(find(transition(loaded, { kind: 'prompt', sessionId: OWNER, now: LATER }).effects, 'context')!.text)).toBe(
      'Changed files (against def456): src/a.ts, src/b.ts',
    );
  });

  it("are taken again when the fixer's round ends, for the next round's review", () => {
    const json = answers(['fp0', 'fp1']);
    const r2 = stateBuilder({ changedFiles: ['src/a.ts'] }).inR2().r2({ status: 'running', dispatches: 1 }).loaded();
    const next = transition(r2, { ...fixerStop('- [fixed] a\n- [fixed] b', json), changedFiles: ['src/a.ts', 'src/fixed.ts'] });
    expect(next.state).toMatchObject({ currentPhase: 'R1', iteration: 2, changedFiles: ['src/a.ts', 'src/fixed.ts'] });
    const block = find(transition({ kind: 'ok', state: next.state! }, stop()).effects, 'block')!.reason;
    expect(changedLine(block)).toBe('Changed files (against abc123): src/a.ts, src/fixed.ts');
    // A fixer stop that observed none keeps the list.
    const kept = transition(r2, fixerStop('- [fixed] a\n- [fixed] b', json));
    expect(kept.state!.changedFiles).toEqual(['src/a.ts']);
  });

  it('a state file written before they were recorded reads as none', () => {
    const { changedFiles: _, ...old } = stateBuilder().build();
    const parsed = State.safeParse(JSON.parse(JSON.stringify(old)));
    expect(parsed.success && parsed.data.changedFiles).toEqual([]);
    const out = transition({ kind: 'ok', state: parsed.data! }, stop());
    expect(changedLine(find(out.effects, 'block')!.reason)).toBe('Changed files (against abc123): none detected; review what the task names.');
  });
});

describe('prompts in the owning session', () => {
  it('reset the idle guard and remind the model of the phase', () => {
    const b = stateBuilder().with({ stopGuard: { key: 'k', blocks: 2 } });
    const out = transition(b.loaded(), { kind: 'prompt', sessionId: OWNER, now: LATER });
    expect(out.state!.stopGuard).toEqual({ key: '', blocks: 0 });
    expect(find(out.effects, 'context')!.text).toContain('[PHASE R1]');
  });
  it('write nothing when the guard is at rest and the loop was marked fresh less than ten minutes ago; mark it after that', () => {
    const at = (minutes: number) => new Date(Date.parse(NOW) + minutes * 60_000).toISOString();
    const b = stateBuilder();
    expect(b.build().stopGuard).toEqual({ key: '', blocks: 0 });
    for (const minutes of [0, 5, 9.99]) {
      const out = transition(b.loaded(), { kind: 'prompt', sessionId: OWNER, now: at(minutes) });
      expect(out.state, `${minutes} min`).toBe(b.build());
      expect(find(out.effects, 'context')!.text).toContain('[PHASE R1]');
    }
    for (const minutes of [10, 90]) {
      expect(transition(b.loaded(), { kind: 'prompt', sessionId: OWNER, now: at(minutes) }).state!.updatedAt, `${minutes} min`).toBe(at(minutes));
    }
    // A guard that counted blocks is reset (and the loop marked) however fresh it is.
    const guarded = stateBuilder().with({ stopGuard: { key: '', blocks: 1 } });
    expect(transition(guarded.loaded(), { kind: 'prompt', sessionId: OWNER, now: at(1) }).state).toMatchObject({ stopGuard: { key: '', blocks: 0 }, updatedAt: at(1) });
  });
  it('say nothing in another session or after the loop', () => {
    expect(transition(stateBuilder().loaded(), { kind: 'prompt', sessionId: OTHER, now: LATER }).effects).toEqual([]);
    expect(transition(stateBuilder({ status: 'done', currentPhase: 'DONE' }).loaded(), { kind: 'prompt', sessionId: OWNER, now: LATER }).effects).toEqual([]);
  });
});

it('timestamps: updatedAt moves with every change', () => {
  const out = transition(stateBuilder().loaded(), dispatch('minions:critic'));
  expect(out.state!.startedAt).toBe(NOW);
  expect(out.state!.updatedAt).toBe(LATER);
});

describe('the escalation question after the critic’s diagnosis (seed 003)', () => {
  const DIAGNOSIS = 'Class c1: root cause: the sentence is copied into each document; fix: state it once and link to it.';
  /** A loop stopped as stuck_issue with the diagnosis, the question pending (asked at the verdict) or offered (shown at a Stop). */
  const asked = (choice: 'pending' | 'offered') =>
    stateBuilder({ iteration: 3 })
      .inR2(1)
      .with({ status: 'stopped', currentPhase: 'STOPPED', stopReason: 'stuck_issue', stopDetail: 'finding class c1 is still open', escalationChoice: { choice, diagnosis: DIAGNOSIS, at: NOW } })
      .loaded();
  const answer = (text: string, sessionId = OWNER): Event => ({ kind: 'prompt', sessionId, now: LATER, text });
  const notes = (effects: Effect[]) => effects.flatMap((e) => (e.type === 'notify' ? [e.text] : []));

  it('the first Stop shows the three choices and keeps the state for the answer', () => {
    const out = transition(asked('pending'), stop());
    expect(out.state).toMatchObject({ status: 'stopped', stopReason: 'stuck_issue', escalationChoice: { choice: 'offered', at: LATER } });
    expect(types(out.effects)).toEqual(['notify']);
    const [text] = notes(out.effects);
    expect(text).toContain('minions: STOPPED');
    expect(text).toContain(`the critic diagnosed the stuck finding: ${DIAGNOSIS}`);
    for (const word of ['structural —', 'patch —', 'halt —']) expect(text).toContain(`  ${word}`);
  });
  it('a Stop without an answer ends it STOPPED stuck_issue, records none, writes the report and retires the state', () => {
    const out = transition(asked('offered'), stop());
    expect(out.state).toMatchObject({ status: 'stopped', currentPhase: 'STOPPED', stopReason: 'stuck_issue', escalationChoice: { choice: 'none' } });
    expect(types(out.effects)).toEqual(['write-report', 'notify', 'archive-run']);
    expect(notes(out.effects)).toEqual(['minions: no answer to the escalation question: the loop stays STOPPED (a finding is stuck).']);
  });
  it.each([
    ['structural', 'structural'],
    ['  Structural\n', 'structural'],
    ['patch', 'patch'],
  ] as const)('%j reopens the loop for one more fix round of the same iteration (%s)', (text, choice) => {
    for (const state of ['pending', 'offered'] as const) {
      const out = transition(asked(state), answer(text));
      expect(out.state).toMatchObject({ status: 'in_progress', currentPhase: 'R2', iteration: 3, maxIterations: 4, stopReason: null, stopDetail: null, escalationChoice: { choice, diagnosis: DIAGNOSIS, at: LATER } });
      const context = find(out.effects, 'context')!.text;
      expect(context).toContain('[PHASE R2]');
      expect(context).toContain('Dispatch the fixer now, once');
      if (choice === 'structural') expect(context).toContain(`give the fixer, as its task, "Apply the root-level fix of the diagnosis, not another local patch: ${DIAGNOSIS}"`);
      else {
        expect(context).toContain('The user chose one more patch round');
        expect(context).not.toContain(DIAGNOSIS);
      }
      expect(notes(out.effects)[0]).toMatch(choice === 'structural' ? /^minions: you chose the structural fix: .* → R2, Iteration 3\/4$/ : /^minions: you chose to keep patching: one more fix round → R2, Iteration 3\/4$/);
    }
  });
  it.each(['halt', 'go on then', ''])('%j halts: STOPPED stuck_issue as before, the choice recorded and the report rewritten', (text) => {
    const out = transition(asked('offered'), answer(text));
    expect(out.state).toMatchObject({ status: 'stopped', currentPhase: 'STOPPED', stopReason: 'stuck_issue', escalationChoice: { choice: 'halt', at: LATER } });
    expect(types(out.effects)).toEqual(['write-report', 'notify']);
    // The next Stop ends it as any stopped loop: the outcome, and the state retired.
    const after = transition({ kind: 'ok', state: out.state! }, stop());
    expect(types(after.effects)).toEqual(['notify', 'archive-run']);
  });
  it('another session’s prompt is not an answer', () => {
    const out = transition(asked('offered'), answer('structural', OTHER));
    expect(out.effects).toEqual([]);
    expect(out.state!.escalationChoice!.choice).toBe('offered');
  });
  it('a state written before the question existed reads as never asked', () => {
    const { escalationChoice: _, ...old } = stateBuilder().build();
    const parsed = State.safeParse(JSON.parse(JSON.stringify(old)));
    expect(parsed.success && parsed.data.escalationChoice).toBe(null);
  });
});
