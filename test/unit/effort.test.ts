import { describe, expect, it } from 'vitest';
import { EFFORTS, EFFORT_PROFILES, MODEL_AGENTS, STANDARD_EFFORT, resolveEffort } from '../../src/protocol/effort';
import { REVIEWERS, agentType } from '../../src/protocol/agents';
import { parseCommand } from '../../src/core/args';
import { settingsFromConfig, validateConfig } from '../../src/config/project-config';
import { initialState, transition, type Event } from '../../src/core/transition';
import { aggregateRound } from '../../src/review/aggregate';
import { r1Prompt, r2Prompt } from '../../src/core/prompts';
import { effortText, typicalCostLine } from '../../src/report/texts';
import { stateProblems } from '../../src/state/invariants';
import { State } from '../../src/state/schema';
import { TYPICAL_TOKENS } from '../../src/report/typical-cost';
import { DEFAULT_RULES } from '../../src/protocol/stop-rules';
import type { State as StateT } from '../../src/state/schema';

const NOW = '2026-12-06T10:00:00.000Z';

describe('the effort profiles', () => {
  it.each([
    ['quick', ['critic', 'witness', 'security-reviewer'], 'sonnet', 'sonnet', 4],
    ['standard', [...REVIEWERS], 'inherit', 'inherit', 5],
    ['deep', [...REVIEWERS], 'opus', 'opus', 6],
  ] as const)('%s: reviewers %j, reviewers on %s, the fixer on %s, %i rounds', (effort, reviewers, reviewerModel, fixerModel, rounds) => {
    const p = EFFORT_PROFILES[effort];
    expect([...p.reviewers]).toEqual(reviewers);
    for (const r of REVIEWERS) expect(p.models[r]).toBe(reviewerModel);
    expect(p.models['review-fixer']).toBe(fixerModel);
    expect(p.maxIterations).toBe(rounds);
  });

  it('standard is the loop as it was: five reviewers, the session model, five rounds', () => {
    expect(STANDARD_EFFORT).toEqual({ profile: 'standard', reviewers: [...REVIEWERS], models: Object.fromEntries(MODEL_AGENTS.map((a) => [a, 'inherit'])) });
  });

  it('the project overrides the models of the agents it names, no others', () => {
    const choice = resolveEffort('quick', { critic: 'haiku', 'review-fixer': 'opus' });
    expect(choice.models).toEqual({ ...EFFORT_PROFILES.quick.models, critic: 'haiku', 'review-fixer': 'opus' });
    expect(choice.reviewers).toEqual(['critic', 'witness', 'security-reviewer']);
  });

  it('the typical cost of each profile comes from the simulator (src/report/typical-cost.ts)', () => {
    for (const e of EFFORTS) expect(TYPICAL_TOKENS[e]).toBeGreaterThan(0);
    expect(TYPICAL_TOKENS.quick).toBeLessThan(TYPICAL_TOKENS.standard);
    expect(TYPICAL_TOKENS.standard).toBeLessThan(TYPICAL_TOKENS.deep);
  });
});

describe('--effort and .minions.json', () => {
  const review = (prompt: string, config: Parameters<typeof settingsFromConfig>[0] = null) => {
    const parsed = parseCommand(prompt, settingsFromConfig(config));
    if (!parsed.ok || parsed.command?.kind !== 'review') throw new Error(JSON.stringify(parsed));
    return parsed.command;
  };

  it.each([
    ['/minions:review x', null, 'standard', 5],
    ['/minions:review --effort quick x', null, 'quick', 4],
    ['/minions:review --effort=deep x', null, 'deep', 6],
    // An explicit budget beats the profile's: the flag, or the config's maxIterations.
    ['/minions:review --effort quick --max-iterations 7 x', null, 'quick', 7],
    ['/minions:review --effort deep x', { maxIterations: 2 }, 'deep', 2],
    ['/minions:review x', { effort: 'quick' }, 'quick', 4],
    ['/minions:review --effort standard x', { effort: 'quick' }, 'standard', 5],
    ['/minions:review x', { effort: 'quick', maxIterations: 4 }, 'quick', 4],
    ['/minions:review --max-iterations 1 x', { effort: 'deep' }, 'deep', 1],
  ] as const)('%s with %j: %s, %i rounds', (prompt, config, profile, rounds) => {
    const command = review(prompt, config as never);
    expect(command.effort?.profile).toBe(profile);
    expect(command.effort?.reviewers).toEqual([...EFFORT_PROFILES[profile].reviewers]);
    expect(command.maxIterations).toBe(rounds);
  });

  it('the config models go over the profile chosen by the flag', () => {
    expect(review('/minions:review --effort deep x', { models: { critic: 'haiku' } }).effort?.models).toEqual({ ...EFFORT_PROFILES.deep.models, critic: 'haiku' });
  });

  it.each([
    ['/minions:review --effort fast x', '--effort must be one of quick, standard, deep, not "fast"'],
    ['/minions:review --effort', '--effort needs one of quick, standard, deep, e.g. --effort quick'],
    ['/minions:review --effort Quick x', '--effort must be one of quick, standard, deep, not "Quick"'],
  ])('%s is refused: %s', (prompt, error) => {
    expect(parseCommand(prompt)).toEqual({ ok: false, error });
  });

  it.each([
    [{ effort: 'fast' }, '"effort" must be one of quick, standard, deep, not "fast"'],
    [{ models: { critic: 'gpt-5' } }, '"models.critic" must be one of inherit, haiku, sonnet, opus, not "gpt-5"'],
    [{ models: { critc: 'haiku' } }, 'unknown key "models.critc"; known keys: critic, pedant, witness, security-reviewer, silent-failure-hunter, review-fixer'],
    [{ models: 'haiku' }, '"models" must be an object of agent names to models, e.g. {"critic": "haiku"}, not "haiku"'],
  ])('.minions.json %j is refused: %s', (data, error) => {
    expect(validateConfig(JSON.stringify(data))).toEqual({ ok: false, errors: [error] });
  });

  it('.minions.json effort and models are read', () => {
    const result = validateConfig(JSON.stringify({ effort: 'quick', models: { 'review-fixer': 'opus' } }));
    expect(result).toEqual({ ok: true, config: { effort: 'quick', models: { 'review-fixer': 'opus' } } });
  });
});

describe('a loop under a profile', () => {
  const SESSION = 'session-1';
  const start = (effort = resolveEffort('quick')): StateT => initialState(SESSION, 'task', EFFORT_PROFILES[effort.profile].maxIterations, 'abc', NOW, DEFAULT_RULES, null, effort);
  const step = (state: StateT, event: Event) => transition({ kind: 'ok', state }, event);
  const dispatch = (state: StateT, name: string, model?: string | null) => step(state, { kind: 'dispatch', sessionId: SESSION, now: NOW, subagentType: agentType(name), model });
  const clean = JSON.stringify({ issues: [], summary: { critical: 0, warning: 0, info: 0, verdict: 'clean' } });

  it('records the profile; the reviewers outside it are skipped, and the state is sound', () => {
    const state = start();
    expect(state.effort.profile).toBe('quick');
    const runs = state.iterations[0]!.r1.reviewers;
    expect(REVIEWERS.filter((r) => runs[r].status === 'skipped')).toEqual(['pedant', 'silent-failure-hunter']);
    expect(stateProblems(state)).toEqual([]);
    // A state that says a reviewer of the profile is skipped is not one the hooks wrote.
    const forged = { ...state, iterations: [{ ...state.iterations[0]!, r1: { ...state.iterations[0]!.r1, reviewers: { ...runs, critic: { ...runs.critic, status: 'skipped' as const } } } }] };
    expect(stateProblems(forged)).toContain('critic is skipped, and in the effort profile');
  });

  it('a state from before profiles reads as standard', () => {
    const { effort: _e, ...old } = start(STANDARD_EFFORT);
    expect(State.parse(JSON.parse(JSON.stringify(old))).effort).toEqual(STANDARD_EFFORT);
  });

  it('the R1 prompt names only the profile\'s reviewers, each with its model', () => {
    const prompt = r1Prompt(start(), []);
    expect(prompt).toContain('Dispatch all three reviewers of the effort profile quick now in ONE message: one Agent call each, subagent_type as named, model as named');
    expect(prompt).toContain('- minions:critic (model: "sonnet") → ');
    expect(prompt).toContain('- minions:security-reviewer (model: "sonnet") → ');
    expect(prompt).not.toContain('minions:pedant');
    expect(prompt).not.toContain('minions:silent-failure-hunter');
  });

  it('under standard the R1 prompt asks no model and names all five', () => {
    const prompt = r1Prompt(start(STANDARD_EFFORT), []);
    expect(prompt).toContain('Dispatch all five reviewers now in ONE message: one Agent call each, subagent_type as named, run_in_background: false.');
    expect(prompt).not.toContain('model');
  });

  it('refuses a reviewer outside the profile, naming the ones to dispatch instead', () => {
    const out = dispatch(start(), 'pedant', 'sonnet');
    expect(out.effects).toEqual([{ type: 'deny', reason: expect.stringContaining('minions:pedant is not part of this loop\'s effort profile (quick: critic, witness, security-reviewer). Dispatch minions:critic, minions:witness, minions:security-reviewer instead') }]);
  });

  it.each([
    ['haiku', 'names model "haiku"'],
    [null, "names no model (it would run on the session's model)"],
  ])('on Claude Code, refuses a reviewer asked for sonnet and dispatched with %s', (model, said) => {
    const out = dispatch(start(), 'critic', model);
    expect(out.effects).toHaveLength(1);
    expect(out.effects[0]).toMatchObject({ type: 'deny' });
    const reason = (out.effects[0] as { reason: string }).reason;
    expect(reason).toContain(said);
    expect(reason).toContain('Dispatch it again with model: "sonnet"');
    expect(out.state!.iterations[0]!.r1.reviewers.critic.status).toBe('pending');
  });

  it('lets the asked model through, and on Copilot and Codex any (their payloads carry none)', () => {
    expect(dispatch(start(), 'critic', 'sonnet').effects).toEqual([]);
    for (const host of ['copilot', 'codex'] as const) expect(dispatch({ ...start(), host }, 'critic', null).effects).toEqual([]);
  });

  it('under standard (inherit) the model of the Agent call is left to the orchestrator', () => {
    for (const model of [null, 'haiku', 'opus']) expect(dispatch(start(STANDARD_EFFORT), 'critic', model).effects).toEqual([]);
  });

  it('Stop re-injects the prompt for the profile\'s reviewers only', () => {
    const reviewed = step(dispatch(start(), 'critic', 'sonnet').state!, { kind: 'reviewer-stop', sessionId: SESSION, now: NOW, reviewer: 'critic', file: clean, message: null, sources: {} }).state!;
    const out = step(reviewed, { kind: 'stop', sessionId: SESSION, now: NOW, running: [] });
    const block = out.effects.find((e) => e.type === 'block') as { reason: string };
    expect(block.reason).toContain('Still missing 2 of 3 reviews.');
    expect(block.reason).toMatch(/^- minions:witness \(model: "sonnet"\) → /m);
    expect(block.reason).not.toContain('minions:pedant');
    expect(out.effects).toContainEqual({ type: 'notify', text: expect.stringContaining('dispatching witness, security-reviewer') });
  });

  it('the round is aggregated after the third review of quick; the absent two are not run', () => {
    let state = start();
    for (const r of ['critic', 'witness', 'security-reviewer']) state = dispatch(state, r, 'sonnet').state!;
    const stop = (s: StateT, r: 'critic' | 'witness' | 'security-reviewer') => step(s, { kind: 'reviewer-stop', sessionId: SESSION, now: NOW, reviewer: r, file: clean, message: null, sources: {} });
    state = stop(state, 'critic').state!;
    state = stop(state, 'witness').state!;
    expect(state.iterations[0]!.r1.aggregation).toBeNull();
    state = stop(state, 'security-reviewer').state!;
    expect(state.iterations[0]!.r1.aggregation).not.toBeNull();
    const reviews = Object.fromEntries(REVIEWERS.map((r) => [r, state.iterations[0]!.r1.reviewers[r].status === 'skipped' ? null : clean])) as Record<(typeof REVIEWERS)[number], string | null>;
    const out = step(state, { kind: 'aggregate', sessionId: SESSION, now: NOW, reviews, rewritten: [], sources: {}, history: [], declines: {} });
    expect(out.state!.currentPhase).toBe('DONE');
    const verdict = JSON.parse((out.effects.find((e) => e.type === 'write' && e.path.endsWith('r1-verdict.json')) as { content: string }).content) as { reviewers: Record<string, { status: string }>; overall_verdict: string };
    expect(verdict.overall_verdict).toBe('clean');
    expect(verdict.reviewers.pedant!.status).toBe('not_run');
    expect(verdict.reviewers.critic!.status).toBe('valid');
  });

  it('aggregation: a reviewer not run neither makes the round invalid nor adds findings', () => {
    const none = { text: null, valid: false, error: null, notRun: true };
    const ok = { text: clean, valid: true, error: null };
    const v = aggregateRound({
      iteration: 1, maxIterations: 3, task: 't', now: NOW, rules: DEFAULT_RULES, sources: {}, history: [], declines: {},
      reviews: { critic: ok, pedant: none, witness: ok, 'security-reviewer': ok, 'silent-failure-hunter': none },
    });
    expect(v.overall_verdict).toBe('clean');
    expect(v.reviewers.pedant.status).toBe('not_run');
  });

  it('the fixer is asked its model in R2, and refused without it', () => {
    const state = { ...start(), currentPhase: 'R2' as const };
    const it0 = state.iterations[0]!;
    const verdict = { overall: 'issues_found' as const, total: 1, critical: 0, warning: 1, info: 0, open: ['f1'], contested: 0, belowLevel: 0, belowConfidence: 0, score: 0.9, scale: 9, readiness: 'READY' as const, pitfalls: [], classes: [] };
    const r2 = { ...state, iterations: [{ ...it0, r1: { ...it0.r1, status: 'complete' as const }, verdict }] };
    expect(r2Prompt(r2, verdict)).toContain('- minions:review-fixer (model: "sonnet") → ');
    expect(dispatch(r2, 'review-fixer', null).effects[0]).toMatchObject({ type: 'deny', reason: expect.stringContaining('Dispatch it again with model: "sonnet"') });
    expect(dispatch(r2, 'review-fixer', 'sonnet').effects).toEqual([]);
  });
});

describe('the profile in words', () => {
  it.each([
    [resolveEffort('quick'), 'effort quick: critic, witness, security-reviewer (sonnet)'],
    [STANDARD_EFFORT, 'effort standard: five reviewers'],
    [resolveEffort('deep'), 'effort deep: five reviewers (opus)'],
    [resolveEffort('quick', { critic: 'haiku' }), 'effort quick: critic, witness, security-reviewer (critic haiku, witness sonnet, security-reviewer sonnet, review-fixer sonnet)'],
  ])('%j', (effort, text) => {
    expect(effortText(effort)).toBe(text);
  });

  it('REPORT.md compares the tokens with the typical loop of the profile', () => {
    expect(typicalCostLine(resolveEffort('quick'), 1_234_567, 2_000_000)).toBe('Tokens used 1,234,567, typical for quick 2,000,000 (simulated, docs/convergence.md).');
    expect(typicalCostLine(resolveEffort('quick', { critic: 'opus' }), 10, 20)).toContain("this loop's models differ from the profile's");
  });
});
