import { describe, expect, it } from 'vitest';
import { bashGate, editGate, gitMutation, shellWrites, type Target } from '../../src/core/gates';
import { OTHER, OWNER, stateBuilder } from './builders';

const inside = (rel: string): Target => ({ inside: true, rel });
const R1 = stateBuilder().build();
const R2 = stateBuilder().inR2().build();
const OWN = '.agents/tmp/phases/review-1/r1-critic.json';
const SUMMARY = '.agents/tmp/phases/review-1/r2-fix-summary.md';

const JSON_SUMMARY = '.agents/tmp/phases/review-1/r2-fix-summary.json';

describe('editGate: the policy table', () => {
  // who, phase, target, answer: allow = the plugin's own file, written without a prompt;
  // pass = no answer, the user's permission mode decides; deny = refused.
  it.each([
    ['minions:critic', R1, OWN, 'allow'],
    ['minions:critic', R1, '.agents/tmp/phases/review-1/r1-pedant.json', 'deny'],
    ['minions:critic', R1, '.agents/tmp/phases/review-2/r1-critic.json', 'deny'],
    ['minions:critic', R1, 'src/a.ts', 'deny'],
    ['minions:critic', R2, OWN, 'deny'],
    ['minions:critic', R2, 'src/a.ts', 'deny'],
    ['minions:silent-failure-hunter', R1, '.agents/tmp/phases/review-1/r1-silent-failure-hunter.json', 'allow'],
    ['minions:review-fixer', R1, 'src/a.ts', 'deny'],
    ['minions:review-fixer', R1, SUMMARY, 'deny'],
    ['minions:review-fixer', R2, 'src/a.ts', 'pass'],
    ['minions:review-fixer', R2, 'README.md', 'pass'],
    ['minions:review-fixer', R2, SUMMARY, 'allow'],
    ['minions:review-fixer', R2, JSON_SUMMARY, 'allow'],
    ['minions:review-fixer', R2, '.agents/tmp/phases/review-2/r2-fix-summary.md', 'deny'],
    ['minions:review-fixer', R2, '.agents/tmp/phases/review-1/r1-critic.json', 'deny'],
    ['minions:review-fixer', R2, '.agents/notes.md', 'deny'],
    ['minions:review-fixer', R2, '.agents', 'deny'],
    [null, R1, 'src/a.ts', 'deny'],
    [null, R2, 'src/a.ts', 'deny'],
    [null, R1, SUMMARY, 'deny'],
    [null, R1, OWN, 'deny'],
    ['other:agent', R1, 'src/a.ts', 'deny'],
    ['other:agent', R2, SUMMARY, 'deny'],
    ['general-purpose', R2, 'src/a.ts', 'deny'],
  ])('%s in %s writing %s → %s', (who, state, rel, answer) => {
    const decision = editGate(state, OWNER, who, inside(rel));
    expect(decision.kind).toBe(answer);
    if (decision.kind !== 'pass') expect(decision.reason).toMatch(/^minions/);
  });

  it('names the file it lets through', () => {
    expect(editGate(R1, OWNER, 'minions:critic', inside(OWN))).toEqual({ kind: 'allow', reason: `minions R1: minions:critic writes its own review, ${OWN}` });
    expect(editGate(R2, OWNER, 'minions:review-fixer', inside(JSON_SUMMARY))).toEqual({ kind: 'allow', reason: `minions R2: minions:review-fixer writes its fix summary, ${JSON_SUMMARY}` });
  });

  it.each([
    '.agents/tmp/state.json',
    '.agents/tmp/state.json.tmp',
    '.agents/tmp/state.lock',
    '.agents/tmp/phases/review-1/r1-verdict.json',
    '.agents/tmp/phases/review-1/r2-findings.json',
    '.agents/tmp/phases/review-1/r1-changed-during-review.patch',
    '.agents/tmp/phases/review-1/diff.patch',
    '.agents/tmp/phases/review-2/fix-delta.patch',
    '.agents/tmp/phases/review-3/escalation.json',
    '.agents/tmp/phases/run.json',
    '.agents/tmp/archive/x/state.json',
  ])('%s belongs to the hooks, for everyone', (rel) => {
    for (const [state, session, who] of [[R1, OWNER, 'minions:review-fixer'], [R2, OWNER, 'minions:review-fixer'], [R1, OTHER, null], [null, OWNER, null]] as const) {
      expect(editGate(state, session, who, inside(rel))).toEqual({ kind: 'deny', reason: expect.stringMatching(/belong to the hooks/) });
    }
  });

  it.each([
    ['outside the project', R1, OWNER, null, { inside: false } as Target],
    ['another session', R1, OTHER, null, inside('src/a.ts')],
    ['another session\'s reviewer output', R1, OTHER, 'minions:critic', inside(OWN)],
    ['no loop', null, OWNER, null, inside('src/a.ts')],
    ['a finished loop', stateBuilder({ status: 'done', currentPhase: 'DONE' }).build(), OWNER, null, inside('src/a.ts')],
    ['a cancelled loop', stateBuilder({ status: 'cancelled', currentPhase: 'CANCELLED' }).build(), OWNER, 'minions:critic', inside('src/a.ts')],
  ])('leaves %s to the user', (_, state, session, who, target) => {
    expect(editGate(state, session, who, target)).toEqual({ kind: 'pass' });
  });
});

describe('bashGate', () => {
  it.each([
    'git commit -am x', 'git push', 'git reset --hard', 'git checkout -- src/a.ts', 'git stash', 'git rebase main', 'git add .',
    'git -C /repo commit -m x', 'cd src && git restore a.ts', 'git --no-pager -c core.x=y merge other', 'echo ok; git switch -c b',
    'git branch -D old', 'git branch newbranch', 'git apply --index p.diff', '/usr/bin/git clean -fdx', 'FOO=1 git tag v1',
  ])('denies the loop agents %j', (command) => {
    for (const who of ['minions:review-fixer', 'minions:witness']) {
      const decision = bashGate(R2, OWNER, who, command);
      expect(decision.allow, `${who}: ${command}`).toBe(false);
      expect(!decision.allow && decision.reason).toMatch(/may not run "git /);
    }
  });

  it.each(['git status', 'git diff HEAD', 'git log --oneline -5', 'git show HEAD:src/a.ts', 'git blame src/a.ts', 'git branch', 'git branch -a', 'git branch --show-current', 'npm test 2>&1 | tail -20'])(
    'allows %j',
    (command) => {
      expect(bashGate(R1, OWNER, 'minions:witness', command)).toEqual({ allow: true });
      expect(bashGate(R2, OWNER, 'minions:review-fixer', command)).toEqual({ allow: true });
    },
  );

  it.each([
    ["sed -i 's/a/b/' src/a.ts", false],
    ['echo x > src/a.ts', false],
    ['cat foo >> notes.txt', false],
    ['rm -rf src', false],
    ['npm test > /tmp/out.txt 2>&1', true],
    ['node -e "1" 2>/dev/null', true],
    ['npm test 2>&1', true],
    ['cat > .agents/tmp/phases/review-1/r1-witness.json <<EOF', true],
    ['cat > /abs/project/.agents/tmp/phases/review-1/r1-witness.json', true],
    ['cat > .agents/tmp/phases/review-1/r1-critic.json', false],
  ])('a reviewer running %j → allowed %s', (command, allowed) => {
    expect(bashGate(R1, OWNER, 'minions:witness', command).allow).toBe(allowed);
  });

  it.each([
    ['git commit -am wip', false],
    ['echo x > src/a.ts', false],
    ['npm test 2>&1 | tail', true],
    ['git diff', true],
  ])('the orchestrator during the loop: %j → allowed %s', (command, allowed) => {
    expect(bashGate(R1, OWNER, null, command).allow).toBe(allowed);
    expect(bashGate(R2, OWNER, null, command).allow).toBe(allowed);
    expect(bashGate(stateBuilder({ status: 'done', currentPhase: 'DONE' }).build(), OWNER, null, command).allow).toBe(true);
  });

  it.each([["sed --in-place 's/a/b/' src/a.ts"], ["sed --in-place=.bak 's/a/b/' src/a.ts"], ["perl -pi -e 's/a/b/' x"]])('in-place edits by a reviewer: %j', (command) => {
    expect(bashGate(R1, OWNER, 'minions:witness', command).allow).toBe(false);
  });

  it('the fixer may write files with the shell', () => {
    expect(bashGate(R2, OWNER, 'minions:review-fixer', "sed -i 's/a/b/' src/a.ts")).toEqual({ allow: true });
  });

  it.each([
    ['another session', R1, OTHER, 'minions:witness'],
    ['no loop', null, OWNER, 'minions:witness'],
    ["another plugin's agent", R1, OWNER, 'other:agent'],
  ])('leaves %s alone', (_, state, session, who) => {
    expect(bashGate(state, session, who, 'git commit -am x')).toEqual({ allow: true });
  });
});

describe('helpers', () => {
  it.each([
    ['git commit', 'commit'],
    ['git status && git push origin', 'push'],
    ['echo $(git stash)', 'stash'],
    ['git log', null],
    ['digit commit', null],
  ])('gitMutation(%j) = %j', (command, sub) => {
    expect(gitMutation(command)).toBe(sub);
  });
  it.each([
    ['ls -la', false],
    ['touch x', true],
    ['a | tee out.txt', true],
    ['grep -r "a > b" src', false],
    ["echo 'x' > out.txt", true],
  ])('shellWrites(%j) = %j', (command, writes) => {
    expect(shellWrites(command)).toBe(writes);
  });
});
