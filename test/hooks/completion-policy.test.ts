/**
 * The completion policy through the built hooks, in temp git repos: --min-confidence keeps a doubtful
 * finding out of the fixer's list (REVIEW.md lists it under its own heading), --done-when ends a round
 * whose open findings are all below the level DONE at once, and the flags and .minions.json keys are
 * validated with messages that name the allowed values.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Loop, projectTestdir } from '../helpers/loop';
import { cleanReview, findingsFile, issue, issueAt, reviewWithIssues, verdictFile, REVIEWERS, type Issue, type Reviewer } from '../helpers/reviews';
import { removeTestdirs } from '../helpers/testdir';

afterAll(removeTestdirs);

const reviewMd = (n: number): string => `.agents/tmp/phases/review-${n}/REVIEW.md`;
type Scored = Issue & { confidence?: unknown };
const reviews = (findings: Partial<Record<Reviewer, Scored[]>>) => Object.fromEntries(REVIEWERS.map((r) => [r, findings[r] ? reviewWithIssues(r, findings[r]) : cleanReview(r)]));

describe.concurrent('the completion policy in the hooks', () => {
  it('a finding below --min-confidence is not in the fixer\'s list; REVIEW.md lists it under its heading; a second reviewer lifts one', async () => {
    const loop = new Loop(projectTestdir());
    await loop.start('--min-confidence 70 --done-when info review the cart');
    expect(loop.state().rules).toMatchObject({ minConfidence: 70, doneWhen: 'info' });
    const doubtful = issueAt('src/cart.ts', 2, { category: 'naming', description: 'the export name hides what it does', confidence: '40%' } as Partial<Scored>);
    const lifted = issueAt('src/cart.ts', 3, { category: 'types', description: 'total may be fractional', confidence: 55 } as Partial<Scored>);
    await loop.reviewRound(1, reviews({ critic: [{ ...issue(), confidence: 0.9 }, lifted], pedant: [doubtful, lifted] }));
    const verdict = loop.dir.readJson(verdictFile(1));
    expect(verdict.next).toBe('R2');
    const held = verdict.findings.filter((f: { held: string | null }) => f.held === 'confidence');
    expect(held.map((f: { description: string; confidence: number }) => [f.description, f.confidence])).toEqual([['the export name hides what it does', 40]]);
    const sent = loop.dir.readJson(findingsFile(1)).findings as { fingerprint: string; description: string; optional?: boolean }[];
    expect(sent.map((f) => f.description).sort()).toEqual(['the loop reads one item past the end', 'total may be fractional']);
    expect(sent.some((f) => f.optional)).toBe(false);
    const md = loop.dir.read(reviewMd(1));
    const [table, below] = md.split('## Below the confidence threshold');
    expect(below).toContain('the export name hides what it does');
    expect(table).not.toContain('the export name hides what it does');
  });

  it('--done-when warning: a round whose open findings are all info ends DONE at once, with no fix round', async () => {
    const loop = new Loop(projectTestdir());
    await loop.start('--done-when warning review the cart');
    const nit = issueAt('src/cart.ts', 2, { severity: 'info', category: 'naming', description: 'the export name hides what it does' });
    const { stops } = await loop.reviewRound(1, reviews({ pedant: [nit] }));
    const state = loop.state();
    expect(state).toMatchObject({ currentPhase: 'DONE', status: 'done', iteration: 1 });
    // The closing line says plainly that something is still listed, and why it did not block.
    const closing = [...stops, await loop.stop()].map((r) => r.stdout?.systemMessage ?? '').find((m) => m.includes('DONE —'));
    expect(closing).toContain('minions: DONE — review 1/5 found nothing that blocks DONE; still listed in REVIEW.md: 1 finding below --done-when warning. Reviews: ');
    const verdict = loop.dir.readJson(verdictFile(1));
    expect(verdict).toMatchObject({ next: 'DONE', total_issues: 0, overall_verdict: 'clean' });
    expect(verdict.findings).toEqual([expect.objectContaining({ severity: 'info', held: 'level', toFixer: false })]);
    expect(loop.dir.exists(findingsFile(1))).toBe(false);
    expect(loop.dir.read(reviewMd(1))).toContain('BELOW --done-when: not blocking');
    expect(loop.dir.read('.agents/tmp/phases/REPORT.md')).toContain('**Completion policy:** open critical and warning findings block DONE, lower ones are reported (--done-when warning)');
  });

  it('--done-when critical with a critical open: the fixer also gets the warning, marked optional', async () => {
    const loop = new Loop(projectTestdir());
    await loop.start('--done-when critical review the cart');
    const warning = issueAt('src/cart.ts', 2, { category: 'naming', description: 'the export name hides what it does' });
    await loop.reviewRound(1, reviews({ critic: [issue({ severity: 'critical' })], pedant: [warning] }));
    expect(loop.state().currentPhase).toBe('R2');
    const sent = loop.dir.readJson(findingsFile(1)).findings as { severity: string; optional?: boolean }[];
    expect(sent.map((f) => [f.severity, f.optional ?? false])).toEqual([
      ['critical', false],
      ['warning', true],
    ]);
    expect(loop.state().iterations[0].verdict.open).toHaveLength(1);
  });

  it('the defaults, and .minions.json under a flag', async () => {
    const plain = new Loop(projectTestdir());
    await plain.start('review the cart');
    expect(plain.state().rules).toMatchObject({ doneWhen: 'warning', minConfidence: 80 });
    const dir = projectTestdir();
    dir.write('.minions.json', JSON.stringify({ doneWhen: 'info', minConfidence: 30 }));
    const configured = new Loop(dir);
    await configured.start('--min-confidence 90 review the cart');
    expect(configured.state().rules).toMatchObject({ doneWhen: 'info', minConfidence: 90 });
  });

  it.each([
    ['--done-when warn x', 'minions: --done-when must be one of critical, warning, info, not "warn"'],
    ['--done-when', 'minions: --done-when needs one of critical, warning, info'],
    ['--min-confidence 150 x', 'minions: --min-confidence must be a whole number from 0 to 100, not "150"'],
    ['--min-confidence 0.8 x', 'minions: --min-confidence must be a whole number from 0 to 100, not "0.8"'],
  ])('`/minions:review %s` is refused, naming the allowed values', async (args, problem) => {
    const loop = new Loop(projectTestdir());
    const r = await loop.prompt(`/minions:review ${args}`);
    expect(r.stdout?.decision).toBe('block');
    expect(r.stdout?.reason).toContain(`${problem}. Usage: /minions:review`);
    expect(loop.dir.exists('.agents')).toBe(false);
  });

  it.each([
    [{ doneWhen: 'high' }, '"doneWhen" must be one of "critical", "warning", "info", not "high"'],
    [{ minConfidence: -1 }, '"minConfidence" must be a whole number from 0 to 100, not -1'],
    [{ min_confidence: 50 }, 'unknown key "min_confidence" (did you mean "minConfidence"?)'],
  ])('.minions.json %j refuses the command, naming the key and the allowed values', async (config, problem) => {
    const dir = projectTestdir();
    dir.write('.minions.json', JSON.stringify(config));
    const loop = new Loop(dir);
    const r = await loop.start('the cart');
    expect(r.stdout?.decision).toBe('block');
    expect(r.stdout?.reason).toContain(`minions: .minions.json is not valid: ${problem}`);
    expect(dir.exists('.agents')).toBe(false);
  });
});
