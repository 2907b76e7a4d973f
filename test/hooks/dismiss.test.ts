/**
 * Dismissals that last: `minions dismiss` (dist/cli.mjs as /minions:dismiss runs it) writing
 * .minions/dismissed.json, and the hook processes reading it for each round's verdict. A broken, huge or
 * hostile file is reported as it is, never written over, and never traps the loop.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Loop, messages, projectTestdir } from '../helpers/loop';
import { SESSION } from '../helpers/payloads';
import { FIXER, REVIEWERS, cleanReview, issue, reviewWithIssues, verdictFile, type Issue, type Reviewer } from '../helpers/reviews';
import { runCli, runCommandLine } from '../helpers/run';
import { removeTestdirs, tempDir } from '../helpers/testdir';

afterEach(removeTestdirs);

const FILE = '.minions/dismissed.json';

async function review(loop: Loop, n: number, findings: Partial<Record<Reviewer, Issue[]>>): Promise<any> {
  const reviews = Object.fromEntries(REVIEWERS.map((r) => [r, findings[r] ? reviewWithIssues(r, findings[r]) : cleanReview(r)]));
  const { stops } = await loop.reviewRound(n, reviews);
  return { verdict: loop.dir.readJson(verdictFile(n)), notes: messages(stops) };
}

async function fix(loop: Loop, n: number): Promise<void> {
  await loop.dispatch(FIXER);
  loop.writeFixSummary(n);
  await loop.fixerStop();
}

/** A loop whose round 1 found the default finding (src/cart.ts:5); its fingerprint. */
async function roundOne(): Promise<{ loop: Loop; fingerprint: string }> {
  const loop = new Loop(projectTestdir());
  await loop.start('review the cart');
  const { verdict } = await review(loop, 1, { critic: [issue()] });
  expect(verdict.next).toBe('R2');
  return { loop, fingerprint: verdict.findings[0].fingerprint };
}

const cli = (loop: Loop, args: string[]) => runCli(['dismiss', ...args], { cwd: loop.root, sessionId: SESSION });

describe('minions dismiss', () => {
  it('records, lists, updates and removes a dismissal; the file validates and names the code it holds to', async () => {
    const { loop, fingerprint } = await roundOne();
    const none = await cli(loop, ['--list']);
    expect(none).toMatchObject({ code: 0, stdout: `minions: no finding is dismissed in this project (${FILE} does not exist).\n` });

    const added = await runCommandLine('dismiss', `${fingerprint} --reason "intended: items has a sentinel"`, { cwd: loop.root, sessionId: SESSION });
    expect(added).toMatchObject({ code: 0, stderr: '' });
    expect(added.stdout).toContain(`minions: dismissed ${fingerprint} (src/cart.ts:5, correctness) in ${FILE}`);
    const file = loop.dir.readJson(FILE);
    expect(file).toMatchObject({ version: 1, dismissed: [{ fingerprint, reason: 'intended: items has a sentinel', file: 'src/cart.ts', category: 'correctness' }] });
    expect(file.dismissed[0].identity).toContain('i<=items.length');

    const again = await cli(loop, [fingerprint, '--reason', 'the sentinel is documented']);
    expect(again.stdout).toContain(`reason updated for ${fingerprint}`);
    expect(loop.dir.readJson(FILE).dismissed).toHaveLength(1);
    expect((await cli(loop, ['--list'])).stdout).toMatch(new RegExp(`^minions: 1 dismissed finding \\(${FILE.replace('.', '\\.')}\\):\\n  ${fingerprint}  src/cart\\.ts \\(correctness\\), \\d{4}-\\d\\d-\\d\\d: the sentinel is documented\\n$`));

    expect(await cli(loop, ['--remove', fingerprint])).toMatchObject({ code: 0, stdout: `minions: ${fingerprint} is no longer dismissed (${FILE}).\n` });
    expect(loop.dir.readJson(FILE)).toEqual({ version: 1, dismissed: [] });
    expect(await cli(loop, ['--remove', fingerprint])).toMatchObject({ code: 1, stderr: expect.stringContaining('is not dismissed') });
  });

  it('refuses a fingerprint the loop never found, and one of the hooks\' own findings', async () => {
    const { loop } = await roundOne();
    const r = await cli(loop, ['0123456789ab', '--reason', 'x']);
    expect(r).toMatchObject({ code: 1, stdout: '', stderr: "minions: the last loop's verdicts have no finding 0123456789ab; REVIEW.md and REPORT.md show each finding's fingerprint.\n" });
    expect(loop.dir.exists(FILE)).toBe(false);
    const fresh = projectTestdir();
    expect(await runCli(['dismiss', '0123456789ab', '--reason', 'x'], { cwd: fresh.root })).toMatchObject({ code: 1, stderr: expect.stringContaining('no review loop has run') });
    expect(fresh.exists('.minions')).toBe(false);
  });

  it.each([
    ['not JSON', '{"version": 1, "dismissed": [', /is not a valid dismissals file: it is not valid JSON/],
    ['the wrong shape', '{"version": 2, "dismissed": {}}', /is not a valid dismissals file: version: .*; dismissed: /],
    ['a bad fingerprint', JSON.stringify({ version: 1, dismissed: [{ fingerprint: '../../x', reason: 'r', file: 'a', category: 'c', identity: 'i', description: 'd', dismissedAt: 'now' }] }), /dismissed\[0\]\.fingerprint: a fingerprint is 12 lower-case hex digits/],
    ['huge', `{"version": 1, "dismissed": [], "pad": "${'x'.repeat(1024 * 1024 + 10)}"}`, /is larger than 1024 KB; it was not read/],
  ])('a broken file (%s) is named, and nothing is written over it', async (_, text, problem) => {
    const { loop, fingerprint } = await roundOne();
    loop.dir.write(FILE, text);
    for (const args of [[fingerprint, '--reason', 'x'], ['--remove', fingerprint], ['--list']]) {
      const r = await cli(loop, args);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(problem);
      expect(r.stderr).toContain('Nothing was written');
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    expect(fs.readFileSync(loop.dir.abs(FILE), 'utf8')).toBe(text);
  });

  it('hostile entries: terminal escapes are not printed, __proto__ keys pollute nothing', async () => {
    const { loop, fingerprint } = await roundOne();
    const entry = { fingerprint, reason: 'ok \u001b[2J\u001b]0;owned\u0007 \u202eevil', file: 'src/cart.ts', category: 'correctness', identity: 'x', description: 'd', dismissedAt: '2026-12-06T00:00:00Z' };
    loop.dir.write(FILE, `{"__proto__": {"polluted": true}, "version": 1, "dismissed": [${JSON.stringify(entry).replace('{', '{"__proto__": {"toString": 1},')}]}`);
    const r = await cli(loop, ['--list']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toContain(`${fingerprint}  src/cart.ts (correctness), 2026-12-06: ok`);
    expect(r.stdout).not.toMatch(/[\u001b\u0007\u202e]/);
    // Written back through the schema: the unknown keys are gone, the rest is kept.
    expect((await cli(loop, [fingerprint, '--reason', 'kept'])).code).toBe(0);
    const text = fs.readFileSync(loop.dir.abs(FILE), 'utf8');
    expect(text).not.toContain('__proto__');
    expect(JSON.parse(text).dismissed).toHaveLength(1);
  });

  it('never follows a link out of the project: a linked .minions or dismissed.json is refused', async () => {
    const { loop, fingerprint } = await roundOne();
    const outside = tempDir();
    fs.symlinkSync(outside, loop.dir.abs('.minions'));
    const r = await cli(loop, [fingerprint, '--reason', 'x']);
    expect(r).toMatchObject({ code: 1, stderr: expect.stringContaining('.minions is a symbolic link') });
    expect(fs.readdirSync(outside)).toEqual([]);
    fs.unlinkSync(loop.dir.abs('.minions'));
    fs.mkdirSync(loop.dir.abs('.minions'));
    fs.writeFileSync(path.join(outside, 'dismissed.json'), '{"version": 1, "dismissed": []}');
    fs.symlinkSync(path.join(outside, 'dismissed.json'), loop.dir.abs(FILE));
    expect(await cli(loop, ['--list'])).toMatchObject({ code: 1, stderr: expect.stringContaining(`${FILE} is a symbolic link`) });
    expect(fs.readFileSync(path.join(outside, 'dismissed.json'), 'utf8')).toBe('{"version": 1, "dismissed": []}');
  });
});

describe('a round reads the dismissals', () => {
  it('a dismissed finding stays out of the fixer list and the gate (DONE), then comes back when its line changes', async () => {
    const { loop, fingerprint } = await roundOne();
    expect((await cli(loop, [fingerprint, '--reason', 'intended'])).code).toBe(0);
    await fix(loop, 1);
    const { verdict: v2 } = await review(loop, 2, { critic: [issue()] });
    expect(v2.findings[0]).toMatchObject({ fingerprint, dismissed: 'intended', toFixer: false });
    expect(v2).toMatchObject({ total_issues: 0, next: 'DONE' });
    const reviewMd = fs.readFileSync(loop.dir.abs('.agents/tmp/phases/review-2/REVIEW.md'), 'utf8');
    expect(reviewMd).toContain('DISMISSED: intended');
    const sarif = JSON.parse((await runCli(['report', '--sarif'], { cwd: loop.root })).stdout);
    expect(sarif.runs[0].results).toEqual([expect.objectContaining({ partialFingerprints: { 'minionsFindingHash/v1': fingerprint }, suppressions: [{ kind: 'external', status: 'accepted', justification: 'dismissed: intended' }] })]);
    const report = fs.readFileSync(loop.dir.abs('.agents/tmp/phases/REPORT.md'), 'utf8');
    expect(report).toMatch(/## Dismissed[\s\S]*src\/cart\.ts:5[\s\S]*— dismissed: intended/);

    // A new loop over a changed line: the finding is back.
    const next = new Loop(loop.dir);
    const line = 'for (let i = 0; i <= items.length; i++) sum += items[i]!.price * items[i]!.qty;';
    loop.dir.write('src/cart.ts', fs.readFileSync(loop.dir.abs('src/cart.ts'), 'utf8').replace(/^ {2}for .*$/m, `  ${line}`));
    await next.start('review the cart again');
    const { verdict } = await review(next, 1, { critic: [issue({ evidence: line })] });
    expect(verdict.findings[0]).toMatchObject({ dismissed: null, toFixer: true });
    expect(verdict.next).toBe('R2');
  });

  it('a broken dismissals file: the round goes on without dismissals, says what is wrong, and leaves the file alone', async () => {
    const { loop, fingerprint } = await roundOne();
    await fix(loop, 1);
    loop.dir.write(FILE, '{"version": 1, "dismissed": [ oops');
    const { verdict, notes } = await review(loop, 2, { critic: [issue()] });
    expect(verdict.findings[0]).toMatchObject({ fingerprint, dismissed: null, toFixer: true });
    expect(notes.join('\n')).toContain(`minions: ${FILE} is not a valid dismissals file: it is not valid JSON`);
    expect(notes.join('\n')).toContain('This round uses no dismissals; the file is left as it is.');
    expect(fs.readFileSync(loop.dir.abs(FILE), 'utf8')).toBe('{"version": 1, "dismissed": [ oops');
  });
});

describe('unquoted findings through the hooks', () => {
  it('a finding with no quote is unquoted, never grounded, and not counted in its reviewer\'s score', async () => {
    const loop = new Loop(projectTestdir());
    await loop.start('--done-when info review the cart');
    const { verdict } = await review(loop, 1, { critic: [issue({ evidence: '', severity: 'info', line: null })], pedant: [issue({ evidence: '$ npm test\nFAIL cart.test.ts' })] });
    const statuses = verdict.findings.map((f: any) => [f.reporters.join(), f.grounding.status, f.toFixer]);
    expect(statuses).toEqual(expect.arrayContaining([['critic', 'unquoted', false], ['pedant', 'unquoted', true]]));
    expect(verdict.reviewers.critic).toMatchObject({ unquoted: 1, ungrounded: 0, info: 0, score: 1 });
    const reviewMd = fs.readFileSync(loop.dir.abs('.agents/tmp/phases/review-1/REVIEW.md'), 'utf8');
    expect(reviewMd).toMatch(/UNQUOTED: no evidence is quoted, and no line is cited/);
    expect(reviewMd).toMatch(/NEW \(unquoted\)/);
  });
});
