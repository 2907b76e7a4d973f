/**
 * What is reviewed and how: --base and the base chosen for a clean branch, the refusals (bad ref, shallow
 * clone, detached HEAD, nothing to review), --no-fix ending REVIEWED with SARIF, the project's REVIEW.md
 * per reviewer, and `minions status --fail-on`, through the built hooks and CLI in temp git repositories.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Loop, additionalContext, projectTestdir } from '../helpers/loop';
import { COMMITTED, CHANGED, FIXER, REVIEWERS, cleanReview, issue, reviewWithIssues, type Reviewer } from '../helpers/reviews';
import { GIT_ENV, openTestdir, removeTestdirs, tempDir, testdir, type TestDir } from '../helpers/testdir';
import { runCli } from '../helpers/run';
import { stop } from '../helpers/payloads';

afterAll(removeTestdirs);

const DIFF = '.agents/tmp/phases/review-1/diff.patch';

/** main holds COMMITTED; `feature` commits CHANGED on top of it; the tree is clean, on feature. */
function featureBranch(): { dir: TestDir; mainCommit: string } {
  const dir = testdir(COMMITTED);
  const mainCommit = dir.git('rev-parse', 'HEAD').trim();
  dir.git('checkout', '-q', '-b', 'feature');
  for (const [file, text] of Object.entries(CHANGED)) dir.write(file, text);
  dir.git('add', '-A');
  dir.git('commit', '-q', '-m', 'the feature');
  return { dir, mainCommit };
}

const systemMessage = (r: { stdout?: Record<string, unknown> | null }): string => String(r.stdout?.systemMessage ?? '');

describe.concurrent('the base of a review', () => {
  it('a committed feature branch, no --base, no task: the merge base with the default branch, and diff.patch holds the committed change', async () => {
    const { dir, mainCommit } = featureBranch();
    const loop = new Loop(dir);
    const r = await loop.prompt('/minions:review');
    expect(r.stdout?.decision).toBeUndefined();
    const state = loop.state();
    expect(state.base).toBe(mainCommit);
    expect(state.baseChoice).toEqual({ ref: 'main', why: 'default-branch' });
    expect(state.changedFiles).toEqual(['src/a.ts', 'src/cart.ts']);
    expect(dir.read(DIFF)).toContain('+export function total(items: Item[]): number {');
    expect(systemMessage(r)).toContain(`the change: ${mainCommit.slice(0, 12)} (the merge base with main; the tree is clean: the default branch) to the working tree`);
    expect(additionalContext(r)).toContain(`Changed files (against ${mainCommit.slice(0, 12)}): src/a.ts, src/cart.ts`);
  });

  it('--base main: the same change, as asked; committed and uncommitted work together', async () => {
    const { dir, mainCommit } = featureBranch();
    dir.write('src/new.ts', 'export const n = 1;\n');
    const loop = new Loop(dir);
    const r = await loop.prompt('/minions:review --base main');
    expect(r.stdout?.decision).toBeUndefined();
    expect(loop.state().base).toBe(mainCommit);
    expect(loop.state().baseChoice).toEqual({ ref: 'main', why: 'flag' });
    expect(loop.state().changedFiles).toEqual(['src/a.ts', 'src/cart.ts', 'src/new.ts']);
    expect(dir.read(DIFF)).toContain('+export const n = 1;');
    expect(dir.read(DIFF)).toContain('+export function total(items: Item[]): number {');
  });

  it("the branch's upstream comes first; a pushed branch (upstream at HEAD) falls back to the default branch", async () => {
    const { dir, mainCommit } = featureBranch();
    dir.git('branch', '-q', 'integration', mainCommit);
    dir.git('branch', '-q', '--set-upstream-to=integration', 'feature');
    const loop = new Loop(dir);
    await loop.prompt('/minions:review');
    expect(loop.state().baseChoice).toEqual({ ref: 'integration', why: 'upstream' });
    expect(loop.state().base).toBe(mainCommit);

    const pushed = featureBranch();
    pushed.dir.git('branch', '-q', 'feature-pushed', 'HEAD');
    pushed.dir.git('branch', '-q', '--set-upstream-to=feature-pushed', 'feature');
    const again = new Loop(pushed.dir);
    await again.prompt('/minions:review');
    expect(again.state().baseChoice).toEqual({ ref: 'main', why: 'default-branch' });
  });

  it('origin/HEAD names the default branch before main and master', async () => {
    const { dir, mainCommit } = featureBranch();
    dir.git('branch', '-q', '-m', 'main', 'old');
    dir.git('update-ref', 'refs/remotes/origin/trunk', mainCommit);
    dir.git('symbolic-ref', 'refs/remotes/origin/HEAD', 'refs/remotes/origin/trunk');
    const loop = new Loop(dir);
    await loop.prompt('/minions:review');
    expect(loop.state().baseChoice).toEqual({ ref: 'origin/trunk', why: 'default-branch' });
    expect(loop.state().base).toBe(mainCommit);
  });

  it('uncommitted work is reviewed against HEAD, as before', async () => {
    const dir = projectTestdir();
    const loop = new Loop(dir);
    const r = await loop.prompt('/minions:review');
    expect(loop.state().baseChoice).toEqual({ ref: null, why: 'uncommitted' });
    expect(loop.state().base).toBe(dir.git('rev-parse', 'HEAD').trim());
    expect(systemMessage(r)).toContain('the change: uncommitted work against HEAD');
  });

  it('.minions.json base is the default; --base overrides it', async () => {
    const { dir, mainCommit } = featureBranch();
    dir.git('branch', '-q', 'release', mainCommit);
    dir.write('.minions.json', JSON.stringify({ base: 'release' }));
    const loop = new Loop(dir);
    await loop.prompt('/minions:review');
    expect(loop.state().baseChoice).toEqual({ ref: 'release', why: 'config' });
    const other = featureBranch();
    other.dir.write('.minions.json', JSON.stringify({ base: 'no-such-branch' }));
    const refused = await new Loop(other.dir).prompt('/minions:review --base main the parser');
    expect(refused.stdout?.decision).toBeUndefined();
  });

  it('a clean tree with a task and nothing to compare with: HEAD, reviewing what the task names', async () => {
    const dir = testdir(COMMITTED);
    const loop = new Loop(dir);
    const r = await loop.prompt('/minions:review the README');
    expect(r.stdout?.decision).toBeUndefined();
    expect(loop.state().baseChoice).toEqual({ ref: null, why: 'head' });
    expect(additionalContext(r)).toContain('none detected; review what the task names');
  });
});

describe.concurrent('refused before anything starts', () => {
  const refusedCleanly = async (dir: TestDir, prompt: string): Promise<string> => {
    const r = await new Loop(dir).prompt(prompt);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout?.decision).toBe('block');
    expect(dir.exists('.agents')).toBe(false);
    return String(r.stdout?.reason);
  };

  it('a ref that names no commit, named', async () => {
    const { dir } = featureBranch();
    expect(await refusedCleanly(dir, '/minions:review --base origin/mian')).toBe(
      'minions: the base "origin/mian" names no commit in this repository (a branch, tag or commit, e.g. origin/main; git fetch it first if it is a remote branch). Nothing was started.',
    );
  });

  it('a bad base in .minions.json, named', async () => {
    const { dir } = featureBranch();
    dir.write('.minions.json', JSON.stringify({ base: 'developp' }));
    expect(await refusedCleanly(dir, '/minions:review')).toContain('the base "developp" names no commit');
  });

  it('a ref that looks like an option is refused by the parser', async () => {
    const { dir } = featureBranch();
    expect(await refusedCleanly(dir, '/minions:review --base --output=/tmp/x')).toContain('--base needs a git ref, e.g. --base origin/main');
  });

  it('nothing to review: a clean tree on the default branch, no task', async () => {
    const dir = testdir(COMMITTED);
    expect(await refusedCleanly(dir, '/minions:review')).toBe(
      'minions: nothing to review: the working tree has no uncommitted changes and the branch holds no commit its upstream or the default branch does not. Nothing was started. ' +
        'Name the base to review against (/minions:review --base origin/main), or say what to review (/minions:review <what to review>).',
    );
  });

  it('nothing to review: --base at HEAD, no task', async () => {
    const { dir } = featureBranch();
    expect(await refusedCleanly(dir, '/minions:review --base feature')).toContain('minions: nothing to review');
  });

  it('a detached HEAD with a clean tree and no task', async () => {
    const { dir } = featureBranch();
    dir.git('checkout', '-q', '--detach');
    expect(await refusedCleanly(dir, '/minions:review --no-fix')).toContain('HEAD is detached, so there is no branch to compare it with');
    // Named, the base works detached (CI checks out a pull request's merge commit so).
    const loop = new Loop(dir);
    expect((await loop.prompt('/minions:review --base main')).stdout?.decision).toBeUndefined();
    expect(loop.state().baseChoice).toEqual({ ref: 'main', why: 'flag' });
  });

  it('no upstream and no default branch', async () => {
    const { dir } = featureBranch();
    dir.git('branch', '-q', '-m', 'main', 'trunk');
    expect(await refusedCleanly(dir, '/minions:review')).toContain('the branch has no upstream, and there is no default branch (origin/HEAD, main or master) to compare it with');
  });

  it('a shallow clone without the shared history', async () => {
    const { dir } = featureBranch();
    dir.git('checkout', '-q', 'main');
    dir.write('src/b.ts', 'export const b = 1;\n');
    dir.git('add', '-A');
    dir.git('commit', '-q', '-m', 'main moves on');
    const clone = tempDir('minions-shallow-');
    execFileSync('git', ['clone', '-q', '--depth', '1', '--no-single-branch', '--branch', 'feature', `file://${dir.root}`, clone], { env: GIT_ENV });
    const shallow = openTestdir(clone);
    expect(await refusedCleanly(shallow, '/minions:review --base origin/main')).toBe(
      'minions: this clone is shallow and holds no commit that HEAD shares with the base "origin/main": fetch the history first (git fetch --unshallow, or fetch-depth: 0 in actions/checkout). Nothing was started.',
    );
  });

  it('--base before the first commit', async () => {
    const dir = openTestdir(tempDir());
    dir.git('init', '-q', '-b', 'main');
    dir.write('a.ts', 'x\n');
    expect(await refusedCleanly(dir, '/minions:review --base main')).toContain('names no commit');
    const other = openTestdir(tempDir());
    other.git('init', '-q', '-b', 'main');
    other.write('a.ts', 'x\n');
    other.git('add', '-A');
    other.git('commit', '-q', '-m', 'one');
    other.git('checkout', '-q', '--orphan', 'fresh');
    expect(await refusedCleanly(other, '/minions:review --base main')).toBe(
      'minions: HEAD has no commit yet, so there is nothing to measure from the base "main": commit first, or review without --base. Nothing was started.',
    );
  });

  it('--base outside a git repository', async () => {
    const dir = openTestdir(tempDir());
    dir.write('a.ts', 'x\n');
    expect(await refusedCleanly(dir, '/minions:review --base main')).toBe(
      "minions: the base \"main\" needs a git repository, and this project is not in one: review without --base (and without .minions.json's base). Nothing was started.",
    );
  });

  it('--sarif into a folder that does not exist', async () => {
    const dir = projectTestdir();
    expect(await refusedCleanly(dir, '/minions:review --no-fix --sarif missing/out.sarif')).toContain('--sarif missing/out.sarif: its folder does not exist');
  });
});

const findings = (): Partial<Record<Reviewer, ReturnType<typeof cleanReview>>> =>
  Object.fromEntries(REVIEWERS.map((r) => [r, r === 'critic' ? reviewWithIssues(r, [issue({ severity: 'critical' })]) : cleanReview(r)]));

describe.concurrent('--no-fix: one review round, no fixer', () => {
  it('ends REVIEWED with the verdict, REVIEW.md, REPORT.md and SARIF; no fixer runs; the gates refuse project writes while it runs', async () => {
    const dir = projectTestdir();
    const loop = new Loop(dir);
    const started = await loop.prompt('/minions:review --no-fix --sarif minions.sarif');
    expect(systemMessage(started)).toMatch(/^minions: review-only pass started/);
    expect(loop.state().reviewOnly).toBe(true);

    // While it runs: the orchestrator and the fixer are refused any project write, and the fixer's dispatch.
    for (const agent of [null, FIXER]) {
      const write = await loop.gateWrite(dir.abs('src/cart.ts'), agent);
      expect(write.stdout?.hookSpecificOutput?.permissionDecision).toBe('deny');
      expect(String(write.stdout?.hookSpecificOutput?.permissionDecisionReason)).toContain('this is a review-only pass (--no-fix)');
    }
    const bash = await loop.gateBash('echo x > src/cart.ts', null);
    expect(String(bash.stdout?.hookSpecificOutput?.permissionDecisionReason)).toContain('review-only pass');
    expect((await loop.dispatch(FIXER)).stdout?.hookSpecificOutput?.permissionDecision).toBe('deny');

    const { stops } = await loop.reviewRound(1, findings());
    const state = loop.state();
    expect(state.status).toBe('reviewed');
    expect(state.currentPhase).toBe('REVIEWED');
    expect(state.iterations[0]!.r2.dispatches).toBe(0);
    expect(dir.exists('.agents/tmp/phases/review-1/r2-findings.json')).toBe(false);
    expect(dir.readJson('.agents/tmp/phases/review-1/r1-verdict.json').next).toBe('REVIEWED');
    expect(dir.read('.agents/tmp/phases/review-1/REVIEW.md')).toContain('No fix round: this is a review-only pass (--no-fix).');
    expect(dir.read('.agents/tmp/phases/REPORT.md')).toMatch(/^# minions review loop: REVIEWED \(review only, nothing fixed\)/);
    expect(stops.map(systemMessage).join('\n')).toContain('→ REVIEWED (review only: nothing is fixed)');
    const sarif = dir.readJson('minions.sarif');
    expect(sarif.version).toBe('2.1.0');
    expect(sarif.runs[0].results).toHaveLength(1);
    expect(sarif.runs[0].results[0].level).toBe('error');

    // The loop is over: the gates no longer hold anything, and Stop says the outcome plainly.
    const stopped = await loop.hook('on-stop', stop(loop.common()));
    expect(systemMessage(stopped)).toMatch(/^minions: REVIEWED \(review only, nothing was fixed\) — 1 issue \(1 critical\)/);
    expect(systemMessage(stopped)).toContain(`SARIF: ${dir.abs('minions.sarif')}`);
  });

  it('minions status --fail-on: exit 1 while findings at or above the severity remain, 0 when none do, 1 with no verdict', async () => {
    const dir = projectTestdir();
    expect((await runCli(['status', '--fail-on', 'critical'], { cwd: dir.root })).code).toBe(1);
    const loop = new Loop(dir);
    await loop.prompt('/minions:review --no-fix');
    const running = await runCli(['status', '--fail-on', 'info'], { cwd: dir.root });
    expect(running.code).toBe(1);
    expect(running.stderr).toContain('--fail-on info: no review verdict to judge');
    await loop.reviewRound(1, Object.fromEntries(REVIEWERS.map((r) => [r, r === 'critic' ? reviewWithIssues(r, [issue({ severity: 'warning' })]) : cleanReview(r)])));
    const critical = await runCli(['status', '--fail-on', 'critical'], { cwd: dir.root });
    expect(critical.code).toBe(0);
    expect(critical.stdout).toContain('minions: --fail-on critical: no open finding at critical or above → exit 0');
    expect(critical.stdout).toContain('Review only (--no-fix): nothing is fixed; the loop ended REVIEWED with the verdict.');
    expect(critical.stdout).toContain('Reviewing the change: uncommitted work against HEAD ');
    const warning = await runCli(['status', '--fail-on', 'warning'], { cwd: dir.root });
    expect(warning.code).toBe(1);
    expect(warning.stderr).toContain('minions: --fail-on warning: 1 open finding at warning or above (1 warning) → exit 1');
    const json = await runCli(['status', '--json', '--fail-on', 'warning'], { cwd: dir.root });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stderr).status).toBe('reviewed');
    expect((await runCli(['status', '--fail-on', 'fatal'], { cwd: dir.root })).code).toBe(2);
  });
});

describe.concurrent("the project's review rules", () => {
  const RULES = ['# Review rules', 'Every exported function needs a unit test.', '', '## security-reviewer', 'Flag any string concatenated into SQL as critical.', '', '## Style', 'Prefer early returns.', ''].join('\n');

  it('REVIEW.md reaches every reviewer by path; a section headed with a reviewer reaches that reviewer only', async () => {
    const dir = projectTestdir();
    dir.write('REVIEW.md', RULES);
    const loop = new Loop(dir);
    const r = await loop.start();
    const context = additionalContext(r);
    expect(systemMessage(r)).toContain("the project's review rules: REVIEW.md");
    expect(context).toMatch(/^Give each reviewer its own copy of the project's review rules \(from REVIEW\.md\) and no other one's/m);
    for (const reviewer of REVIEWERS) {
      const file = `.agents/tmp/phases/rules/${reviewer}.md`;
      expect(context).toContain(`- minions:${reviewer} → ${dir.abs(`.agents/tmp/phases/review-1/r1-${reviewer}.json`)}\n`);
      expect(context).toContain(`minions:${reviewer}: ${dir.abs(file)}`);
      const text = dir.read(file);
      expect(text).toContain('Every exported function needs a unit test.');
      expect(text).toContain('Prefer early returns.');
      expect(text.includes('Flag any string concatenated into SQL')).toBe(reviewer === 'security-reviewer');
    }
    // The copies are the hooks' own: nobody in the loop writes them.
    const write = await loop.gateWrite(dir.abs('.agents/tmp/phases/rules/critic.md'), FIXER);
    expect(write.stdout?.hookSpecificOutput?.permissionDecision).toBe('deny');
  });

  it('.minions/rules.md when there is no REVIEW.md; a large file is cut, and the cut is said', async () => {
    const dir = projectTestdir();
    dir.write('.minions/rules.md', `# Rules\n${'Check every loop bound.\n'.repeat(2000)}`);
    const loop = new Loop(dir);
    const r = await loop.start();
    expect(systemMessage(r)).toContain("the project's review rules: .minions/rules.md");
    const text = dir.read('.agents/tmp/phases/rules/witness.md');
    expect(text.length).toBeLessThan(17 * 1024);
    expect(text).toContain('(The rules are cut at 16 KB; the whole file is .minions/rules.md.)');
  });

  it('no rules file: the prompts name none', async () => {
    const dir = projectTestdir();
    const loop = new Loop(dir);
    const r = await loop.start();
    expect(additionalContext(r)).not.toContain('project rules');
    expect(dir.exists('.agents/tmp/phases/rules')).toBe(false);
    expect(path.isAbsolute(dir.root)).toBe(true);
  });
});
