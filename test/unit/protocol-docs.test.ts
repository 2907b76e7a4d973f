/**
 * The command, the skill, the agents and the phase prompts describe one protocol: the files they name are
 * the files src/protocol/paths.ts defines, each agent is pointed at the files the hooks hand it, and the
 * examples in the agents' instructions validate against the schemas the hooks check.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REVIEWERS, type Reviewer } from '../../src/protocol/agents';
import * as prompts from '../../src/core/prompts';
import { Recommendation, ReviewerOutput } from '../../src/protocol/reviewer-output';
import { FixKind, FixStatus, FixSummary } from '../../src/protocol/verdict-schema';
import {
  ROUND_FILES,
  changedDuringReviewFile,
  checksFile,
  diffFile,
  escalationFile,
  findingsFile,
  fixDeltaFile,
  fixSummaryFile,
  fixSummaryJsonFile,
  layer0File,
  reviewerFile,
  verdictFile,
} from '../../src/protocol/paths';
import { patchNote, stateBuilder } from './builders';

const REPO = path.resolve(__dirname, '../..');
const read = (rel: string): string => fs.readFileSync(path.join(REPO, rel), 'utf8');
const ROOT = '/home/me/shop';

/** The round files a text names; a reviewer's own output counts as `r1-<reviewer>.json`. */
function namesIn(text: string): Set<string> {
  const names = new Set<string>();
  for (const [name] of text.matchAll(/\b(?:r1-<reviewer>|r[12]-[a-z-]+|diff|fix-delta|escalation|checks|layer0)\.(?:json|md|patch)\b/g)) {
    const reviewer = /^r1-([a-z-]+)\.json$/.exec(name)?.[1];
    names.add(reviewer && (REVIEWERS as readonly string[]).includes(reviewer) ? 'r1-<reviewer>.json' : name);
  }
  return names;
}
const sorted = (names: Iterable<string>): string[] => [...names].sort();

/** The bullet of a Markdown list that starts with `marker`, up to the next bullet. */
function bullet(text: string, marker: string): string {
  const start = text.indexOf(marker);
  if (start < 0) throw new Error(`no bullet "${marker}"`);
  const next = text.indexOf('\n- ', start + 1);
  return text.slice(start, next < 0 ? undefined : next);
}

/** Iteration 3 after two fix rounds, with both patches and an escalated class: every line the R1 prompt can have. */
const reReview = () =>
  stateBuilder({ root: ROOT })
    .inR2()
    .nextRound()
    .inR2()
    .nextRound()
    .patches({ diff: patchNote(['src/a.ts', 'src/b.ts']), fixDelta: patchNote(['src/a.ts']) })
    .escalated([{ class: '5be1c0a2d9f4', reason: 'repeated' }])
    .build();
/** R2 of iteration 2 with a class to fix together and an audit-first class. */
const fixRound = () =>
  stateBuilder({ root: ROOT })
    .inR2()
    .nextRound()
    .inR2(3)
    .classes([
      { id: 'aaaaaaaaaaaa', category: 'docs', fingerprints: ['fp0', 'fp1'], sites: ['README.md:3', 'docs/guide.md:9'], rung: 'new', attempts: [] },
      { id: 'bbbbbbbbbbbb', category: 'error-handling', fingerprints: ['fp2'], sites: ['src/config.ts:31'], rung: 'audit', attempts: [1] },
    ])
    .build();

const r1Context = (): string => prompts.r1Prompt(reReview(), ['src/a.ts', 'src/b.ts']).split('\nDispatch ')[0]!;
const r2Handoff = (): string => {
  const state = fixRound();
  return prompts.r2Prompt(state, state.iterations.at(-1)!.verdict!).split('Dispatch the fixer now')[1]!;
};

const DOCS = ['commands/review.md', 'skills/review-loop/SKILL.md', 'README.md', ...fs.readdirSync(path.join(REPO, 'agents')).map((f) => `agents/${f}`)];

describe('the round files', () => {
  it('paths.ts defines every file of ROUND_FILES, and nothing else', () => {
    const produced = [
      reviewerFile(7, 'critic'), verdictFile(7), changedDuringReviewFile(7), diffFile(7), fixDeltaFile(7), escalationFile(7), findingsFile(7), fixSummaryFile(7), fixSummaryJsonFile(7), checksFile(7), layer0File(7),
    ];
    expect(produced.every((p) => p.startsWith('.agents/tmp/phases/review-7/'))).toBe(true);
    expect(sorted(produced.flatMap((p) => [...namesIn(p)]))).toEqual(sorted(Object.keys(ROUND_FILES)));
  });

  it.each(DOCS)('%s names only files that exist in the protocol', (doc) => {
    const unknown = [...namesIn(read(doc))].filter((name) => !(name in ROUND_FILES));
    expect(unknown).toEqual([]);
  });
});

describe('what the reviewers are given', () => {
  it('the R1 prompt names the change, the fix delta, the previous round and the escalation, every path absolute', () => {
    const context = r1Context();
    expect(sorted(namesIn(context))).toEqual(['diff.patch', 'escalation.json', 'fix-delta.patch', 'r2-findings.json', 'r2-fix-summary.json', 'r2-fix-summary.md']);
    const prompt = prompts.r1Prompt(reReview(), []);
    const prefixes = [...prompt.matchAll(/(\S*)\.agents\/tmp\/phases\//g)].map((m) => m[1]);
    expect(prefixes.length).toBeGreaterThan(8);
    expect(new Set(prefixes)).toEqual(new Set([`${ROOT}/`]));
  });

  it.each([
    ['commands/review.md', '- **R1**'],
    ['skills/review-loop/SKILL.md', '- **R1 — review.**'],
  ])('%s tells the orchestrator to pass exactly the R1 prompt’s files', (doc, marker) => {
    const names = namesIn(bullet(read(doc), marker));
    expect(sorted(names)).toEqual(sorted([...namesIn(r1Context()), 'r1-<reviewer>.json']));
    expect(bullet(read(doc), marker)).toMatch(/absolute/);
  });

  it.each(REVIEWERS)('agents/%s.md reads diff.patch and fix-delta.patch with Read, and writes its own r1 file', (reviewer: Reviewer) => {
    const text = read(`agents/${reviewer}.md`);
    const tools = /^tools: (.*)$/m.exec(text)![1]!.split(/,\s*/);
    expect(tools).toContain('Read');
    const expected = [...namesIn(r1Context())].filter((n) => n !== 'escalation.json' || reviewer === 'critic');
    expect(sorted([...namesIn(text)].filter((n) => n !== 'r1-<reviewer>.json'))).toEqual(sorted(expected));
    expect(text).toContain(`\`${reviewerFile(987, reviewer).replace('987', 'N')}\``);
    expect(text).toContain(`\`${diffFile(987).replace('987', 'N')}\``);
    expect(text).toMatch(/Read `diff\.patch` first, with the Read tool/);
    expect(text).toMatch(/1\. Read `fix-delta\.patch` first/);
  });

  it('only the witness has Bash: the others see the change through diff.patch alone', () => {
    const withBash = REVIEWERS.filter((r) => /^tools: .*\bBash\b/m.test(read(`agents/${r}.md`)));
    expect(withBash).toEqual(['witness']);
  });
});

describe('what the fixer is given', () => {
  const handoff = ['r2-findings.json', 'r2-fix-summary.json', 'r2-fix-summary.md'];

  it('the R2 prompt hands the fixer the findings file and its summaries, and for an audit-first class the earlier attempts, never a review', () => {
    const names = namesIn(r2Handoff());
    expect(sorted(names)).toEqual(sorted([...handoff, 'fix-delta.patch']));
  });

  it.each([
    ['commands/review.md', '- **R2**'],
    ['skills/review-loop/SKILL.md', '- **R2 — fix.**'],
  ])('%s tells the orchestrator to give the fixer exactly those files, not the reviewers’ files', (doc, marker) => {
    const text = bullet(read(doc), marker);
    expect(sorted(namesIn(text))).toEqual(handoff);
    expect(text).not.toMatch(/review files/);
    expect(text).toMatch(/audit-first/);
  });

  it('agents/review-fixer.md names the files it is handed and no review', () => {
    expect(sorted(namesIn(read('agents/review-fixer.md')))).toEqual(sorted([...handoff, 'fix-delta.patch']));
  });
});

describe('the vocabulary matches the schemas', () => {
  const alternatives = (text: string, field: string): string[][] =>
    [...text.matchAll(new RegExp(`"${field}":"([a-z_]+(?:\\|[a-z_]+)+)"`, 'g'))].map((m) => m[1]!.split('|'));

  it('the fixer’s statuses and kinds, in the R2 prompt and the fixer’s continuation', () => {
    const texts = [r2Handoff(), prompts.fixerSummaryProblems('/x/r2-fix-summary.md', '/x/r2-fix-summary.json', ['x'])];
    for (const text of texts) {
      expect(alternatives(text, 'status')).toEqual([FixStatus.options]);
      expect(alternatives(text, 'kind')).toEqual([FixKind.options]);
    }
  });

  it('the diagnosis the R1 prompt and escalation.json ask the critic for', () => {
    const recommend = Recommendation.options;
    expect(alternatives(r1Context(), 'recommend')).toEqual([recommend]);
    expect(alternatives(prompts.escalationRequest(), 'recommend')).toEqual([recommend]);
  });

  const jsonBlocks = (text: string): unknown[] => [...text.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!));

  it('the fixer’s example answers validate, with every status and both kinds', () => {
    const [example] = jsonBlocks(read('agents/review-fixer.md'));
    const parsed = FixSummary.parse(example);
    expect(sorted(new Set(parsed.fixes.map((f) => f.status)))).toEqual(sorted(FixStatus.options));
    expect(sorted(new Set(parsed.fixes.flatMap((f) => (f.kind ? [f.kind] : []))))).toEqual(sorted(FixKind.options));
    expect(parsed.patterns).toHaveLength(1);
  });

  it.each(REVIEWERS)('agents/%s.md: every example review validates', (reviewer) => {
    const examples = jsonBlocks(read(`agents/${reviewer}.md`));
    expect(examples.length).toBeGreaterThan(0);
    for (const example of examples) expect(ReviewerOutput.safeParse(example).success).toBe(true);
    if (reviewer === 'critic') expect(examples.some((e) => ReviewerOutput.parse(e).diagnosis.length > 0)).toBe(true);
  });
});
