/**
 * The reader's policy over a corpus of files written the way models write them: every `accept` variant
 * is read with its meaning kept (the findings' count, severity, file and line, each finding grounded),
 * every `sendback` variant is sent back with a message a model can act on, and an `either` variant is one
 * or the other, never misread. No message carries a parser offset or a raw invisible character.
 */
import fc from 'fast-check';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseReview } from '../../../src/protocol/reviewer-output';
import { readFixSummary } from '../../../src/protocol/fix-reader';
import { ground } from '../../../src/review/grounding';
import { readSources } from '../../../src/shell/sources';
import { REVIEW_SKELETON, fixerSummaryProblems, reviewerInvalid } from '../../../src/core/prompts';
import { removeTestdirs, testdir } from '../../helpers/testdir';
import { FIX_VARIANTS, OPEN, type FixMeaning } from './fixes';
import { PROJECT, reviewVariants, type Meaning } from './reviews';

afterAll(removeTestdirs);

const project = testdir(PROJECT, { git: false });
const REVIEWS = reviewVariants(path.basename(project.root));

/** What no send-back may hold: a parser's offset or position, or an invisible character shown raw. */
const PARSER_WORDS = /\bposition \d|\boffset\b|\bat \d+:\d+|Unexpected token|in JSON at|\bcolumn \d/i;
const INVISIBLE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u00ad\u200b-\u200f\u2028-\u202e\u2060-\u2064\ufeff]/;

function expectActionable(message: string): void {
  expect(message).not.toMatch(PARSER_WORDS);
  expect(message).not.toMatch(INVISIBLE);
}

/** The review as the hooks read it: each finding's severity, the project file it names, its line after grounding, and its grounding. */
function meaningOf(text: string): { ok: true; meaning: Meaning[]; statuses: string[]; recorded: boolean[] } | { ok: false; error: string } {
  const parsed = parseReview(text);
  if (!parsed.ok) return parsed;
  const sources = readSources(project.root, [text]);
  const rows = parsed.issues.map((f, i) => {
    const g = ground(f, sources);
    const source = sources[f.file.replace(/^(\.\/)+/, '')];
    const file = source?.kind === 'file' ? source.rel! : f.file;
    const recorded = (parsed.interpreted?.[i]?.length ?? 0) > 0 || (g.reading.file !== null && g.reading.file !== 'as-written') || (g.reading.evidence?.length ?? 0) > 0;
    return { meaning: { severity: f.severity, file, line: g.line }, status: g.status, recorded };
  });
  return { ok: true, meaning: rows.map((r) => r.meaning), statuses: rows.map((r) => r.status), recorded: rows.map((r) => r.recorded) };
}

describe('the review corpus', () => {
  it('holds at least 120 variants, of each label', () => {
    expect(REVIEWS.length).toBeGreaterThanOrEqual(120);
    expect(new Set(REVIEWS.map((v) => v.name)).size).toBe(REVIEWS.length);
    for (const label of ['accept', 'sendback', 'either'] as const) expect(REVIEWS.some((v) => v.label === label)).toBe(true);
  });

  it.each(REVIEWS.map((v) => [v.name, v] as const))('%s', (_, variant) => {
    const read = meaningOf(variant.text);
    if (variant.label === 'accept') expect(read, 'a needless send-back').toMatchObject({ ok: true });
    if (variant.label === 'sendback') expect(read.ok, 'an ambiguous file accepted').toBe(false);
    if (read.ok) {
      // No silent misread: the same findings, severities, files and lines, and none dropped as ungrounded.
      expect(read.meaning).toEqual(variant.meaning);
      expect(read.statuses.every((s) => s === 'grounded' || s === 'relocated')).toBe(true);
      // A finding read other than as written says so (in the verdict's interpretations or its grounding's reading).
      if (/^(severity|line as|line_|lineStart|lines|path|file_path|message|details|title|type|code|snippet|recommendation|fix|Capitalised|a location|category|evidence as|quote|a bare)/.test(variant.name) && !/with \.\/|in a code fence/.test(variant.name)) {
        expect(read.recorded[0]).toBe(true);
      }
    } else {
      expectActionable(read.error);
      if (variant.says) expect(read.error).toMatch(variant.says);
      const message = reviewerInvalid('/abs/project/.agents/tmp/phases/review-1/r1-critic.json', read.error);
      expect(message).toContain('/abs/project/.agents/tmp/phases/review-1/r1-critic.json');
      expect(message).toContain(REVIEW_SKELETON);
      expectActionable(message);
    }
  });
});

describe('the fixer corpus', () => {
  it('holds at least 25 variants', () => {
    expect(FIX_VARIANTS.length).toBeGreaterThanOrEqual(25);
    expect(new Set(FIX_VARIANTS.map((v) => v.name)).size).toBe(FIX_VARIANTS.length);
  });

  it.each(FIX_VARIANTS.map((v) => [v.name, v] as const))('%s', (_, variant) => {
    const read = readFixSummary(variant.text, variant.open ?? OPEN);
    if (variant.label === 'accept') expect(read, 'a needless send-back').toMatchObject({ ok: true });
    if (variant.label === 'sendback') expect(read.ok, 'an ambiguous answer accepted').toBe(false);
    if (read.ok) {
      const meaning: FixMeaning[] = read.summary.fixes.map((f) => ({ fingerprint: f.fingerprint, status: f.status, ...(f.status === 'fixed' ? { kind: f.kind } : {}) }));
      expect(meaning).toEqual(variant.meaning);
      // Read other than as written: noted.
      if (variant.name !== 'as the contract writes it') expect(read.notes.length).toBeGreaterThan(0);
    } else {
      expectActionable(read.problem);
      if (variant.says) expect(read.problem).toMatch(variant.says);
      const message = fixerSummaryProblems('/abs/r2-fix-summary.md', '/abs/r2-fix-summary.json', [`r2-fix-summary.json: ${read.problem}`]);
      expect(message).toContain('/abs/r2-fix-summary.json');
      expectActionable(message);
    }
  });
});

describe('packaging never changes what a review says', () => {
  const finding = fc.record({
    severity: fc.constantFrom('critical', 'warning', 'info'),
    category: fc.constantFrom('logic-error', 'naming', 'injection'),
    file: fc.constantFrom('src/a.ts', 'lib/b c.js', 'README.md'),
    line: fc.option(fc.integer({ min: 1, max: 5000 }), { nil: null }),
    description: fc.string({ minLength: 1, maxLength: 40 }).filter((s) => s.trim() !== ''),
    evidence: fc.string({ maxLength: 40 }),
    suggestion: fc.string({ maxLength: 20 }),
  });
  const packagings: [string, (json: string) => string][] = [
    ['a fence', (j) => `\`\`\`json\n${j}\n\`\`\``],
    ['prose around', (j) => `My review:\n\n${j}\n\nThanks.`],
    ['a BOM', (j) => `\uFEFF${j}`],
    ['a comment first', (j) => `// review\n${j}`],
    ['a fence and prose', (j) => `Done.\n\`\`\`\n${j}\n\`\`\`\nBye.`],
  ];

  it('a review in any of these packagings reads as the bare review', () => {
    fc.assert(
      fc.property(fc.array(finding, { maxLength: 6 }), fc.constantFrom(...packagings), fc.boolean(), (issues, [, pack], indent) => {
        const counts = { critical: 0, warning: 0, info: 0 };
        for (const i of issues) counts[i.severity as keyof typeof counts]++;
        const json = JSON.stringify({ issues, summary: { ...counts, verdict: issues.length ? 'issues_found' : 'clean' } }, null, indent ? 2 : 0);
        const bare = parseReview(json);
        const packed = parseReview(pack(json));
        expect(bare.ok).toBe(true);
        expect(packed).toMatchObject({ ok: true, issues: bare.ok ? bare.issues : [], counts: bare.ok ? bare.counts : {} });
      }),
      { numRuns: 300 },
    );
  });
});
