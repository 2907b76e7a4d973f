/**
 * /minions:status and /minions:cancel: dist/cli.mjs run as the commands' `!` lines run it (cwd = the
 * project, CLAUDE_CODE_SESSION_ID set, no CLAUDE_PROJECT_DIR). The session id decides ownership.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Loop, messages, projectTestdir } from '../helpers/loop';
import { OTHER_SESSION, SESSION } from '../helpers/payloads';
import { REVIEWERS, STATE, cleanReview, reviewWithIssues } from '../helpers/reviews';
import { REPO_ROOT, runCli, runCommandLine } from '../helpers/run';
import { rewriteState } from '../helpers/state';
import { STANDARD_EFFORT } from '../../src/protocol/effort';
import { cloneTestdir, removeTestdirs, tempDir, testdir, type TestDir } from '../helpers/testdir';

afterAll(removeTestdirs);

let r1: TestDir;

beforeAll(async () => {
  const loop = new Loop(projectTestdir());
  await loop.start('--max-iterations 3 the cart');
  await loop.dispatchReviewers();
  loop.writeReview(1, 'critic', reviewWithIssues('critic'));
  await loop.reviewerStop('critic');
  r1 = loop.dir;
});

const fresh = (session = SESSION) => new Loop(cloneTestdir(r1), session);

/** Sets the loop's updatedAt to `ms` ago, as the hooks would write it. */
function age(loop: Loop, ms: number): void {
  rewriteState(loop.root, (state) => ({ ...state, updatedAt: new Date(Date.now() - ms).toISOString() }));
}

describe.concurrent('/minions:status', () => {
  it('with no loop ever run', async () => {
    const loop = new Loop(projectTestdir());
    const r = await runCli(['status'], { cwd: loop.root, sessionId: SESSION });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toBe(`minions: no review loop has run in this project (${loop.root}). Start one with /minions:review <what to review>.\n`);
  });

  it('run from a subfolder: finds the project (the folder holding .agents/tmp, else the git work tree\'s top), or names where it looked', async () => {
    const loop = fresh();
    fs.mkdirSync(loop.dir.abs('src/deep/er'), { recursive: true });
    const r = await runCli(['status'], { cwd: loop.dir.abs('src/deep/er'), sessionId: SESSION });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toMatch(/^minions review loop — R1, Iteration 1\/3 \(in progress\)\n/);
    const json = JSON.parse((await runCli(['status', '--json'], { cwd: loop.dir.abs('src') })).stdout);
    expect(json).toMatchObject({ loop: 'running', phase: 'R1' });

    const none = projectTestdir();
    fs.mkdirSync(none.abs('lib'), { recursive: true });
    const inGit = await runCli(['status'], { cwd: none.abs('lib') });
    expect(inGit.stdout).toContain(`no review loop has run in this project (${none.root}).`);
    const report = await runCli(['report', '--sarif'], { cwd: none.abs('lib') });
    expect(report).toMatchObject({ code: 1, stdout: '', stderr: `minions: no review loop has run in this project (${none.root}), so there is nothing to report.\n` });
    expect(none.exists('.agents')).toBe(false);
  });

  it('for the owning session and for another one', async () => {
    const loop = fresh();
    const mine = await runCli(['status'], { cwd: loop.root, sessionId: SESSION });
    expect(mine).toMatchObject({ code: 0, stderr: '' });
    const lines = mine.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('minions review loop — R1, Iteration 1/3 (in progress)');
    expect(lines[1]).toBe('Task: the cart');
    expect(lines[2]).toMatch(/^Started just now by this session; last update just now\.$/);
    expect(lines[3]).toBe('Profile: effort standard: five reviewers.');
    expect(lines[4]).toBe('Reviewers (iteration 1): critic ✓ 1 warning, pedant … running, witness … running, security-reviewer … running, silent-failure-hunter … running');
    expect(lines).toContain('Files: .agents/tmp/phases/');
    expect(lines.at(-1)).toBe('End it with /minions:cancel.');

    const theirs = await runCli(['status'], { cwd: loop.root, sessionId: OTHER_SESSION });
    expect(theirs.stdout).toContain(`by session ${SESSION.slice(0, 8)};`);
    const anonymous = await runCli(['status'], { cwd: loop.root });
    expect(anonymous.stdout).toContain(`by session ${SESSION.slice(0, 8)};`);
  });

  it('after the loop ended and its state was archived: the last run', async () => {
    const loop = fresh();
    for (const r of REVIEWERS) if (r !== 'critic') loop.writeReview(1, r, cleanReview(r));
    await loop.reviewersStop(REVIEWERS.filter((r) => r !== 'critic'));
    expect(loop.state().currentPhase).toBe('R2');
    // Finish cleanly in iteration 2.
    await loop.dispatch('minions:review-fixer');
    loop.writeFixSummary(1);
    await loop.fixerStop();
    await loop.reviewRound(2, Object.fromEntries(REVIEWERS.map((r) => [r, cleanReview(r)])));
    await loop.stop();
    expect(loop.hasState()).toBe(false);
    const r = await runCli(['status'], { cwd: loop.root, sessionId: SESSION });
    expect(r.stdout).toMatch(/^No review loop is running\. The last one:\nminions review loop — DONE, Iteration 2\/3 \(done\)\n/);
    expect(r.stdout).toMatch(/^Review 1: 1 issue \(1 warning\) — \.agents\/tmp\/phases\/review-1\/r1-verdict\.json; fixed, see \.agents\/tmp\/phases\/review-1\/r2-fix-summary\.md$/m);
    expect(r.stdout).toMatch(/^Review 2: clean — \.agents\/tmp\/phases\/review-2\/r1-verdict\.json$/m);
    expect(r.stdout).toContain('Files: .agents/tmp/phases/');
  });
});

describe.concurrent('/minions:cancel', () => {
  it('by the owning session: cancelled, state and phases archived, the hooks go idle', async () => {
    const loop = fresh();
    const runId = loop.state().runId;
    const r = await runCli(['cancel'], { cwd: loop.root, sessionId: SESSION });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toBe(`minions: review loop cancelled in R1 (Iteration 1/3); files archived to .agents/tmp/archive/${runId}/\n`);
    expect(loop.hasState()).toBe(false);
    const archived = loop.dir.readJson(`.agents/tmp/archive/${runId}/state.json`);
    expect(archived).toMatchObject({ status: 'cancelled', currentPhase: 'CANCELLED', stopReason: 'cancelled' });
    expect(loop.dir.exists(`.agents/tmp/archive/${runId}/phases/review-1/r1-critic.json`)).toBe(true);
    expect(loop.dir.exists('.agents/tmp/phases')).toBe(false);
    for (const x of [await loop.stop(), await loop.dispatch('minions:critic'), await loop.gateWrite(loop.dir.abs('src/a.ts'), null)]) {
      expect(x).toMatchObject({ code: 0, raw: '', stderr: '' });
    }
    const again = await runCli(['cancel'], { cwd: loop.root, sessionId: SESSION });
    expect(again.stdout).toBe('minions: no review loop is running in this project.\n');
  });

  it('by another session: refused without --force, nothing changes', async () => {
    const loop = fresh();
    const before = loop.snapshot();
    for (const sessionId of [OTHER_SESSION, undefined]) {
      const r = await runCli(['cancel'], { cwd: loop.root, sessionId });
      expect(r).toMatchObject({ code: 0, stderr: '' });
      expect(r.stdout).toBe('minions: the review loop in this project belongs to another session; run /minions:cancel there, or /minions:cancel --force here.\n');
    }
    expect(loop.snapshot()).toEqual(before);
  });

  it('by another session with --force (through the command file\'s ! line): cancelled', async () => {
    const loop = fresh();
    const runId = loop.state().runId;
    const r = await runCommandLine('cancel', '--force', { cwd: loop.root, sessionId: OTHER_SESSION });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toMatch(/^minions: review loop cancelled in R1/);
    expect(loop.hasState()).toBe(false);
    expect(loop.dir.readJson(`.agents/tmp/archive/${runId}/state.json`).status).toBe('cancelled');
  });

  it('by another session when the loop is stale: cancelled without --force', async () => {
    const loop = fresh();
    age(loop, 3 * 3600_000);
    const r = await runCli(['cancel'], { cwd: loop.root, sessionId: OTHER_SESSION });
    expect(r.stdout).toMatch(/^minions: review loop cancelled in R1/);
    expect(loop.hasState()).toBe(false);
  });

  it('of a finished loop whose Stop has not run yet: archives it and says no loop is running', async () => {
    const loop = fresh();
    const runId = loop.state().runId;
    rewriteState(loop.root, (state) => ({ ...state, status: 'stopped', currentPhase: 'STOPPED', stopReason: 'max_iterations' }));
    const r = await runCli(['cancel'], { cwd: loop.root, sessionId: OTHER_SESSION });
    expect(r.stdout).toBe('minions: no review loop is running in this project.\n');
    expect(loop.hasState()).toBe(false);
    expect(loop.dir.exists(`.agents/tmp/archive/${runId}/state.json`)).toBe(true);
  });

  it('status through the command file\'s ! line', async () => {
    const loop = fresh();
    const status = await runCommandLine('status', '', { cwd: loop.root, sessionId: SESSION });
    expect(status.stdout).toMatch(/^minions review loop — R1, Iteration 1\/3 \(in progress\)\n/);
  });

  it('with no loop: says so and creates nothing in the project (no .agents/)', async () => {
    const loop = new Loop(projectTestdir());
    for (const args of [['cancel'], ['cancel', '--force']]) {
      const r = await runCli(args, { cwd: loop.root, sessionId: SESSION });
      expect(r).toMatchObject({ code: 0, stdout: 'minions: no review loop is running in this project.\n', stderr: '' });
    }
    const viaCommand = await runCommandLine('cancel', '', { cwd: loop.root, sessionId: SESSION });
    expect(viaCommand.stdout).toBe('minions: no review loop is running in this project.\n');
    expect(loop.dir.exists('.agents')).toBe(false);
  });

  it('a word after cancel is refused, named, and cancels nothing', async () => {
    const loop = fresh();
    const before = loop.snapshot();
    const r = await runCommandLine('cancel', 'please', { cwd: loop.root, sessionId: SESSION });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^minions: cancel takes no argument "please"\nusage: minions <command> \[options\]\n/);
    expect(loop.snapshot()).toEqual(before);
  });
});

const USAGE = [
  'usage: minions <command> [options]',
  '',
  '  minions status [--json] [--fail-on critical|warning|info]',
  '                            the review loop in this project: phase, iteration, reviewers, open issues, best round, cost, files;',
  '                            --fail-on exits 1 while open findings of that severity or above remain (or no verdict exists)',
  "  minions cancel [--force]  end this session's loop; --force also ends another session's",
  '  minions restore [<round>|undo] [--force]',
  '                            after a loop: put the files it changed back as round N found them, or undo the last restore;',
  '                            alone, list the rounds; --force restores over your own edits (saved first)',
  '  minions report [--sarif [--out FILE] [--all-rounds]]',
  "                            write the last loop's REPORT.md again, or its findings as SARIF 2.1.0",
  '  minions dismiss [<fingerprint> --reason "…" | --list | --remove <fingerprint>]',
  '                            record a finding you judge wrong in .minions/dismissed.json (commit it): later loops keep it',
  "                            out of the fixer's list and the completion gate until its code changes; alone or --list, list them; --remove takes one back",
  '  minions --help, -h        this help',
  '  minions --version         the version',
  '',
].join('\n');

// Found by an adversarial pass: one `touch` or `mkdir` where the hooks need a folder or a file made every
// later hook fail with a raw EEXIST/ENOTDIR/EISDIR, /minions:cancel included, so the loop could not be ended.
describe.concurrent('/minions:cancel when something else stands where the hooks write', () => {
  const file = (loop: Loop, rel: string) => (fs.rmSync(loop.dir.abs(rel), { recursive: true, force: true }), fs.mkdirSync(path.dirname(loop.dir.abs(rel)), { recursive: true }), fs.writeFileSync(loop.dir.abs(rel), 'kept\n'));
  const folder = (loop: Loop, rel: string) => (fs.mkdirSync(loop.dir.abs(rel), { recursive: true }), fs.writeFileSync(path.join(loop.dir.abs(rel), 'inside'), 'kept\n'));
  it.each([
    ['a folder at phases/REPORT.md', (l: Loop) => folder(l, '.agents/tmp/phases/REPORT.md'), '.agents/tmp/archive/RUN/phases/REPORT.md'],
    ['a file at .agents/tmp/archive', (l: Loop) => file(l, '.agents/tmp/archive'), '.agents/tmp/archive'],
    ["a file at the run's archive folder", (l: Loop) => file(l, `.agents/tmp/archive/${l.state().runId}`), `.agents/tmp/archive/RUN`],
    ['a symlink to nothing at .agents/tmp/archive', (l: Loop) => fs.symlinkSync('/nonexistent/minions-archive', l.dir.abs('.agents/tmp/archive')), '.agents/tmp/archive'],
    ['a file at .agents/tmp/.tmp (the temporary files)', (l: Loop) => file(l, '.agents/tmp/.tmp'), '.agents/tmp/.tmp'],
    ["a file at the record's .tmp", (l: Loop) => file(l, '.git/minions/record/top/.tmp'), '.git/minions/record/top/.tmp'],
  ] as const)('%s: the Stop hook and the cancel go ahead, and what stood there is moved aside, not lost', async (_, damage, at) => {
    const loop = fresh();
    const runId = loop.state().runId;
    damage(loop);
    const stop = await loop.stop();
    expect(stop).toMatchObject({ code: 0, stderr: '' });
    const r = await runCli(['cancel'], { cwd: loop.root, sessionId: SESSION });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toBe(`minions: review loop cancelled in R1 (Iteration 1/3); files archived to .agents/tmp/archive/${runId}/\n`);
    expect(loop.hasState()).toBe(false);
    expect(loop.dir.readJson(`.agents/tmp/archive/${runId}/state.json`)).toMatchObject({ status: 'cancelled' });
    const where = at.replace('RUN', runId);
    const aside = fs.readdirSync(path.dirname(loop.dir.abs(where))).filter((n) => n.startsWith(`${path.basename(where)}.moved-`));
    expect(aside).toHaveLength(1);
    const moved = path.join(path.dirname(loop.dir.abs(where)), aside[0]!);
    if (fs.lstatSync(moved).isSymbolicLink()) expect(fs.readlinkSync(moved)).toBe('/nonexistent/minions-archive');
    else expect(fs.readFileSync(fs.statSync(moved).isDirectory() ? path.join(moved, 'inside') : moved, 'utf8')).toBe('kept\n');
  });

  // An immutable file cannot be renamed over, by root either: a REPORT.md the hooks cannot replace.
  const immutable = (file: string, on: boolean) => spawnSync('chattr', [on ? '+i' : '-i', file]).status === 0;
  const probe = path.join(tempDir('minions-chattr-'), 'probe');
  fs.writeFileSync(probe, '');
  const canPin = immutable(probe, true) && immutable(probe, false);
  it.skipIf(!canPin)('a REPORT.md that cannot be written (an immutable file): one line on stderr; the cancel and the archive go ahead', async () => {
    const loop = fresh();
    const runId = loop.state().runId;
    const report = loop.dir.abs('.agents/tmp/phases/REPORT.md');
    fs.writeFileSync(report, 'pinned\n');
    expect(immutable(report, true)).toBe(true);
    try {
      const r = await runCli(['cancel'], { cwd: loop.root, sessionId: SESSION });
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`minions: review loop cancelled in R1 (Iteration 1/3); files archived to .agents/tmp/archive/${runId}/\n`);
      expect(r.stderr).toBe("minions report: could not write the loop's REPORT.md (EPERM); /minions:report writes it again (set MINIONS_DEBUG=1 for details)\n");
      expect(loop.hasState()).toBe(false);
      expect(loop.dir.readJson(`.agents/tmp/archive/${runId}/state.json`)).toMatchObject({ status: 'cancelled' });
    } finally {
      immutable(loop.dir.abs(`.agents/tmp/archive/${runId}/phases/REPORT.md`), false);
      immutable(report, false);
    }
  });

  it("a file at the record's objects folder: the hooks' copies are gone, so the Stop ends the loop as tampered; the next cancel finds none", async () => {
    const loop = fresh();
    file(loop, '.git/minions/record/top/objects');
    const stop = await loop.stop();
    expect(stop).toMatchObject({ code: 0, stderr: '' });
    // The copy of the state went with them: nothing vouches for state.json, so no state is kept (as with record.json gone).
    expect(messages([stop]).join('\n')).toMatch(/^minions: \.agents\/tmp\/state\.json \(the hooks' copy\) was deleted; no state the hooks wrote could be recovered/);
    expect((await runCli(['cancel'], { cwd: loop.root, sessionId: SESSION })).stdout).toBe('minions: no review loop is running in this project.\n');
    // The file is the user's as far as the hooks know: kept, not deleted.
    expect(loop.dir.read('.git/minions/record/top/objects')).toBe('kept\n');
  });
});

describe.concurrent('.agents/.gitignore', () => {
  it('the hooks write it (*) when they make .agents, so git status stays clean through a loop', async () => {
    const loop = new Loop(projectTestdir());
    // The change under review, uncommitted: what git status shows before the loop, and only that after.
    const before = loop.dir.git('status', '--porcelain', '--untracked-files=all');
    expect(loop.dir.exists('.agents')).toBe(false);
    await loop.start('the cart');
    expect(loop.dir.read('.agents/.gitignore')).toBe('*\n');
    expect(loop.dir.exists('.agents/tmp/state.json')).toBe(true);
    expect(loop.dir.git('status', '--porcelain', '--untracked-files=all')).toBe(before);
    expect((await runCli(['cancel'], { cwd: loop.root, sessionId: SESSION })).code).toBe(0);
    expect(loop.dir.exists('.agents/tmp/archive')).toBe(true);
    expect(loop.dir.git('status', '--porcelain', '--untracked-files=all')).toBe(before);
  });

  it('a .agents folder the user made is left as it is: no .gitignore is added to it', async () => {
    const dir = projectTestdir();
    dir.write('.agents/skills/mine.md', '# my skill\n');
    dir.git('add', '-A');
    dir.git('commit', '-q', '-m', 'my .agents');
    const loop = new Loop(dir);
    await loop.start('the cart');
    expect(dir.exists('.agents/tmp/state.json')).toBe(true);
    expect(dir.exists('.agents/.gitignore')).toBe(false);
  });
});

describe("the hooks' REVIEW.md", () => {
  it('a link planted where the round\'s REVIEW.md goes is replaced by it, its target left as it was', async () => {
    const loop = fresh();
    const outside = tempDir('minions-outside-');
    const victim = path.join(outside, 'victim.md');
    fs.writeFileSync(victim, 'precious\n');
    fs.symlinkSync(victim, loop.dir.abs('.agents/tmp/phases/review-1/REVIEW.md'));
    for (const r of REVIEWERS) if (r !== 'critic') loop.writeReview(1, r, cleanReview(r));
    await loop.reviewersStop(REVIEWERS.filter((r) => r !== 'critic'));
    expect(loop.state().currentPhase).toBe('R2');
    expect(fs.readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(fs.readdirSync(outside)).toEqual(['victim.md']);
    expect(fs.lstatSync(loop.dir.abs('.agents/tmp/phases/review-1/REVIEW.md')).isSymbolicLink()).toBe(false);
    expect(loop.dir.read('.agents/tmp/phases/review-1/REVIEW.md')).toMatch(/^# Review 1 of 3: issues found\n/);
  });
});

describe('the minions bin', () => {
  it('package.json names dist/cli.mjs, which runs as a command from a copy of the committed files, with no node_modules', async () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> };
    expect(pkg.bin).toEqual({ minions: 'dist/cli.mjs' });
    // Committed executable, with a shebang: npm links it as is.
    expect(spawnSync('git', ['ls-files', '-s', 'dist/cli.mjs'], { cwd: REPO_ROOT, encoding: 'utf8' }).stdout).toMatch(/^100755 /);
    expect(fs.readFileSync(path.join(REPO_ROOT, 'dist/cli.mjs'), 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
    const copy = tempDir('minions-bin-copy-');
    fs.cpSync(path.join(REPO_ROOT, 'package.json'), path.join(copy, 'package.json'));
    fs.cpSync(path.join(REPO_ROOT, 'dist'), path.join(copy, 'dist'), { recursive: true });
    for (let dir = copy; ; dir = path.dirname(dir)) {
      expect(fs.existsSync(path.join(dir, 'node_modules')), dir).toBe(false);
      if (path.dirname(dir) === dir) break;
    }
    const bin = path.join(copy, pkg.bin.minions!);
    const version = spawnSync(bin, ['--version'], { encoding: 'utf8', env: { PATH: process.env.PATH } });
    expect(version).toMatchObject({ status: 0, stdout: `minions ${JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')).version}\n`, stderr: '' });
    const loop = fresh();
    const status = spawnSync(bin, ['status'], { cwd: loop.dir.abs('src'), encoding: 'utf8', env: { PATH: process.env.PATH } });
    expect(status.status).toBe(0);
    expect(status.stdout).toMatch(/^minions review loop — R1, Iteration 1\/3/);
  });
});

describe.concurrent('the command line', () => {
  const manifest = (file: string): { version: string } => JSON.parse(fs.readFileSync(path.join(REPO_ROOT, file), 'utf8'));

  it.each([['--help'], ['-h'], ['status', '--help'], ['cancel', '-h']])('%s %s prints the usage and exits 0', async (...args) => {
    const dir = projectTestdir();
    expect(await runCli(args, { cwd: dir.root })).toMatchObject({ code: 0, stdout: USAGE, stderr: '' });
    expect(dir.exists('.agents')).toBe(false);
  });

  it('--version prints the version of package.json, which the plugin manifest repeats', async () => {
    const r = await runCli(['--version'], { cwd: projectTestdir().root });
    expect(r).toMatchObject({ code: 0, stdout: `minions ${manifest('package.json').version}\n`, stderr: '' });
    expect(manifest('.claude-plugin/plugin.json').version).toBe(manifest('package.json').version);
  });

  it.each([
    [['--frobnicate'], 'unknown option "--frobnicate"'],
    [['-x', 'status'], 'unknown option "-x"'],
    [['status', '--all'], 'unknown option "--all" for status'],
    [['cancel', '--yes'], 'unknown option "--yes" for cancel'],
    [['cancel', '--json'], 'unknown option "--json" for cancel'],
    [['status', 'now'], 'status takes no argument "now"'],
    [['restore', '1', '2'], 'restore takes no argument "2"'],
    [['restore', '--json'], 'unknown option "--json" for restore'],
    [['report', '--sarif', '--out'], '--out of report needs a value'],
    [['report', '--all-rounds'], 'report takes --out and --all-rounds only with --sarif'],
    [['frobnicate'], 'unknown command "frobnicate"'],
    [['restore', 'abc'], 'restore takes a round number (1, 2 …) or "undo", not "abc"'],
    [['--version', '--bogus'], 'unknown option "--bogus" for --version'],
    [[], 'no command given'],
  ])('%j is refused with exit 2, naming %s', async (args, problem) => {
    const loop = fresh();
    const before = loop.snapshot();
    const r = await runCli(args, { cwd: loop.root, sessionId: SESSION });
    expect(r).toMatchObject({ code: 2, stdout: '', stderr: `minions: ${problem}\n${USAGE}` });
    expect(loop.snapshot()).toEqual(before);
  });
});

describe.concurrent('status --json', () => {
  const json = async (loop: Loop, session: string | undefined = SESSION) => {
    const r = await runCli(['status', '--json'], { cwd: loop.root, sessionId: session });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    return JSON.parse(r.stdout) as Record<string, any>;
  };

  it('no loop ever run', async () => {
    expect(await json(new Loop(projectTestdir()))).toEqual({ loop: 'none' });
  });

  it('a running loop: phase, iteration, reviewers, open findings and paths', async () => {
    const loop = fresh();
    const state = loop.state();
    const data = await json(loop);
    expect(data).toEqual({
      loop: 'running',
      runId: state.runId,
      task: 'the cart',
      phase: 'R1',
      status: 'in_progress',
      iteration: 1,
      maxIterations: 3,
      stopReason: null,
      stopDetail: null,
      startedAt: state.startedAt,
      updatedAt: state.updatedAt,
      effort: STANDARD_EFFORT,
      session: { id: SESSION, isThisSession: true },
      reviewers: [
        { name: 'critic', status: 'valid', dispatches: 1, counts: { critical: 0, warning: 1, info: 0 } },
        ...REVIEWERS.filter((r) => r !== 'critic').map((name) => ({ name, status: 'running', dispatches: 1, counts: null })),
      ],
      reviews: [],
      openFindings: { count: 0, fingerprints: [], issues: [] },
      paths: { root: loop.root, state: '.agents/tmp/state.json', phases: '.agents/tmp/phases/', verdict: null },
      // The facts REPORT.md renders, here of a loop whose first review is not done yet.
      policy: { doneWhen: 'warning', minConfidence: 80 },
      outcome: expect.objectContaining({ runId: state.runId, best: null, rounds: [expect.objectContaining({ round: 1, reviewed: false })], files: { phases: '.agents/tmp/phases/', report: '.agents/tmp/phases/REPORT.md' } }),
    });
    expect((await json(loop, OTHER_SESSION)).session).toEqual({ id: SESSION, isThisSession: false });
  });

  it('in R2: the review with its open findings', async () => {
    const loop = fresh();
    for (const r of REVIEWERS) if (r !== 'critic') loop.writeReview(1, r, cleanReview(r));
    await loop.reviewersStop(REVIEWERS.filter((r) => r !== 'critic'));
    const data = await json(loop);
    expect(data).toMatchObject({ loop: 'running', phase: 'R2', paths: { verdict: '.agents/tmp/phases/review-1/r1-verdict.json' } });
    expect(data.reviews).toEqual([
      { iteration: 1, overall: 'issues_found', total: 1, critical: 0, warning: 1, info: 0, open: 1, fixer: 'pending', verdict: '.agents/tmp/phases/review-1/r1-verdict.json', fixSummary: null },
    ]);
    expect(data.openFindings).toEqual({ count: 1, fingerprints: [expect.stringMatching(/^[0-9a-f]{12}$/)], issues: [] });
  });

  it('after the loop was cancelled: finished, with the archived paths', async () => {
    const loop = fresh();
    const runId = loop.state().runId;
    await runCli(['cancel'], { cwd: loop.root, sessionId: SESSION });
    expect(await json(loop)).toMatchObject({
      loop: 'finished',
      phase: 'CANCELLED',
      status: 'cancelled',
      stopReason: 'cancelled',
      paths: { state: `.agents/tmp/archive/${runId}/state.json`, phases: `.agents/tmp/archive/${runId}/phases/` },
    });
  });

  it('a garbled state file of a loop the hooks recorded: the last state they wrote, with the warning', async () => {
    const loop = fresh();
    fs.writeFileSync(loop.dir.abs(STATE), '{ not json');
    const out = await json(loop);
    expect(out).toMatchObject({ loop: 'running', phase: 'R1', paths: { state: '.agents/tmp/state.json' } });
    expect(out.tampered).toMatch(/^Warning: .*\.agents\/tmp\/state\.json.*; the loop's next hook stops it \(tampered\)\.$/);
  });

  it('an unreadable state file no hook wrote', async () => {
    const loop = new Loop(testdir());
    loop.dir.write(STATE, '{ not json');
    expect(await json(loop)).toEqual({ loop: 'unreadable', problem: 'not valid JSON', paths: { state: '.agents/tmp/state.json' } });
  });
});
