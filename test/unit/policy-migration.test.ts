/** The completion policy in the state file: a state saved before it reads as today's rule (migration on read). */
import { describe, expect, it } from 'vitest';
import { State } from '../../src/state/schema';
import { DEFAULT_RULES, LEGACY_POLICY } from '../../src/protocol/stop-rules';
import { stateBuilder } from './builders';

describe('the completion policy in state.json', () => {
  const saved = (rules: Record<string, unknown> | undefined) => {
    const state = JSON.parse(JSON.stringify(stateBuilder().build())) as Record<string, unknown>;
    if (rules === undefined) delete state.rules;
    else state.rules = rules;
    return state;
  };

  it.each([
    ['rules without the policy (a loop started before it)', { maxCritical: 5, stuckRounds: 3, similarity: 0.95, maxTokens: null }],
    ['no rules at all', undefined],
  ])('%s: every finding blocks DONE, no threshold', (_, rules) => {
    const parsed = State.safeParse(saved(rules));
    expect(parsed.success).toBe(true);
    expect(parsed.data!.rules).toMatchObject(LEGACY_POLICY);
  });

  it('a new loop keeps what it was started with', () => {
    expect(State.parse(saved({ ...DEFAULT_RULES, doneWhen: 'critical', minConfidence: 65 })).rules).toMatchObject({ doneWhen: 'critical', minConfidence: 65 });
  });

  it.each([{ doneWhen: 'high' }, { minConfidence: 101 }, { minConfidence: 0.5 }])('refuses %j', (bad) => {
    expect(State.safeParse(saved({ ...DEFAULT_RULES, ...bad })).success).toBe(false);
  });
});
