/**
 * Grounding through the built hook processes: findings quoted the ways models quote (diff markers,
 * elisions, diff-style and wrong-case paths) reach the fixer; caps never turn a real file into a
 * missing one; a broad quote does not swallow distinct defects; a decline counts once per round.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Loop, blockReason, messages, projectTestdir } from '../helpers/loop';
import { FIXER, REVIEWERS, cleanReview, findingsFile, issue, issueAt, reviewWithIssues, verdictFile, type Issue, type Reviewer } from '../helpers/reviews';
import { removeTestdirs } from '../helpers/testdir';
import { paced } from '../helpers/pace';

afterEach(removeTestdirs);

async function startedLoop(args = 'review the cart'): Promise<Loop> {
  const loop = new Loop(projectTestdir());
  await loop.start(args);
  return loop;
}

/** One R1 in which every reviewer writes (clean unless given findings) and stops; returns the stops' answers. */
async function review(loop: Loop, n: number, findings: Partial<Record<Reviewer, Issue[]>>) {
  const reviews = Object.fromEntries(REVIEWERS.map((r) => [r, findings[r] ? reviewWithIssues(r, findings[r]) : cleanReview(r)]));
  return (await loop.reviewRound(n, reviews)).stops;
}

describe('quotes as models write them reach the fixer', () => {
  it('evidence copied from a diff, with + markers and … elisions', async () => {
    const loop = await startedLoop();
    const fromDiff = issue({ evidence: '+  for (let i = 0; i <= items.length; i++) sum += items[i].price * items[i].qty;' });
    const elided = issueAt('src/cart.ts', 9, { category: 'logic-error', description: 'the discount is not clamped', evidence: '+ export function discount(amount: number, pct: number): number {\n+   …\n+ }' });
    const inline = issueAt('src/cart.ts', 12, { category: 'swallowed-error', description: 'parse errors vanish', evidence: 'try { return JSON.parse(text); } catch { … }' });
    const stops = await review(loop, 1, { critic: [fromDiff, elided], 'silent-failure-hunter': [inline] });
    for (const stop of stops) expect(blockReason(stop)).toBeUndefined();

    const verdict = loop.dir.readJson(verdictFile(1));
    expect(verdict.findings.map((f: any) => [f.line, f.grounding.status, f.grounding.reading.evidence])).toEqual([
      [5, 'grounded', ['diff-markers']],
      [9, 'grounded', ['diff-markers', 'gap']],
      [12, 'grounded', ['gap']],
    ]);
    const brief = loop.dir.readJson(findingsFile(1));
    expect(brief.findings.map((f: any) => f.evidence)).toEqual([fromDiff.evidence, elided.evidence, inline.evidence]);
    expect(loop.state()).toMatchObject({ currentPhase: 'R2' });
  });

  it('the same defect quoted clean, from a diff and elided is one finding for the fixer', async () => {
    const loop = await startedLoop();
    await review(loop, 1, {
      critic: [issue()],
      pedant: [issue({ evidence: '+ for (let i = 0; i <= items.length; i++) sum += items[i].price * items[i].qty;', category: 'off-by-one' })],
      witness: [issue({ evidence: 'for (let i = 0; i <= items.length; i++) sum += …', category: 'bug' })],
    });
    expect(loop.dir.readJson(findingsFile(1)).findings).toEqual([expect.objectContaining({ line: 5, reporters: ['critic', 'pedant', 'witness'] })]);
  });

  it('diff-style and wrong-case paths: grounded, and the reviewer is never told a real file is missing', async () => {
    const loop = await startedLoop();
    const stops = await review(loop, 1, { critic: [issue({ file: 'b/src/cart.ts' })], pedant: [issueAt('src/cart.ts', 9, { file: 'SRC/Cart.TS', category: 'logic-error' })] });
    for (const stop of stops) expect(blockReason(stop)).toBeUndefined();
    const verdict = loop.dir.readJson(verdictFile(1));
    expect(verdict.findings.map((f: any) => [f.file, f.grounding.status, f.grounding.reading.file])).toEqual([
      ['src/cart.ts', 'grounded', 'without-diff-prefix'],
      ['src/cart.ts', 'grounded', 'case-insensitive'],
    ]);
    expect(loop.dir.readJson(findingsFile(1)).findings).toHaveLength(2);
  });

  it('a cited line past the end of the file: the file is searched, the line corrected', async () => {
    const loop = await startedLoop();
    await review(loop, 1, { critic: [issue({ line: 40 })] });
    const [finding] = loop.dir.readJson(findingsFile(1)).findings;
    expect(finding).toMatchObject({ file: 'src/cart.ts', line: 5 });
    expect(loop.dir.readJson(verdictFile(1)).findings[0].grounding).toMatchObject({ status: 'relocated', reason: 'line 40 is past the end of src/cart.ts (16 lines); the evidence is at line 5' });
  });
});

describe('grounding never asserts what it did not check', () => {
  it('200 findings about missing files do not push a real critical past a cap', async () => {
    const loop = await startedLoop();
    // Info findings: an ungrounded warning or critical would go to the fixer, unverified.
    const ghosts = Array.from({ length: 200 }, (_, i) => ({ ...issue(), severity: 'info' as const, file: `src/ghost${i}.ts`, description: `ghost ${i}` }));
    const real = issue({ severity: 'critical', description: 'the loop reads past the end' });
    await loop.dispatchReviewers();
    for (const r of REVIEWERS) loop.writeReview(1, r, r === 'witness' ? reviewWithIssues(r, [...ghosts, real]) : cleanReview(r));
    const stops = await loop.reviewersStop();
    // The witness is told once which of its findings miss; never that src/cart.ts is missing.
    const told = blockReason(stops[REVIEWERS.indexOf('witness')]!);
    expect(told).toMatch(/src\/ghost0\.ts does not exist/);
    expect(told).not.toMatch(/src\/cart\.ts/);
    await loop.reviewerStop('witness');
    expect(loop.dir.readJson(findingsFile(1)).findings).toEqual([expect.objectContaining({ file: 'src/cart.ts', severity: 'critical' })]);
  });

  it('a finding at line 400,001 of a large file is grounded, not "past the end"', async () => {
    const loop = await startedLoop();
    loop.dir.write('data/rows.ts', `${Array.from({ length: 400_001 }, (_, i) => `  row(${i}, "item ${i}"),`).join('\n')}\n`);
    const deep = { ...issue(), file: 'data/rows.ts', line: 400_001, evidence: 'row(400000, "item 400000"),', description: 'the last row is wrong' };
    const stops = await review(loop, 1, { critic: [deep] });
    for (const stop of stops) expect(blockReason(stop)).toBeUndefined();
    expect(loop.dir.readJson(verdictFile(1)).findings[0]).toMatchObject({ line: 400_001, grounding: { status: 'grounded' }, toFixer: true });
  }, paced(300_000)); // every hook of the round reads the 10 MB file
});

describe('without WebAssembly (node --jitless)', () => {
  // Line starts of a file of 4 KB or more and flat bytes are WebAssembly's work (review/text-scan.ts);
  // a node without it runs the plain loops, to the same verdict.
  it('a 2 MB file: a finding grounded at its line and one relocated come out as with it', async () => {
    const rows = `${Array.from({ length: 60_000 }, (_, i) => `  row(${i}, "Item ${i}"),`).join('\n')}\n`;
    const findings = [
      { ...issue(), file: 'data/rows.ts', line: 59_000, evidence: 'row(58999, "Item 58999"),', description: 'a late row is wrong' },
      { ...issue(), file: 'data/rows.ts', line: 30_020, evidence: 'row(29999,  "item 29999"),', description: 'a row quoted loosely, 20 lines off' },
    ];
    const verdicts = [];
    for (const env of [{}, { NODE_OPTIONS: '--jitless' }]) {
      const loop = new Loop(projectTestdir(), undefined, { env });
      await loop.start('review the rows');
      loop.dir.write('data/rows.ts', rows);
      const stops = await review(loop, 1, { critic: findings });
      for (const stop of stops) expect(blockReason(stop)).toBeUndefined();
      verdicts.push(loop.dir.readJson(verdictFile(1)).findings.map((f: any) => [f.line, f.grounding.status, f.grounding.reading.evidence, f.identity]));
    }
    expect(verdicts[0]).toEqual([
      [59_000, 'grounded', [], 'row(58999,\'item58999\'),'],
      [30_000, 'relocated', [], 'row(29999,\'item29999\'),'],
    ]);
    expect(verdicts[1]).toEqual(verdicts[0]);
  }, paced(300_000));
});

describe('a broad quote', () => {
  it('containing three other reviewers\' distinct defects does not merge them into one', async () => {
    const loop = await startedLoop();
    const broad = issueAt('src/cart.ts', 3, { category: 'logic-error', description: 'total() is wrong', evidence: loop.dir.read('src/cart.ts').split('\n').slice(2, 7).join('\n') });
    await review(loop, 1, {
      critic: [broad],
      pedant: [issueAt('src/cart.ts', 4, { category: 'logic-error', description: 'sum should start from the first item' })],
      witness: [issueAt('src/cart.ts', 5, { category: 'logic-error', description: 'the loop reads past the end' })],
      'security-reviewer': [issueAt('src/cart.ts', 6, { category: 'logic-error', description: 'tax is applied twice' })],
    });
    const lines = loop.dir.readJson(findingsFile(1)).findings.map((f: any) => f.line).sort();
    expect(lines).toEqual([3, 4, 5, 6]);
  });
});

describe('declines', () => {
  it('one fingerprint listed twice as declined in one summary counts once: contested only after declines in two rounds', async () => {
    const loop = await startedLoop('--done-when info review the cart');
    // Another finding each round keeps the open set changing (no_progress stays quiet).
    const D = issueAt('src/cart.ts', 15, { category: 'naming', severity: 'info', description: 'label text' });
    const B = issueAt('src/cart.ts', 9, { category: 'logic-error', description: 'the discount is not clamped' });
    const C = issueAt('src/cart.ts', 12, { category: 'swallowed-error', description: 'parse errors vanish' });
    const declineTwice = async (n: number, fpD: string) => {
      const declined = { fingerprint: fpD, status: 'declined' as const, reason: 'string concatenation is the house style here' };
      const others = loop.openFingerprints(n).filter((fp) => fp !== fpD).map((fingerprint) => ({ fingerprint, status: 'fixed' as const, kind: 'patch' as const }));
      await loop.dispatch(FIXER);
      loop.writeFixSummary(n, { answers: [declined, ...others, declined] });
      expect(messages([await loop.fixerStop()])).toEqual([expect.stringMatching(/^minions: fix round \d/)]);
    };

    await review(loop, 1, { critic: [D], pedant: [B] });
    const fpD = loop.dir.readJson(verdictFile(1)).findings.find((f: any) => f.line === 15).fingerprint;
    await declineTwice(1, fpD);
    await review(loop, 2, { critic: [D], witness: [C] });
    expect(loop.dir.readJson(verdictFile(2)).findings).toEqual(expect.arrayContaining([expect.objectContaining({ fingerprint: fpD, status: 'NOT_FIXED', toFixer: true })]));
    await declineTwice(2, fpD);
    await review(loop, 3, { critic: [D] });
    expect(loop.dir.readJson(verdictFile(3)).findings).toEqual([expect.objectContaining({ fingerprint: fpD, status: 'CONTESTED', toFixer: false })]);
  }, paced(300_000)); // three rounds of hook processes
});
