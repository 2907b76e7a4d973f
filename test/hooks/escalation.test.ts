/**
 * Seed 003's escalation ladder through the built hooks, over three rounds: two copies of one mistake go to
 * the fixer as one class; the class back after a fix round gets an audit-first round (with the earlier
 * attempts' files, and a pattern the fixer must report); back again, the critic gets its history and the
 * loop stops as stuck_issue with the critic's diagnosis. An escalate answer skips to the critic.
 */
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { Loop, additionalContext, blockReason, messages } from '../helpers/loop';
import { FIXER, REVIEWERS, cleanReview, findingsFile, fixAnswersFile, fixSummaryFile, verdictFile, type Issue, type Reviewer } from '../helpers/reviews';
import { removeTestdirs, testdir } from '../helpers/testdir';

afterAll(removeTestdirs);

const SENTENCE = 'Prices are in euros and include tax.';
/** The same wrong sentence, copied into three documents of the change. */
const project = () =>
  testdir(
    { 'README.md': '# shop\n', 'docs/guide.md': '# Guide\n', 'docs/faq.md': '# FAQ\n', 'src/price.ts': 'export const cents = (n: number) => n;\n' },
    { uncommitted: { 'README.md': `# shop\n\n${SENTENCE}\n`, 'docs/guide.md': `# Guide\n${SENTENCE}\n`, 'docs/faq.md': `# FAQ\n\nSee the guide.\n${SENTENCE}\n` } },
  );
const copyAt = (file: string, line: number): Issue => ({
  severity: 'warning', category: 'docs-lie', file, line, description: `${file} says euros with tax; the code works in cents without tax`, evidence: SENTENCE, suggestion: 'say: prices are in cents, without tax',
});
const ESCALATION = (n: number) => `.agents/tmp/phases/review-${n}/escalation.json`;

function reviews(findings: Partial<Record<Reviewer, Issue[]>>, diagnosis?: object[]): Record<Reviewer, object> {
  return Object.fromEntries(
    REVIEWERS.map((r) => {
      const issues = findings[r] ?? [];
      const review = issues.length ? { reviewer: r, issues, summary: { critical: 0, warning: issues.length, info: 0, verdict: 'issues_found' } } : cleanReview(r);
      return [r, r === 'critic' && diagnosis ? { ...review, diagnosis } : review];
    }),
  ) as Record<Reviewer, object>;
}
const review = async (loop: Loop, n: number, findings: Partial<Record<Reviewer, Issue[]>>, diagnosis?: object[]) => {
  const { stops } = await loop.reviewRound(n, reviews(findings, diagnosis) as never);
  return { verdict: loop.dir.readJson(verdictFile(n)), lines: messages(stops) };
};

/** Three rounds of five reviewer processes each: generous, so a loaded machine does not fail it. */
const LONG = 600_000;

describe('the escalation ladder across three rounds', () => {
  it('one class in round 1, audit-first in round 2, the critic’s diagnosis and stuck_issue in round 3', async () => {
    const loop = new Loop(project());
    await loop.start('--max-iterations 5 check the docs against the code');
    const root = fs.realpathSync(loop.root);

    // Round 1: two copies of the sentence are one class, to fix together.
    const { verdict: v1 } = await review(loop, 1, { pedant: [copyAt('README.md', 3), copyAt('docs/guide.md', 2)] });
    expect(v1.next).toBe('R2');
    const brief1 = loop.dir.readJson(findingsFile(1));
    const id = brief1.findings[0].class;
    expect(brief1.findings.map((f: { class: string }) => f.class)).toEqual([id, id]);
    expect(brief1.classes).toEqual([{ class: id, category: 'docs', fingerprints: brief1.findings.map((f: { fingerprint: string }) => f.fingerprint), sites: ['README.md:3', 'docs/guide.md:2'], instruction: 'fix_together', attempts: [] }]);
    const r2 = additionalContext(await loop.stop())!;
    expect(r2).toContain(`Findings of one class (one defect pattern at several sites) are grouped under "classes" in the findings file: fix each class together, in one change that covers every site (${id}: README.md:3, docs/guide.md:2).`);
    expect(r2).not.toContain('Audit first');

    // The fixer fixes both sites it was given, and misses the third copy.
    await loop.dispatch(FIXER);
    loop.dir.write('README.md', '# shop\n\nPrices are in cents, without tax.\n');
    loop.dir.write('docs/guide.md', '# Guide\nPrices are in cents, without tax.\n');
    loop.writeFixSummary(1);
    expect(loop.dir.readJson(fixAnswersFile(1)).fixes.map((f: { kind: string }) => f.kind)).toEqual(['patch', 'patch']);
    await loop.fixerStop();
    expect(loop.dir.exists(ESCALATION(2))).toBe(false);

    // Round 2: the third copy is a new finding of the same class: audit-first, with the first attempt's files.
    const { verdict: v2 } = await review(loop, 2, { critic: [copyAt('docs/faq.md', 4)] });
    expect(v2.findings).toEqual([expect.objectContaining({ file: 'docs/faq.md', status: 'NEW', class: id })]);
    expect(v2.classes).toEqual([expect.objectContaining({ id, rung: 'audit', sites: ['docs/faq.md:4'], attempts: [expect.objectContaining({ iteration: 1, sites: ['README.md:3', 'docs/guide.md:2'] })] })]);
    expect(v2.next).toBe('R2');
    const brief2 = loop.dir.readJson(findingsFile(2));
    expect(brief2.classes).toEqual([
      expect.objectContaining({
        class: id,
        instruction: 'audit_first',
        attempts: [expect.objectContaining({ iteration: 1, files: { summary: `${root}/${fixSummaryFile(1)}`, answers: `${root}/${fixAnswersFile(1)}`, delta: `${root}/.agents/tmp/phases/review-2/fix-delta.patch` } })],
      }),
    ]);
    const audit = additionalContext(await loop.stop())!;
    expect(audit).toContain(
      `Audit first — class ${id} (docs: docs/faq.md:4) is back after fix round 1: scan every similar site in the project in one pass; report the pattern before patching`,
    );
    expect(audit).toContain(`read the earlier attempts and their outcomes first: ${root}/${fixSummaryFile(1)}, ${root}/${fixAnswersFile(1)}, ${root}/.agents/tmp/phases/review-2/fix-delta.patch.`);

    // The fixer answers without reporting the pattern: sent back once, naming the class.
    await loop.dispatch(FIXER);
    loop.writeFixSummary(2, { patterns: [] });
    const sentBack = await loop.fixerStop();
    expect(blockReason(sentBack)).toContain(`r2-fix-summary.json has no "patterns" entry for the audit-first class ${id}`);
    expect(loop.state().currentPhase).toBe('R2');
    // It reports the pattern, and (wrongly) claims a structural fix it did not make.
    const pattern = { class: id, pattern: 'the euros-with-tax sentence copied into every document', sites: ['docs/faq.md:4'] };
    loop.writeFixSummary(2, { patterns: [pattern], answers: loop.openFingerprints(2).map((fingerprint) => ({ fingerprint, status: 'fixed', kind: 'structural' })) });
    const fixed = await loop.fixerStop();
    expect(messages([fixed])).toEqual([
      'minions: fix round 2 done (1 fixed) → R1, Iteration 3/5',
      `minions: finding class ${id} back after two fix rounds → the critic of review 3 gives a structural diagnosis; if the class is still there, the loop stops and asks you: structural, patch or halt`,
    ]);

    // Round 3's critic is given the class's whole history.
    const escalation = loop.dir.readJson(ESCALATION(3));
    expect(escalation.classes).toEqual([
      expect.objectContaining({
        class: id,
        reason: 'repeated',
        category: 'docs',
        findings: [expect.objectContaining({ file: 'docs/faq.md', line: 4, evidence: SENTENCE })],
        pattern,
        attempts: [
          expect.objectContaining({ iteration: 1, sites: ['README.md:3', 'docs/guide.md:2'], answers: [expect.objectContaining({ status: 'fixed', kind: 'patch' }), expect.objectContaining({ kind: 'patch' })], outcome: 'still open at the next review' }),
          expect.objectContaining({ iteration: 2, sites: ['docs/faq.md:4'], answers: [expect.objectContaining({ status: 'fixed', kind: 'structural' })], outcome: 'this review decides' }),
        ],
      }),
    ]);
    const r1 = additionalContext(await loop.stop())!;
    expect(r1).toContain(`Escalation — for minions:critic only: ${root}/${ESCALATION(3)} holds the full history of 1 finding class: ${id} (two fix rounds did not remove).`);

    // Round 3: still there; the critic diagnoses it; the loop stops with the diagnosis, not another fix round.
    const diagnosis = { class: id, rootCause: 'the sentence was copied into each document; each round fixed the copies it was shown', fix: 'state prices once in README.md and link to it from the guide and the FAQ', recommend: 'structural' };
    const { verdict: v3, lines } = await review(loop, 3, { critic: [copyAt('docs/faq.md', 4)] }, [diagnosis]);
    expect(v3).toMatchObject({ next: 'STOPPED', stopReason: 'stuck_issue', escalations: [{ class: id, reason: 'repeated', open: true, attempts: [1, 2], diagnosis }] });
    expect(v3.stopDetail).toBe(
      `finding class ${id} (docs: docs/faq.md:4) is still open after fix rounds 1 and 2; structural diagnosis (critic): ${diagnosis.rootCause} — recommended structural fix: ${diagnosis.fix}`,
    );
    expect(lines.find((l) => l.startsWith('minions: review 3/5: '))).toMatch(/→ STOPPED \(a finding is stuck\)$/);
    expect(loop.state()).toMatchObject({ status: 'stopped', stopReason: 'stuck_issue', stopDetail: v3.stopDetail });
    // The question it asks at Stop may start one more fix round: its findings file is written with the verdict.
    expect(loop.state().escalationChoice).toMatchObject({ choice: 'pending' });
    expect(loop.dir.exists(findingsFile(3))).toBe(true);
    const [outcome] = messages([await loop.stop()]);
    expect(outcome).toContain(`minions: STOPPED — a finding is stuck: finding class ${id} (docs: docs/faq.md:4) is still open after fix rounds 1 and 2; structural diagnosis (critic): ${diagnosis.rootCause}`);
  }, LONG);

  it('an escalate answer sends the class to the next critic, and a clean review after it still stops', async () => {
    const loop = new Loop(project());
    await loop.start('check the docs against the code');
    await review(loop, 1, { pedant: [copyAt('docs/faq.md', 4)] });
    await loop.dispatch(FIXER);
    const [fingerprint] = loop.openFingerprints(1);
    loop.writeFixSummary(1, { answers: [{ fingerprint: fingerprint!, status: 'escalate', reason: 'same root cause, no new fix: the sentence comes from a template I cannot see' }] });
    const stopped = await loop.fixerStop();
    const id = loop.dir.readJson(verdictFile(1)).findings[0].class;
    expect(messages([stopped])).toEqual([
      'minions: fix round 1 done (0 fixed, 1 escalated) → R1, Iteration 2/5',
      `minions: finding class ${id} escalated by the fixer → the critic of review 2 gives a structural diagnosis; then the loop stops and asks you: structural, patch or halt`,
    ]);
    expect(loop.dir.readJson(ESCALATION(2)).classes).toEqual([expect.objectContaining({ class: id, reason: 'fixer_escalated', attempts: [expect.objectContaining({ answers: [expect.objectContaining({ status: 'escalate' })] })] })]);
    expect(loop.state().iterations[1].escalated).toEqual([{ class: id, reason: 'fixer_escalated' }]);

    const diagnosis = { class: id, rootCause: 'the FAQ is generated from a template outside the project', fix: 'fix the template', recommend: 'structural' };
    const { verdict } = await review(loop, 2, {}, [diagnosis]);
    expect(verdict.overall_verdict).toBe('clean');
    expect(verdict).toMatchObject({ next: 'STOPPED', stopReason: 'stuck_issue', escalations: [expect.objectContaining({ reason: 'fixer_escalated', open: false, diagnosis })] });
    expect(verdict.stopDetail).toMatch(/the fixer escalated finding class [0-9a-f]{12} \(docs: docs\/faq\.md:4\) in fix round 1 \("same root cause, no new fix: the sentence comes from a template I cannot see"\); the review no longer reports it, but nothing fixed it; structural diagnosis \(critic\): the FAQ is generated/);
    // Nothing open, so no fix round to offer: no question, and the Stop ends it as before.
    expect(loop.state().escalationChoice).toBe(null);
    expect(messages([await loop.stop()])[0]).toMatch(/^minions: STOPPED — a finding is stuck: the fixer escalated/);
    expect(loop.dir.exists('.agents/tmp/state.json')).toBe(false);
  }, LONG);
});

/**
 * The escalation question through the built hooks: the fixer escalates the FAQ's sentence, review 2 still
 * finds it and the critic diagnoses it; the loop is STOPPED stuck_issue and asks, at Stop, for structural,
 * patch or halt, read from the user's next prompt.
 */
describe('the escalation question after the critic’s diagnosis', () => {
  const REPORT = '.agents/tmp/phases/REPORT.md';
  const STATE = '.agents/tmp/state.json';
  const diagnosisOf = (id: string) => ({ class: id, rootCause: 'the FAQ repeats the README', fix: 'state prices once in README.md and link to it', recommend: 'structural' });

  /** Up to the question shown at Stop; returns the loop and the class. */
  async function asked() {
    const loop = new Loop(project());
    await loop.start('check the docs against the code');
    await review(loop, 1, { pedant: [copyAt('docs/faq.md', 4)] });
    await loop.dispatch(FIXER);
    const [fingerprint] = loop.openFingerprints(1);
    loop.writeFixSummary(1, { answers: [{ fingerprint: fingerprint!, status: 'escalate', reason: 'same root cause, no new fix' }] });
    await loop.fixerStop();
    const id = loop.dir.readJson(verdictFile(1)).findings[0].class;
    const { verdict } = await review(loop, 2, { critic: [copyAt('docs/faq.md', 4)] }, [diagnosisOf(id)]);
    expect(verdict).toMatchObject({ next: 'STOPPED', stopReason: 'stuck_issue' });
    expect(loop.state()).toMatchObject({ status: 'stopped', stopReason: 'stuck_issue', escalationChoice: { choice: 'pending' } });
    // The fix round an answer may start has its findings file already.
    expect(loop.openFingerprints(2)).toHaveLength(1);
    expect(loop.dir.read(REPORT)).toContain("Escalation choice after the critic's diagnosis: asked when the session stops: type structural, patch or halt");
    const shown = [messages([await loop.stop()]).join('\n')];
    expect(shown[0]).toContain('minions: STOPPED — a finding is stuck');
    expect(shown[0]).toContain(`the critic diagnosed the stuck finding: Class ${id}: root cause: the FAQ repeats the README; fix: state prices once in README.md and link to it.`);
    expect(shown[0]).toContain('Type one word as your next prompt:');
    expect(loop.state().escalationChoice.choice).toBe('offered');
    return { loop, id };
  }

  it('structural: one more fix round with the diagnosis as the task, then one more review', async () => {
    const { loop, id } = await asked();
    const answered = await loop.prompt('structural');
    const context = additionalContext(answered)!;
    expect(context).toContain('[PHASE R2]');
    expect(context).toContain(`"Apply the root-level fix of the diagnosis, not another local patch: Class ${id}: root cause: the FAQ repeats the README`);
    expect(messages([answered])).toEqual(['minions: you chose the structural fix: one more fix round with the critic\'s diagnosis as its task → R2, Iteration 2/5']);
    expect(loop.state()).toMatchObject({ status: 'in_progress', currentPhase: 'R2', iteration: 2, stopReason: null, escalationChoice: { choice: 'structural' } });
    // The round runs as any fix round, and the next review follows.
    await loop.dispatch(FIXER);
    loop.dir.write('docs/faq.md', '# FAQ\n\nSee the guide. Prices: see README.md.\n');
    loop.writeFixSummary(2, { answers: loop.openFingerprints(2).map((fingerprint) => ({ fingerprint, status: 'fixed', kind: 'structural' })) });
    await loop.fixerStop();
    expect(loop.state()).toMatchObject({ status: 'in_progress', currentPhase: 'R1', iteration: 3 });
    const { verdict } = await review(loop, 3, {});
    expect(verdict.next).toBe('DONE');
    await loop.stop();
    expect(loop.dir.read(REPORT)).toContain("Escalation choice after the critic's diagnosis: structural — one more fix round with the diagnosis as its task");
  }, LONG);

  it('patch: one more fix round as usual', async () => {
    const { loop, id } = await asked();
    const context = additionalContext(await loop.prompt('patch'))!;
    expect(context).toContain('[PHASE R2]');
    expect(context).toContain("The user chose one more patch round after the critic's diagnosis");
    expect(context).not.toContain(`Class ${id}: root cause`);
    expect(loop.state()).toMatchObject({ status: 'in_progress', currentPhase: 'R2', escalationChoice: { choice: 'patch' } });
  }, LONG);

  it('halt: STOPPED stuck_issue as before, the choice in the state and REPORT.md', async () => {
    const { loop } = await asked();
    const answered = await loop.prompt('halt');
    expect(messages([answered])).toEqual(['minions: the loop stays STOPPED (a finding is stuck); REPORT.md records your choice.']);
    expect(loop.state()).toMatchObject({ status: 'stopped', stopReason: 'stuck_issue', escalationChoice: { choice: 'halt' } });
    expect(loop.dir.read(REPORT)).toContain("Escalation choice after the critic's diagnosis: halt — the loop stopped");
    expect(messages([await loop.stop()])[0]).toContain('minions: STOPPED — a finding is stuck');
    expect(loop.dir.exists(STATE)).toBe(false);
  }, LONG);

  it('a Stop without an answer ends it STOPPED stuck_issue: never trapped, the state retired', async () => {
    const { loop } = await asked();
    const second = await loop.stop();
    expect(blockReason(second)).toBeUndefined();
    expect(messages([second])).toEqual(['minions: no answer to the escalation question: the loop stays STOPPED (a finding is stuck).']);
    expect(loop.dir.read(REPORT)).toContain("Escalation choice after the critic's diagnosis: no answer — the loop stopped");
    expect(loop.dir.exists(STATE)).toBe(false);
    // A prompt after that is the user's, not an answer.
    expect(additionalContext(await loop.prompt('structural'))).toBeUndefined();
  }, LONG);
});
