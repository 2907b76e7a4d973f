/**
 * The Bash gate (PreToolUse Bash) through the built bundle: the loop's agents never change git history,
 * the index or the checkout, nor the hooks' files; reviewers and the orchestrator never write project
 * files, the fixer nothing under .agents/ or the git dir. Read-only commands pass. The spelling-by-
 * spelling tables are in test/unit (shell-analysis, gates, bash-spellings); these prove the bundle.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Loop, denyReason, projectTestdir } from '../helpers/loop';
import { OTHER_SESSION, bashTool } from '../helpers/payloads';
import { REPO_ROOT } from '../helpers/run';
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
  // A link in the project to a directory outside it: git run there is git run outside.
  fs.symlinkSync(os.tmpdir(), r1.abs('out-link'));
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

// Spellings an adversarial pass found bash running past the gate (each checked in bash 5.2): refused by
// the built bundle now, for the witness (R1, read-only) and the fixer (R2, nothing under .agents/).
describe.concurrent('the Bash gate against spellings found later', () => {
  it.each([
    ['a+=b rm -rf src', 'write'],
    ['_=x git stash; ls', 'git stash'],
    ['env 9=x git stash', 'git stash'],
    ["bash +x -c 'rm src/a.ts'", 'write'],
    ["bash +c 'rm src/a.ts'", 'write'],
    ["flock /tmp/l -c 'git stash'", 'git stash'],
    ['setarch x86_64 -R rm -rf src', 'write'],
    ['setarch x86_64 --addr-no-randomize git stash', 'git stash'],
    ['GIT_DIR=/tmp/e git stash', 'git stash'],
  ] as [string, Expect][])('the witness: `%s` → %s', (command, expected) => check(r1, agentType('witness'), command, expected));

  // Each writes its output into the git dir's config: a core.fsmonitor there runs under the next `git status`.
  it.each(['git rev-list --format=%s --output=.git/config HEAD', 'git blame --output .git/config src/a.ts', 'git stash show -p --output=.git/config', 'valgrind --xml-file=.git/config true'])(
    'the witness: `%s` (a write into the git directory) is refused',
    async (command) => {
      const r = await new Loop(r1).gateBash(command, agentType('witness'));
      expect(r).toMatchObject({ code: 0, stderr: '' });
      expect(denyReason(r)).toMatch(/the git directory and git's configuration/);
    },
  );

  it.each(["mkdir -p /tmp/e/.git && printf '[core]\\n\\tfsmonitor = x\\n' > /tmp/e/.git/config && git -C /tmp/e status", 'rm -rf .gi[[:lower:]]', "echo x > src/sub/.git/config"])('the fixer: `%s` (a write into a git directory) is refused', async (command) => {
    const r = await new Loop(r2).gateBash(command, FIXER);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(denyReason(r)).toMatch(/the git directory and git's configuration/);
  });

  it.each(['GIT_DIR=/tmp/e git status', 'git --git-dir=/tmp/e log -p', 'export GIT_"DIR"=/tmp/e; git diff', 'GIT_INDEX_FILE=.agents/tmp/state.json git status'])(
    'the fixer: `%s` (git in a repository of the command\'s choosing) is refused',
    async (command) => {
      const r = await new Loop(r2).gateBash(command, FIXER);
      expect(r).toMatchObject({ code: 0, stderr: '' });
      expect(denyReason(r)).toMatch(/points git at a git directory, index or work tree of its own choosing, whose configuration can run a program, so the gate cannot check it/);
    },
  );

  it.each(["let 'x[$(rm src/a.ts)]=1'", "[[ 'a[$(git stash)]' -eq 1 ]]", "declare 'a[$(rm y)]=1'"])('the witness: `%s` is refused (code bash runs when it evaluates a subscript)', async (command) => {
    const r = await new Loop(r1).gateBash(command, agentType('witness'));
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(denyReason(r)).toMatch(/runs shell code held in a variable, a substitution or a language the gate does not read, so the gate cannot check it/);
  });

  it.each([
    'a+=b rm .agents/tmp/state.json', "sh -c +e 'rm .agents/tmp/state.json'", '_=x rm -rf .agents', 'rm -rf .agent[[:alpha:]]', 'rm -rf .agent[]s]', 'mktemp -p .agents',
    'echo | xargs --eof rm -rf .agents', 'tar -cf /tmp/t.tar --remove-fi .agents/tmp/state.json', 'shuf -o .agents/tmp/state.json src/a.ts',
    'git reflog --output=.agents/tmp/state.json', 'valgrind --log-file=.agents/tmp/state.json true', 'ssh-agent -a .agents/tmp/agent.sock true',
  ])('the fixer: `%s` is refused', async (command) => {
    const r = await new Loop(r2).gateBash(command, FIXER);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(denyReason(r)).toMatch(/\.agents/);
  });

  // Each exported GIT_DIR under a name the text does not show; a config there ran its program under git.
  it.each(['export GIT_{DIR,X}=/tmp/e; git status', 'n=GIT_DIR; export "$n=/tmp/e"; git diff', 'set -a; read GIT_DIR <<< /tmp/e; git status', 'set -o allexport; printf -v GIT_DIR /tmp/e; git log -p'])(
    'the fixer: `%s` (variables exported under names the gate cannot read) is refused',
    async (command) => {
      const r = await new Loop(r2).gateBash(command, FIXER);
      expect(r).toMatchObject({ code: 0, stderr: '' });
      expect(denyReason(r)).toMatch(/exports variables under names the gate cannot read .*, so the gate cannot check it/);
    },
  );

  // Outside the project any directory holding HEAD, objects/ and refs/ is a bare repository of the command's making.
  it.each(['git -C /tmp/b show', 'cd /tmp/b && git diff HEAD~1 HEAD', 'git -C "$D" log -p', 'git -C out-link status'])('the witness: `%s` (git run outside the project) is refused', async (command) => {
    const r = await new Loop(r1).gateBash(command, agentType('witness'));
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(denyReason(r)).toMatch(/^minions: .* may not run `git .*` in .*: outside the project, the gate cannot tell whose repository git finds there .* Run git from the project/);
  });

  it.each(['git -C src status', 'git -C "$PWD" status', 'cd src && git log -p', 'export FOO=1; git status'])('the witness: `%s` is allowed', (command) => check(r1, agentType('witness'), command, 'allow'));

  it.each(["echo 'rm -rf src' | unshare -r", "echo 'git stash' | fakeroot", "echo 'rm -rf src' | su"])('the fixer: `%s` (a shell reading the pipe) is refused', async (command) => {
    const r = await new Loop(r2).gateBash(command, FIXER);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(denyReason(r)).toMatch(/feeds commands to a shell through a pipe or a file descriptor/);
  });

  it.each(['git diff $(git merge-base HEAD main)', 'git log -p "$(git merge-base main HEAD)"..HEAD', 'git show $(git rev-parse --short HEAD) --stat'])(
    'the witness: `%s` (object names git prints, written in place) is allowed',
    (command) => check(r1, agentType('witness'), command, 'allow'),
  );

  it('the witness: a revision through a variable is refused, with the form that is read', async () => {
    const r = await new Loop(r1).gateBash('BASE=$(git merge-base HEAD main); git diff $BASE', agentType('witness'));
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(denyReason(r)).toMatch(/`git diff \$BASE` runs a command whose name or arguments are computed .* a revision may be written in place as `\$\(git merge-base main HEAD\)`/);
  });

  it.each(['git diff $(git rev-parse --flags --output=.agents/tmp/state.json)', 'git diff --output=`git merge-base x y`.agents/tmp/state.json'])('the witness: `%s` is refused', async (command) => {
    const r = await new Loop(r1).gateBash(command, agentType('witness'));
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(denyReason(r)).toMatch(/runs a command whose name or arguments are computed|could not read this command \(the parser splits/);
  });

  it('the witness: valgrind, whose options ~/.valgrindrc, $VALGRIND_OPTS or ./.valgrindrc may add, writes files unknown', () =>
    check(r1, agentType('witness'), 'valgrind -q --log-file=/tmp/vg.log true', 'write'));
});

describe.concurrent("the owning session's other agents are held to the orchestrator's rules", () => {
  it.each(['general-purpose', 'Explore', 'other-plugin:helper'])('%s', async (type) => {
    const loop = new Loop(r1);
    const label = `${type} (an agent of the session running the loop, held to the orchestrator's rules)`;
    expect(denyReason(await loop.gateBash('git reset --hard', type))).toBe(
      `minions: ${label} may not run "git reset": the review loop never changes git history, the index or the checkout. Read-only git (status, diff, log, show, blame) is fine; the user commits when the loop ends.`,
    );
    expect(denyReason(await loop.gateBash('echo x > src/a.ts', type))).toMatch(/^minions R1 \(Iteration 1\/3\): while the review loop runs, project files are changed only by minions:review-fixer in R2\./);
    expect(await loop.gateBash('git status', type)).toMatchObject({ code: 0, raw: '', stderr: '' });
  });
});

// The spellings issue 7 found getting past the text-matching gate, run through the built bundle.
const ISSUE_SPELLINGS = [
  'echo 0 1>.agents/tmp/state.json',
  'echo 0 >| src/a.ts',
  'echo 0 &> src/a.ts',
  ' rm -rf src',
  '\\rm -rf src',
  'command rm -rf src',
  'env rm -rf src',
  'ls src | xargs rm',
  'find src -delete',
  "sed 's/a/b/' -i src/a.ts",
  "perl -pe 's/a/b/' -i src/a.ts",
  'bash -c "rm -rf src"',
  'git -c alias.s=stash s',
  'git checkout-index -a -f',
];

describe.concurrent('the spellings that got past the old gate', () => {
  it.each(ISSUE_SPELLINGS)('the orchestrator: `%s` is refused', async (command) => {
    const loop = new Loop(r1);
    const before = loop.stateBytes();
    const r = await loop.gateBash(command, null);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(denyReason(r)).toMatch(/^minions/);
    expect(loop.stateBytes()).toBe(before);
  });

  it.each(['echo 0 1>.agents/tmp/state.json', "sed -i 's/\"R2\"/\"DONE\"/' .agents/tmp/state.json", 'rm .agents/tmp/phases/review-1/r1-verdict.json', 'cd .agents/tmp && echo 0 > state.json'])(
    'the fixer: `%s` is refused, the state stays the hooks\'',
    async (command) => {
      const loop = new Loop(r2);
      expect(denyReason(await loop.gateBash(command, FIXER))).toBe(
        'minions: .agents/tmp/state.json, the verdicts, the findings brief, the patches, the escalation file and the lock belong to the hooks; they cannot be edited. Use /minions:status to read the loop, /minions:cancel to end it.',
      );
    },
  );
});

describe.concurrent('the fixer writes project files, not .agents/ or the git dir', () => {
  it.each([
    ['echo done > .agents/tmp/phases/review-1/r2-fix-summary.md', /^minions R2: the fixer's shell may not write under \.agents\/ \(.*r2-fix-summary\.md\)\. Write \.agents\/tmp\/phases\/review-1\/r2-fix-summary\.md and its \.json with the Write tool/],
    ["cat > .agents/tmp/phases/review-1/r1-critic.json <<'EOF'\n{}\nEOF", /the fixer's shell may not write under \.agents\//],
    ['echo x > .git/hooks/pre-commit', /may not write .*\.git\/hooks\/pre-commit: the git directory and git's configuration/],
    ['echo "process.exit(0)" > "$CLAUDE_PLUGIN_ROOT/dist/on-bash-gate.cjs"', /cannot tell which file/],
    [`echo "process.exit(0)" > ${REPO_ROOT}/dist/on-bash-gate.cjs`, /the plugin's own files and its records are not the loop's to change/],
    ['rm "$TARGET"', /cannot tell which file `"\$TARGET"` is until the command runs.*Name the files literally, or make the change with Edit\./],
  ] as [string, RegExp][])('`%s` is refused', async (command, reason) => {
    expect(denyReason(await new Loop(r2).gateBash(command, FIXER))).toMatch(reason);
  });

  it.each(['cd src && sed -i s/a/b/ cart.ts', "printf 'x' > src/new.ts && npm test 2>&1 | tail -5", 'git diff --stat; git log -p -1 > /tmp/last.patch', 'git -C src status', 'git show HEAD --stat', 'setarch x86_64 -R npm test'])('`%s` is allowed', (command) =>
    check(r2, FIXER, command, 'allow'),
  );

  it('a symlink in the project pointing into .agents/ is judged where it points', async () => {
    const loop = new Loop(cloneTestdir(r2));
    fs.symlinkSync(path.join(loop.root, '.agents/tmp'), path.join(loop.root, 'tmp-link'));
    expect(denyReason(await loop.gateBash('echo 0 > tmp-link/state.json', FIXER))).toMatch(/belong to the hooks/);
    expect(denyReason(await loop.gateBash('echo 0 > tmp-link/notes.md', FIXER))).toMatch(/the fixer's shell may not write under \.agents\//);
  });

  it('relative paths are read from the Bash tool\'s working directory (the payload cwd)', async () => {
    const loop = new Loop(r2);
    const payload = { ...bashTool('echo 0 > state.json', { ...loop.common({ cwd: path.join(loop.root, '.agents/tmp') }), agentType: FIXER }) };
    expect(denyReason(await loop.hook('on-bash-gate', payload, { projectDir: loop.root }))).toMatch(/belong to the hooks/);
  });
});

describe.concurrent('commands the gate cannot read', () => {
  it.each([
    ['$CMD -rf src', /`\$CMD -rf src` runs a command whose name or arguments are computed when it runs, so the gate cannot check it while the review loop runs\. Run the commands themselves, spelled out\./],
    ['echo "rm -rf src" | sh', /`sh` feeds commands to a shell through a pipe or a file descriptor/],
    ['exec 3<>src/a.ts', /the Bash gate could not read this command \(not valid bash\), so it is refused while the review loop runs\. Split it into simpler commands in plain bash\./],
  ] as [string, RegExp][])('`%s` is refused for a reviewer, saying what to do', async (command, reason) => {
    expect(denyReason(await new Loop(r1).gateBash(command, CRITIC))).toMatch(reason);
  });
});

describe.concurrent('the Bash gate leaves others alone', () => {
  it("another session's commands, however hostile, are not parsed or judged", async () => {
    const other = new Loop(r1, OTHER_SESSION);
    for (const command of ['git commit -am wip', 'echo 0 > .agents/tmp/state.json', '$CMD', 'exec 3<>f']) {
      expect(await other.gateBash(command, null), command).toMatchObject({ code: 0, raw: '', stderr: '' });
    }
  });

  it('a payload without a command is let through', async () => {
    const loop = new Loop(r1);
    const payload = { ...bashTool('x', { ...loop.common(), agentType: CRITIC }), tool_input: { description: 'no command' } };
    expect(await loop.hook('on-bash-gate', payload)).toMatchObject({ code: 0, raw: '', stderr: '' });
  });
});
