/**
 * Tree snapshots at the phase boundaries, through the built hooks: the base tree at the start, the tree each
 * review ended on, the tree the fixer left; a project change during R1, whoever made it, is named, saved as
 * a patch, and never ends DONE.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Loop, messages, projectTestdir } from '../helpers/loop';
import { REVIEWERS, cleanReview, issueAt, reviewWithIssues, verdictFile, type Reviewer } from '../helpers/reviews';
import { removeTestdirs } from '../helpers/testdir';
import { readBlob, diffTrees, snapshotTree } from '../../src/shell/snapshot';

afterAll(removeTestdirs);

const allClean = () => Object.fromEntries(REVIEWERS.map((r) => [r, cleanReview(r)])) as Record<Reviewer, ReturnType<typeof cleanReview>>;
const PATCH = (n: number) => `.agents/tmp/phases/review-${n}/r1-changed-during-review.patch`;

describe('snapshots at phase boundaries', () => {
  it('records the base tree, each review’s end and the fixer’s tree; the fixer’s exact change is their diff', async () => {
    const loop = new Loop(projectTestdir());
    await loop.start('--max-iterations 3 review the cart');
    const started = loop.state();
    expect(started.baseTree).toMatch(/^[0-9a-f]{40}$/);
    expect(started.baseTree).toBe(snapshotTree(loop.root));
    expect(started.iterations[0].trees).toEqual({ reviewStart: started.baseTree, reviewEnd: null, fixEnd: null });

    await loop.reviewRound(1, { ...allClean(), critic: reviewWithIssues('critic', [issueAt('src/a.ts', 1, { evidence: 'export const a = 2;' })]) });
    const reviewed = loop.state();
    expect(reviewed.currentPhase).toBe('R2');
    expect(reviewed.iterations[0].trees.reviewEnd).toBe(started.baseTree); // nobody changed the project during R1
    expect(reviewed.iterations[0].changedDuringReview).toEqual([]);
    expect(loop.dir.exists(PATCH(1))).toBe(false);

    await loop.dispatch('minions:review-fixer');
    loop.dir.write('src/a.ts', 'export const a = 3;\n');
    loop.writeFixSummary(1);
    await loop.fixerStop();
    const fixed = loop.state();
    const { reviewEnd, fixEnd } = fixed.iterations[0].trees;
    expect(fixEnd).toMatch(/^[0-9a-f]{40}$/);
    expect(readBlob(loop.root, fixEnd, 'src/a.ts')).toBe('export const a = 3;\n');
    const delta = diffTrees(loop.root, reviewEnd, fixEnd);
    expect(delta.files).toEqual(['src/a.ts']);
    expect(delta.text).toContain('-export const a = 2;');
    expect(delta.text).toContain('+export const a = 3;');
    expect(fixed.iterations[1].trees.reviewStart).toBe(fixEnd);
  });

  it('a project file written during R1 (here behind the gates’ back) is named in the verdict and the progress line, saved as a patch, and a clean review does not end DONE', async () => {
    const loop = new Loop(projectTestdir());
    await loop.start('--max-iterations 2 review the cart');
    await loop.dispatchReviewers();
    for (const r of REVIEWERS) loop.writeReview(1, r, cleanReview(r));
    loop.dir.write('src/a.ts', 'export const a = 99; // written during the review\n');
    const stops = await loop.reviewersStop();

    const verdict = loop.dir.readJson(verdictFile(1));
    expect(verdict.overall_verdict).toBe('clean');
    expect(verdict.changedDuringReview).toEqual(['src/a.ts']);
    expect(verdict.next).toBe('R1');
    const state = loop.state();
    expect(state.currentPhase).toBe('R1');
    expect(state.iteration).toBe(2);
    expect(state.iterations[0].changedDuringReview).toEqual(['src/a.ts']);
    expect(state.iterations[1].trees.reviewStart).toBe(state.iterations[0].trees.reviewEnd);
    expect(loop.dir.read(PATCH(1))).toContain('+export const a = 99; // written during the review');
    const line = messages(stops).find((m) => /^minions: review 1\/2: /.test(m));
    expect(line).toMatch(/1 project file changed during the review \(src\/a\.ts\): see \.agents\/tmp\/phases\/review-1\/r1-changed-during-review\.patch → R1: re-reviewing/);

    // The last allowed round: clean again, but the tree changed again → STOPPED, never DONE.
    await loop.dispatchReviewers();
    for (const r of REVIEWERS) loop.writeReview(2, r, cleanReview(r));
    loop.dir.write('src/new-file.ts', 'export {};\n');
    const last = await loop.reviewersStop();
    const final = loop.state();
    expect(final.currentPhase).toBe('STOPPED');
    expect(final.stopReason).toBe('changed_during_review');
    expect(final.stopDetail).toContain('src/new-file.ts');
    expect(messages(last).join('\n')).toContain('STOPPED (the project changed while it was being reviewed)');
  });

  // Found by an adversarial pass: an interpreter breaks .git/config during R1, so the review's end has
  // no snapshot, and a review with no tree at its end was once compared with nothing and could end DONE.
  it('git broken during R1 (a garbled .git/config): the round cannot end DONE, and says a change cannot be ruled out', async () => {
    const loop = new Loop(projectTestdir());
    await loop.start('--max-iterations 1 review the cart');
    await loop.dispatchReviewers();
    for (const r of REVIEWERS) loop.writeReview(1, r, cleanReview(r));
    const config = loop.dir.read('.git/config');
    loop.dir.write('.git/config', `${config}[core\n\tbroken = \n`);
    loop.dir.write('src/a.ts', 'export const a = 99; // written during the review\n');
    const stops = await loop.reviewersStop();
    expect(stops.every((s) => s.code === 0 && s.stderr === '')).toBe(true);
    const verdict = loop.dir.readJson(verdictFile(1));
    expect(verdict.overall_verdict).toBe('clean');
    expect(verdict.changedDuringReview).toEqual(['(the project: no snapshot at the end of the review)']);
    const state = loop.state();
    // The change to .git/config itself is a pinned file's: it names the stop (test/hooks/pins.test.ts).
    expect(state).toMatchObject({ currentPhase: 'STOPPED', stopReason: 'git_dir_changed' });
    expect(state.stopDetail).toMatch(/^\.git\/config was changed since the loop started/);
    expect(loop.dir.read(PATCH(1))).toMatch(/^# git could not snapshot the project when review 1 ended/);
    const line = messages(stops).find((m) => /^minions: review 1\/1: /.test(m));
    expect(line).toContain('; git could not snapshot the project when the review ended, so a change during it cannot be ruled out: see .agents/tmp/phases/review-1/r1-changed-during-review.patch → STOPPED');
    expect(loop.dir.read('.agents/tmp/phases/review-1/REVIEW.md')).toContain('**Changed while this round was reviewed:** unknown: git could not snapshot the project when the review ended');
  });

  it('the plugin’s own files under .agents/ never count as a change during the review', async () => {
    const loop = new Loop(projectTestdir());
    await loop.start('review the cart');
    await loop.reviewRound(1, allClean());
    expect(loop.state().currentPhase).toBe('DONE');
    expect(loop.dir.readJson(verdictFile(1)).changedDuringReview).toEqual([]);
  });
});

describe("the witness's test runs", () => {
  const artefacts = {
    'src/__pycache__/cart.cpython-312.pyc': '\u0000bytecode',
    '.pytest_cache/v/cache/lastfailed': '{}\n',
    'coverage/lcov.info': 'TN:\n',
    '.coverage': 'sqlite',
    'test/__snapshots__/cart.test.ts.snap': '// snapshot\n',
  };

  it('leave untracked artefacts: they are named, not counted as changes, and a clean review ends DONE', async () => {
    const loop = new Loop(projectTestdir());
    await loop.start('review the cart');
    await loop.dispatchReviewers();
    for (const r of REVIEWERS) loop.writeReview(1, r, cleanReview(r));
    for (const [file, text] of Object.entries(artefacts)) loop.dir.write(file, text);
    await loop.reviewersStop();
    const verdict = loop.dir.readJson(verdictFile(1));
    expect(verdict).toMatchObject({ changedDuringReview: [], next: 'DONE' });
    expect([...verdict.testArtefacts].sort()).toEqual(Object.keys(artefacts).sort());
    expect(loop.dir.exists(PATCH(1))).toBe(false);
    expect(loop.dir.read('.agents/tmp/phases/review-1/REVIEW.md')).toContain('**Left by test runs during the review (not counted as changes):** `.coverage`');
  });

  it("a reviewer's real write is still caught and named beside them; a snapshot rewritten and a tracked cache changed are changes", async () => {
    const dir = projectTestdir();
    dir.write('test/__snapshots__/old.snap', 'old\n');
    dir.write('lib/__pycache__/kept.pyc', 'committed\n');
    dir.git('add', '-A');
    dir.git('commit', '-q', '-m', 'snapshots');
    const loop = new Loop(dir);
    await loop.start('--max-iterations 1 review the cart');
    await loop.dispatchReviewers();
    for (const r of REVIEWERS) loop.writeReview(1, r, cleanReview(r));
    loop.dir.write('src/__pycache__/cart.cpython-312.pyc', 'bytecode');
    loop.dir.write('src/cart.ts', `${loop.dir.read('src/cart.ts')}// a reviewer was here\n`);
    loop.dir.write('test/__snapshots__/old.snap', 'rewritten by -u\n');
    loop.dir.write('lib/__pycache__/kept.pyc', 'changed\n');
    await loop.reviewersStop();
    const verdict = loop.dir.readJson(verdictFile(1));
    expect(verdict.changedDuringReview).toEqual(['lib/__pycache__/kept.pyc', 'src/cart.ts', 'test/__snapshots__/old.snap']);
    expect(verdict.testArtefacts).toEqual(['src/__pycache__/cart.cpython-312.pyc']);
    expect(verdict).toMatchObject({ next: 'STOPPED', stopReason: 'changed_during_review' });
  });
});
