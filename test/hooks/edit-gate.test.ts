/**
 * The edit gate (PreToolUse Edit|Write|MultiEdit|NotebookEdit), run as the host runs it, against the
 * gate table:
 *   - reviewer: only its own r1 file, only in R1 (answered allow: no permission prompt);
 *   - fixer: project files outside .agents/ (no answer: the user's permission mode decides) plus its
 *     r2-fix-summary.md and .json (allow), only in R2;
 *   - orchestrator (and any other agent): nothing inside the project during R1/R2;
 *   - hook-owned files (state, lock, archive, run.json, verdicts): nobody;
 *   - outside the project: no answer.
 * Paths are resolved as the file system will: `..`, symlinks (also dangling and in parents), relative
 * paths against the payload's cwd, new files in directories that do not exist yet.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Loop, denyReason, projectTestdir } from '../helpers/loop';
import { editTool, multiEditTool, notebookEditTool, writeTool, type InAgent, type Payload } from '../helpers/payloads';
import { FIXER, REVIEWERS, agentType, cleanReview, reviewWithIssues } from '../helpers/reviews';
import { cloneTestdir, openTestdir, removeTestdirs, tempDir, testdir, type TestDir } from '../helpers/testdir';
import { REPO_ROOT, pluginDataDir } from '../helpers/run';

afterAll(removeTestdirs);

type Tool = 'Write' | 'Edit' | 'MultiEdit' | 'NotebookEdit';
/** own = answered allow (the plugin's own file); pass = no answer; the rest = denied with that reason. */
type Expect = 'own' | 'pass' | 'hook-owned' | 'record' | 'protected' | 'reviewer' | 'fixer' | 'orchestrator' | 'undecided';
type Fixture = 'R1' | 'R2' | 'R1-symlinked-phase-dir';

interface Case {
  /**
   * `@/x` = <project>/x, `@out/x` = <a directory outside the project>/x, `@into/x` = the same through a
   * symlink outside the project that points to the project; anything else is given as is (relative).
   */
  file: string;
  who: string | null;
  expect: Expect;
  tool?: Tool;
  /** The payload's cwd, relative to the project (the host's cwd follows `cd`). */
  cwd?: string;
}

const CRITIC = agentType('critic');
const OWN = (r: string, n = 1) => `.agents/tmp/phases/review-${n}/r1-${r}.json`;
const SUMMARY = '.agents/tmp/phases/review-1/r2-fix-summary.md';
const ANSWERS = '.agents/tmp/phases/review-1/r2-fix-summary.json';

const REASONS: Record<Exclude<Expect, 'own' | 'pass'>, RegExp> = {
  'hook-owned': /^minions: \.agents\/tmp\/state\.json, the verdicts, the findings brief, the patches, the escalation file and the lock belong to the hooks; they cannot be edited\./,
  reviewer: /^minions R[12]: (reviewers are read-only; minions:[a-z-]+ may write only its own output, \/\S+\/\.agents\/tmp\/phases\/review-1\/r1-[a-z-]+\.json\.|reviews are over for this iteration; minions:[a-z-]+ may not write files\.)/,
  fixer: /^minions R[12]: (the fixer runs only in R2\.|the fixer may edit project files outside \.agents\/ and \.git\/, and its summar(y|ies) \/\S+\/\.agents\/tmp\/phases\/review-1\/r2-fix-summary\.md)/,
  orchestrator: /^minions R[12] \(Iteration 1\/3\): while the review loop runs, project files are changed only by minions:review-fixer in R2\./,
  record: /^minions: \/\S+ is part of the hooks' record of the review loop \(in the git directory or the plugin's data folder\); nobody edits it\./,
  undecided: /^minions: .+ — the gate cannot tell where `[^`]+` leads \(.+\), so the write is refused\./,
  protected: /^minions: .+ may not write \/\S+: the git directory and git's configuration, the plugin's own files and its records are not the loop's to change\./,
};

const R1_CASES: [string, Case][] = [
  ['reviewer: its own output (absolute)', { file: `@/${OWN('critic')}`, who: CRITIC, expect: 'own' }],
  ['reviewer: its own output (relative to the project)', { file: OWN('critic'), who: CRITIC, expect: 'own' }],
  ['reviewer: its own output (relative to a cwd in src/)', { file: `../${OWN('critic')}`, who: CRITIC, cwd: 'src', expect: 'own' }],
  ['reviewer: its own output through a harmless `..`', { file: `@/.agents/tmp/phases/review-1/../review-1/r1-critic.json`, who: CRITIC, expect: 'own' }],
  ['reviewer: its own output with Edit', { file: `@/${OWN('critic')}`, who: CRITIC, tool: 'Edit', expect: 'own' }],
  ['reviewer: its own output with MultiEdit', { file: `@/${OWN('critic')}`, who: CRITIC, tool: 'MultiEdit', expect: 'own' }],
  ['reviewer: another reviewer\'s output', { file: `@/${OWN('pedant')}`, who: CRITIC, expect: 'reviewer' }],
  ['reviewer: its output for the next iteration', { file: `@/${OWN('critic', 2)}`, who: CRITIC, expect: 'reviewer' }],
  ['reviewer: a project file', { file: '@/src/a.ts', who: CRITIC, expect: 'reviewer' }],
  ['reviewer: a project file relative to a cwd in src/', { file: 'a.ts', who: CRITIC, cwd: 'src', expect: 'reviewer' }],
  ['reviewer: `.agents/../src/x.ts`', { file: '@/.agents/../src/x.ts', who: CRITIC, expect: 'reviewer' }],
  ['reviewer: its own directory, then `..` out', { file: '@/.agents/tmp/phases/review-1/../../../../src/a.ts', who: CRITIC, expect: 'reviewer' }],
  ['reviewer: a new file in a directory that does not exist yet', { file: '@/src/new/deeper/x.ts', who: CRITIC, expect: 'reviewer' }],
  ['reviewer: through a symlink inside the project pointing to src/', { file: '@/link-src/a.ts', who: CRITIC, expect: 'reviewer' }],
  ['reviewer: a new file under a symlinked parent directory', { file: '@/link-src/new/deeper/x.ts', who: CRITIC, expect: 'reviewer' }],
  ['reviewer: its own output path is a symlink to src/a.ts', { file: `@/${OWN('pedant')}`, who: agentType('pedant'), expect: 'reviewer' }],
  ['reviewer: its own output path is a dangling symlink into src/', { file: `@/${OWN('witness')}`, who: agentType('witness'), expect: 'reviewer' }],
  ['reviewer: its own output path, plain (next to the traps)', { file: `@/${OWN('security-reviewer')}`, who: agentType('security-reviewer'), expect: 'own' }],
  ['reviewer: MultiEdit on a project file', { file: '@/src/a.ts', who: CRITIC, tool: 'MultiEdit', expect: 'reviewer' }],
  ['reviewer: NotebookEdit (notebook_path) on a project notebook', { file: '@/notebooks/analysis.ipynb', who: CRITIC, tool: 'NotebookEdit', expect: 'reviewer' }],
  ['reviewer: state.json', { file: '@/.agents/tmp/state.json', who: CRITIC, expect: 'hook-owned' }],
  ['reviewer: the verdict', { file: '@/.agents/tmp/phases/review-1/r1-verdict.json', who: CRITIC, expect: 'hook-owned' }],
  ['reviewer: outside the project', { file: '@out/notes.json', who: CRITIC, expect: 'pass' }],
  ['orchestrator: a project file', { file: '@/src/a.ts', who: null, expect: 'orchestrator' }],
  ['orchestrator: a relative path', { file: 'README.md', who: null, expect: 'orchestrator' }],
  ['orchestrator: a new file in a directory that does not exist yet', { file: '@/src/new/x.ts', who: null, expect: 'orchestrator' }],
  ['orchestrator: a reviewer\'s output', { file: `@/${OWN('critic')}`, who: null, expect: 'orchestrator' }],
  ['orchestrator: the fix summary', { file: `@/${SUMMARY}`, who: null, expect: 'orchestrator' }],
  ['orchestrator: Edit', { file: '@/src/a.ts', who: null, tool: 'Edit', expect: 'orchestrator' }],
  ['orchestrator: MultiEdit', { file: '@/src/a.ts', who: null, tool: 'MultiEdit', expect: 'orchestrator' }],
  ['orchestrator: NotebookEdit (notebook_path)', { file: '@/notebooks/analysis.ipynb', who: null, tool: 'NotebookEdit', expect: 'orchestrator' }],
  ['orchestrator: through a symlink outside the project pointing into it', { file: '@into/src/a.ts', who: null, expect: 'orchestrator' }],
  ['orchestrator: through a symlink inside the project pointing outside', { file: '@/link-out/x.ts', who: null, expect: 'pass' }],
  ['orchestrator: outside the project', { file: '@out/x.ts', who: null, expect: 'pass' }],
  ['orchestrator: state.json', { file: '@/.agents/tmp/state.json', who: null, expect: 'hook-owned' }],
  ['orchestrator: state.json through a symlinked parent', { file: '@/link-tmp/state.json', who: null, expect: 'hook-owned' }],
  ['orchestrator: the state file\'s atomic-write temp name', { file: '@/.agents/tmp/state.json.1234', who: null, expect: 'hook-owned' }],
  ['orchestrator: the lock', { file: '@/.agents/tmp/state.lock', who: null, expect: 'hook-owned' }],
  ['orchestrator: the archive', { file: '@/.agents/tmp/archive/x/state.json', who: null, expect: 'hook-owned' }],
  ['orchestrator: run.json', { file: '@/.agents/tmp/phases/run.json', who: null, expect: 'hook-owned' }],
  ['orchestrator: the hooks\' record', { file: '@/.git/minions/record/top/record.json', who: null, expect: 'record' }],
  ['orchestrator: a git hook', { file: '@/.git/hooks/pre-commit', who: null, expect: 'protected' }],
  ['orchestrator: the project through a symlink outside it, 45 directories below that do not exist yet', { file: `@into/${Array.from({ length: 45 }, (_, i) => `d${i}`).join('/')}/x.ts`, who: null, expect: 'orchestrator' }],
  ['orchestrator: REVIEW.md', { file: '@/.agents/tmp/phases/review-1/REVIEW.md', who: null, expect: 'hook-owned' }],
  ['orchestrator: REPORT.md', { file: '@/.agents/tmp/phases/REPORT.md', who: null, expect: 'hook-owned' }],
  ['orchestrator: what a restore did', { file: '@/.agents/tmp/restores/x.json', who: null, expect: 'hook-owned' }],
  ['a reviewer: the hooks\' record', { file: '@/.git/minions/record/top/objects/abc', who: CRITIC, expect: 'record' }],
  ['fixer in R1: a project file', { file: '@/src/a.ts', who: FIXER, expect: 'fixer' }],
  ['fixer in R1: its summary', { file: `@/${SUMMARY}`, who: FIXER, expect: 'fixer' }],
  ['another plugin\'s agent: a project file', { file: '@/src/a.ts', who: 'other-plugin:helper', expect: 'orchestrator' }],
  ['a general-purpose agent of this session: a project file', { file: '@/src/a.ts', who: 'general-purpose', expect: 'orchestrator' }],
  ['an Explore agent of this session: state.json', { file: '@/.agents/tmp/state.json', who: 'Explore', expect: 'hook-owned' }],
  ['another plugin\'s agent: outside the project', { file: '@out/x', who: 'other-plugin:helper', expect: 'pass' }],
];

const R2_CASES: [string, Case][] = [
  ['fixer: a project file', { file: '@/src/a.ts', who: FIXER, expect: 'pass' }],
  ['fixer: a project file with Edit', { file: '@/src/a.ts', who: FIXER, tool: 'Edit', expect: 'pass' }],
  ['fixer: a project file with MultiEdit', { file: '@/src/a.ts', who: FIXER, tool: 'MultiEdit', expect: 'pass' }],
  ['fixer: a notebook with NotebookEdit (notebook_path)', { file: '@/notebooks/analysis.ipynb', who: FIXER, tool: 'NotebookEdit', expect: 'pass' }],
  ['fixer: a relative path against a cwd in src/', { file: 'cart.ts', who: FIXER, cwd: 'src', expect: 'pass' }],
  ['fixer: a new file in a directory that does not exist yet', { file: '@/src/new/deeper/x.ts', who: FIXER, expect: 'pass' }],
  ['fixer: through a symlink pointing to src/', { file: '@/link-src/a.ts', who: FIXER, expect: 'pass' }],
  ['fixer: a link into .git, then `..` (the kernel follows the link first: .git/config)', { file: '@/link-hooks/../config', who: FIXER, expect: 'protected' }],
  ['fixer: a link to .agents/tmp/phases, then `..` (the kernel reaches .agents/tmp/state.json)', { file: '@/link-phases/../state.json', who: FIXER, expect: 'hook-owned' }],
  ['fixer: a link inside src/ to .git/hooks, then `..` (.git/config, not src/config)', { file: '@/src/link-hooks/../config', who: FIXER, expect: 'protected' }],
  ['fixer: through /proc/self/cwd (the host process\'s directory, which the gate cannot see)', { file: '/proc/self/cwd/src/a.ts', who: FIXER, expect: 'undecided' }],
  ['fixer: through /dev/fd/3 (a descriptor of the host process)', { file: '/dev/fd/3/config', who: FIXER, expect: 'undecided' }],
  ['fixer: through /proc/thread-self/fd/0', { file: '/proc/thread-self/fd/0/x', who: FIXER, expect: 'undecided' }],
  ['fixer: to /dev/stdout', { file: '/dev/stdout', who: FIXER, expect: 'undecided' }],
  ['fixer: its summary', { file: `@/${SUMMARY}`, who: FIXER, expect: 'own' }],
  ['fixer: its summary, relative to a cwd in src/', { file: `../${SUMMARY}`, who: FIXER, cwd: 'src', expect: 'own' }],
  ['fixer: its per-finding answers (r2-fix-summary.json)', { file: `@/${ANSWERS}`, who: FIXER, expect: 'own' }],
  ['fixer: the summary of the next iteration', { file: '@/.agents/tmp/phases/review-2/r2-fix-summary.md', who: FIXER, expect: 'fixer' }],
  ['fixer: a reviewer\'s output', { file: `@/${OWN('critic')}`, who: FIXER, expect: 'fixer' }],
  ['fixer: another file under .agents/', { file: '@/.agents/notes.md', who: FIXER, expect: 'fixer' }],
  ['fixer: the hooks\' record in the git dir', { file: '@/.git/minions/record/state.json', who: FIXER, expect: 'record' }],
  ['fixer: the repository\'s config', { file: '@/.git/config', who: FIXER, expect: 'protected' }],
  ['fixer: a git hook', { file: '@/.git/hooks/pre-commit', who: FIXER, expect: 'protected' }],
  ['fixer: .git through a symlink, 45 directories below it that do not exist yet', { file: `@/link-git/${Array.from({ length: 45 }, (_, i) => `d${i}`).join('/')}/x`, who: FIXER, expect: 'protected' }],
  ['fixer: state.json\'s folder through a symlink, 45 missing directories below it', { file: `@/link-tmp/${Array.from({ length: 45 }, (_, i) => `d${i}`).join('/')}/x`, who: FIXER, expect: 'fixer' }],
  ['fixer: REVIEW.md', { file: '@/.agents/tmp/phases/review-1/REVIEW.md', who: FIXER, expect: 'hook-owned' }],
  ['fixer: `src/../.agents/tmp/state.json`', { file: '@/src/../.agents/tmp/state.json', who: FIXER, expect: 'hook-owned' }],
  ['fixer: state.json', { file: '@/.agents/tmp/state.json', who: FIXER, expect: 'hook-owned' }],
  ['fixer: the verdict', { file: '@/.agents/tmp/phases/review-1/r1-verdict.json', who: FIXER, expect: 'hook-owned' }],
  ['fixer: run.json', { file: '@/.agents/tmp/phases/run.json', who: FIXER, expect: 'hook-owned' }],
  ['fixer: the findings brief the hooks wrote (r2-findings.json)', { file: '@/.agents/tmp/phases/review-1/r2-findings.json', who: FIXER, expect: 'hook-owned' }],
  ['fixer: state.json through a symlinked parent', { file: '@/link-tmp/state.json', who: FIXER, expect: 'hook-owned' }],
  ['fixer: a reviewer\'s output through a symlinked parent', { file: '@/link-tmp/phases/review-1/r1-critic.json', who: FIXER, expect: 'fixer' }],
  ['fixer: outside the project', { file: '@out/x.ts', who: FIXER, expect: 'pass' }],
  ['reviewer in R2: its own output', { file: `@/${OWN('critic')}`, who: CRITIC, expect: 'reviewer' }],
  ['reviewer in R2: a project file', { file: '@/src/a.ts', who: CRITIC, expect: 'reviewer' }],
  ['orchestrator in R2: a project file', { file: '@/src/a.ts', who: null, expect: 'orchestrator' }],
  ['orchestrator in R2: the fix summary', { file: `@/${SUMMARY}`, who: null, expect: 'orchestrator' }],
  ['orchestrator in R2: the fixer\'s answers', { file: `@/${ANSWERS}`, who: null, expect: 'orchestrator' }],
  ['reviewer in R2: the fixer\'s answers', { file: `@/${ANSWERS}`, who: CRITIC, expect: 'reviewer' }],
  ['orchestrator in R2: outside the project', { file: '@out/x.ts', who: null, expect: 'pass' }],
];

describe.concurrent('the edit gate', () => {
  const dirs = {} as Record<Fixture, TestDir>;
  let outside: string;

  beforeAll(async () => {
    outside = tempDir('minions-outside-');
    const loop = new Loop(projectTestdir());
    loop.dir.write('notebooks/analysis.ipynb', '{}\n');
    loop.dir.write('src/reviews/.keep', '');
    const root = loop.root;
    fs.symlinkSync('src', path.join(root, 'link-src'));
    fs.symlinkSync('.git', path.join(root, 'link-git'));
    fs.symlinkSync(outside, path.join(root, 'link-out'));
    await loop.start('--max-iterations 3 gate');
    fs.symlinkSync('.agents/tmp', path.join(root, 'link-tmp'));
    fs.symlinkSync('.agents/tmp/phases', path.join(root, 'link-phases'));
    fs.symlinkSync('.git/hooks', path.join(root, 'link-hooks'));
    fs.symlinkSync('../.git/hooks', path.join(root, 'src', 'link-hooks'));
    await loop.dispatchReviewers();
    // Traps: the pedant's output path points at src/a.ts, the witness's dangles into src/.
    fs.symlinkSync('../../../../src/a.ts', loop.dir.abs(OWN('pedant')));
    fs.symlinkSync('../../../../src/evil.ts', loop.dir.abs(OWN('witness')));
    dirs.R1 = cloneTestdir(loop.dir);

    // The phase directory itself replaced by a symlink into src/.
    const trapped = cloneTestdir(loop.dir);
    fs.rmSync(trapped.abs('.agents/tmp/phases/review-1'), { recursive: true });
    fs.symlinkSync('../../../src/reviews', trapped.abs('.agents/tmp/phases/review-1'));
    dirs['R1-symlinked-phase-dir'] = trapped;

    fs.rmSync(loop.dir.abs(OWN('pedant')));
    fs.rmSync(loop.dir.abs(OWN('witness')));
    for (const r of REVIEWERS) loop.writeReview(1, r, r === 'critic' ? reviewWithIssues(r) : cleanReview(r));
    await loop.reviewersStop();
    await loop.dispatch(FIXER);
    expect(loop.state()).toMatchObject({ currentPhase: 'R2', iteration: 1 });
    dirs.R2 = loop.dir;
    // Symlinks from outside into each project (link-out is absolute and points to the shared outside).
    for (const dir of Object.values(dirs)) fs.symlinkSync(dir.root, path.join(outside, `into-${path.basename(dir.root)}`));
  });

  function payload(fixture: Fixture, c: Case): { payload: Payload; dir: TestDir } {
    const dir = dirs[fixture];
    const file = c.file.startsWith('@out/')
      ? path.join(outside, c.file.slice(5))
      : c.file.startsWith('@into/')
        ? path.join(outside, `into-${path.basename(dir.root)}`, c.file.slice(6))
        : c.file.startsWith('@/')
          ? `${dir.root}/${c.file.slice(2)}` // as written: the host passes `..` on, and the kernel reads it after links
          : c.file;
    const common: InAgent = { cwd: c.cwd ? path.join(dir.root, c.cwd) : dir.root, ...(c.who ? { agentType: c.who } : {}) };
    const build = { Write: writeTool, Edit: editTool, MultiEdit: multiEditTool, NotebookEdit: notebookEditTool }[c.tool ?? 'Write'];
    return { payload: build(file, common), dir };
  }

  async function check(fixture: Fixture, c: Case): Promise<void> {
    const { payload: p, dir } = payload(fixture, c);
    const loop = new Loop(dir);
    const before = loop.stateBytes();
    const r = await loop.hook('on-edit-gate', p);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    if (c.expect === 'pass') {
      expect(r.raw).toBe('');
    } else if (c.expect === 'own') {
      expect(r.stdout?.hookSpecificOutput).toEqual({
        hookEventName: 'PreToolUse',
        permissionDecision: 'allow',
        permissionDecisionReason: expect.stringMatching(/^minions R[12]: minions:[a-z-]+ writes its (own review|fix summary), \.agents\/tmp\/phases\/review-1\/r[12]-[a-z-]+\.(json|md)$/),
      });
    } else {
      expect(r.stdout?.hookSpecificOutput).toMatchObject({ hookEventName: 'PreToolUse', permissionDecision: 'deny' });
      expect(denyReason(r)).toMatch(REASONS[c.expect]);
    }
    expect(loop.stateBytes()).toBe(before);
  }

  describe('in R1', () => {
    it.each(R1_CASES)('%s', (_label, c) => check('R1', c));
  });

  describe('in R2', () => {
    it.each(R2_CASES)('%s', (_label, c) => check('R2', c));
  });

  it('R1, the phase directory replaced by a symlink into src/: no reviewer may write its "own" output', async () => {
    for (const r of ['critic', 'silent-failure-hunter'] as const) await check('R1-symlinked-phase-dir', { file: `@/${OWN(r)}`, who: agentType(r), expect: 'reviewer' });
  });

  it('gives the exact reasons', async () => {
    const reviewer = await new Loop(dirs.R1).hook('on-edit-gate', payload('R1', { file: '@/src/a.ts', who: CRITIC, expect: 'reviewer' }).payload);
    // The path is absolute, under the project root the loop started in (this fixture is a clone of it).
    expect(denyReason(reviewer)).toMatch(
      /^minions R1: reviewers are read-only; minions:critic may write only its own output, \/\S+\/\.agents\/tmp\/phases\/review-1\/r1-critic\.json\. Report the problem as a finding instead\.$/,
    );
    const orchestrator = await new Loop(dirs.R1).hook('on-edit-gate', payload('R1', { file: '@/src/a.ts', who: null, expect: 'orchestrator' }).payload);
    expect(denyReason(orchestrator)).toBe(
      'minions R1 (Iteration 1/3): while the review loop runs, project files are changed only by minions:review-fixer in R2. Dispatch the agents the [PHASE R1] prompt names, then end your turn; /minions:cancel ends the loop.',
    );
    const fixer = await new Loop(dirs.R2).hook('on-edit-gate', payload('R2', { file: '@/.agents/x.md', who: FIXER, expect: 'fixer' }).payload);
    expect(denyReason(fixer)).toMatch(/^minions R2: the fixer may edit project files outside \.agents\/ and \.git\/, and its summar(y|ies) \/\S+\/\.agents\/tmp\/phases\/review-1\/r2-fix-summary\.md\b.*; nothing else under \.agents\/\.$/);
  });

  it('the project opened through a symlinked path (CLAUDE_PROJECT_DIR and file paths through the link)', async () => {
    const via = path.join(outside, `via-${path.basename(dirs.R1.root)}`);
    fs.symlinkSync(dirs.R1.root, via);
    const loop = new Loop(dirs.R1);
    const gate = (file: string, who: string | null) =>
      loop.hook('on-edit-gate', writeTool(file, { cwd: via, ...(who ? { agentType: who } : {}) }), { projectDir: via, cwd: via });
    expect(denyReason(await gate(path.join(via, 'src/a.ts'), null))).toMatch(REASONS.orchestrator);
    expect(denyReason(await gate(path.join(dirs.R1.root, 'src/a.ts'), null))).toMatch(REASONS.orchestrator);
    expect((await gate(path.join(via, OWN('critic')), CRITIC)).stdout?.hookSpecificOutput?.permissionDecision).toBe('allow');
    expect(denyReason(await gate(path.join(via, '.agents/tmp/state.json'), CRITIC))).toMatch(REASONS['hook-owned']);
  });

  it('a payload without a path (or an empty one) is let through', async () => {
    const loop = new Loop(dirs.R1);
    for (const input of [{ content: 'x' }, { file_path: '' }, { file_path: 42 }]) {
      const r = await loop.hook('on-edit-gate', { ...writeTool('x', loop.common()), tool_input: input });
      expect(r).toMatchObject({ code: 0, raw: '', stderr: '' });
    }
  });

  // FINDINGS.md #3 (fixed in 81e65b9): relativeInside() treated any relative path starting with ".." as outside the
  // project, so a file or directory whose name started with two dots escaped the gate.
  it('orchestrator in R1: a project file whose name starts with ".." is inside the project', async () => {
    await check('R1', { file: '@/..hidden.ts', who: null, expect: 'orchestrator' });
  });

  it('reviewer in R1: a project directory whose name starts with ".." is inside the project', async () => {
    await check('R1', { file: '@/..cache/x.json', who: CRITIC, expect: 'reviewer' });
  });
});

// The places outside the project's own files that the Bash gate protects, for Edit and Write too (an
// adversarial pass found the edit gate let them through): the hooks' record in the git dir and the
// plugin's data folder (nobody edits those, whatever session asks), and, for the loop's own agents, the
// git directory wherever it is, git's user configuration and the plugin's own code.
describe.concurrent('the edit gate outside the project tree', () => {
  const MARKER = /is part of the hooks' record of the review loop/;
  const PROTECTED = /may not write .*: the git directory and git's configuration, the plugin's own files and its records are not the loop's to change/;
  const gate = (loop: Loop, file: string, who: string | null) => loop.hook('on-edit-gate', writeTool(file, { ...loop.common(), ...(who ? { agentType: who } : {}) }));

  it('a project in a subdirectory of its repository: the record and the git dir above it are refused', async () => {
    const repo = testdir({ 'app/src/a.ts': 'export const a = 1;\n', 'README.md': '# mono\n' });
    const app = openTestdir(repo.abs('app'));
    const loop = new Loop(app, undefined, { projectDir: app.root });
    await loop.start('--max-iterations 2 mono');
    const record = fs.readdirSync(repo.abs('.git/minions/record'))[0]!;
    expect(denyReason(await gate(loop, repo.abs(`.git/minions/record/${record}/record.json`), null))).toMatch(MARKER);
    expect(denyReason(await gate(loop, repo.abs(`.git/minions/record/${record}/record.json`), agentType('critic')))).toMatch(MARKER);
    expect(denyReason(await gate(loop, repo.abs('.git/hooks/pre-commit'), null))).toMatch(PROTECTED);
    // Outside the project and not git's: not this gate's business.
    expect((await gate(loop, repo.abs('README.md'), null)).raw).toBe('');
  });

  it("the plugin's code and data folder, and git's user configuration, for the owning session's agents", async () => {
    const home = tempDir('minions-home-');
    const loop = new Loop(projectTestdir(), undefined, { env: { HOME: home } });
    await loop.start('--max-iterations 2 places');
    expect(denyReason(await gate(loop, path.join(REPO_ROOT, 'dist/launch.cjs'), null))).toMatch(PROTECTED);
    expect(denyReason(await gate(loop, path.join(pluginDataDir(), `live${loop.root}`, 'loop'), null))).toMatch(MARKER);
    expect(denyReason(await gate(loop, path.join(home, '.gitconfig'), null))).toMatch(PROTECTED);
    expect(denyReason(await gate(loop, path.join(home, '.config/git/config'), agentType('critic')))).toMatch(PROTECTED);
  });

  it("another session: the hooks' record is refused, the rest is its own business", async () => {
    const loop = new Loop(projectTestdir());
    await loop.start('--max-iterations 2 sessions');
    const otherLoop = new Loop(loop.dir, 'another-session');
    const record = fs.readdirSync(loop.dir.abs('.git/minions/record'))[0]!;
    const forged = await otherLoop.hook('on-edit-gate', writeTool(loop.dir.abs(`.git/minions/record/${record}/record.json`), otherLoop.common()));
    expect(denyReason(forged)).toMatch(MARKER);
    expect(denyReason(await otherLoop.hook('on-edit-gate', writeTool(path.join(pluginDataDir(), 'code-cache', 'x.bin'), otherLoop.common())))).toMatch(MARKER);
    expect((await otherLoop.hook('on-edit-gate', writeTool(loop.dir.abs('.git/hooks/pre-commit'), otherLoop.common()))).raw).toBe('');
    expect((await otherLoop.hook('on-edit-gate', writeTool(loop.dir.abs('src/a.ts'), otherLoop.common()))).raw).toBe('');
  });
});
