/**
 * The edit gate and the dispatch gate attacked as a hostile model would: paths spelled to slip past
 * the resolution (relative to another cwd, `..`, `//`, `/./`, trailing slashes, links from /tmp and
 * inside the project, /proc/self, look-alike names, NUL and newline, very long paths, a path under the
 * other tool's key, a hard link to state.json), agent types spelled to slip past the table, dispatches
 * from inside a subagent, and another session's calls, which must pass through untouched.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Loop, denyReason, projectTestdir } from '../helpers/loop';
import { OTHER_SESSION, agentDispatch, editTool, multiEditTool, notebookEditTool, writeTool, type InAgent, type Payload } from '../helpers/payloads';
import { FIXER, REVIEWERS, agentType, cleanReview, reviewWithIssues } from '../helpers/reviews';
import { cloneTestdir, removeTestdirs, tempDir, type TestDir } from '../helpers/testdir';
import { hookEntry, matcherMatches } from '../helpers/run';

afterAll(removeTestdirs);

const CRITIC = agentType('critic');
const OWN = '.agents/tmp/phases/review-1/r1-critic.json';
const STATE = '.agents/tmp/state.json';
const REASON = {
  hookOwned: /^minions: \.agents\/tmp\/state\.json, the verdicts, .* belong to the hooks; they cannot be edited\./,
  record: /is part of the hooks' record of the review loop/,
  protected: /may not write \/\S+: the git directory and git's configuration/,
  reviewer: /^minions R1: reviewers are read-only; minions:critic may write only its own output/,
  fixer: /^minions R2: the fixer may edit project files outside \.agents\/ and \.git\//,
  orchestrator: /^minions R[12] \(Iteration 1\/3\): while the review loop runs, project files are changed only by minions:review-fixer in R2\./,
};

let r1: TestDir; // every reviewer pending
let r1Running: TestDir; // every reviewer dispatched
let r2: TestDir;
let outside: string;

beforeAll(async () => {
  outside = tempDir('minions-adversary-');
  const loop = new Loop(projectTestdir());
  await loop.start('--max-iterations 3 adversary');
  r1 = cloneTestdir(loop.dir);
  await loop.dispatchReviewers();
  r1Running = cloneTestdir(loop.dir);
  for (const r of REVIEWERS) loop.writeReview(1, r, r === 'critic' ? reviewWithIssues(r) : cleanReview(r));
  await loop.reviewersStop();
  await loop.dispatch(FIXER);
  expect(loop.state()).toMatchObject({ currentPhase: 'R2', iteration: 1 });
  r2 = loop.dir;
});

type Tool = 'Write' | 'Edit' | 'MultiEdit' | 'NotebookEdit';
const TOOLS = { Write: writeTool, Edit: editTool, MultiEdit: multiEditTool, NotebookEdit: notebookEditTool };

/** The edit gate for `who` writing `file` as given (absolute or relative to `cwd`), in a clone of `dir`. */
async function gate(dir: TestDir, file: string, who: string | null, options: { cwd?: string; tool?: Tool; session?: string } = {}) {
  const loop = new Loop(dir, options.session);
  const common: InAgent = { cwd: options.cwd ?? dir.root, session_id: loop.session, ...(who ? { agentType: who } : {}) };
  const before = loop.stateBytes();
  const r = await loop.hook('on-edit-gate', TOOLS[options.tool ?? 'Write'](file, common), { projectDir: dir.root });
  expect(r).toMatchObject({ code: 0, stderr: '' });
  expect(loop.stateBytes()).toBe(before);
  return r;
}
const decision = (r: Awaited<ReturnType<typeof gate>>): string | undefined => r.stdout?.hookSpecificOutput?.permissionDecision;

describe.concurrent('the edit gate, paths spelled to slip past it', () => {
  it('a relative path against a cwd outside the project, back into it', async () => {
    const file = path.relative(outside, r1.abs('src/a.ts'));
    expect(file.startsWith('..')).toBe(true);
    expect(denyReason(await gate(r1, file, null, { cwd: outside }))).toMatch(REASON.orchestrator);
    expect(denyReason(await gate(r2, path.relative(outside, r2.abs(STATE)), FIXER, { cwd: outside }))).toMatch(REASON.hookOwned);
  });

  it('a relative path against a cwd deep in the project, `..` up to the state file', async () => {
    fs.mkdirSync(r2.abs('src/deep/er'), { recursive: true });
    expect(denyReason(await gate(r2, `../../../${STATE}`, FIXER, { cwd: r2.abs('src/deep/er') }))).toMatch(REASON.hookOwned);
    expect(denyReason(await gate(r2, '../../../.git/config', FIXER, { cwd: r2.abs('src/deep/er') }))).toMatch(REASON.protected);
  });

  it('`..` out of the project and back in', async () => {
    const back = `${r1.root}/src/../../${path.basename(r1.root)}/src/a.ts`;
    expect(denyReason(await gate(r1, back, null))).toMatch(REASON.orchestrator);
    expect(denyReason(await gate(r2, `${r2.root}/../${path.basename(r2.root)}/${STATE}`, FIXER))).toMatch(REASON.hookOwned);
  });

  it.each([
    ['double slashes', (root: string) => `${root}//.agents//tmp//state.json`],
    ['a trailing slash', (root: string) => `${root}/.agents/tmp/state.json/`],
    ['`/./`', (root: string) => `${root}/./.agents/./tmp/./state.json`],
    ['all of them', (root: string) => `/${root}//./.agents/tmp/.//state.json//`],
  ])('%s on the state file', async (_label, spell) => {
    expect(denyReason(await gate(r2, spell(r2.root), FIXER))).toMatch(REASON.hookOwned);
    expect(denyReason(await gate(r2, spell(r2.root), null))).toMatch(REASON.hookOwned);
  });

  it('double slashes and `/./` into .git for the fixer', async () => {
    expect(denyReason(await gate(r2, `${r2.root}//.git//config`, FIXER))).toMatch(REASON.protected);
    expect(denyReason(await gate(r2, `${r2.root}/./.git/./hooks/pre-commit`, FIXER))).toMatch(REASON.protected);
  });

  it("links in /tmp to the project's src/, .agents/tmp and .git", async () => {
    const links = tempDir('minions-links-');
    fs.symlinkSync(r1.abs('src'), path.join(links, 'src1'));
    fs.symlinkSync(r2.abs('.agents/tmp'), path.join(links, 'tmp2'));
    fs.symlinkSync(r2.abs('.git'), path.join(links, 'git2'));
    expect(denyReason(await gate(r1, path.join(links, 'src1/a.ts'), null))).toMatch(REASON.orchestrator);
    expect(denyReason(await gate(r1, path.join(links, 'src1/new/dir/x.ts'), CRITIC))).toMatch(REASON.reviewer);
    expect(denyReason(await gate(r2, path.join(links, 'tmp2/state.json'), FIXER))).toMatch(REASON.hookOwned);
    expect(denyReason(await gate(r2, path.join(links, 'tmp2/phases/review-1/r1-critic.json'), FIXER))).toMatch(REASON.fixer);
    expect(denyReason(await gate(r2, path.join(links, 'git2/config'), FIXER))).toMatch(REASON.protected);
    expect(denyReason(await gate(r2, path.join(links, 'git2/minions/record/x'), FIXER))).toMatch(REASON.record);
  });

  it('links inside the project to the git dir and the record', async () => {
    const dir = cloneTestdir(r2);
    fs.symlinkSync('.git', dir.abs('docs-git'));
    fs.symlinkSync('.git/minions', dir.abs('docs-record'));
    fs.symlinkSync('../.agents/tmp/state.json', dir.abs('src/state-link.json'));
    expect(denyReason(await gate(dir, dir.abs('docs-git/hooks/pre-commit'), FIXER))).toMatch(REASON.protected);
    expect(denyReason(await gate(dir, dir.abs('docs-record/record/x/record.json'), FIXER))).toMatch(REASON.record);
    // Another session too: the record is nobody's to edit.
    expect(denyReason(await gate(dir, dir.abs('docs-record/record/x/record.json'), null, { session: OTHER_SESSION }))).toMatch(REASON.record);
    expect(denyReason(await gate(dir, dir.abs('src/state-link.json'), FIXER, { tool: 'Edit' }))).toMatch(REASON.hookOwned);
  });

  it('/proc/self/cwd is the host process\'s directory, which the gate cannot see: refused while a loop runs; /proc/self/root is /', async () => {
    const undecided = /^minions: .+ — the gate cannot tell where `\/proc\/self\/cwd\/[^`]+` leads \(the directory the command runs in is not known\), so the write is refused\./;
    expect(denyReason(await gate(r1, '/proc/self/cwd/src/a.ts', null))).toMatch(REASON.orchestrator);
    expect(denyReason(await gate(r2, '/proc/self/cwd/src/a.ts', FIXER))).toMatch(undecided);
    expect(denyReason(await gate(r2, `/proc/self/cwd/${STATE}`, FIXER))).toMatch(REASON.hookOwned);
    expect(denyReason(await gate(r1, `/proc/self/root${r1.root}/src/a.ts`, null))).toMatch(REASON.orchestrator);
    expect(denyReason(await gate(r2, `/proc/self/root${r2.root}/.git/config`, FIXER))).toMatch(REASON.protected);
  });

  it('case: .GIT is the git dir wherever the file system folds case; .Agents is another directory on this one', async () => {
    expect(denyReason(await gate(r2, r2.abs('.GIT/config'), FIXER))).toMatch(REASON.protected);
    // A case-sensitive file system: a new directory, not the hooks' (the project's real one is untouched).
    expect((await gate(r2, r2.abs('.Agents/tmp/state.json'), FIXER)).raw).toBe('');
    expect(denyReason(await gate(r1, r1.abs('.Agents/tmp/state.json'), null))).toMatch(REASON.orchestrator);
  });

  it('look-alike and invisible characters in `.agents` name other directories, still inside the project', async () => {
    for (const name of ['.\u0430gents', '.agents\u200b', '.agents\u0301', '\uff0eagents']) {
      expect(denyReason(await gate(r1, r1.abs(`${name}/tmp/state.json`), null))).toMatch(REASON.orchestrator);
      expect(denyReason(await gate(r1, r1.abs(`${name}/tmp/state.json`), CRITIC))).toMatch(REASON.reviewer);
    }
  });

  it('a NUL byte or a newline after the state file', async () => {
    for (const tail of ['\0', '\n', '\0.md']) {
      expect(decision(await gate(r2, r2.abs(`${STATE}${tail}`), FIXER))).toBe('deny');
      expect(denyReason(await gate(r1, r1.abs(`${STATE}${tail}`), null))).toBeDefined();
    }
    expect(decision(await gate(r1, r1.abs(`src/a.ts\0/x`), null))).toBe('deny');
  });

  it('an extremely long path in the project is still refused', async () => {
    const deep = r1.abs(`${'d/'.repeat(20_000)}x.ts`);
    expect(denyReason(await gate(r1, deep, null))).toMatch(REASON.orchestrator);
    expect(denyReason(await gate(r1, r1.abs(`${'x'.repeat(300)}/${'y'.repeat(5000)}.ts`), CRITIC))).toMatch(REASON.reviewer);
  });

  it('MultiEdit and NotebookEdit on the state file', async () => {
    expect(denyReason(await gate(r2, r2.abs(STATE), FIXER, { tool: 'MultiEdit' }))).toMatch(REASON.hookOwned);
    expect(denyReason(await gate(r2, r2.abs(STATE), FIXER, { tool: 'NotebookEdit' }))).toMatch(REASON.hookOwned);
    expect(denyReason(await gate(r1, r1.abs('src/a.ipynb'), CRITIC, { tool: 'NotebookEdit' }))).toMatch(REASON.reviewer);
  });

  it('a path under the other tool key: a bogus file_path next to the real notebook_path', async () => {
    const loop = new Loop(r1);
    for (const bogus of [42, null, ['x'], { p: 1 }, false]) {
      const p = notebookEditTool(r1.abs('src/a.ipynb'), { cwd: r1.root }) as Payload & { tool_input: Record<string, unknown> };
      const r = await loop.hook('on-edit-gate', { ...p, tool_input: { ...p.tool_input, file_path: bogus } });
      expect(denyReason(r), JSON.stringify(bogus)).toMatch(REASON.orchestrator);
    }
    // Both keys, each a string: the stricter answer holds.
    const p = writeTool(r1.abs(OWN), { cwd: r1.root, agentType: CRITIC }) as Payload & { tool_input: Record<string, unknown> };
    expect(denyReason(await loop.hook('on-edit-gate', { ...p, tool_input: { ...p.tool_input, notebook_path: r1.abs('src/a.ts') } }))).toMatch(REASON.reviewer);
    // A Write whose only path is a notebook_path: still checked.
    expect(denyReason(await loop.hook('on-edit-gate', { ...p, tool_input: { notebook_path: r1.abs(STATE), content: 'x' } }))).toMatch(REASON.hookOwned);
  });

  it('a hard link in the project to state.json or .git/config, made before the loop ran, is that file, for Edit and Bash', async () => {
    const dir = cloneTestdir(r2);
    fs.linkSync(dir.abs(STATE), dir.abs('src/notes.json'));
    for (const tool of ['Write', 'Edit', 'MultiEdit'] as const) {
      expect(denyReason(await gate(dir, dir.abs('src/notes.json'), FIXER, { tool }))).toMatch(REASON.hookOwned);
      expect(denyReason(await gate(dir, dir.abs('src/notes.json'), null, { tool, session: OTHER_SESSION }))).toMatch(REASON.hookOwned);
    }
    fs.linkSync(dir.abs('.git/config'), dir.abs('src/settings.ini'));
    expect(denyReason(await gate(dir, dir.abs('src/settings.ini'), FIXER, { tool: 'Edit' }))).toMatch(REASON.protected);
    // The Bash gate sees the same: the fixer may write project files by the shell, not these.
    const loop = new Loop(dir);
    for (const command of ['echo x > src/notes.json', "sed -i 's/a/b/' src/notes.json", 'truncate -s 0 src/notes.json']) {
      expect(denyReason(await loop.gateBash(command, FIXER)), command).toMatch(/^minions: \.agents\/tmp\/state\.json, the verdicts, .* belong to the hooks/);
    }
    expect(denyReason(await loop.gateBash('echo x >> src/settings.ini', FIXER))).toMatch(REASON.protected);
    expect((await loop.gateBash('echo x > src/a.ts', FIXER)).raw).toBe('');
  });

  it("a reviewer's own output that is a hard link to a project file is not its own to write", async () => {
    const dir = cloneTestdir(r1Running);
    fs.linkSync(dir.abs('src/a.ts'), dir.abs(OWN));
    expect(denyReason(await gate(dir, dir.abs(OWN), CRITIC))).toMatch(REASON.reviewer);
    // A file of its own (one link) stays its own.
    const plain = cloneTestdir(r1Running);
    fs.writeFileSync(plain.abs(OWN), '{}\n');
    expect(decision(await gate(plain, plain.abs(OWN), CRITIC))).toBe('allow');
  });
});

describe.concurrent('the dispatch gate, agent types spelled to slip past it', () => {
  const fresh = (dir: TestDir = r1) => new Loop(cloneTestdir(dir));

  it.each(['minions:critic ', ' minions:critic', 'MINIONS:critic', 'Minions:critic', 'minions:critic\u200b', 'minions::critic', 'minions:Critic', 'critic', 'minions:critic\n', 'minions:\u0441ritic', 'minions/critic'])(
    'denies %j and records nothing',
    async (type) => {
      const loop = fresh();
      const before = loop.stateBytes();
      const r = await loop.dispatch(type);
      expect(r).toMatchObject({ code: 0, stderr: '' });
      expect(denyReason(r)).toMatch(/^minions R1 \(Iteration 1\/3\): /);
      expect(loop.stateBytes()).toBe(before);
    },
  );

  it('denies the fixer in R1 and any reviewer in R2', async () => {
    expect(denyReason(await fresh().dispatch(FIXER))).toMatch(/the fixer runs in R2/);
    expect(denyReason(await fresh(r2).dispatch(CRITIC))).toMatch(/reviews are done for this iteration/);
  });

  it('a reviewer dispatched twice at once: one runs, one is refused', async () => {
    const loop = fresh();
    const results = await Promise.all([loop.dispatch(CRITIC), loop.dispatch(CRITIC, { toolName: 'Task' }), loop.dispatch(CRITIC, { runInBackground: true })]);
    expect(results.filter((r) => r.raw === '')).toHaveLength(1);
    expect(results.filter((r) => /already running/.test(denyReason(r) ?? ''))).toHaveLength(2);
    expect(loop.state().iterations[0].r1.reviewers.critic).toMatchObject({ status: 'running', dispatches: 1 });
  });

  it('a background dispatch counts as one', async () => {
    const loop = fresh();
    expect((await loop.dispatch(CRITIC, { runInBackground: true })).raw).toBe('');
    expect(denyReason(await loop.dispatch(CRITIC, { runInBackground: true, toolName: 'Task' }))).toMatch(/already running/);
  });

  it.each([
    ['no subagent_type', {}],
    ['a subagent_type of spaces', { subagent_type: '   ' }],
    ['a subagent_type that is not a string', { subagent_type: ['minions:critic'] }],
    ['a subagent_type that is an object', { subagent_type: { toString: 'minions:critic' } }],
  ])('denies a dispatch with %s', async (_label, input) => {
    const loop = fresh();
    const before = loop.stateBytes();
    const r = await loop.hook('on-task-gate', { ...agentDispatch('x', loop.common()), tool_input: { description: 'd', prompt: 'p', ...input } });
    expect(denyReason(r)).toMatch(/an Agent call without a subagent_type/);
    expect(loop.stateBytes()).toBe(before);
  });

  it('the matcher catches Agent and Task, and no other tool name', () => {
    const { matcher } = hookEntry('on-task-gate');
    expect(['Agent', 'Task'].map((t) => matcherMatches(matcher, t))).toEqual([true, true]);
    expect(['agent', 'Agents', 'TaskCreate', 'mcp__x__Agent'].some((t) => matcherMatches(matcher, t))).toBe(false);
  });

  it('a dispatch from inside a subagent of the owning session is refused, whatever it starts', async () => {
    const loop = fresh();
    const before = loop.stateBytes();
    for (const [type, by] of [
      ['minions:pedant', CRITIC],
      [CRITIC, CRITIC],
      ['general-purpose', CRITIC],
      ['minions:pedant', 'general-purpose'],
    ] as const) {
      const r = await loop.hook('on-task-gate', { ...agentDispatch(type, loop.common()), agent_id: 'a0000000000000042', agent_type: by });
      expect(denyReason(r), `${by} → ${type}`).toBe(
        `minions R1 (Iteration 1/3): ${by} may not dispatch agents; while the review loop runs, only the orchestrator does. Do your own task and end.`,
      );
    }
    expect(loop.stateBytes()).toBe(before);
    // R2: the fixer cannot start a second fixer, nor anything else.
    const inR2 = fresh(r2);
    expect(denyReason(await inR2.hook('on-task-gate', { ...agentDispatch(FIXER, inR2.common()), agent_id: 'a0000000000000043', agent_type: FIXER }))).toMatch(/^minions R2 \(Iteration 1\/3\): minions:review-fixer may not dispatch agents/);
  });
});

describe.concurrent('another session passes through untouched', () => {
  it('its edits, from a cwd inside the project too', async () => {
    for (const dir of [r1, r2]) {
      const run = (file: string, cwd = dir.root, who: string | null = null) => gate(dir, file, who, { cwd, session: OTHER_SESSION });
      expect((await run(dir.abs('src/a.ts'))).raw).toBe('');
      expect((await run('a.ts', dir.abs('src'))).raw).toBe('');
      expect((await run(`../${OWN}`, dir.abs('src'), CRITIC)).raw).toBe('');
      expect((await run(dir.abs('.git/hooks/pre-commit'))).raw).toBe('');
      expect((await run(dir.abs('.agents/notes.md'), dir.abs('src'), FIXER)).raw).toBe('');
      // The hooks' own files stay the hooks', whoever asks.
      expect(denyReason(await run(`../${STATE}`, dir.abs('src')))).toMatch(REASON.hookOwned);
    }
  });

  it('its dispatches, typed or not, from a cwd inside the project, foreground or background', async () => {
    for (const dir of [r1, r2]) {
      const other = new Loop(cloneTestdir(dir), OTHER_SESSION);
      const before = other.stateBytes();
      const cwd = other.dir.abs('src');
      for (const type of ['general-purpose', 'Explore', CRITIC, FIXER, 'other-plugin:x']) {
        const r = await other.hook('on-task-gate', agentDispatch(type, { cwd, session_id: OTHER_SESSION, runInBackground: true }), { projectDir: other.root });
        expect(r, type).toMatchObject({ code: 0, raw: '', stderr: '' });
      }
      const untyped = await other.hook('on-task-gate', { ...agentDispatch('x', { cwd, session_id: OTHER_SESSION }), tool_input: { prompt: 'p' } }, { projectDir: other.root });
      expect(untyped).toMatchObject({ code: 0, raw: '', stderr: '' });
      expect(other.stateBytes()).toBe(before);
    }
  });
});
