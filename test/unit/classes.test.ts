/** Finding classes and seed 003's escalation ladder, in the aggregation: pure tables. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REVIEWERS, type Reviewer } from '../../src/protocol/agents';
import { DEFAULT_RULES } from '../../src/protocol/stop-rules';
import { aggregateRound, type RoundInput } from '../../src/review/aggregate';
import { classShape, classify, sameClass, type FixRound } from '../../src/review/classes';
import type { Sources } from '../../src/review/grounding';
import type { Diagnosis, Finding } from '../../src/protocol/reviewer-output';
import type { MergedFinding, Verdict } from '../../src/protocol/verdict-schema';
import { NOW } from './builders';

// The same swallowed error copied into three loaders, and an unrelated off-by-one.
const loader = (name: string, fallback: string) =>
  [`export function ${name}(path) {`, '  try {', '    return JSON.parse(readFileSync(path, "utf8"));', '  } catch (err) {', `    return ${fallback};`, '  }', '}', ''].join('\n');
const sources: Sources = {
  'src/config.js': { kind: 'file', text: loader('loadConfig', '{}') },
  'src/users.js': { kind: 'file', text: loader('loadUsers', '{}') },
  'src/plans.js': { kind: 'file', text: loader('loadPlans', '{}') },
  'src/cart.js': { kind: 'file', text: 'export function total(cart) {\n  for (let i = 1; i < cart.length; i++) sum += cart[i];\n}\n' },
};
const swallowed = (file: string, over: Partial<Finding> = {}): Finding => ({
  severity: 'warning', category: 'swallowed-error', file, line: 4, description: `${file} hides read errors`,
  evidence: '  } catch (err) {\n    return {};\n  }', suggestion: 'rethrow all but ENOENT', ...over,
});
const offByOne: Finding = { severity: 'critical', category: 'off-by-one', file: 'src/cart.js', line: 2, description: 'skips the first line', evidence: 'for (let i = 1; i < cart.length; i++)', suggestion: 'start at 0' };

function review(issues: Finding[], diagnosis: Diagnosis[] = []): string {
  const count = (s: Finding['severity']) => issues.filter((i) => i.severity === s).length;
  return JSON.stringify({ issues, diagnosis, summary: { critical: count('critical'), warning: count('warning'), info: count('info'), verdict: issues.length ? 'issues_found' : 'clean' } });
}
function round(iteration: number, reports: Partial<Record<Reviewer, string>>, history: Verdict[] = [], over: Partial<RoundInput> = {}): Verdict {
  const reviews = Object.fromEntries(REVIEWERS.map((r) => [r, { text: reports[r] ?? review([]), valid: true, error: null }])) as RoundInput['reviews'];
  return aggregateRound({ iteration, maxIterations: 5, task: 't', now: NOW, rules: DEFAULT_RULES, reviews, sources, history, declines: {}, ...over });
}
const fixed = (v: Verdict, kind: 'patch' | 'structural' = 'patch'): FixRound => ({
  iteration: v.iteration,
  fixes: v.findings.filter((f) => f.toFixer).map((f) => ({ fingerprint: f.fingerprint, status: 'fixed', kind })),
});

describe('one class: the same pattern in the same category family', () => {
  const finding = (category: string, identity: string) => ({ category, identity });
  it.each([
    ['the same copied code in two files', finding('error-handling', "}catch(err){return{};}"), finding('error-handling', "}catch(err){return{};}"), true],
    ['the same mistake with other literals', finding('correctness', "row.get('revenue').as(12)"), finding('correctness', "row.get('permno').as(7)"), true],
    ['the same code in another category family', finding('error-handling', "}catch(err){return{};}"), finding('design', "}catch(err){return{};}"), false],
    ['other code', finding('error-handling', "}catch(err){return{};}"), finding('error-handling', "}catch(e){log(e);returnnull;}"), false],
    ['a pattern too short to mean anything', finding('correctness', 'returnx;'), finding('correctness', 'returnx;'), false],
  ])('%s', (_, a, b, same) => {
    expect(sameClass(a, b)).toBe(same);
  });

  it('the shape masks quoted literals and numbers only', () => {
    expect(classShape("a.get('x').at(12)")).toBe("a.get('').at(#)");
  });
});

describe('classes in the verdict', () => {
  it('round 1: two copies of one mistake are one class of two; an unrelated finding is its own class', () => {
    const v = round(1, { 'silent-failure-hunter': review([swallowed('src/config.js'), swallowed('src/users.js')]), critic: review([offByOne]) });
    const open = v.findings.filter((f) => f.toFixer);
    expect(open).toHaveLength(3);
    const copies = open.filter((f) => f.file !== 'src/cart.js');
    expect(copies[0]!.class).toBe(copies[1]!.class);
    expect(v.classes).toEqual([
      expect.objectContaining({ fingerprints: [open.find((f) => f.file === 'src/cart.js')!.fingerprint], rung: 'new' }),
      { id: copies[0]!.class, category: 'error-handling', fingerprints: copies.map((f) => f.fingerprint), sites: ['src/config.js:4', 'src/users.js:4'], rung: 'new', attempts: [] },
    ]);
    expect(v.classes.find((c) => c.category === 'correctness')!.id).toBe(open.find((f) => f.file === 'src/cart.js')!.fingerprint);
  });

  it('round 2: another copy found after the fix of the first is the same class coming back (audit), with the attempt and its answers', () => {
    const v1 = round(1, { 'silent-failure-hunter': review([swallowed('src/config.js')]) });
    const v2 = round(2, { pedant: review([swallowed('src/users.js', { description: 'loadUsers hides read errors' })]) }, [v1], { fixes: [fixed(v1)] });
    const [f1] = v1.findings;
    const [f2] = v2.findings;
    expect(f2!.status).toBe('NEW'); // another site: a new finding …
    expect(f2!.class).toBe(f1!.class); // … of the class the fixer was given
    expect(v2.classes).toEqual([
      {
        id: f1!.class,
        category: 'error-handling',
        fingerprints: [f2!.fingerprint],
        sites: ['src/users.js:4'],
        rung: 'audit',
        attempts: [{ iteration: 1, fingerprints: [f1!.fingerprint], sites: ['src/config.js:4'], answers: [{ fingerprint: f1!.fingerprint, status: 'fixed', kind: 'patch', reason: null }] }],
      },
    ]);
    expect(v2.next).toBe('R2');
  });

  it('round 3: open after two fix rounds is the escalate rung, and the loop stops even without an escalation on file', () => {
    const v1 = round(1, { 'silent-failure-hunter': review([swallowed('src/config.js')]) });
    const v2 = round(2, { 'silent-failure-hunter': review([swallowed('src/users.js')]) }, [v1], { fixes: [fixed(v1)] });
    const v3 = round(3, { 'silent-failure-hunter': review([swallowed('src/plans.js')]) }, [v1, v2], { fixes: [fixed(v1), fixed(v2, 'structural')] });
    expect(v3.classes).toEqual([expect.objectContaining({ id: v1.findings[0]!.class, rung: 'escalate', sites: ['src/plans.js:4'] })]);
    expect(v3.classes[0]!.attempts.map((a) => [a.iteration, a.answers[0]!.kind])).toEqual([[1, 'patch'], [2, 'structural']]);
    expect(v3.escalations).toEqual([expect.objectContaining({ class: v1.findings[0]!.class, reason: 'repeated', open: true, diagnosis: null, attempts: [1, 2] })]);
    expect([v3.next, v3.stopReason]).toEqual(['STOPPED', 'stuck_issue']);
    expect(v3.stopDetail).toMatch(/^finding class [0-9a-f]{12} \(error-handling: src\/plans\.js:4\) is still open after fix rounds 1 and 2; the critic gave no structural diagnosis$/);
  });

  it('a class that was not open in the previous round starts again at new', () => {
    const v1 = round(1, { 'silent-failure-hunter': review([swallowed('src/config.js')]) });
    const v2 = round(2, { critic: review([offByOne]) }, [v1], { fixes: [fixed(v1)] });
    const v3 = round(3, { 'silent-failure-hunter': review([swallowed('src/users.js')]) }, [v1, v2], { fixes: [fixed(v1), fixed(v2)] });
    expect(v3.classes.map((c) => c.rung)).toEqual(['new']);
    expect(v3.next).toBe('R2');
  });

  it('a round in which the fixer declined every member is no fix attempt: the class stays new, the declines lead to CONTESTED', () => {
    const declined = (v: Verdict): FixRound => ({ iteration: v.iteration, fixes: v.findings.filter((f) => f.toFixer).map((f) => ({ fingerprint: f.fingerprint, status: 'declined', reason: 'house style' })) });
    const v1 = round(1, { 'silent-failure-hunter': review([swallowed('src/config.js')]) });
    const v2 = round(2, { 'silent-failure-hunter': review([swallowed('src/config.js')]) }, [v1], { fixes: [declined(v1)] });
    expect(v2.classes.map((c) => [c.rung, c.attempts.length])).toEqual([['new', 0]]);
    const v3 = round(3, { 'silent-failure-hunter': review([swallowed('src/users.js')]) }, [v1, v2], { fixes: [declined(v1), fixed(v2)] });
    expect(v3.classes.map((c) => [c.rung, c.attempts.map((a) => a.iteration)])).toEqual([['audit', [2]]]);
  });
});

describe('an escalated round ends with the critic’s diagnosis, never silently', () => {
  const diagnosis: Diagnosis = { class: '', rootCause: 'every loader copies the catch', fix: 'one readJsonFile(path, fallback) for all loaders', recommend: 'structural' };
  /** Rounds 1 and 2 of the copied catch, each given to the fixer. */
  function twoRounds() {
    const v1 = round(1, { 'silent-failure-hunter': review([swallowed('src/config.js')]) });
    const v2 = round(2, { 'silent-failure-hunter': review([swallowed('src/users.js')]) }, [v1], { fixes: [fixed(v1)] });
    return { v1, v2, id: v1.findings[0]!.class, fixes: [fixed(v1), fixed(v2)] };
  }

  it('still open: STOPPED as stuck_issue with the critic’s diagnosis in the verdict and the detail', () => {
    const { v1, v2, id, fixes } = twoRounds();
    const v3 = round(3, { critic: review([swallowed('src/plans.js')], [{ ...diagnosis, class: id }]) }, [v1, v2], { fixes, escalated: [{ class: id, reason: 'repeated' }] });
    expect(v3.escalations).toEqual([{ class: id, reason: 'repeated', category: 'error-handling', sites: ['src/plans.js:4'], attempts: [1, 2], fixerReason: null, open: true, diagnosis: { ...diagnosis, class: id } }]);
    expect(v3).toMatchObject({ next: 'STOPPED', stopReason: 'stuck_issue' });
    expect(v3.stopDetail).toBe(
      `finding class ${id} (error-handling: src/plans.js:4) is still open after fix rounds 1 and 2; structural diagnosis (critic): every loader copies the catch — recommended structural fix: one readJsonFile(path, fallback) for all loaders`,
    );
  });

  it('gone in the escalated round: no stop, the loop goes on (here DONE)', () => {
    const { v1, v2, id, fixes } = twoRounds();
    const v3 = round(3, { critic: review([], [{ ...diagnosis, class: id }]) }, [v1, v2], { fixes, escalated: [{ class: id, reason: 'repeated' }] });
    expect(v3.escalations).toEqual([expect.objectContaining({ class: id, open: false })]);
    expect([v3.next, v3.stopReason]).toEqual(['DONE', null]);
  });

  it('the fixer escalated: STOPPED even when the next review is clean, with the fixer’s reason', () => {
    const v1 = round(1, { 'silent-failure-hunter': review([swallowed('src/config.js')]) });
    const id = v1.findings[0]!.class;
    const escalate: FixRound = { iteration: 1, fixes: [{ fingerprint: v1.findings[0]!.fingerprint, status: 'escalate', reason: 'same root cause, no new fix' }] };
    const v2 = round(2, { critic: review([], [{ ...diagnosis, class: id }]) }, [v1], { fixes: [escalate], escalated: [{ class: id, reason: 'fixer_escalated' }] });
    expect(v2.overall_verdict).toBe('clean');
    expect(v2.escalations).toEqual([expect.objectContaining({ reason: 'fixer_escalated', open: false, fixerReason: 'same root cause, no new fix', sites: ['src/config.js:4'], attempts: [1] })]);
    expect([v2.next, v2.stopReason]).toEqual(['STOPPED', 'stuck_issue']);
    expect(v2.stopDetail).toMatch(/^the fixer escalated finding class [0-9a-f]{12} \(error-handling: src\/config\.js:4\) in fix round 1 \("same root cause, no new fix"\); the review no longer reports it, but nothing fixed it; structural diagnosis \(critic\): every loader copies the catch/);
  });

  it.each([
    ['the critic named another id but gave the only diagnosis', 'critic', 'not-the-id', true],
    ['the diagnosis came from another reviewer', 'pedant', 'ID', false],
  ] as const)('%s', (_, reviewer, named, used) => {
    const { v1, v2, id, fixes } = twoRounds();
    const v3 = round(3, { [reviewer]: review([swallowed('src/plans.js')], [{ ...diagnosis, class: named === 'ID' ? id : named }]) }, [v1, v2], { fixes, escalated: [{ class: id, reason: 'repeated' }] });
    expect(v3.escalations[0]!.diagnosis !== null).toBe(used);
    expect(v3.stopReason).toBe('stuck_issue');
  });
});

describe('classShape', () => {
  it("skips the quote pass only where there is no quote: the same shape as both passes, for any identity", () => {
    const identity = fc.string({ unit: fc.constantFrom("'", 'a', '1', '23', '(', ')', '.', '#', '"'), maxLength: 24 });
    fc.assert(
      fc.property(identity, (text) => {
        expect(classShape(text)).toBe(text.replace(/'[^']*'/g, "''").replace(/\d+/g, '#'));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('classify', () => {
  // Findings of a few categories and identities, some open; `was` names the previous round's open finding a fingerprint continues.
  const finding = (i: number, category: string, identity: string, open: boolean): MergedFinding =>
    ({ fingerprint: `fp${i}`, category, identity, toFixer: open, file: `f${i}.ts`, line: i + 1, class: '' }) as MergedFinding;
  const arbitrary = fc.array(fc.record({ category: fc.constantFrom('correctness', 'design'), identity: fc.constantFrom('return x;', "row.get('a').as(1);", "row.get('b').as(2);", 'for(leti=1;i<n;i++)sum+=a[i];', 'try{x()}catch(e){}', 'q'), open: fc.boolean(), was: fc.option(fc.nat(3), { nil: undefined }) }), { maxLength: 12 });

  it('groups the open findings that are one class, by the pairwise rule: the same pattern, or the class an earlier finding of theirs had', () => {
    fc.assert(
      fc.property(arbitrary, (specs) => {
        const findings = specs.map((s, i) => finding(i, s.category, s.identity, s.open));
        // The previous round: one open finding per earlier class, under the fingerprint the finding continues.
        const previous = specs.flatMap((s, i) => (s.was === undefined ? [] : [{ ...finding(100 + i, 'docs', 'zzzzzzzzzzzzzzzzzz' + i, true), fingerprint: `fp${i}`, class: `class${s.was}` }]));
        const history = [{ iteration: 1, findings: previous } as unknown as Verdict];
        const { classes } = classify(findings, history, [], 2);
        const open = findings.filter((f) => f.toFixer);
        const inherited = (f: MergedFinding) => previous.find((p) => p.fingerprint === f.fingerprint)?.class ?? null;
        // Connected by the pairwise relations, transitively.
        const linked = (a: MergedFinding, b: MergedFinding) => sameClass(a, b) || (inherited(a) !== null && inherited(a) === inherited(b));
        const groupOf = (f: MergedFinding): Set<MergedFinding> => {
          const group = new Set([f]);
          for (let grew = true; grew; ) {
            grew = false;
            for (const g of open) if (!group.has(g) && [...group].some((h) => linked(g, h))) grew = group.add(g) !== undefined;
          }
          return group;
        };
        expect(classes.map((c) => c.fingerprints.length).reduce((a, b) => a + b, 0)).toBe(open.length);
        for (const c of classes) {
          const members = open.filter((f) => c.fingerprints.includes(f.fingerprint));
          expect(new Set(members)).toEqual(groupOf(members[0]!));
          // Every member carries the class's name; a class of new findings is named after its first.
          for (const f of members) expect(f.class).toBe(c.id);
          if (members.every((f) => inherited(f) === null)) expect(c.id).toBe(members[0]!.fingerprint);
          else expect(members.map(inherited)).toContain(c.id);
        }
        for (const f of findings) if (!f.toFixer) expect(f.class).toBe('');
      }),
      { numRuns: 500 },
    );
  });
});
