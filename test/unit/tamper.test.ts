/** The core's answers to a tampered record and to an aggregation whose hook died: tables over transition. */
import { describe, expect, it } from 'vitest';
import { REVIEWERS, type Reviewer } from '../../src/protocol/agents';
import { transition, type Effect, type Event, type Loaded, type Tamper } from '../../src/core/transition';
import { AGGREGATION_TIMEOUT_MS } from '../../src/core/round';
import { stateProblems } from '../../src/state/invariants';
import type { State } from '../../src/state/schema';
import { LATER, OTHER, OWNER, aggregateEvent, finding, reviewJson, stateBuilder } from './builders';

const tampered = (problems: Tamper[], sessionId = OWNER): Event => ({ kind: 'tampered', sessionId, now: LATER, problems });
const STATE_CHANGED: Tamper = { file: '.agents/tmp/state.json', problem: 'changed' };
const VERDICT_DELETED: Tamper = { file: '.agents/tmp/phases/review-1/r1-verdict.json', problem: 'deleted' };
const notifies = (effects: Effect[]) => effects.flatMap((e) => (e.type === 'notify' ? [e.text] : []));

describe('a tampered record', () => {
  it.each<[string, Loaded, Tamper[]]>([
    ['state.json changed, R1', { kind: 'tampered', state: stateBuilder().dispatched().build(), problems: [STATE_CHANGED] }, [STATE_CHANGED]],
    ['a verdict deleted, R2', { kind: 'tampered', state: stateBuilder().inR2().build(), problems: [VERDICT_DELETED] }, [VERDICT_DELETED]],
    ['two files at once', { kind: 'tampered', state: stateBuilder().inR2().build(), problems: [STATE_CHANGED, VERDICT_DELETED] }, [STATE_CHANGED, VERDICT_DELETED]],
  ])('of a running loop (%s): STOPPED tampered from the last good state, the files named and forgotten', (_, loaded, problems) => {
    const out = transition(loaded, tampered(problems));
    expect(out.state).toMatchObject({ status: 'stopped', currentPhase: 'STOPPED', stopReason: 'tampered', updatedAt: LATER });
    for (const p of problems) expect(out.state!.stopDetail).toContain(p.file);
    expect(stateProblems(out.state!)).toEqual([]);
    expect(out.effects[0]).toEqual({ type: 'forget', paths: problems.map((p) => p.file) });
    expect(notifies(out.effects)[0]).toMatch(/^minions: STOPPED \(the loop's files were changed outside the hooks\): .*The loop cannot end DONE/);
    // Kept: what the loop had found, for the closing message.
    expect(out.state!.iterations).toEqual((loaded as { state: State }).state.iterations);
  });

  it('a forged DONE that breaks the invariants: stopped, never DONE', () => {
    const forged: State = { ...stateBuilder().dispatched().build(), status: 'done', currentPhase: 'DONE' };
    const problems: Tamper[] = stateProblems(forged).map((detail) => ({ file: '.agents/tmp/state.json', problem: 'invariant', detail }));
    const out = transition({ kind: 'tampered', state: forged, problems }, tampered(problems));
    expect(out.state).toMatchObject({ status: 'stopped', currentPhase: 'STOPPED', stopReason: 'tampered' });
    expect(out.state!.stopDetail).toMatch(/\.agents\/tmp\/state\.json is not a state the hooks write \(status done does not match phase DONE|DONE with open findings/);
  });

  it('a state that cannot be made sound is archived as it is, and nothing is gated', () => {
    const broken: State = { ...stateBuilder().build(), iteration: 3, maxIterations: 2 };
    const problems: Tamper[] = [{ file: '.agents/tmp/state.json', problem: 'invariant', detail: 'iteration 3 is over maxIterations 2' }];
    const out = transition({ kind: 'tampered', state: broken, problems }, tampered(problems));
    expect(out.state).toBeNull();
    expect(out.effects).toContainEqual({ type: 'archive-previous', into: broken.runId });
    expect(notifies(out.effects)[0]).toMatch(/nothing is gated now/);
  });

  it('a state file the hooks never wrote (no loop of theirs) is archived', () => {
    const problems: Tamper[] = [{ file: '.agents/tmp/state.json', problem: 'added' }];
    const out = transition({ kind: 'tampered', state: null, problems }, tampered(problems, OTHER));
    expect(out.state).toBeNull();
    expect(out.effects).toContainEqual({ type: 'archive-previous', into: null });
    expect(notifies(out.effects)[0]).toMatch(/^minions: \.agents\/tmp\/state\.json was not written by the hooks; /);
  });

  it('after the loop ended as the hooks wrote it, the outcome stands and the change is reported', () => {
    const ended: State = { ...stateBuilder().build(), status: 'stopped', currentPhase: 'STOPPED', stopReason: 'max_iterations' };
    const out = transition({ kind: 'tampered', state: ended, problems: [VERDICT_DELETED] }, tampered([VERDICT_DELETED]));
    expect(out.state).toMatchObject({ currentPhase: 'STOPPED', stopReason: 'max_iterations' });
    expect(notifies(out.effects)[0]).toMatch(/r1-verdict\.json was deleted after the loop ended \(STOPPED\)/);
  });

  it('cancelling a tampered loop cancels the last good state and says what was found', () => {
    const loaded: Loaded = { kind: 'tampered', state: stateBuilder().build(), problems: [STATE_CHANGED] };
    const out = transition(loaded, { kind: 'command', sessionId: OWNER, now: LATER, head: null, changedFiles: [], command: { kind: 'cancel', force: false } });
    expect(out.state).toMatchObject({ status: 'cancelled', currentPhase: 'CANCELLED' });
    expect(notifies(out.effects)[1]).toBe("minions: note: .agents/tmp/state.json was changed outside the hooks; the hooks' own record of the loop was cancelled.");
  });

  it("another session's events leave a tampered loop alone", () => {
    const loaded: Loaded = { kind: 'tampered', state: stateBuilder().build(), problems: [STATE_CHANGED] };
    expect(transition(loaded, { kind: 'stop', sessionId: OTHER, now: LATER, running: [] })).toEqual({ state: null, effects: [] });
  });
});

describe('the round is a step of its own', () => {
  const texts = (issues: boolean) => Object.fromEntries(REVIEWERS.map((r) => [r, reviewJson(issues && r === 'witness' ? [finding()] : [])])) as Record<Reviewer, string>;
  const aSecondBefore = new Date(Date.parse(LATER) - 1000).toISOString();
  const aggregating = (attempts: number, since = aSecondBefore): State => {
    const s = stateBuilder().allReviewers({ status: 'valid', dispatches: 1 }).build();
    const it = s.iterations[0]!;
    return { ...s, iterations: [{ ...it, r1: { ...it.r1, aggregation: { since, attempts } } }] };
  };

  it('the verdict clears the aggregation mark', () => {
    const out = transition({ kind: 'ok', state: aggregating(1) }, aggregateEvent(texts(true)));
    expect(out.state).toMatchObject({ currentPhase: 'R2' });
    expect(out.state!.iterations[0]!.r1).toMatchObject({ status: 'complete', aggregation: null });
    expect(stateProblems(out.state!)).toEqual([]);
  });

  it('a review rewritten after it was recorded: the verdict comes from the recorded text, and says so', () => {
    const out = transition({ kind: 'ok', state: aggregating(1) }, aggregateEvent(texts(true), { rewritten: ['critic'] }));
    const verdict = JSON.parse((out.effects.find((e) => e.type === 'write') as { content: string }).content);
    expect(verdict.total_issues).toBe(1);
    expect(verdict.reviewers.critic.notes).toEqual(['the review file changed after the hooks recorded it; this result is from the review as recorded']);
    expect(notifies(out.effects)).toContain(
      'minions: R1 Iteration 1/3 — .agents/tmp/phases/review-1/r1-critic.json changed after the hooks recorded it; the verdict uses the reviews as they were recorded, and the change is ignored',
    );
  });

  it('an aggregation that died is taken up again once, from a fresh mark', () => {
    const out = transition({ kind: 'ok', state: aggregating(1) }, { kind: 'aggregation-died', sessionId: OWNER, now: LATER });
    expect(out.state!.iterations[0]!.r1.aggregation).toEqual({ since: LATER, attempts: 2 });
    expect(notifies(out.effects)[0]).toMatch(/the hook computing the verdict was stopped before it finished; computing it again/);
  });

  it.each([
    ['twice', aggregating(2), /stopped 2 times/],
    ['once, past the hook time limit', aggregating(1, new Date(Date.parse(LATER) - AGGREGATION_TIMEOUT_MS).toISOString()), /after running longer than the hook time limit/],
  ])('an aggregation that died %s: STOPPED with a clear reason, no re-dispatch', (_, state, detail) => {
    const out = transition({ kind: 'ok', state }, { kind: 'aggregation-died', sessionId: OWNER, now: LATER });
    expect(out.state).toMatchObject({ status: 'stopped', currentPhase: 'STOPPED', stopReason: 'aggregation_failed' });
    expect(out.state!.stopDetail).toMatch(detail);
    expect(out.state!.iterations[0]!.r1.aggregation).toBeNull();
    expect(stateProblems(out.state!)).toEqual([]);
    expect(notifies(out.effects)[0]).toMatch(/^minions: R1 Iteration 1\/3 → STOPPED \(the verdict could not be computed\): the verdict of round 1 was not computed/);
  });
});
