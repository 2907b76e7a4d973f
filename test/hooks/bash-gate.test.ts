/**
 * The Bash gate (PreToolUse Bash): the loop's agents never change git history, the index or the
 * checkout; reviewers never write project files. Read-only commands pass.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Loop, denyReason, projectTestdir } from '../helpers/loop';
import { bashTool } from '../helpers/payloads';
import { FIXER, REVIEWERS, agentType, cleanReview, reviewWithIssues, reviewerFile } from '../helpers/reviews';
import { removeTestdirs, cloneTestdir, type TestDir } from '../helpers/testdir';

afterAll(removeTestdirs);

const CRITIC = agentType('critic');
let r1: TestDir;
let r2: TestDir;

beforeAll(async () => {
  const loop = new Loop(projectTestdir());
  await loop.start('--max-iterations 3 bash');
  await loop.dispatchReviewers();
  r1 = cloneTestdir(loop.dir);
  for (const r of REVIEWERS) loop.writeReview(1, r, r === 'critic' ? reviewWithIssues(r) : cleanReview(r));
  await loop.reviewersStop();
  await loop.dispatch(FIXER);
  expect(loop.state().currentPhase).toBe('R2');
  r2 = loop.dir;
});

type Expect = 'allow' | `git ${string}` | 'write';

async function check(dir: TestDir, who: string | null, command: string, expected: Expect): Promise<void> {
  const loop = new Loop(dir);
  const before = loop.stateBytes();
  const r = await loop.gateBash(command, who);
  expect(r.code).toBe(0);
  expect(r.stderr).toBe('');
  if (expected === 'allow') {
    expect(r.raw).toBe('');
  } else if (expected === 'write') {
    expect(denyReason(r)).toBe(`minions R1: ${who} is read-only; shell commands that write or delete project files are refused. Run read-only commands and report what you find.`);
  } else {
    expect(denyReason(r)).toBe(
      `minions: ${who} may not run "${expected}": the review loop never changes git history, the index or the checkout. Read-only git (status, diff, log, show, blame) is fine; the user commits when the loop ends.`,
    );
  }
  expect(loop.stateBytes()).toBe(before);
}

const GIT_MUTATIONS: [string, Expect][] = [
  ['git commit -am "wip"', 'git commit'],
  ['git push origin main', 'git push'],
  ['git reset --hard HEAD~1', 'git reset'],
  ['git checkout -- src/a.ts', 'git checkout'],
  ['git stash', 'git stash'],
  ['git rebase -i main', 'git rebase'],
  ['cd src && git stash pop', 'git stash'],
  ['git -C . commit -m x', 'git commit'],
  ['git -c user.name=x commit -m x', 'git commit'],
  ['/usr/bin/git reset --soft HEAD', 'git reset'],
  ['npm test; git add -A', 'git add'],
];

const READ_ONLY_GIT: string[] = ['git status --porcelain', 'git diff', 'git log --oneline | head -5', 'git show HEAD:src/a.ts', 'git blame src/cart.ts'];

describe.concurrent('the Bash gate, reviewers in R1', () => {
  it.each(GIT_MUTATIONS)('denies `%s`', (command, expected) => check(r1, CRITIC, command, expected));
  it.each(READ_ONLY_GIT)('allows `%s`', (command) => check(r1, CRITIC, command, 'allow'));

  it.each([
    ["sed -i 's/2/1/' src/a.ts", 'write'],
    ["sed -i.bak -e 's/2/1/' src/a.ts", 'write'],
    ['echo x > src/a.ts', 'write'],
    ['printf "%s" x>>src/a.ts', 'write'],
    ['rm -rf src', 'write'],
    ['npm test > test.log', 'write'],
    ['npm test 2>&1 | tail -20', 'allow'],
    ['git diff > /tmp/review.diff', 'allow'],
    ['cat src/cart.ts', 'allow'],
    ['grep -rn "items.length" src', 'allow'],
    ["node -e 'console.log(1 > 0)'", 'allow'],
    [`cat > ${reviewerFile(1, 'critic')} <<'EOF'\n{"issues":[],"summary":{"verdict":"clean"}}\nEOF`, 'allow'],
    [`echo '{}' > ${reviewerFile(1, 'pedant')}`, 'write'],
  ] as [string, Expect][])('`%s` → %s', (command, expected) => check(r1, CRITIC, command, expected));

  it.each(REVIEWERS.filter((r) => r !== 'critic'))('applies to minions:%s', (r) => check(r1, agentType(r), r === 'witness' ? 'echo x > src/a.ts' : 'git commit -m x', r === 'witness' ? 'write' : 'git commit'));

  // FINDINGS.md #4 (fixed in 81e65b9): the in-place regex knew only the short flag.
  it("denies `sed --in-place 's/2/1/' src/a.ts` like `sed -i`", () => check(r1, CRITIC, "sed --in-place 's/2/1/' src/a.ts", 'write'));
});

describe.concurrent('the Bash gate, the fixer in R2', () => {
  // The six the seed names; the reviewers' table above covers the spellings.
  it.each(GIT_MUTATIONS.slice(0, 6))('denies `%s`', (command, expected) => check(r2, FIXER, command, expected));
  it.each(['git status', 'git diff HEAD -- src/cart.ts', "sed -i 's/<=/</' src/cart.ts", 'echo x > src/new.ts', 'npm test 2>&1 | tail'])('allows `%s` (the fixer edits the project)', (command) =>
    check(r2, FIXER, command, 'allow'),
  );
});

describe.concurrent('the Bash gate, the orchestrator during the loop', () => {
  it.each([
    ['git commit -am wip', 'the orchestrator may not run "git commit"'],
    ['git stash', 'the orchestrator may not run "git stash"'],
    ['echo x > src/a.ts', /^minions R1 \(Iteration 1\/3\): while the review loop runs, project files are changed only by minions:review-fixer in R2\./],
    ["sed -i 's/2/1/' src/a.ts", /while the review loop runs, project files are changed only by minions:review-fixer/],
  ] as [string, string | RegExp][])('denies `%s`', async (command, reason) => {
    const r = await new Loop(r1).gateBash(command, null);
    expect(r.code).toBe(0);
    if (typeof reason === 'string') expect(denyReason(r)).toContain(reason);
    else expect(denyReason(r)).toMatch(reason);
  });

  it.each(['git status', 'git diff', 'npm test 2>&1 | tail -20', 'ls -la .agents/tmp/phases'])('allows `%s`', (command) => check(r1, null, command, 'allow'));

  it('in R2 too', async () => {
    expect(denyReason(await new Loop(r2).gateBash('git commit -m fix', null))).toContain('the orchestrator may not run "git commit"');
    expect(denyReason(await new Loop(r2).gateBash('echo x > src/a.ts', null))).toMatch(/^minions R2 \(Iteration 1\/3\): while the review loop runs/);
  });
});

describe.concurrent('the Bash gate leaves others alone', () => {
  it("another plugin's agent: allowed", async () => {
    await check(r1, 'other-plugin:helper', 'git commit -am wip', 'allow');
    await check(r1, 'other-plugin:helper', 'echo x > src/a.ts', 'allow');
  });

  it('a payload without a command is let through', async () => {
    const loop = new Loop(r1);
    const payload = { ...bashTool('x', { ...loop.common(), agentType: CRITIC }), tool_input: { description: 'no command' } };
    expect(await loop.hook('on-bash-gate', payload)).toMatchObject({ code: 0, raw: '', stderr: '' });
  });
});
