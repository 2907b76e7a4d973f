/**
 * The outcome through the built hooks and CLI, in temp git repos: each agent's cost read from real
 * transcripts, REVIEW.md and REPORT.md written by the hooks, the best round named when the final tree is
 * worse, the token budget, and `minions restore` (round N, undo, and its refusals).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Loop, messages, projectTestdir } from '../helpers/loop';
import { SESSION } from '../helpers/payloads';
import { CHANGED, REVIEWERS, cleanReview, issue, reviewWithIssues, type Issue, type Reviewer } from '../helpers/reviews';
import { runCli, runCommandLine } from '../helpers/run';
import { cloneTestdir, removeTestdirs, tempDir, type TestDir } from '../helpers/testdir';

afterAll(removeTestdirs);

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'transcripts');
const EXPECTED = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'expected.json'), 'utf8')) as Record<string, { input: number; output: number }>;
const transcript = (name: string): string => path.join(FIXTURES, name);
const REVIEWER_TRANSCRIPT = (_: Reviewer): string => transcript('critic.jsonl');
const tokensOf = (name: string) => EXPECTED[name]!.input + EXPECTED[name]!.output;

/** The fixer's round-1 change: the off-by-one "fixed" by a wrong bound, and src/a.ts touched too. */
const FIXED_CART = CHANGED['src/cart.ts']!.replace('i <= items.length', 'i < items.length - 1');
const FIXED_A = 'export const a = 3;\n';
/** A file the fixer created: round 1's tree does not have it. */
const HELPER = 'export const lastIndex = (n: number) => n - 1;\n';
const worse: Issue = {
  severity: 'critical',
  category: 'off-by-one',
  file: 'src/cart.ts',
  line: 5,
  description: 'the fix skips the last item: i < items.length - 1',
  evidence: 'for (let i = 0; i < items.length - 1; i++) sum += items[i].price * items[i].qty;',
  suggestion: 'use i < items.length',
};
const allClean = () => Object.fromEntries(REVIEWERS.map((r) => [r, cleanReview(r)])) as Record<Reviewer, ReturnType<typeof cleanReview>>;

/** A loop that stopped at --max-iterations 2, its second round worse than its first; the Stop not yet run. */
let stopped: TestDir;
let stopMessage: string;

beforeAll(async () => {
  const loop = new Loop(projectTestdir());
  // Two checks: one passes throughout, one fails from the start (pre-existing: the fixer is not sent back).
  await loop.start('--max-iterations 2 --check true --check "exit 3" review the cart');
  await loop.reviewRound(1, { ...allClean(), critic: reviewWithIssues('critic', [issue()]) }, REVIEWER_TRANSCRIPT);
  await loop.dispatch('minions:review-fixer');
  loop.dir.write('src/cart.ts', FIXED_CART);
  loop.dir.write('src/a.ts', FIXED_A);
  loop.dir.write('src/helper.ts', HELPER);
  loop.writeFixSummary(1);
  await loop.fixerStop({ transcriptPath: transcript('review-fixer.jsonl') });
  await loop.reviewRound(2, { ...allClean(), critic: reviewWithIssues('critic', [worse]) }, REVIEWER_TRANSCRIPT);
  stopped = cloneTestdir(loop.dir);
  stopMessage = messages([await loop.stop()]).join('\n');
});

describe('a loop whose second round is worse than its first', () => {
  it('recorded each agent’s cost from its transcript: exactly the usage the host wrote there', () => {
    const state = new Loop(stopped).state();
    expect(state).toMatchObject({ currentPhase: 'STOPPED', stopReason: 'max_iterations', iteration: 2 });
    const costs = state.iterations.map((it: { cost: Record<string, { agent: string; tokens: { input: number; output: number } }> }) => Object.values(it.cost));
    expect(costs.map((c: unknown[]) => c.length)).toEqual([6, 5]);
    const fixer = costs[0].find((c: { agent: string }) => c.agent === 'review-fixer');
    expect(fixer.tokens).toEqual({ input: EXPECTED['review-fixer.jsonl']!.input, output: EXPECTED['review-fixer.jsonl']!.output, cacheCreation: 0, cacheRead: 0 });
    for (const c of costs.flat().filter((c: { agent: string }) => c.agent !== 'review-fixer')) expect(c.tokens.input).toBe(EXPECTED['critic.jsonl']!.input);
  });

  it('wrote REVIEW.md for each round, the first one again with the fixer’s answers', () => {
    const first = stopped.read('.agents/tmp/phases/review-1/REVIEW.md');
    expect(first).toMatch(/^# Review 1 of 2: issues found\n/);
    const checksTable = (dir: string) =>
      `| Command | Result | Exit code | Time | Output |\n|---|---|---|---|---|\n| \`true\` | passed | 0 | 0 s | \`.agents/tmp/phases/${dir}/check-1.log\` |\n| \`exit 3\` | failed (failing before the loop) | 3 | 0 s | \`.agents/tmp/phases/${dir}/check-2.log\` |`;
    expect(first).toContain(`## Checks on the reviewed tree\n\n${checksTable('baseline')}`.replace('failed (failing before the loop)', 'failed'));
    expect(first).toContain(`## Checks after the fix\n\n${checksTable('review-1')}`);
    expect(first).toContain('## Layer-0 on the fix\n\n3 changed files checked: nothing found.');
    expect(first).toMatch(/\| `src\/cart\.ts:5` \| the loop reads one item past the end \| fixed \| – \|/);
    const second = stopped.read('.agents/tmp/phases/review-2/REVIEW.md');
    expect(second).toContain('next: STOPPED (the iteration budget is spent)');
    expect(second).toMatch(/\| 1 \| `src\/cart\.ts:5` \| critical \| correctness \| critic \| NEW \|/);
  });

  it('wrote REPORT.md when the loop ended: round 1 is best, the final tree ranks below it, the total change and the cost', () => {
    const report = stopped.read('.agents/tmp/phases/REPORT.md');
    expect(report).toMatch(/^# minions review loop: STOPPED after 2 review rounds\n/);
    expect(report).toContain('**Best attempt: round 1. The final tree (round 2) ranks below it: 1 critical more, 1 warning fewer open; score 0.55 against 0.90.');
    expect(report).toMatch(/```\n src\/a\.ts {6}\| 2 \+-\n src\/cart\.ts {3}\| 2 \+-\n src\/helper\.ts \| 1 \+\n 3 files changed/);
    // Checks on each round's tree: the baseline for round 1, after fix round 1 for round 2.
    expect(report.split('\n').filter((l) => l.startsWith('| [')).map((l) => l.split(' | ')[6])).toEqual(['1/2', '1/2']);
    const total = 10 * tokensOf('critic.jsonl') + tokensOf('review-fixer.jsonl');
    expect(report).toContain(`${total.toLocaleString('en-US')} tokens over 11 agent runs: input`);
  });

  it('the outcome line names the best round, how to restore it, the cost and the report', () => {
    const lines = stopMessage.split('\n');
    expect(lines[0]).toMatch(/^minions: STOPPED — the iteration budget is spent\b/);
    expect(lines).toContain('  Best attempt: round 1. The final tree (round 2) ranks below it: 1 critical more, 1 warning fewer open; score 0.55 against 0.90. /minions:restore 1 (or `minions restore 1`) puts its files back.');
    expect(lines.at(-1)).toMatch(/^ {2}Cost: [\d,]+ tokens over 11 agent runs · Report: \.agents\/tmp\/phases\/REPORT\.md$/);
  });

  it('/minions:status and status --json show the same facts', async () => {
    const dir = cloneTestdir(stopped);
    const text = (await runCommandLine('status', '', { cwd: dir.root, sessionId: SESSION })).stdout;
    expect(text).toContain('Best attempt: round 1. The final tree (round 2) ranks below it');
    expect(text).toMatch(/^ {2}score 0\.90, checks 1\/2 passing, [\d,]+ tokens, best$/m);
    expect(text).toContain('Report: .agents/tmp/phases/REPORT.md');
    const json = JSON.parse((await runCli(['status', '--json'], { cwd: dir.root })).stdout);
    expect(json).toMatchObject({ loop: 'finished', phase: 'STOPPED' });
    expect(json.outcome).toMatchObject({ best: 1, final: { reviewedRound: 2, gap: { findings: { critical: 1, warning: -1, info: 0 } } }, files: { report: '.agents/tmp/phases/REPORT.md' } });
    expect(json.outcome.rounds.map((r: { open: { total: number } }) => r.open.total)).toEqual([1, 1]);
  });

  it('minions report --sarif writes the last round’s open findings; --all-rounds adds the first round’s', async () => {
    const dir = cloneTestdir(stopped);
    fs.mkdirSync(dir.abs('out'));
    const last = await runCli(['report', '--sarif', '--out', 'out/minions.sarif'], { cwd: dir.root });
    expect(last).toMatchObject({ code: 0, stdout: 'minions: SARIF 2.1.0 with 1 result written to out/minions.sarif\n' });
    const log = dir.readJson('out/minions.sarif');
    expect(log.runs[0].results.map((r: { level: string; locations: { physicalLocation: { artifactLocation: { uri: string } } }[] }) => [r.level, r.locations[0]!.physicalLocation.artifactLocation.uri])).toEqual([['error', 'src/cart.ts']]);
    const all = JSON.parse((await runCli(['report', '--sarif', '--all-rounds'], { cwd: dir.root })).stdout);
    expect(all.runs[0].results.map((r: { level: string; baselineState: string }) => [r.level, r.baselineState])).toEqual([
      ['error', 'new'],
      ['warning', 'absent'],
    ]);
    expect(await runCli(['report', '--sarif', '--bogus'], { cwd: dir.root })).toMatchObject({ code: 2, stdout: '', stderr: expect.stringMatching(/^minions: unknown option "--bogus" for report\n/) });
    fs.rmSync(dir.abs('.agents/tmp/phases/REPORT.md'));
    expect((await runCommandLine('report', '', { cwd: dir.root })).stdout).toBe('minions: report written to .agents/tmp/phases/REPORT.md\n');
    expect(dir.read('.agents/tmp/phases/REPORT.md')).toBe(stopped.read('.agents/tmp/phases/REPORT.md'));
  });
});

describe('minions restore', () => {
  /** HEAD, the index, the stash and every file but the loop's two, to prove a restore leaves them alone. */
  function untouched(dir: TestDir) {
    return {
      head: dir.git('rev-parse', 'HEAD'),
      index: dir.git('ls-files', '-s'),
      staged: dir.git('diff', '--cached', '--name-status'),
      stash: dir.git('stash', 'list'),
      readme: dir.read('README.md'),
      scratch: dir.read('scratch.txt'),
      notes: dir.read('notes.txt'),
      mtime: fs.statSync(dir.abs('README.md')).mtimeMs,
    };
  }

  it('puts round 1’s files back, saves the tree before so that undo brings it back, and touches nothing else', async () => {
    const dir = cloneTestdir(stopped);
    // The user's own state after the loop: a stash entry, a staged file, an untracked file.
    dir.write('README.md', '# cart\n\nA tiny cart, stashed edit.\n');
    dir.git('stash', 'push', '-q', '--', 'README.md');
    dir.write('notes.txt', 'staged notes\n');
    dir.git('add', 'notes.txt');
    dir.write('scratch.txt', 'untracked scratch\n');
    const before = untouched(dir);

    const r = await runCommandLine('restore', '1', { cwd: dir.root, sessionId: SESSION });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toMatch(
      /^minions: restored round 1's files: 2 files written \(src\/a\.ts, src\/cart\.ts\), 1 file deleted \(src\/helper\.ts\)\. The project as it was is saved as snapshot [0-9a-f]{12}: \/minions:restore undo/,
    );
    expect(dir.read('src/cart.ts')).toBe(CHANGED['src/cart.ts']);
    expect(dir.read('src/a.ts')).toBe(CHANGED['src/a.ts']);
    expect(dir.exists('src/helper.ts')).toBe(false);
    expect(untouched(dir)).toEqual(before);

    expect((await runCli(['restore', '1'], { cwd: dir.root })).stdout).toBe("minions: the files the loop changed are already as in round 1's files; nothing to do.\n");
    const undo = await runCli(['restore', 'undo'], { cwd: dir.root });
    expect(undo.code).toBe(0);
    expect(dir.read('src/cart.ts')).toBe(FIXED_CART);
    expect(dir.read('src/a.ts')).toBe(FIXED_A);
    expect(dir.read('src/helper.ts')).toBe(HELPER);
    expect(untouched(dir)).toEqual(before);
    // An undo is a restore too: undoing it again goes back to round 1.
    await runCli(['restore', 'undo'], { cwd: dir.root });
    expect(dir.read('src/cart.ts')).toBe(CHANGED['src/cart.ts']);
    expect(dir.readJson(`.agents/tmp/restores/${new Loop(stopped).state().runId}.json`).restores.map((e: { target: string }) => e.target)).toEqual(['1', 'undo', 'undo']);
  });

  it('is refused after the user edited a file the loop changed; --force goes ahead, and undo brings the edit back', async () => {
    const dir = cloneTestdir(stopped);
    const edited = `${FIXED_CART}// my own change\n`;
    dir.write('src/cart.ts', edited);
    const refused = await runCli(['restore', '1'], { cwd: dir.root });
    expect(refused).toMatchObject({ code: 1 });
    expect(refused.stderr).toContain('you changed 1 file the loop also changed since it ended (src/cart.ts); a restore would overwrite it.');
    expect(refused.stderr).toContain('Nothing was restored.');
    expect(dir.read('src/cart.ts')).toBe(edited);
    expect(dir.read('src/a.ts')).toBe(FIXED_A);
    // A change to a file the loop never touched does not stand in the way.
    const other = cloneTestdir(stopped);
    other.write('README.md', '# changed by the user\n');
    expect((await runCli(['restore', '1'], { cwd: other.root })).code).toBe(0);
    expect(other.read('README.md')).toBe('# changed by the user\n');

    expect((await runCli(['restore', '1', '--force'], { cwd: dir.root })).code).toBe(0);
    expect(dir.read('src/cart.ts')).toBe(CHANGED['src/cart.ts']);
    await runCli(['restore', 'undo'], { cwd: dir.root });
    expect(dir.read('src/cart.ts')).toBe(edited);
  });

  it('is refused while a loop runs, and explains itself when there is nothing to restore', async () => {
    const running = cloneTestdir(stopped);
    await new Loop(running).start('another look at the cart');
    const r = await runCli(['restore', '1'], { cwd: running.root });
    expect(r).toMatchObject({ code: 1, stdout: '', stderr: 'minions: a review loop is running in this project (R1, Iteration 1/5); restore when it has ended, or end it with /minions:cancel. Nothing was restored.\n' });
    expect(running.read('src/cart.ts')).toBe(FIXED_CART);

    const none = projectTestdir();
    expect((await runCli(['restore', '1'], { cwd: none.root })).stderr).toBe(`minions: no review loop has run in this project (${none.root}), so there is nothing to restore.\n`);
    const dir = cloneTestdir(stopped);
    expect((await runCli(['restore', '7'], { cwd: dir.root })).stderr).toBe('minions: the last loop had rounds 1 to 2; there is no round 7. Nothing was restored.\n');
    expect((await runCli(['restore', 'undo'], { cwd: dir.root })).stderr).toBe('minions: there is no restore of the last loop to undo. Nothing was restored.\n');
    const list = await runCli(['restore'], { cwd: dir.root });
    expect(list.stdout.split('\n').slice(1, 3)).toEqual(['  1: 1 open finding (1 warning), score 0.90, checks 1/2 — best', '  2: 1 open finding (1 critical), score 0.55, checks 1/2']);
  });

  it('works on an archived run after the Stop retired the state file', async () => {
    const dir = cloneTestdir(stopped);
    await new Loop(dir).stop();
    expect(dir.exists('.agents/tmp/state.json')).toBe(false);
    expect((await runCli(['restore', '1'], { cwd: dir.root })).code).toBe(0);
    expect(dir.read('src/cart.ts')).toBe(CHANGED['src/cart.ts']);
  });
});

describe('the CLI never follows a link out of the project', () => {
  /** A folder outside the project with one file the CLI must not touch. */
  function outside(): { dir: string; victim: string } {
    const dir = tempDir('minions-outside-');
    const victim = path.join(dir, 'victim.txt');
    fs.writeFileSync(victim, 'precious\n');
    return { dir, victim };
  }
  const untouchedOutside = (o: { dir: string; victim: string }) => {
    expect(fs.readFileSync(o.victim, 'utf8')).toBe('precious\n');
    expect(fs.readdirSync(o.dir)).toEqual(['victim.txt']);
  };
  const isLink = (file: string) => fs.lstatSync(file).isSymbolicLink();

  it('report: a link planted at .agents/tmp/phases/REPORT.md is replaced by the report, its target left as it was', async () => {
    const dir = cloneTestdir(stopped);
    const o = outside();
    fs.rmSync(dir.abs('.agents/tmp/phases/REPORT.md'));
    fs.symlinkSync(o.victim, dir.abs('.agents/tmp/phases/REPORT.md'));
    const r = await runCli(['report'], { cwd: dir.root });
    expect(r).toMatchObject({ code: 0, stdout: 'minions: report written to .agents/tmp/phases/REPORT.md\n' });
    untouchedOutside(o);
    expect(isLink(dir.abs('.agents/tmp/phases/REPORT.md'))).toBe(false);
    expect(dir.read('.agents/tmp/phases/REPORT.md')).toBe(stopped.read('.agents/tmp/phases/REPORT.md'));
  });

  it('report: a .agents that is a link out of the project is refused, named, and nothing is written through it', async () => {
    const dir = cloneTestdir(stopped);
    const o = outside();
    const moved = path.join(o.dir, 'agents');
    fs.renameSync(dir.abs('.agents'), moved);
    fs.symlinkSync(moved, dir.abs('.agents'));
    fs.rmSync(path.join(moved, 'tmp/phases/REPORT.md'));
    const r = await runCli(['report'], { cwd: dir.root });
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain(`minions: ${dir.abs('.agents')} is a symbolic link; minions writes only in a folder of its own there.`);
    expect(fs.existsSync(path.join(moved, 'tmp/phases/REPORT.md'))).toBe(false);
    expect(r.stdout + r.stderr).not.toMatch(/\bE[A-Z]{3,}\b|at .*\.mjs/);
  });

  it('restore: a link planted at the restores folder is moved aside, the log written in a folder of its own', async () => {
    const dir = cloneTestdir(stopped);
    const o = outside();
    fs.mkdirSync(dir.abs('.agents/tmp'), { recursive: true });
    fs.symlinkSync(o.dir, dir.abs('.agents/tmp/restores'));
    const r = await runCli(['restore', '1'], { cwd: dir.root });
    expect(r.code).toBe(0);
    expect(dir.read('src/cart.ts')).toBe(CHANGED['src/cart.ts']);
    untouchedOutside(o);
    expect(isLink(dir.abs('.agents/tmp/restores'))).toBe(false);
    const runId = new Loop(stopped).state().runId;
    expect(dir.readJson(`.agents/tmp/restores/${runId}.json`).restores.map((e: { target: string }) => e.target)).toEqual(['1']);
    const aside = fs.readdirSync(dir.abs('.agents/tmp')).filter((n) => n.startsWith('restores.moved-'));
    expect(aside).toHaveLength(1);
    expect(isLink(dir.abs(`.agents/tmp/${aside[0]}`))).toBe(true);
  });

  it('restore: a link planted at the run\'s log file is replaced, not followed; undo still works', async () => {
    const dir = cloneTestdir(stopped);
    const o = outside();
    const runId = new Loop(stopped).state().runId;
    fs.mkdirSync(dir.abs('.agents/tmp/restores'), { recursive: true });
    fs.symlinkSync(o.victim, dir.abs(`.agents/tmp/restores/${runId}.json`));
    fs.symlinkSync(path.join(o.dir, 'new.json'), dir.abs(`.agents/tmp/restores/${runId}.json.tmp`));
    expect((await runCli(['restore', '1'], { cwd: dir.root })).code).toBe(0);
    untouchedOutside(o);
    expect(isLink(dir.abs(`.agents/tmp/restores/${runId}.json`))).toBe(false);
    expect((await runCli(['restore', 'undo'], { cwd: dir.root })).code).toBe(0);
    expect(dir.read('src/cart.ts')).toBe(FIXED_CART);
    untouchedOutside(o);
  });

  it('restore: a project folder replaced by a link out of the project is not written through', async () => {
    const dir = cloneTestdir(stopped);
    const o = outside();
    const copy = path.join(tempDir('minions-outside-'), 'src');
    fs.cpSync(dir.abs('src'), copy, { recursive: true });
    fs.rmSync(dir.abs('src'), { recursive: true });
    fs.symlinkSync(copy, dir.abs('src'));
    const before = fs.readdirSync(copy).map((n) => [n, fs.readFileSync(path.join(copy, n), 'utf8')]);
    const r = await runCli(['restore', '1', '--force'], { cwd: dir.root });
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain('could not write 2 files (src/a.ts, src/cart.ts)');
    expect(fs.readdirSync(copy).map((n) => [n, fs.readFileSync(path.join(copy, n), 'utf8')])).toEqual(before);
    untouchedOutside(o);
  });

  it('report --out: a link at the target is replaced; a missing folder or a folder at the target is refused, named', async () => {
    const dir = cloneTestdir(stopped);
    const o = outside();
    fs.symlinkSync(o.victim, dir.abs('findings.sarif'));
    const r = await runCli(['report', '--sarif', '--out', 'findings.sarif'], { cwd: dir.root });
    expect(r).toMatchObject({ code: 0, stdout: 'minions: SARIF 2.1.0 with 1 result written to findings.sarif\n' });
    untouchedOutside(o);
    expect(isLink(dir.abs('findings.sarif'))).toBe(false);
    expect(dir.readJson('findings.sarif').version).toBe('2.1.0');

    const missing = await runCli(['report', '--sarif', '--out', 'no/such/findings.sarif'], { cwd: dir.root });
    expect(missing.code).toBe(1);
    expect(missing.stdout + missing.stderr).toContain('minions: the folder no/such does not exist; create it first');
    expect(dir.exists('no')).toBe(false);

    fs.mkdirSync(dir.abs('taken'));
    const folder = await runCli(['report', '--sarif', '--out', 'taken'], { cwd: dir.root });
    expect(folder.code).toBe(1);
    expect(folder.stdout + folder.stderr).toContain('minions: taken is a folder; name a file to write');
    expect(folder.stdout + folder.stderr).not.toContain('EISDIR');
    // The user named the path: outside the project is allowed, through a temporary file beside it.
    const elsewhere = await runCli(['report', '--sarif', '--out', path.join(o.dir, 'out.sarif')], { cwd: dir.root });
    expect(elsewhere.code).toBe(0);
    expect(fs.readdirSync(o.dir).sort()).toEqual(['out.sarif', 'victim.txt']);
  });
});

describe('the token budget and unreadable transcripts', () => {
  it('--max-tokens: the fix round does not start once the reviews used the budget; STOPPED budget, with the report', async () => {
    const loop = new Loop(projectTestdir());
    await loop.start('--max-tokens 20000 review the cart');
    expect(loop.state().rules.maxTokens).toBe(20_000);
    const { stops } = await loop.reviewRound(1, { ...allClean(), critic: reviewWithIssues('critic', [issue()]) }, REVIEWER_TRANSCRIPT);
    expect(loop.state()).toMatchObject({ currentPhase: 'STOPPED', stopReason: 'budget' });
    expect(loop.state().stopDetail).toBe(`${(5 * tokensOf('critic.jsonl')).toLocaleString('en-US')} tokens used of the 20,000 budget before fix round 1`);
    expect(loop.dir.exists('.agents/tmp/phases/review-1/r2-findings.json')).toBe(false);
    expect(messages(stops).join('\n')).toContain('→ STOPPED (the token budget is spent)');
    const end = messages([await loop.stop()]).join('\n');
    expect(end).toMatch(/^minions: STOPPED — the token budget is spent: /);
    expect(end).toContain('Best attempt: round 1, the final tree.');
    expect(loop.dir.read('.agents/tmp/phases/REPORT.md')).toContain('Budget: 20,000 tokens (--max-tokens);');
  });

  it('a missing or garbled transcript costs nothing and is marked unknown', async () => {
    const loop = new Loop(projectTestdir());
    await loop.start('--max-tokens 1000 review the cart');
    const garbled = path.join(tempDir(), 'agent-garbled.jsonl');
    fs.writeFileSync(garbled, fs.readFileSync(transcript('critic.jsonl'), 'utf8').replace('"type":"assistant"', '"type":"assistant'));
    const paths: Partial<Record<Reviewer, string>> = { critic: garbled, pedant: path.join(tempDir(), 'missing.jsonl') };
    await loop.reviewRound(1, { ...allClean(), critic: reviewWithIssues('critic', [issue()]) }, (r) => paths[r] ?? path.join(tempDir(), 'none.jsonl'));
    const state = loop.state();
    // Nothing known was spent, so the budget did not stop the loop.
    expect(state.currentPhase).toBe('R2');
    expect(Object.values(state.iterations[0].cost).map((c) => (c as { tokens: unknown }).tokens)).toEqual([null, null, null, null, null]);
    const status = (await runCli(['status'], { cwd: loop.root, sessionId: SESSION })).stdout;
    expect(status).toContain('Cost so far: unknown (no readable transcript for 5 agent runs) of a 1,000-token budget.');
  });
});
