import { describe, expect, it } from 'vitest';
import { bashGate, editGate, type BashEffect, type Target } from '../../src/core/gates';
import type { State } from '../../src/state/schema';
import { PLACES, ROOT, analyse, asGateEffects, decide, outcomeOf, type Outcome } from './bash';
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

  it('an own output or summary with other hard links is not the agent\'s own', () => {
    const linked = (rel: string): Target => ({ inside: true, rel, linked: true });
    expect(editGate(R1, OWNER, 'minions:critic', linked(OWN)).kind).toBe('deny');
    expect(editGate(R2, OWNER, 'minions:review-fixer', linked(SUMMARY)).kind).toBe('deny');
    expect(editGate(R2, OWNER, 'minions:review-fixer', linked(JSON_SUMMARY)).kind).toBe('deny');
    // A project file with other links is still the user's to allow.
    expect(editGate(R2, OWNER, 'minions:review-fixer', linked('src/a.ts')).kind).toBe('pass');
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

describe('bashGate: who may run what', () => {
  const WITNESS = 'minions:witness';
  const FIXER = 'minions:review-fixer';
  // command → [the witness in R1, the fixer in R2, the orchestrator in R1]
  it.each([
    // Read-only commands: allowed for everyone.
    ['git status', 'allow', 'allow', 'allow'],
    ['git diff HEAD -- src', 'allow', 'allow', 'allow'],
    ['git log -p | head -100', 'allow', 'allow', 'allow'],
    ['git show HEAD:src/a.ts', 'allow', 'allow', 'allow'],
    ['npm test 2>&1 | tail -20', 'allow', 'allow', 'allow'],
    ['npx vitest run test/a.test.ts', 'allow', 'allow', 'allow'],
    ['pytest -q > /dev/null 2>&1', 'allow', 'allow', 'allow'],
    ['go test ./... 2>/dev/null', 'allow', 'allow', 'allow'],
    ['npx eslint src', 'allow', 'allow', 'allow'],
    ['cat src/a.ts; grep -rn foo src; ls -la', 'allow', 'allow', 'allow'],
    ['find src -name "*.ts" -newer package.json', 'allow', 'allow', 'allow'],
    ['git diff > /tmp/review.diff', 'allow', 'allow', 'allow'],
    ["python -c \"open('src/a.ts','w')\"", 'allow', 'allow', 'allow'], // an interpreter: seen afterwards by the snapshot
    // Writes to the project.
    ['echo x > src/a.ts', 'write', 'allow', 'write'],
    ["sed 's/a/b/' -i src/a.ts", 'write', 'allow', 'write'],
    ['rm -rf src', 'write', 'allow', 'write'],
    ['npm install left-pad', 'write', 'allow', 'write'],
    ['patch -p1 < /tmp/fix.diff', 'write', 'allow', 'write'],
    ['cp src/a.ts /tmp/a.ts', 'allow', 'allow', 'allow'],
    ['cp /tmp/a.ts src/a.ts', 'write', 'allow', 'write'],
    ['rm -rf /work', 'hooks', 'hooks', 'hooks'], // the project's parent holds the hooks' files
    // The hooks' own files: nobody.
    ['echo 0 > .agents/tmp/state.json', 'hooks', 'hooks', 'hooks'],
    ['echo 0 1>.agents/tmp/state.json', 'hooks', 'hooks', 'hooks'],
    ["sed -i 's/R2/DONE/' .agents/tmp/state.json", 'hooks', 'hooks', 'hooks'],
    ['rm .agents/tmp/phases/review-1/r1-verdict.json', 'hooks', 'hooks', 'hooks'],
    ['rm -rf .agents/tmp/phases', 'hooks', 'hooks', 'hooks'],
    ['rm -rf .agents', 'hooks', 'hooks', 'hooks'],
    ['rm -rf .agents/tmp/phases/review-1/r2-findings.json', 'hooks', 'hooks', 'hooks'],
    ['mv .agents/tmp/archive /tmp/x', 'hooks', 'hooks', 'hooks'],
    ['cd .agents/tmp && echo 0 > state.json', 'hooks', 'hooks', 'hooks'],
    ['rm .agents/tmp/*.json', 'hooks', 'hooks', 'hooks'],
    ['find . -delete', 'hooks', 'hooks', 'hooks'],
    ['echo x > .git/HEAD', 'protected', 'protected', 'protected'],
    ['echo x > /var/minions-data/record.json', 'protected', 'protected', 'protected'],
    // Git's own configuration: an alias or diff.external there would run under `git diff`.
    ["printf '[diff]\\n\\texternal = rm -rf src\\n' >> ~/.gitconfig", 'protected', 'protected', 'protected'],
    ['cp /tmp/evil ~/.config/git/config', 'protected', 'protected', 'protected'],
    // The plugin's own code: replacing a hook replaces the gate.
    ['echo "process.exit(0)" > ~/.claude/plugins/minions/dist/on-bash-gate.cjs', 'protected', 'protected', 'protected'],
    ['echo x > ~/notes.txt', 'allow', 'allow', 'allow'],
    // .agents/ beyond the hooks' files: the fixer's summaries go through Write.
    ['echo done > .agents/tmp/phases/review-1/r2-fix-summary.md', 'write', 'agents', 'write'],
    ['rm .agents/tmp/phases/review-1/r1-critic.json', 'write', 'agents', 'write'],
    ['echo x > .agents/notes.md', 'write', 'agents', 'write'],
    // What the gate cannot read.
    ['$CMD src', 'opaque', 'opaque', 'opaque'],
    ['echo rm -rf src | sh', 'opaque', 'opaque', 'opaque'],
    ['exec 3<>src/a.ts', 'unparseable', 'unparseable', 'unparseable'],
    ['rm "$F"', 'dynamic', 'dynamic', 'dynamic'],
    ['ls | xargs rm', 'dynamic', 'dynamic', 'dynamic'],
    // Git.
    ['git stash', 'git', 'git', 'git'],
    ['git -c alias.s=stash s', 'git', 'git', 'git'],
    ['git checkout-index -a -f', 'git', 'git', 'git'],
    ['git apply fix.diff', 'write', 'allow', 'write'],
  ] as [string, Outcome, Outcome, Outcome][])('%j → witness %s, fixer %s, orchestrator %s', (command, witness, fixer, orchestrator) => {
    expect(outcomeOf(decide(R1, WITNESS, command)), 'witness').toBe(witness);
    expect(outcomeOf(decide(R2, FIXER, command)), 'fixer').toBe(fixer);
    expect(outcomeOf(decide(R1, null, command)), 'orchestrator').toBe(orchestrator);
  });

  it('a reviewer may write its own output by redirect, in R1 only', () => {
    const own = '.agents/tmp/phases/review-1/r1-witness.json';
    expect(decide(R1, WITNESS, `cat > ${own} <<'EOF'\n{"issues":[]}\nEOF`)).toEqual({ allow: true });
    expect(decide(R1, WITNESS, `cat > ${ROOT}/${own}`)).toEqual({ allow: true });
    expect(decide(R1, WITNESS, `echo '{}' | tee ${own}`)).toEqual({ allow: true });
    expect(outcomeOf(decide(R1, WITNESS, `cat > .agents/tmp/phases/review-1/r1-critic.json`))).toBe('write');
    expect(outcomeOf(decide(R1, WITNESS, `rm -rf .agents/tmp/phases/review-1`))).toBe('hooks');
    expect(outcomeOf(decide(R2, WITNESS, `cat > ${own}`))).toBe('write');
  });

  it('the fixer in R1 writes nothing', () => {
    expect(outcomeOf(decide(R1, FIXER, 'echo x > src/a.ts'))).toBe('write');
    expect(decide(R1, FIXER, 'git diff')).toEqual({ allow: true });
  });

  it.each(['general-purpose', 'Explore', 'other-plugin:helper', 'minions:planner'])('%s, an agent of the owning session, is held to the orchestrator\'s rules', (type) => {
    for (const [command, outcome] of [['git reset --hard', 'git'], ['echo x > src/a.ts', 'write'], ['git status', 'allow']] as const) {
      const d = decide(R1, type, command);
      expect(outcomeOf(d), command).toBe(outcome);
      if (!d.allow && outcome === 'write') expect(d.reason).toMatch(/project files are changed only by minions:review-fixer in R2/);
    }
    const git = decide(R2, type, 'git reset --hard');
    expect(!git.allow && git.reason).toContain(`${type} (an agent of the session running the loop, held to the orchestrator's rules) may not run "git reset"`);
  });

  it('every refusal says what to do next', () => {
    for (const [who, state, command] of [
      [WITNESS, R1, 'echo x > src/a.ts'], [FIXER, R2, 'echo x > .agents/x'], [null, R1, 'echo x > a'], [FIXER, R2, 'rm "$F"'],
      [FIXER, R2, '$X'], [FIXER, R2, 'exec 3<>f'], [null, R1, 'git stash'], [null, R1, 'git st'], [null, R1, 'git -c alias.s=stash s'],
      [WITNESS, R1, 'echo > .agents/tmp/state.json'], [FIXER, R2, 'echo > .git/config'], [FIXER, R2, 'echo > ~/.gitconfig'],
    ] as [string | null, State, string][]) {
      const d = decide(state, who, command);
      expect(d.allow, command).toBe(false);
      expect(!d.allow && d.reason, command).toMatch(/^minions.*(Run |Name |Split |Spell |Write |Change |Dispatch |Use |Report |Read-only git .* is fine|End your turn)/s);
    }
  });

  it.each([
    ['another session', R1, OTHER],
    ['no loop', null, OWNER],
    ['a finished loop', stateBuilder({ status: 'done', currentPhase: 'DONE' }).build(), OWNER],
  ])('leaves %s alone', (_, state, session) => {
    for (const command of ['git commit -am x', 'echo 0 > .agents/tmp/state.json', '$X', 'exec 3<>f']) {
      expect(bashGate(state, session, 'minions:witness', asGateEffects(analyse(command)), PLACES)).toEqual({ allow: true });
    }
  });

  it('a symlink resolved by the shell is judged where it points', () => {
    const effects: BashEffect[] = [{ kind: 'write', command: '>', target: { kind: 'path', abs: `${ROOT}/.agents/tmp/state.json` }, recursive: false }];
    expect(outcomeOf(bashGate(R2, OWNER, FIXER, effects, PLACES))).toBe('hooks');
  });
});
