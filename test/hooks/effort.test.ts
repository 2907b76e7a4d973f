/**
 * Cost profiles through the hook processes: `--effort quick` runs three reviewers on the model it asks for,
 * the dispatch gate refuses a reviewer outside the profile and a dispatch on another model, and the round's
 * verdict comes after the third review.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Loop, additionalContext, denyReason, messages, projectTestdir } from '../helpers/loop';
import { agentType, cleanReview, reviewerFile, verdictFile, type Reviewer } from '../helpers/reviews';
import { runCli } from '../helpers/run';
import { removeTestdirs } from '../helpers/testdir';

afterAll(removeTestdirs);

const QUICK: Reviewer[] = ['critic', 'witness', 'security-reviewer'];

describe.concurrent('--effort quick', () => {
  it('names the profile, asks sonnet of three reviewers, refuses the others and other models, and aggregates after the third', async () => {
    const loop = new Loop(projectTestdir());
    const start = await loop.start('--effort quick check the cart');
    expect(start.stdout?.systemMessage).toMatch(/^minions: review loop started — R1, Iteration 1\/4: effort quick: critic, witness, security-reviewer \(sonnet\) on "check the cart"/);
    const r1 = additionalContext(start)!;
    expect(r1).toContain('Dispatch all three reviewers of the effort profile quick now in ONE message');
    for (const r of QUICK) expect(r1).toMatch(new RegExp(`^- ${agentType(r)} \\(model: "sonnet"\\) → /\\S+/${reviewerFile(1, r).replace(/[.]/g, '\\.')}$`, 'm'));
    expect(r1).not.toContain('minions:pedant');
    expect(r1).not.toContain('minions:silent-failure-hunter');
    expect(loop.state()).toMatchObject({ maxIterations: 4, effort: { profile: 'quick', reviewers: QUICK } });

    // Outside the profile: refused, naming the reviewers to dispatch instead.
    const pedant = await loop.dispatch(agentType('pedant'), { model: 'sonnet' });
    expect(denyReason(pedant)).toContain("minions:pedant is not part of this loop's effort profile (quick: critic, witness, security-reviewer). Dispatch minions:critic, minions:witness, minions:security-reviewer instead");
    // No model (the session's would run), or another one: refused, naming the one to use.
    expect(denyReason(await loop.dispatch(agentType('critic')))).toContain('names no model');
    const haiku = await loop.dispatch(agentType('critic'), { model: 'haiku' });
    expect(denyReason(haiku)).toContain('names model "haiku". Dispatch it again with model: "sonnet".');
    expect(loop.state().iterations[0].r1.reviewers.critic).toMatchObject({ status: 'pending', dispatches: 0 });

    const dispatches = await Promise.all(QUICK.map((r) => loop.dispatch(agentType(r), { model: 'sonnet' })));
    expect(dispatches.map((d) => d.stdout)).toEqual([null, null, null]);
    for (const r of QUICK) loop.writeReview(1, r, cleanReview(r));

    // Two of three in: no verdict yet.
    await loop.reviewersStop(['critic', 'witness']);
    expect(loop.dir.exists(verdictFile(1))).toBe(false);
    const last = await loop.reviewerStop('security-reviewer');
    expect(messages([last]).some((l) => / → DONE$/.test(l))).toBe(true);
    const verdict = loop.dir.readJson(verdictFile(1)) as { overall_verdict: string; reviewers: Record<Reviewer, { status: string }> };
    expect(verdict.overall_verdict).toBe('clean');
    expect(verdict.reviewers.pedant.status).toBe('not_run');
    expect(verdict.reviewers['silent-failure-hunter'].status).toBe('not_run');
    expect(verdict.reviewers.critic.status).toBe('valid');
    expect(loop.dir.read('.agents/tmp/phases/review-1/REVIEW.md')).toContain('| pedant | not run (not in the effort profile) |');
    expect(loop.state().currentPhase).toBe('DONE');

    const status = await runCli(['status'], { cwd: loop.root });
    expect(status.stdout).toContain('Profile: effort quick: critic, witness, security-reviewer (sonnet).');
    const json = JSON.parse((await runCli(['status', '--json'], { cwd: loop.root })).stdout) as { effort: { profile: string; reviewers: string[] } };
    expect(json.effort).toMatchObject({ profile: 'quick', reviewers: QUICK });
  });

  it('.minions.json gives the profile and a model per agent; --max-iterations beats the profile budget', async () => {
    const loop = new Loop(projectTestdir());
    loop.dir.write('.minions.json', JSON.stringify({ effort: 'quick', models: { critic: 'haiku' } }));
    const start = await loop.start('--max-iterations 2 check the cart');
    const r1 = additionalContext(start)!;
    expect(r1).toMatch(/^- minions:critic \(model: "haiku"\) → /m);
    expect(r1).toMatch(/^- minions:witness \(model: "sonnet"\) → /m);
    expect(loop.state()).toMatchObject({ maxIterations: 2, effort: { profile: 'quick', models: { critic: 'haiku', witness: 'sonnet' } } });
    expect(denyReason(await loop.dispatch(agentType('critic'), { model: 'sonnet' }))).toContain('Dispatch it again with model: "haiku".');
    expect((await loop.dispatch(agentType('critic'), { model: 'haiku' })).stdout).toBeNull();
  });

  it('a bad --effort or .minions.json effort is refused with the reason, and no loop starts', async () => {
    const loop = new Loop(projectTestdir());
    const flag = await loop.start('--effort fast x');
    expect(JSON.stringify(flag.stdout)).toContain('--effort must be one of quick, standard, deep, not \\"fast\\"');
    expect(loop.hasState()).toBe(false);
    loop.dir.write('.minions.json', JSON.stringify({ models: { critic: 'gpt' } }));
    const config = await loop.start('x');
    expect(JSON.stringify(config.stdout)).toContain('\\"models.critic\\" must be one of inherit, haiku, sonnet, opus, not \\"gpt\\"');
    expect(loop.hasState()).toBe(false);
  });
});
