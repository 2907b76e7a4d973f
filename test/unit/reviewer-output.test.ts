import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readConfidence } from '../../src/protocol/review-reader';
import { Finding, MAX_FINDINGS, MAX_REVIEW_CHARS, ReviewerOutput, canonicalFinding, canonicalRest, CLEAN_REVIEW, extractJsonFromMessage, parseReview } from '../../src/protocol/reviewer-output';
import { finding, reviewJson } from './builders';

describe('parseReview', () => {
  it('accepts a clean review', () => {
    expect(parseReview(reviewJson())).toEqual({ ok: true, issues: [], previous: [], diagnosis: [], counts: { critical: 0, warning: 0, info: 0 }, verdict: 'clean', notes: [] });
  });

  it('counts from the list, not the summary', () => {
    const text = reviewJson([finding({ severity: 'critical' }), finding()], { critical: 0, warning: 5 });
    const parsed = parseReview(text);
    expect(parsed).toMatchObject({ ok: true, counts: { critical: 1, warning: 1, info: 0 }, verdict: 'issues_found' });
    expect(parsed.ok && parsed.notes).toEqual(['summary.critical said 0, the list has 1', 'summary.warning said 5, the list has 1']);
  });

  it('"clean" with issues listed is issues_found', () => {
    const parsed = parseReview(reviewJson([finding()], { verdict: 'clean' }));
    expect(parsed).toMatchObject({ ok: true, verdict: 'issues_found' });
    expect(parsed.ok && parsed.notes[0]).toMatch(/said "clean" with 1 issue/);
  });

  it('reads severity synonyms and a numeric-string line', () => {
    const text = JSON.stringify({ issues: [{ severity: 'High', category: 'x', file: 'a.ts', line: '12', description: 'd' }, { severity: 'low', category: 'x', file: 'a.ts', line: 3, description: 'd' }], summary: { verdict: 'issues_found' } });
    expect(parseReview(text)).toMatchObject({ ok: true, issues: [{ severity: 'critical', line: 12 }, { severity: 'info', line: 3 }] });
  });

  it('normalises severity case, line 0 and missing evidence', () => {
    const text = JSON.stringify({ issues: [{ severity: 'Critical', category: 'x', file: 'a.ts', line: 0, description: 'd' }], summary: { verdict: 'issues_found' } });
    expect(parseReview(text)).toMatchObject({ ok: true, issues: [{ severity: 'critical', line: null, evidence: '', suggestion: '' }] });
  });

  it.each([
    ['not json', /^no JSON object was found in the file/],
    ['[1, 2]', /^found a list that holds other things than findings at the top level/],
    [JSON.stringify({ summary: { verdict: 'clean' } }), /^found the keys `summary`, expected `issues`/],
    [reviewJson([finding({ severity: 'dire' as never })]), /^issues\[0\]\.severity is "dire": write one of "critical", "warning" or "info"/],
    [reviewJson([finding({ severity: 'critical|warning|info' as never })]), /copied from the template/],
    [reviewJson([finding({ line: 'twelve' as never })]), /^issues\[0\]\.line is a string \("twelve"\): write the line number/],
    [reviewJson([finding({ file: '' })]), /^issues\[0\] has no file: add "file"/],
    [reviewJson([finding({ description: '  ' })]), /^issues\[0\] has no description/],
    [reviewJson([finding({ line: 2.5 })]), /^issues\[0\]\.line is number 2.5/],
    [reviewJson([], { verdict: 'issues_found' }), /issues\[\] is empty/],
  ])('refuses %s with a precise error', (text, error) => {
    const parsed = parseReview(text);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.error).toMatch(error);
  });

  it('reads the shortest clean review, and a summary of another shape, by the findings', () => {
    expect(parseReview('{"issues": []}')).toMatchObject({ ok: true, verdict: 'clean', issues: [] });
    expect(parseReview(reviewJson([], { verdict: 'maybe' }))).toMatchObject({ ok: true, verdict: 'clean' });
  });
});

describe('the most a review may hold', () => {
  const one = { severity: 'warning', category: 'logic-error', file: 'src/a.ts', line: 3, description: 'off by one', evidence: 'i <= n', suggestion: '' };
  const review = (n: number, extra = {}) => JSON.stringify({ issues: Array.from({ length: n }, (_, i) => ({ ...one, line: i + 1, ...extra })), summary: { verdict: 'issues_found' } });

  it(`accepts ${MAX_FINDINGS} findings and refuses one more, saying what to do`, () => {
    expect(parseReview(review(MAX_FINDINGS))).toMatchObject({ ok: true, counts: { warning: MAX_FINDINGS } });
    expect(parseReview(review(MAX_FINDINGS + 1))).toEqual({ ok: false, error: 'issues lists 5,001 findings: a review may list at most 5,000; keep the most important ones' });
  });

  it('refuses a review longer than MAX_REVIEW_CHARS before reading its JSON', () => {
    const long = review(3, { description: 'x'.repeat(Math.ceil(MAX_REVIEW_CHARS / 3)) });
    expect(long.length).toBeGreaterThan(MAX_REVIEW_CHARS);
    expect(parseReview(long)).toEqual({ ok: false, error: 'the review is 16.0 MB long: a review may be at most 16 MB; list the most important findings, each briefly' });
    expect(parseReview(`${'{'.repeat(MAX_REVIEW_CHARS)}!`)).toMatchObject({ ok: false, error: expect.stringMatching(/^the review is 16\.0 MB long/) });
  });
});

describe('extractJsonFromMessage', () => {
  it.each([
    ['Done.\n```json\n{"a":1}\n```', 'Done.\n```json\n{"a":1}\n```'],
    ['{"whole":true}', '{"whole":true}'],
    ['No issues found.', CLEAN_REVIEW],
    ['**No issues found**', CLEAN_REVIEW],
    ['```ts\nconst x = 1\n```', '```ts\nconst x = 1\n```'],
    ['no json here', null],
    ['No issues found in a.ts, but b.ts leaks.', null],
    ['', null],
    [null, null],
  ])('%j → %j', (message, json) => {
    expect(extractJsonFromMessage(message)).toBe(json);
  });

  it('leaves several JSON blocks to the reader, which sends them back', () => {
    const text = extractJsonFromMessage('```json\n{"issues":[]}\n```\nthen\n```json\n{"issues":[]}\n```');
    expect(parseReview(text!)).toMatchObject({ ok: false, error: expect.stringMatching(/^found 2 JSON blocks \(starting on lines 1 and 5\)/) });
  });
});

describe('canonicalFinding (the fast path of parseReview)', () => {
  const anyValue = fc.oneof(fc.constant(undefined), fc.constant(null), fc.integer({ min: -3, max: 3 }), fc.double(), fc.boolean(), fc.string({ maxLength: 4 }), fc.constantFrom(' a ', '\t', '12', ' 7 ', 'x'), fc.constant([]), fc.constant({}));
  const field = (...usual: fc.Arbitrary<unknown>[]) => fc.oneof(...usual, anyValue);
  const issue = fc.record(
    {
      severity: field(fc.constantFrom('critical', 'warning', 'info', 'High', ' info', 'nit', 'severe')),
      category: field(fc.constantFrom('logic-error', ' naming ', '')),
      file: field(fc.constantFrom('src/a.ts', ' src/b.ts', '  ')),
      line: field(fc.integer({ min: 1, max: 2 ** 60 }), fc.constantFrom(0, 1.5, -1, Number.MAX_SAFE_INTEGER + 2, '12')),
      description: field(fc.constantFrom('wrong', ' wrong ', '')),
      evidence: field(fc.constantFrom('x = 1', '  y  ', '')),
      suggestion: field(fc.constantFrom('fix it', '')),
      confidence: field(fc.integer({ min: 0, max: 100 }), fc.constantFrom(0.85, '85', '85%', 150, -1, 'high')),
      extra: anyValue,
    },
    { requiredKeys: [] },
  );

  it('gives what Finding gives, whenever it gives anything', () => {
    fc.assert(
      fc.property(issue, (x) => {
        const fast = canonicalFinding(x);
        if (fast === null) return;
        const slow = Finding.safeParse(x);
        expect(slow.success).toBe(true);
        expect(fast).toStrictEqual(slow.data);
      }),
      { numRuns: 2000 },
    );
  });

  it('reads every finding in the form reviewers are asked for', () => {
    expect(canonicalFinding({ severity: 'warning', category: 'naming', file: 'src/a.ts', line: 3, description: 'd', evidence: 'e', suggestion: 's' })).not.toBeNull();
    expect(canonicalFinding({ severity: 'info', category: 'naming', file: 'src/a.ts', line: null, description: 'd' })).toEqual({ severity: 'info', category: 'naming', file: 'src/a.ts', line: null, description: 'd', evidence: '', suggestion: '' });
  });

  const rest = fc.record(
    {
      reviewer: field(fc.constantFrom('critic', '')),
      previous: field(fc.constant([]), fc.constant([{ fingerprint: 'abc', status: 'fixed' }])),
      diagnosis: field(fc.constant([]), fc.constant([{ class: 'c', rootCause: 'r', fix: 'f' }])),
      summary: field(
        fc.record(
          {
            critical: field(fc.nat(9), fc.constantFrom(-1, 1.5, '2', -0)),
            warning: field(fc.nat(9)),
            info: field(fc.nat(9)),
            verdict: field(fc.constantFrom('clean', 'issues_found', 'Clean', 'dirty')),
            extra: anyValue,
          },
          { requiredKeys: [] },
        ),
      ),
      extra: anyValue,
    },
    { requiredKeys: [] },
  );

  it("gives what ReviewerOutput gives for a review's rest, whenever it gives anything", () => {
    fc.assert(
      fc.property(rest, (x) => {
        const fast = canonicalRest(x);
        const slow = ReviewerOutput.safeParse({ ...x, issues: [] });
        if (fast === null) return;
        expect(slow.success).toBe(true);
        const { issues, ...others } = slow.data!;
        expect(issues).toEqual([]);
        expect(fast).toStrictEqual(others);
      }),
      { numRuns: 2000 },
    );
    // The usual form is read by hand.
    expect(canonicalRest({ reviewer: 'critic', issues: [], summary: { critical: 1, warning: 0, info: 0, verdict: 'issues_found' } })).not.toBeNull();
    expect(canonicalRest({ issues: [], previous: [], diagnosis: [], summary: { verdict: 'clean' } })).toEqual({ previous: [], diagnosis: [], summary: { verdict: 'clean' } });
    // Found by the property on CI: a key that holds undefined stays, as zod keeps it.
    const withUndefined = { reviewer: undefined, summary: { critical: undefined, verdict: 'clean' } };
    const { issues: _, ...zod } = ReviewerOutput.parse({ ...withUndefined, issues: [] });
    expect(canonicalRest(withUndefined)).toStrictEqual(zod);
  });

  it('leaves a review with one other finding to zod whole, with the same errors', () => {
    const text = reviewJson([finding(), finding({ severity: 'severe' as never }), finding({ file: '' })]);
    const parsed = parseReview(text);
    expect(!parsed.ok && parsed.error).toMatch(/^issues\[2\] has no file/);
  });
});

describe("a finding's confidence, read leniently (optional)", () => {
  const base = { severity: 'warning', category: 'logic', file: 'src/a.ts', line: 3, description: 'd', evidence: 'e' };
  const read = (confidence: unknown, key = 'confidence') => {
    const issue = confidence === undefined ? base : { ...base, [key]: confidence };
    const parsed = parseReview(JSON.stringify({ issues: [issue], summary: { verdict: 'issues_found' } }));
    if (!parsed.ok) throw new Error(parsed.error);
    return { confidence: parsed.issues[0]!.confidence, notes: parsed.interpreted?.[0] ?? [] };
  };

  it.each([
    // as written, as read, the note the verdict records (none: read as written)
    [85, 85, null],
    [0, 0, null],
    [100, 100, null],
    ['85', 85, 'confidence "85" read as 85'],
    [' 85 % ', 85, 'confidence " 85 % " read as 85'],
    ['85%', 85, 'confidence "85%" read as 85'],
    [0.85, 85, 'confidence 0.85 read as 85'],
    ['0.85', 85, 'confidence "0.85" read as 85'],
    [72.6, 73, 'confidence 72.6 read as 73'],
    ['high', 75, 'confidence "high" read as 75'],
    [undefined, undefined, null],
    // Nonsense is not sent back (the score is optional): recorded, and read as not scored, which counts like an old review's finding.
    ['very sure', undefined, 'confidence "very sure" is not a score from 0 to 100: read as not scored'],
    [150, undefined, 'confidence 150 is not a score from 0 to 100: read as not scored'],
    [-5, undefined, 'confidence -5 is not a score from 0 to 100: read as not scored'],
    ['120%', undefined, 'confidence "120%" is not a score from 0 to 100: read as not scored'],
    [true, undefined, 'confidence true is not a score from 0 to 100: read as not scored'],
    ['constructor', undefined, 'confidence "constructor" is not a score from 0 to 100: read as not scored'],
  ] as const)('%j → %j', (written, confidence, note) => {
    const got = read(written);
    expect(got.confidence).toBe(confidence);
    expect(got.notes).toEqual(note === null ? [] : [note]);
  });

  it('a synonym of the key is read, and noted', () => {
    expect(read(90, 'certainty')).toEqual({ confidence: 90, notes: ['read `certainty` as `confidence`'] });
  });

  it('readConfidence alone: fractions, percentages and words on the 0–100 scale', () => {
    expect([0.5, 1, '1', '50%', 'Low', 'medium', null, {}, Number.NaN].map(readConfidence)).toEqual([50, 1, 1, 50, 25, 50, null, null, null]);
  });
});
