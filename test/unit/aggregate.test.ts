import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REPORTERS, REVIEWERS, type Reviewer } from '../../src/protocol/agents';
import { DEFAULT_RULES as POLICY_RULES, LEGACY_POLICY } from '../../src/protocol/stop-rules';

/** Today's rule (every finding blocks DONE) for the tests of statuses, classes and stop rules; the completion policy has its own tests below. */
const DEFAULT_RULES = { ...POLICY_RULES, ...LEGACY_POLICY };
import { aggregateRound, identityOf, mergeCluster, type Reported, type RoundInput } from '../../src/review/aggregate';
import { fingerprintOf } from '../../src/review/fingerprint';
import { ground, type Sources } from '../../src/review/grounding';
import { decodeReading, encodeReading, type ReviewReading } from '../../src/review/reading';
import { parseReview } from '../../src/protocol/reviewer-output';
import type { Finding } from '../../src/protocol/reviewer-output';
import type { Verdict } from '../../src/protocol/verdict-schema';
import * as progress from '../../src/core/progress';
import { json } from '../../src/core/loop-state';
import { fixerBrief, verdictJson } from '../../src/core/round';
import { MAX_LISTED } from '../../src/report/markdown';
import { NOW, reviewJson, stateBuilder } from './builders';

const PAGE = [
  'export function page(items, n) {',
  '  const out = [];',
  '  for (let i = 0; i <= n; i++) {',
  '    out.push(items[i]);',
  '  }',
  '  try { save(out); } catch (e) {}',
  '  return out;',
  '}',
].join('\n');
const sources: Sources = { 'src/page.ts': { kind: 'file', text: PAGE }, 'src/util.ts': { kind: 'file', text: 'export const id = (x) => x;\n' } };

const offByOne = (over: Partial<Finding> = {}): Finding => ({
  severity: 'warning', category: 'logic-error', file: 'src/page.ts', line: 3, description: 'loop runs one past the end',
  evidence: 'for (let i = 0; i <= n; i++) {', suggestion: 'use i < n', ...over,
});
const swallowed = (over: Partial<Finding> = {}): Finding => ({
  severity: 'critical', category: 'swallowed-error', file: 'src/page.ts', line: 6, description: 'save errors are swallowed',
  evidence: 'catch (e) {}', suggestion: 'rethrow or report the error', ...over,
});
const ghost = (over: Partial<Finding> = {}): Finding => ({
  severity: 'critical', category: 'injection', file: 'src/db.ts', line: 10, description: 'SQL built by concatenation',
  evidence: 'query("SELECT " + id)', suggestion: 'use parameters', ...over,
});

type Reports = Partial<Record<Reviewer, Finding[] | string>>;
function round(iteration: number, reports: Reports, history: Verdict[] = [], over: Partial<RoundInput> = {}): Verdict {
  const reviews = Object.fromEntries(
    REVIEWERS.map((r) => {
      const report = reports[r] ?? [];
      const text = typeof report === 'string' ? report : reviewJson(report);
      return [r, { text, valid: typeof report !== 'string' || !report.startsWith('!'), error: null }];
    }),
  ) as RoundInput['reviews'];
  const input: RoundInput = { iteration, maxIterations: 5, task: 't', now: NOW, rules: DEFAULT_RULES, reviews, sources, history, declines: {}, ...over };
  const verdict = aggregateRound(input);
  // Every case also checks the verdict from the reviewer stops' readings (as the hooks keep them,
  // through JSON): the same as grounding every review again.
  // The texts of reviews with a reading are not needed (the hooks do not read them then).
  const readings = readingsOf(input);
  const texts = Object.fromEntries(REVIEWERS.map((r) => [r, readings[r] ? { ...input.reviews[r], text: null } : input.reviews[r]])) as RoundInput['reviews'];
  expect(aggregateRound({ ...input, reviews: texts, sources: structuredClone(input.sources), readings })).toEqual(verdict);
  return verdict;
}

/** Each valid review read as its reviewer's stop reads it (review-stop.ts), against its own copy of the sources. */
function readingsOf(input: RoundInput): Partial<Record<Reviewer, ReviewReading>> {
  const own = structuredClone(input.sources);
  const readings: Partial<Record<Reviewer, ReviewReading>> = {};
  for (const r of REVIEWERS) {
    const parsed = input.reviews[r].valid && input.reviews[r].text !== null ? parseReview(input.reviews[r].text!) : null;
    if (!parsed?.ok) continue;
    const rows = parsed.issues.map((f) => {
      const grounding = ground(f, own);
      return { grounding, key: identityOf(f, own, grounding) };
    });
    readings[r] = decodeReading(encodeReading('digest', { review: parsed, rows }), 'digest')!;
  }
  return readings;
}

describe('merging', () => {
  it('the same defect from three reviewers is one finding: highest severity, all reporters, the most detailed text', () => {
    const v = round(1, {
      critic: [offByOne()],
      pedant: [offByOne({ severity: 'info', category: 'off-by-one', line: 4, description: 'off by one', evidence: 'for(let i=0;i<=n;i++){' })],
      witness: [offByOne({ severity: 'critical', category: 'bug', description: 'page() returns n+1 items: the loop bound includes n, so items[n] is undefined', suggestion: 'loop while i < n and add a test for the last page' })],
    });
    expect(v.findings).toHaveLength(1);
    expect(v.findings[0]).toMatchObject({
      severity: 'critical',
      category: 'correctness',
      categories: ['logic-error', 'off-by-one', 'bug'],
      reporters: ['critic', 'pedant', 'witness'],
      description: 'page() returns n+1 items: the loop bound includes n, so items[n] is undefined',
      suggestion: 'loop while i < n and add a test for the last page',
      grounding: { status: 'grounded', reason: null },
    });
    expect(v).toMatchObject({ total_issues: 1, critical: 1, warning: 0, info: 0 });
  });

  it('a longer quote containing a shorter one is the same defect', () => {
    const v = round(1, { critic: [offByOne()], pedant: [offByOne({ evidence: 'for (let i = 0; i <= n; i++) {\n    out.push(items[i]);' })] });
    expect(v.findings).toHaveLength(1);
    expect(v.findings[0]!.reporters).toEqual(['critic', 'pedant']);
  });

  it.each([
    ['another file', offByOne({ file: 'src/util.ts', evidence: 'export const id = (x) => x;' })],
    ['another kind of defect at the same line', offByOne({ category: 'naming', description: 'i is a poor name' })],
    ['other code in the same file and category', offByOne({ line: 4, evidence: 'out.push(items[i]);', description: 'unchecked index' })],
    ['a short quote that happens to occur inside', offByOne({ evidence: 'i++' })],
  ])('near-duplicates stay apart: %s', (_, other) => {
    expect(round(1, { critic: [offByOne()], pedant: [other] }).findings).toHaveLength(2);
  });

  it('the fingerprint survives a line shift and a rewording', () => {
    const a = round(1, { critic: [offByOne()] }).findings[0]!.fingerprint;
    const b = round(1, { critic: [offByOne({ line: 5, description: 'fence-post error in the loop' })] }).findings[0]!.fingerprint;
    expect(a).toMatch(/^[0-9a-f]{12}$/);
    expect(b).toBe(a);
  });

  it('without evidence, the code around the line is the identity', () => {
    const v = round(1, { critic: [offByOne({ evidence: '' })], pedant: [offByOne({ evidence: '', description: 'other words' })] });
    expect(v.findings).toHaveLength(1);
  });
});

describe('grounding in the verdict', () => {
  it('an ungrounded info finding is kept with the reason, not sent to the fixer, not counted against DONE', () => {
    const v = round(1, { security: undefined, 'security-reviewer': [ghost({ severity: 'info' })] } as Reports);
    expect(v.findings).toEqual([
      expect.objectContaining({ file: 'src/db.ts', toFixer: false, unverified: false, grounding: { status: 'ungrounded', reason: 'src/db.ts does not exist', reading: { file: null, evidence: null } } }),
    ]);
    expect(v).toMatchObject({ overall_verdict: 'clean', total_issues: 0, next: 'DONE', score: 1 });
    expect(v.reviewers['security-reviewer']).toMatchObject({ ungrounded: 1, info: 0, score: 1 });
  });

  it('an ungrounded critical goes to the fixer unverified and keeps the round from DONE', () => {
    const v = round(1, { 'security-reviewer': [ghost()] });
    expect(v.findings).toEqual([expect.objectContaining({ file: 'src/db.ts', toFixer: true, unverified: true, status: 'NEW', grounding: expect.objectContaining({ status: 'ungrounded' }) })]);
    expect(v).toMatchObject({ overall_verdict: 'issues_found', total_issues: 1, critical: 1, next: 'R2' });
    // The reviewer's own score still counts only what is grounded.
    expect(v.reviewers['security-reviewer']).toMatchObject({ ungrounded: 1, critical: 0 });
  });

  it('one decline closes an unverified finding: it stays in the verdict, contested, and the round may end DONE', () => {
    const first = round(1, { 'security-reviewer': [ghost()] });
    const fp = first.findings[0]!.fingerprint;
    const v = round(2, { 'security-reviewer': [ghost()] }, [first], { declines: { [fp]: 1 } });
    expect(v.findings).toEqual([expect.objectContaining({ fingerprint: fp, unverified: true, toFixer: false, status: 'CONTESTED' })]);
    expect(v).toMatchObject({ total_issues: 0, next: 'DONE' });
  });
});

describe('grounding readings in the verdict', () => {
  it('a quote copied from a diff is grounded, keeps its text as written, and the verdict names the reading', () => {
    const v = round(1, { critic: [offByOne({ evidence: '+  for (let i = 0; i <= n; i++) {' })] });
    expect(v.findings[0]).toMatchObject({
      evidence: '+  for (let i = 0; i <= n; i++) {',
      toFixer: true,
      grounding: { status: 'grounded', reason: null, reading: { file: 'as-written', evidence: ['diff-markers'] } },
    });
  });

  it('two readings of one quote are one finding, with the fingerprint of the clean quote', () => {
    const clean = round(1, { critic: [offByOne()] }).findings[0]!.fingerprint;
    const v = round(1, { critic: [offByOne({ evidence: '`for (let i = 0; i <= n; i++) {`' })], pedant: [offByOne({ evidence: '+ for (let i = 0; … i++) {' })] });
    expect(v.findings).toHaveLength(1);
    expect(v.findings[0]!.fingerprint).toBe(clean);
  });

  it('a finding in a file that was not read is unchecked: kept, sent to the fixer, counted, never "does not exist"', () => {
    const v = round(1, { critic: [offByOne({ file: 'src/huge.ts' })] }, [], { sources: { ...sources, 'src/huge.ts': { kind: 'unchecked', why: 'the files read reach 1024 MB' } } });
    expect(v.findings[0]).toMatchObject({ toFixer: true, grounding: { status: 'unchecked', reason: 'src/huge.ts was not read: the files read reach 1024 MB' } });
    expect(v.reviewers.critic).toMatchObject({ warning: 1, ungrounded: 0, unchecked: 1 });
    expect(v).toMatchObject({ total_issues: 1, next: 'R2' });
    const state = stateBuilder().build();
    expect(progress.notify.verdict(state, v, state)).toContain('[1 not checked against the code]');
  });
});

describe('a broad quote', () => {
  // Lines 1–5 of PAGE, quoted by one reviewer, contain three other reviewers' distinct defects (lines 2, 3, 4).
  const broad = offByOne({ line: 1, evidence: PAGE.split('\n').slice(0, 5).join('\n'), description: 'this function is wrong' });
  const line = (n: number, description: string) => offByOne({ line: n, evidence: PAGE.split('\n')[n - 1]!.trim(), description });

  it('that contains several distinct defects merges none of them', () => {
    const v = round(1, { critic: [broad], pedant: [line(2, 'out should be typed')], witness: [line(3, 'off by one')], 'security-reviewer': [line(4, 'unchecked index')] });
    expect(v.findings.map((f) => f.line).sort()).toEqual([1, 2, 3, 4]);
  });

  it('that contains one defect, quoted by two reviewers, is that defect', () => {
    const v = round(1, { critic: [broad], pedant: [line(3, 'off by one')], witness: [line(3, 'loop bound includes n')] });
    expect(v.findings).toHaveLength(1);
    expect(v.findings[0]).toMatchObject({ line: 3, reporters: ['critic', 'pedant', 'witness'] });
  });
});

describe('scores in the verdict', () => {
  it('per reviewer and overall, from grounded merged findings', () => {
    const v = round(1, { critic: [offByOne()], 'silent-failure-hunter': [swallowed()] });
    expect(v).toMatchObject({ score: 0.45, band: 'repair', scale: 5, readiness: 'ALMOST' });
    expect(v.reviewers.critic).toMatchObject({ scoring: 'findings', score: 0.9, band: 'accept' });
    expect(v.reviewers['silent-failure-hunter']).toMatchObject({ score: 0.55, band: 'repair', readiness: 'ALMOST' });
  });

  it('a review that could only be partly read: heuristic score, its valid findings still count', () => {
    const partly = JSON.stringify({ issues: [offByOne(), { severity: 'warning', description: 'no file' }] });
    const v = round(1, { witness: `!${partly}` as never });
    // Not JSON because of the "!" marker: nothing salvaged; a real partly-read review below.
    expect(v.reviewers.witness).toMatchObject({ status: 'invalid', scoring: 'none', score: 0 });
    const reviews = Object.fromEntries(REVIEWERS.map((r) => [r, { text: r === 'witness' ? partly : reviewJson(), valid: r !== 'witness', error: r === 'witness' ? 'summary: missing' : null }])) as RoundInput['reviews'];
    const w = aggregateRound({ iteration: 1, maxIterations: 5, task: 't', now: NOW, rules: DEFAULT_RULES, reviews, sources, history: [], declines: {} });
    expect(w.reviewers.witness).toMatchObject({ status: 'invalid', scoring: 'heuristic', score: 0.3, warning: 1, error: 'summary: missing' });
    expect(w.total_issues).toBe(1);
    expect(w.overall_verdict).toBe('issues_found');
  });
});

describe('re-review statuses across three rounds', () => {
  it('FIXED, NOT_FIXED, NEW, then REGRESSED', () => {
    const r1 = round(1, { critic: [offByOne()], 'silent-failure-hunter': [swallowed()] });
    expect(r1.statuses).toEqual([]);
    expect(r1.findings.map((f) => f.status)).toEqual(['NEW', 'NEW']);

    // Round 2: the swallowed error is fixed, the off-by-one is not, a new naming finding appears.
    const naming = offByOne({ category: 'naming', severity: 'info', line: 2, evidence: 'const out = [];', description: 'out says nothing' });
    const r2 = round(2, { critic: [offByOne({ line: 4, description: 'still off by one' })], pedant: [naming] }, [r1]);
    const fpOff = r1.findings[0]!.fingerprint;
    const fpSwallow = r1.findings[1]!.fingerprint;
    expect(r2.statuses).toEqual([
      expect.objectContaining({ fingerprint: fpOff, status: 'NOT_FIXED' }),
      expect.objectContaining({ fingerprint: fpSwallow, status: 'FIXED' }),
      expect.objectContaining({ status: 'NEW', category: 'naming' }),
    ]);

    // Round 3: the swallowed error is back.
    const r3 = round(3, { 'silent-failure-hunter': [swallowed({ description: 'errors vanish again' })] }, [r1, r2]);
    expect(r3.findings[0]).toMatchObject({ fingerprint: fpSwallow, status: 'REGRESSED' });
    expect(r3.statuses).toEqual([
      expect.objectContaining({ fingerprint: fpOff, status: 'FIXED' }),
      expect.objectContaining({ category: 'naming', status: 'FIXED' }),
      expect.objectContaining({ fingerprint: fpSwallow, status: 'REGRESSED' }),
    ]);
  });

  it('PARTIAL when a reviewer marks it so', () => {
    const r1 = round(1, { critic: [offByOne()] });
    const fp = r1.findings[0]!.fingerprint;
    const marked = JSON.stringify({ issues: [offByOne()], previous: [{ fingerprint: fp, status: 'partial' }], summary: { warning: 1, verdict: 'issues_found' } });
    const r2 = round(2, { critic: marked }, [r1]);
    expect(r2.findings[0]!.status).toBe('PARTIAL');
    expect(r2.statuses[0]).toMatchObject({ fingerprint: fp, status: 'PARTIAL' });
  });

  // Found by an adversarial pass: a round in which every reviewer reported nothing but marked the earlier
  // finding NOT_FIXED (or PARTIAL) in "previous" ended DONE, the finding listed FIXED.
  it.each(['not_fixed', 'partial'])('an earlier finding a reviewer marks %s stays open, even unreported: the round is not DONE', (status) => {
    const r1 = round(1, { critic: [offByOne()] });
    const fp = r1.findings[0]!.fingerprint;
    const marked = JSON.stringify({ issues: [], previous: [{ fingerprint: fp, status }], summary: { critical: 0, warning: 0, info: 0, verdict: 'clean' } });
    const r2 = round(2, { critic: marked }, [r1]);
    const expected = status === 'partial' ? 'PARTIAL' : 'NOT_FIXED';
    expect(r2.findings).toEqual([expect.objectContaining({ fingerprint: fp, status: expected, toFixer: true, reporters: ['critic'] })]);
    expect(r2.statuses[0]).toMatchObject({ fingerprint: fp, status: expected });
    expect(r2).toMatchObject({ overall_verdict: 'issues_found', total_issues: 1, gate: { reviewClean: false } });
    expect(r2.next).not.toBe('DONE');
    // Marked FIXED by every reviewer and not reported: fixed.
    const fixed = round(2, { critic: JSON.stringify({ issues: [], previous: [{ fingerprint: fp, status: 'fixed' }], summary: { critical: 0, warning: 0, info: 0, verdict: 'clean' } }) }, [r1]);
    expect(fixed).toMatchObject({ overall_verdict: 'clean', next: 'DONE' });
  });

  it('a finding declined twice and raised again is CONTESTED: reported, not sent to the fixer, not blocking DONE', () => {
    const r1 = round(1, { critic: [offByOne()] });
    const fp = r1.findings[0]!.fingerprint;
    const r2 = round(2, { critic: [offByOne()] }, [r1], { declines: { [fp]: 1 } });
    expect(r2.findings[0]!.status).toBe('NOT_FIXED');
    const r3 = round(3, { critic: [offByOne()] }, [r1, r2], { declines: { [fp]: 2 } });
    expect(r3.findings[0]).toMatchObject({ fingerprint: fp, status: 'CONTESTED', toFixer: false });
    expect(r3).toMatchObject({ overall_verdict: 'clean', next: 'DONE' });
    expect(r3.statuses[0]).toMatchObject({ fingerprint: fp, status: 'CONTESTED' });
  });
});

describe('stop rules', () => {
  const crit = (n: number) => Array.from({ length: n }, (_, i) => swallowed({ line: null, evidence: '', description: `critical ${i}`, file: 'src/page.ts', category: `c${i}` }));

  it.each([
    [5, 'R2', null],
    [6, 'STOPPED', 'structural_rework_needed'],
  ])('structural_rework_needed: %s criticals → %s', (n, next, reason) => {
    const findings = crit(n).map((f, i) => ({ ...f, evidence: PAGE.split('\n')[i]! }));
    const v = round(1, { critic: findings });
    expect(v.critical).toBe(n);
    expect([v.next, v.stopReason]).toEqual([next, reason]);
  });

  it('the critical threshold is a setting', () => {
    const v = round(1, { critic: [swallowed(), offByOne({ severity: 'critical' })] }, [], { rules: { ...DEFAULT_RULES, maxCritical: 1 } });
    expect(v.stopReason).toBe('structural_rework_needed');
  });

  it('the same open set as the previous round is not no_progress: the class gets its audit-first round (seed 003)', () => {
    const r1 = round(1, { critic: [offByOne()], pedant: [swallowed()] });
    const r2 = round(2, { witness: [offByOne({ line: 4 }), swallowed({ description: 'reworded' })] }, [r1]);
    expect([r2.next, r2.stopReason]).toEqual(['R2', null]);
    expect(r2.classes.map((c) => c.rung)).toEqual(['audit', 'audit']);
  });

  it('no_progress does not fire when the set changed', () => {
    const r1 = round(1, { critic: [offByOne()], pedant: [swallowed()] });
    const r2 = round(2, { critic: [offByOne()] }, [r1]);
    expect(r2.next).toBe('R2');
  });

  it('stuck_issue by --stuck-rounds: one finding NOT_FIXED in N consecutive rounds, before the class ladder', () => {
    const r1 = round(1, { critic: [swallowed()] });
    expect(round(2, { critic: [swallowed()] }, [r1]).next).toBe('R2');
    const r2 = round(2, { critic: [swallowed()] }, [r1], { rules: { ...DEFAULT_RULES, stuckRounds: 1 } });
    expect([r2.next, r2.stopReason]).toEqual(['STOPPED', 'stuck_issue']);
    expect(r2.stopDetail).toMatch(/src\/page\.ts:6 \(error-handling\) has not been fixed in 1 consecutive round: it needs structural work/);
  });

  it('stuck_issue threshold is a setting', () => {
    const r1 = round(1, { critic: [swallowed()] });
    const r2 = round(2, { critic: [swallowed(), offByOne()] }, [r1], { rules: { ...DEFAULT_RULES, stuckRounds: 1 } });
    expect(r2.stopReason).toBe('stuck_issue');
  });

  it('max_iterations when nothing else fires', () => {
    const v = round(5, { critic: [offByOne()] });
    expect([v.next, v.stopReason]).toEqual(['STOPPED', 'max_iterations']);
  });

  it('clean wins over everything', () => {
    expect(round(5, {}).next).toBe('DONE');
  });

  it('an invalid review with nothing to fix: the next round re-reviews', () => {
    const v = round(1, { witness: '!not json' as never });
    expect([v.overall_verdict, v.next, v.total_issues]).toEqual(['issues_found', 'R1', 0]);
  });
});

describe('pattern memory', () => {
  it('findings open in two or more rounds become known pitfalls, most frequent first', () => {
    const r1 = round(1, { critic: [offByOne(), swallowed()] });
    const r2 = round(2, { critic: [offByOne(), swallowed()] }, [r1], { rules: { ...DEFAULT_RULES } });
    // r2 stops for no_progress, but its pitfalls are still computed
    expect(r2.pitfalls.map((p) => [p.file, p.category, p.seen])).toEqual(expect.arrayContaining([['src/page.ts', 'correctness', 2], ['src/page.ts', 'error-handling', 2]]));
    const r3 = round(3, { critic: [offByOne()] }, [r1, r2]);
    expect(r3.pitfalls).toEqual([expect.objectContaining({ category: 'correctness', seen: 3, rule: 'use i < n' })]);
  });
});

describe('readings kept by the reviewer stops', () => {
  const rows = [{ grounding: { status: 'grounded' as const, reason: null, line: 3, reading: { file: 'as-written' as const, evidence: [] }, matched: 'x' }, key: { file: 'a.ts', family: 'correctness', text: 'x' } }];
  const review = parseReview(reviewJson([offByOne()]));
  if (!review.ok) throw new Error(review.error);
  const reading = { review, rows };
  it('a reading is used only for the review it was made from, in this format, and when it covers every finding', () => {
    expect(decodeReading(encodeReading('abc', reading), 'abc')).toEqual(reading);
    expect(decodeReading(encodeReading('abc', reading), 'other')).toBeNull();
    expect(decodeReading(encodeReading('abc', reading).replace('"version":3', '"version":2'), 'abc')).toBeNull();
    expect(decodeReading(encodeReading('abc', { review, rows: [...rows, ...rows] }), 'abc')).toBeNull();
    expect(decodeReading(encodeReading('abc', { review: { ...review, issues: [] }, rows }), 'abc')).toBeNull();
    expect(decodeReading(encodeReading('abc', reading).replace('"ok":true', '"ok":false'), 'abc')).toBeNull();
    expect(decodeReading('{"version":3,"digest":"abc","review":{"ok":true,"issues":[]},"rows":{}}', 'abc')).toBeNull();
    expect(decodeReading('{"version":3,"digest":"abc","rows":[]}', 'abc')).toBeNull();
    expect(decodeReading('not json', 'abc')).toBeNull();
    expect(decodeReading(null, 'abc')).toBeNull();
  });

  it('a reading read back from its text, in another process, is the reading that was kept', () => {
    // Text equal to what this process encoded is taken from its memory: a copy with a space added is parsed.
    const parsed = (r: ReviewReading) => decodeReading(encodeReading('abc', r).replace('{"version"', '{ "version"'), 'abc');
    // Each key read back carries the fingerprint its stop worked out.
    const withFingerprints = (r: ReviewReading): ReviewReading => ({ ...r, rows: r.rows.map((row) => ({ ...row, key: { ...row.key, fingerprint: fingerprintOf(row.key) } })) });
    expect(parsed(reading)).toEqual(withFingerprints(reading));
    // What a row leaves out when its finding says it (the matched text, the identity's file) comes back, and only then.
    const [one] = review.issues;
    const other: ReviewReading = { review: { ...review, issues: [one!, one!, one!] }, rows: [
      { grounding: { status: 'relocated' as const, reason: 'moved', line: 9, reading: { file: 'case-insensitive' as const, evidence: ['backticks' as const] }, matched: 'y' }, key: { file: 'src/Page.ts', family: 'correctness', text: 'x' } },
      { grounding: { status: 'ungrounded' as const, reason: 'not found', line: null, reading: { file: null, evidence: null }, matched: null }, key: { file: one!.file, family: 'correctness', text: 'quoted' } },
      rows[0]!,
    ] };
    expect(parsed(other)).toEqual(withFingerprints(other));
    const broken = encodeReading('abc', reading).replace('"rows":[[', '"rows":[{"x":1},[').replace('{"version"', '{ "version"');
    expect(decodeReading(broken, 'abc')).toBeNull();
  });

  it("a reading keeps each finding's fingerprint, and the verdict takes it from there", () => {
    const text = encodeReading('abc', reading).replace('{"version"', '{ "version"');
    const fingerprint = fingerprintOf(rows[0]!.key);
    expect(text).toContain(`"${fingerprint}"]`);
    expect(fingerprintOf(decodeReading(text, 'abc')!.rows[0]!.key)).toBe(fingerprint);
    // Taken as kept (the reading is the hooks' own, pinned by its digest): not worked out again.
    expect(fingerprintOf(decodeReading(text.replace(`"${fingerprint}"]`, '"0123456789ab"]'), 'abc')!.rows[0]!.key)).toBe('0123456789ab');
    // A row without one (or with something else there) is worked out.
    expect(fingerprintOf(decodeReading(text.replace(`,"${fingerprint}"]`, ']'), 'abc')!.rows[0]!.key)).toBe(fingerprint);
    expect(fingerprintOf(decodeReading(text.replace(`"${fingerprint}"]`, '7]'), 'abc')!.rows[0]!.key)).toBe(fingerprint);
  });

  it('a reading that does not cover its review (another number of findings) is not used', () => {
    const reviews = Object.fromEntries(REVIEWERS.map((r) => [r, { text: reviewJson(r === 'critic' ? [offByOne(), swallowed()] : []), valid: true, error: null }])) as RoundInput['reviews'];
    const input: RoundInput = { iteration: 1, maxIterations: 5, task: 't', now: NOW, rules: DEFAULT_RULES, reviews, sources, history: [], declines: {} };
    const critic = parseReview(reviews.critic.text!);
    if (!critic.ok) throw new Error(critic.error);
    const wrong = { review: critic, rows: [{ ...rows[0]!, grounding: { ...rows[0]!.grounding, status: 'ungrounded' as const } }] };
    expect(aggregateRound({ ...input, readings: { critic: wrong } })).toEqual(aggregateRound({ ...input, sources: structuredClone(sources) }));
  });

  it("the reading's review is what counts, not the text beside it (the hooks do not read that text then)", () => {
    const reviews = Object.fromEntries(REVIEWERS.map((r) => [r, { text: reviewJson([]), valid: true, error: null }])) as RoundInput['reviews'];
    const input: RoundInput = { iteration: 1, maxIterations: 5, task: 't', now: NOW, rules: DEFAULT_RULES, reviews, sources, history: [], declines: {} };
    const withFinding = parseReview(reviewJson([offByOne()]));
    if (!withFinding.ok) throw new Error(withFinding.error);
    const grounding = ground(withFinding.issues[0]!, structuredClone(sources));
    const readings = { critic: { review: withFinding, rows: [{ grounding, key: identityOf(withFinding.issues[0]!, sources, grounding) }] } };
    const verdict = aggregateRound({ ...input, readings });
    expect(verdict.findings.map((f) => f.reporters)).toEqual([['critic']]);
    expect(verdict).toEqual(aggregateRound({ ...input, reviews: { ...reviews, critic: { text: reviewJson([offByOne()]), valid: true, error: null } } }));
  });
});

describe('mergeCluster', () => {
  // The merge as first written (a pass per field), kept as the reference for the one-pass merge.
  const RANK = { critical: 3, warning: 2, info: 1 } as const;
  const longest = (texts: string[]): string => texts.reduce((a, b) => (b.trim().length > a.trim().length ? b : a), '');
  function reference(members: Reported[]) {
    let rep = members[0]!;
    for (const m of members) {
      const order =
        Number(m.grounding.status === 'ungrounded') - Number(rep.grounding.status === 'ungrounded') ||
        Number(m.grounding.status === 'unquoted') - Number(rep.grounding.status === 'unquoted') ||
        m.key.text.length - rep.key.text.length ||
        (m.key.text === rep.key.text ? 0 : fingerprintOf(m.key) < fingerprintOf(rep.key) ? -1 : 1);
      if (order < 0) rep = m;
    }
    return {
      fingerprint: fingerprintOf(rep.key),
      severity: members.reduce<keyof typeof RANK>((s, m) => (RANK[m.finding.severity] > RANK[s] ? m.finding.severity : s), 'info'),
      category: rep.key.family,
      categories: [...new Set(members.map((m) => m.finding.category))],
      file: rep.key.file,
      line: rep.grounding.line,
      description: longest(members.map((m) => m.finding.description)),
      evidence: rep.finding.evidence,
      suggestion: longest(members.map((m) => m.finding.suggestion)),
      reporters: REPORTERS.filter((r) => members.some((m) => m.reviewer === r)),
      identity: rep.key.text,
      grounding: { status: rep.grounding.status, reason: rep.grounding.reason, reading: rep.grounding.reading },
      class: '',
      unverified: false,
      interpretations: [...new Set(members.flatMap((m) => m.interpreted ?? []))],
      dismissed: null,
      confidence: members.reduce<number | null>((best, m) => (m.finding.confidence === undefined ? best : Math.max(best ?? 0, m.finding.confidence)), null),
      held: null,
      status: 'NEW',
      toFixer: false,
    };
  }
  const words = fc.array(fc.constantFrom('', ' ', '  ', 'a', 'bb', ' c ', '\t', 'ünï', '\n'), { maxLength: 4 }).map((w) => w.join(''));
  const member = fc.record({
    reviewer: fc.constantFrom(...REPORTERS),
    severity: fc.constantFrom('critical' as const, 'warning' as const, 'info' as const),
    category: fc.constantFrom('logic-error', 'bug', 'off-by-one'),
    description: words,
    suggestion: words,
    text: fc.constantFrom('for(leti=0;i<=n;i++){', 'for(leti=0;i<=n;i++){out.push(x);', 'x', 'yy'),
    line: fc.option(fc.integer({ min: 1, max: 9 })),
    ungrounded: fc.boolean(),
  });
  type Member = typeof member extends fc.Arbitrary<infer T> ? T : never;
  const reported = (m: Member): Reported => ({
    reviewer: m.reviewer,
    finding: { severity: m.severity, category: m.category, file: 'src/page.ts', line: m.line, description: m.description, evidence: m.text, suggestion: m.suggestion },
    key: { file: 'src/page.ts', family: 'correctness', text: m.text },
    grounding: m.ungrounded
      ? { status: 'ungrounded', reason: 'no match', line: m.line, reading: { file: null, evidence: null }, matched: null }
      : { status: 'grounded', reason: null, line: m.line, reading: { file: 'as-written', evidence: [] }, matched: m.text },
  });

  it('one pass gives what a pass per field gives, for any reports of one defect', () => {
    fc.assert(
      fc.property(fc.array(member, { minLength: 1, maxLength: 12 }), (members) => {
        const reports = members.map(reported);
        expect(mergeCluster(reports)).toEqual(reference(reports));
      }),
      { numRuns: 500 },
    );
  });
});

describe('the verdict file', () => {
  it('is indented while REVIEW.md lists every finding, and on one line past that: the same JSON either way', () => {
    const v = round(1, { critic: [offByOne()] });
    expect(verdictJson(v)).toBe(json(v));
    const listed = { ...v, findings: Array.from({ length: MAX_LISTED }, () => v.findings[0]!) };
    expect(verdictJson(listed)).toBe(json(listed));
    const more = { ...v, findings: Array.from({ length: MAX_LISTED + 1 }, () => v.findings[0]!) };
    const text = verdictJson(more);
    expect(text.endsWith('}\n')).toBe(true);
    expect(text.split('\n')).toHaveLength(2);
    expect(JSON.parse(text)).toEqual(JSON.parse(json(more)));
  });
});

describe('unquoted findings (no code quoted: nothing to check)', () => {
  const unquoted = (over: Partial<Finding> = {}): Finding => ({ ...offByOne(), evidence: '', ...over });
  const only = (v: Verdict) => {
    expect(v.findings).toHaveLength(1);
    const f = v.findings[0]!;
    return { status: f.grounding.status, toFixer: f.toFixer, unverified: f.unverified };
  };

  it.each([
    ['a cited line that exists supports it', { pedant: [unquoted()] }, { status: 'unquoted', toFixer: true, unverified: false }],
    ['a command as evidence, with a line that exists', { witness: [unquoted({ evidence: '$ npm test\nFAIL page.test.ts' })] }, { status: 'unquoted', toFixer: true, unverified: false }],
    ['a second reviewer supports it (no line)', { pedant: [unquoted({ line: null })], critic: [unquoted({ line: null })] }, { status: 'unquoted', toFixer: true, unverified: false }],
    ['no support, a warning: to the fixer unverified', { pedant: [unquoted({ line: null })] }, { status: 'unquoted', toFixer: true, unverified: true }],
    ['no support, info: kept in the verdict only', { pedant: [unquoted({ line: null, severity: 'info' })] }, { status: 'unquoted', toFixer: false, unverified: false }],
    ['a cited line past the end: ungrounded', { pedant: [unquoted({ line: 99, severity: 'info' })] }, { status: 'ungrounded', toFixer: false, unverified: false }],
  ] as const)('%s', (_, reports, expected) => {
    expect(only(round(1, reports as unknown as Reports))).toEqual(expected);
  });

  it('is never counted as grounded: not in the reviewer score, counted apart', () => {
    const v = round(1, { pedant: [unquoted({ severity: 'critical' })] });
    expect(v.reviewers.pedant).toMatchObject({ critical: 0, ungrounded: 0, unquoted: 1, score: 1 });
    expect(v.findings[0]!.grounding.reason).toBe('no evidence is quoted; line 3 exists');
  });

  it('a quoted report of the same finding is its representative: grounded', () => {
    const v = round(1, { pedant: [unquoted({ line: 3 })], critic: [offByOne()] });
    expect(v.findings.map((f) => f.grounding.status)).toContain('grounded');
  });
});

describe('dismissed findings (.minions/dismissed.json)', () => {
  const dismissalOf = (v: Verdict, reason = 'intended: the page includes its end') => {
    const f = v.findings[0]!;
    return { fingerprint: f.fingerprint, reason, file: f.file, category: f.category, identity: f.identity, description: f.description, dismissedAt: NOW };
  };

  it('a dismissed finding stays out of the fixer list and the gate while it grounds to the same code', () => {
    const first = round(1, { pedant: [offByOne()] });
    const again = round(1, { pedant: [offByOne()] }, [], { dismissed: [dismissalOf(first)] });
    expect(again.findings[0]).toMatchObject({ dismissed: 'intended: the page includes its end', toFixer: false });
    expect(again.total_issues).toBe(0);
    expect(again.next).toBe('DONE');
  });

  it('comes back once the code there changes (or the quote no longer grounds)', () => {
    const first = round(1, { pedant: [offByOne()] });
    const dismissed = [dismissalOf(first)];
    const changed = { ...sources, 'src/page.ts': { kind: 'file' as const, text: PAGE.replace('i <= n', 'i <= n + 0') } };
    const moved = round(1, { pedant: [offByOne({ evidence: 'for (let i = 0; i <= n + 0; i++) {' })] }, [], { dismissed, sources: changed });
    expect(moved.findings[0]).toMatchObject({ dismissed: null, toFixer: true });
    const stale = round(1, { pedant: [offByOne()] }, [], { dismissed, sources: changed });
    expect(stale.findings[0]).toMatchObject({ dismissed: null, toFixer: true, unverified: true });
  });

  it("never dismisses the hooks' own findings, nor one with another identity under the same fingerprint", () => {
    const first = round(1, { pedant: [offByOne()] });
    const other = round(1, { pedant: [offByOne()] }, [], { dismissed: [{ ...dismissalOf(first), identity: 'something else' }] });
    expect(other.findings[0]!.dismissed).toBeNull();
    const machine = { reporter: 'layer0' as const, severity: 'warning' as const, category: 'no_placeholder', file: 'src/page.ts', line: 2, description: 'a TODO', evidence: '// TODO', suggestion: 'finish it' };
    const withMachine = round(1, {}, [], { machine: [machine] });
    const kept = round(1, {}, [], { machine: [machine], dismissed: [dismissalOf(withMachine)] });
    expect(kept.findings[0]).toMatchObject({ dismissed: null, toFixer: true });
  });
});

describe('the completion policy (--done-when, --min-confidence)', () => {
  const policy = (doneWhen: 'critical' | 'warning' | 'info', minConfidence = 0) => ({ rules: { ...POLICY_RULES, doneWhen, minConfidence } });
  const naming = (over: Partial<Finding> = {}) => offByOne({ severity: 'info', category: 'naming', line: 2, evidence: 'const out = [];', description: 'out says nothing', ...over });

  it.each([
    // done-when, the findings' severities, what the round does next, which findings are held
    ['info', ['info'], 'R2', [null]],
    ['warning', ['info'], 'DONE', ['level']],
    ['warning', ['warning', 'info'], 'R2', [null, 'level']],
    ['critical', ['warning', 'info'], 'DONE', ['level', 'level']],
    ['critical', ['critical', 'warning'], 'R2', [null, 'level']],
  ] as const)('--done-when %s, findings %j → %s', (doneWhen, severities, next, held) => {
    const findings = severities.map((severity, i) => (i === 0 ? offByOne({ severity }) : naming({ severity })));
    const v = round(1, { critic: findings }, [], policy(doneWhen));
    expect(v.next).toBe(next);
    expect(v.findings.map((f) => f.held)).toEqual(held);
    // A held finding is listed, and neither counted nor sent to the fixer.
    expect(v.findings.filter((f) => f.toFixer).length).toBe(v.total_issues);
    expect(v.total_issues).toBe(held.filter((h) => h === null).length);
  });

  it.each([
    // confidences of the reviewers who report the one finding, the threshold, held, next
    [[60], 80, 'confidence', 'DONE'],
    [[60, 70], 80, null, 'R2'],
    [[80], 80, null, 'R2'],
    [[undefined], 80, null, 'R2'],
    [[10], 0, null, 'R2'],
  ] as const)('confidences %j against --min-confidence %s: held %s, next %s', (scores, min, held, next) => {
    const who = ['critic', 'pedant'] as const;
    const reports = Object.fromEntries(scores.map((c, i) => [who[i], [offByOne(c === undefined ? {} : { confidence: c })]]));
    const v = round(1, reports, [], policy('info', min));
    expect(v.findings).toHaveLength(1);
    expect(v.findings[0]).toMatchObject({ held, toFixer: held === null, confidence: scores.every((c) => c === undefined) ? null : Math.max(...scores.map((c) => c ?? 0)) });
    expect(v.next).toBe(next);
  });

  it("the hooks' own findings always count: an info Layer-0 finding blocks DONE under --done-when critical", () => {
    const machine = [{ reporter: 'layer0' as const, severity: 'info' as const, category: 'placeholder', file: 'src/page.ts', line: 2, description: 'a TODO was added', evidence: 'const out = [];', suggestion: 'finish it' }];
    const v = round(1, {}, [], { ...policy('critical'), machine });
    expect(v.findings[0]).toMatchObject({ held: null, toFixer: true });
    expect(v.next).toBe('R2');
  });

  it('a held finding feeds no stop rule: no class, no streak, never CONTESTED, no re-review row', () => {
    const rules = { ...policy('warning').rules, stuckRounds: 1 };
    const r1 = round(1, { critic: [offByOne()], pedant: [naming()] }, [], { rules });
    const fp = r1.findings.find((f) => f.category === 'naming')!.fingerprint;
    expect(r1.classes.flatMap((c) => c.fingerprints)).not.toContain(fp);
    // Round 2: the warning is fixed, the info finding is reported again and was declined twice.
    const r2 = round(2, { pedant: [naming()] }, [r1], { rules, declines: { [fp]: 2 } });
    expect(r2.findings[0]).toMatchObject({ fingerprint: fp, held: 'level', toFixer: false });
    expect(r2.findings[0]!.status).not.toBe('CONTESTED');
    expect(r2.statuses.map((s) => s.fingerprint)).not.toContain(fp);
    expect([r2.next, r2.stopReason]).toEqual(['DONE', null]);
    // The same rounds under today's rule: the info finding keeps the loop going.
    const legacy = round(2, { pedant: [naming()] }, [round(1, { critic: [offByOne()], pedant: [naming()] }, [], { rules: { ...rules, ...LEGACY_POLICY } })], { rules: { ...rules, ...LEGACY_POLICY } });
    expect(legacy.next).not.toBe('DONE');
  });

  it('the round\'s progress line counts what the policy held back', () => {
    const v = round(1, { critic: [naming()], pedant: [swallowed({ confidence: 20 })] }, [], policy('warning', 50));
    const state = stateBuilder().build();
    expect(progress.notify.verdict(state, v, state)).toMatch(/: no issues \[1 below --done-when, not blocking, 1 below --min-confidence, listed\]; .* → DONE$/);
  });

  it("the fixer's brief lists the findings below the level as optional, and never a low-confidence one", () => {
    const v = round(1, { critic: [offByOne(), naming(), swallowed({ confidence: 20 })] }, [], policy('warning', 50));
    expect(v.next).toBe('R2');
    const brief = fixerBrief(stateBuilder().build(), v, v.findings.filter((f) => f.toFixer));
    expect(brief.findings.map((f) => [f.category, 'optional' in f ? f.optional : false])).toEqual([
      ['correctness', false],
      ['naming', true],
    ]);
  });
});
