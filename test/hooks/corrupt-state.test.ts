/**
 * A state file garbled, forged, deleted or replaced behind the hooks' back. For a loop the hooks keep a
 * record of (every loop they start), the owning session's gates keep holding with the last state the
 * hooks wrote; its next Stop ends the loop STOPPED ("tampered") naming the file, without trapping the
 * session, and that last trustworthy state goes to the archive; /minions:cancel works at any time. A
 * state file with no record (written before the record existed) is reported and lets everything
 * through, as before.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Loop, denyReason, projectTestdir } from '../helpers/loop';
import { OTHER_SESSION, SESSION, bashTool, stop, writeTool } from '../helpers/payloads';
import { STATE, agentType } from '../helpers/reviews';
import { runCli, runCommandLine, type RunHookOptions } from '../helpers/run';
import { recordDirOf, rewriteState } from '../helpers/state';
import { cloneTestdir, removeTestdirs, type TestDir } from '../helpers/testdir';
import { paced } from '../helpers/pace';

afterAll(removeTestdirs);

/** argv that runs a command as an unprivileged user (root reads a mode-000 file), or null when impossible. */
function unprivileged(): string[] | null {
  if (process.getuid?.() !== 0) return [];
  try {
    execFileSync('setpriv', ['--version'], { stdio: 'ignore' });
    return ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'];
  } catch {
    return null;
  }
}
const WRAP = unprivileged();

function chmodTree(dir: string, mode: number): void {
  fs.chmodSync(dir, mode);
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) chmodTree(`${dir}/${entry.name}`, mode);
    else fs.chmodSync(`${dir}/${entry.name}`, 0o666);
  }
}

type Corruption = { name: string; problem: 'was changed outside the hooks' | 'was deleted'; apply(dir: TestDir, valid: string): void };

const CORRUPTIONS: Corruption[] = [
  { name: 'not JSON', problem: 'was changed outside the hooks', apply: (d) => d.write(STATE, '{"version": 1, "plugin": "minions",') },
  { name: '`echo 0 1>` over it', problem: 'was changed outside the hooks', apply: (d) => execFileSync('/bin/sh', ['-c', `echo 0 1>${STATE}`], { cwd: d.root }) },
  { name: 'the wrong schema', problem: 'was changed outside the hooks', apply: (d) => d.write(STATE, JSON.stringify({ version: 1, plugin: 'minions', phase: 'R1', iteration: 'one' })) },
  { name: 'an unknown version', problem: 'was changed outside the hooks', apply: (d, valid) => d.write(STATE, JSON.stringify({ ...JSON.parse(valid), version: 2 })) },
  { name: 'JSON null', problem: 'was changed outside the hooks', apply: (d) => d.write(STATE, 'null') },
  { name: 'an empty file', problem: 'was changed outside the hooks', apply: (d) => d.write(STATE, '') },
  {
    name: 'a forged DONE (sed)',
    problem: 'was changed outside the hooks',
    apply: (d) => execFileSync('sed', ['-i', '-e', 's/"currentPhase": "R1"/"currentPhase": "DONE"/', '-e', 's/"status": "in_progress"/"status": "done"/', STATE], { cwd: d.root }),
  },
  { name: 'rm', problem: 'was deleted', apply: (d) => fs.rmSync(d.abs(STATE)) },
  {
    name: 'a directory',
    problem: 'was changed outside the hooks',
    apply: (d) => {
      fs.rmSync(d.abs(STATE));
      fs.mkdirSync(d.abs(STATE));
    },
  },
  {
    name: 'a FIFO',
    problem: 'was changed outside the hooks',
    apply: (d) => {
      fs.rmSync(d.abs(STATE));
      execFileSync('mkfifo', [d.abs(STATE)]);
    },
  },
];

const tamperedLine = (problem: string) => new RegExp(`^minions: STOPPED \\(the loop's files were changed outside the hooks\\): \\.agents/tmp/state\\.json ${problem}\\. The loop cannot end DONE`);

describe.concurrent('a state file changed behind the hooks', () => {
  let live: TestDir;
  let runId: string;

  beforeAll(async () => {
    const loop = new Loop(projectTestdir());
    await loop.start('--max-iterations 2 broken');
    await loop.dispatchReviewers(['critic']);
    live = loop.dir;
    runId = loop.state().runId;
  });

  /** A copy of the loop in which a hook of the loop has run (as in the project it was started in: the marker is there). */
  async function clone(): Promise<Loop> {
    const loop = new Loop(cloneTestdir(live));
    expect(await loop.prompt('how is it going?')).toMatchObject({ code: 0, stderr: '' });
    // The copy is a project at another path: a locked save gives it the plugin data's live-loop marker, as
    // the loop's start did for the original (a prompt minutes after the last save writes nothing).
    rewriteState(loop.root, (state) => state);
    return loop;
  }

  /** The owning session's gates, with the last state the hooks wrote (R1, critic running). */
  async function expectGatesHold(loop: Loop, options: RunHookOptions = {}): Promise<void> {
    const c = loop.common();
    const other = new Loop(loop.dir, OTHER_SESSION);
    const [edit, rm, commit, otherEdit] = await Promise.all([
      loop.hook('on-edit-gate', writeTool(loop.dir.abs('src/a.ts'), c), options),
      loop.hook('on-bash-gate', bashTool('rm -rf src', c), options),
      loop.hook('on-bash-gate', bashTool('git commit -am x', { ...c, agentType: agentType('critic') }), options),
      other.hook('on-edit-gate', writeTool(loop.dir.abs('src/a.ts'), other.common()), options),
    ]);
    expect(denyReason(edit)).toMatch(/^minions R1 \(Iteration 1\/2\): while the review loop runs, project files are changed only by minions:review-fixer in R2/);
    expect(denyReason(rm)).toMatch(/^minions R1 \(Iteration 1\/2\): while the review loop runs/);
    expect(denyReason(commit)).toMatch(/may not run "git commit"/);
    expect(otherEdit).toMatchObject({ code: 0, raw: '', stderr: '' });
  }

  it.each(CORRUPTIONS.map((c) => [c.name, c] as const))('%s: the gates hold, the Stop ends the loop tampered without trapping it, the archive keeps the last good state', async (_, corruption) => {
    const loop = await clone();
    corruption.apply(loop.dir, loop.dir.read(STATE));
    await expectGatesHold(loop);

    const r = await loop.hook('on-stop', stop(loop.common()), { timeoutMs: paced(20_000) });
    expect(r).toMatchObject({ code: 0, signal: null, stderr: '' });
    expect(r.stdout?.decision).toBeUndefined();
    expect(r.stdout?.hookSpecificOutput).toBeUndefined();
    const lines: string[] = r.stdout!.systemMessage.split('\n');
    expect(lines[0]).toMatch(tamperedLine(corruption.problem));
    expect(lines.join('\n')).not.toMatch(/DONE —/);
    expect(lines[1]).toMatch(/^minions: STOPPED — the loop's files were changed outside the hooks: \.agents\/tmp\/state\.json /);

    // The last trustworthy state, stopped, is in the archive; nothing is left to gate.
    const archived = loop.dir.readJson(`.agents/tmp/archive/${runId}/state.json`);
    expect(archived).toMatchObject({ runId, status: 'stopped', currentPhase: 'STOPPED', stopReason: 'tampered', iteration: 1 });
    expect(archived.iterations[0].r1.reviewers.critic).toMatchObject({ status: 'running', dispatches: 1 });
    expect(loop.dir.exists(STATE)).toBe(false);
    expect(await loop.stop()).toMatchObject({ code: 0, raw: '', stderr: '' });
    expect(await loop.gateWrite(loop.dir.abs('src/a.ts'), null)).toMatchObject({ code: 0, raw: '', stderr: '' });
  });

  it.each(CORRUPTIONS.filter((c) => ['not JSON', 'rm', 'a forged DONE (sed)'].includes(c.name)).map((c) => [c.name, c] as const))(
    '%s: /minions:cancel cancels the loop as the hooks last wrote it',
    async (_, corruption) => {
      const loop = await clone();
      corruption.apply(loop.dir, loop.dir.read(STATE));
      const status = await runCli(['status'], { cwd: loop.root, sessionId: SESSION });
      expect(status.stdout).toMatch(/^minions review loop — R1, Iteration 1\/2 \(in progress\)/);
      expect(status.stdout).toContain(`Warning: .agents/tmp/state.json ${corruption.problem}.`);
      const cancel = await runCommandLine('cancel', '', { cwd: loop.root, sessionId: SESSION });
      expect(cancel).toMatchObject({ code: 0, stderr: '' });
      expect(cancel.stdout).toMatch(/^minions: review loop cancelled in R1 \(Iteration 1\/2\); files archived to \.agents\/tmp\/archive\//);
      expect(cancel.stdout).toContain(`note: .agents/tmp/state.json ${corruption.problem}`);
      expect(loop.dir.readJson(`.agents/tmp/archive/${runId}/state.json`)).toMatchObject({ status: 'cancelled', stopReason: 'cancelled' });
      expect(await loop.stop()).toMatchObject({ code: 0, raw: '', stderr: '' });
    },
  );

  it.skipIf(WRAP === null)('unreadable (mode 000, hooks run as an unprivileged user): the gates hold and the Stop ends it tampered', async () => {
    const loop = new Loop(cloneTestdir(live));
    chmodTree(loop.root, 0o777);
    chmodTree(recordDirOf(loop.root), 0o777);
    fs.chmodSync(loop.dir.abs(STATE), 0o000);
    await expectGatesHold(loop, { wrap: WRAP! });
    const r = await loop.hook('on-stop', stop(loop.common()), { wrap: WRAP! });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout!.systemMessage.split('\n')[0]).toMatch(tamperedLine('was changed outside the hooks'));
  });

  it("another session's hooks are untouched by the owner's tampered state", async () => {
    const loop = new Loop(cloneTestdir(live));
    loop.dir.write(STATE, 'garbage');
    const other = new Loop(loop.dir, OTHER_SESSION);
    expect(await other.stop()).toMatchObject({ code: 0, raw: '', stderr: '' });
    expect(loop.dir.read(STATE)).toBe('garbage');
  });

  it('a fresh /minions:review replaces a broken state and archives it', async () => {
    const loop = new Loop(cloneTestdir(live));
    loop.dir.write(STATE, 'garbage');
    const r = await loop.start('start over');
    expect(r.stdout?.decision).toBeUndefined();
    expect(r.stdout?.hookSpecificOutput?.additionalContext).toContain('[PHASE R1]');
    expect(loop.state()).toMatchObject({ task: 'start over', currentPhase: 'R1' });
    expect(loop.dir.read(`.agents/tmp/archive/${runId}/state.json`)).toBe('garbage');
  });

  it('without a record (a state from before it): reported at the Stop, nothing gated, /minions:cancel archives it', async () => {
    const loop = new Loop(cloneTestdir(live));
    fs.rmSync(recordDirOf(loop.root), { recursive: true });
    loop.dir.write(STATE, '{"version": 1, "plugin": "minions",');
    const r = await loop.stop();
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(Object.keys(r.stdout ?? {})).toEqual(['systemMessage']);
    expect(r.stdout?.systemMessage).toMatch(/^minions: the loop state \.agents\/tmp\/state\.json is unreadable \(not valid JSON\); the loop is suspended and nothing is gated/);
    expect(await loop.gateWrite(loop.dir.abs('src/a.ts'), null)).toMatchObject({ code: 0, raw: '', stderr: '' });
    const cancel = await runCli(['cancel'], { cwd: loop.root, sessionId: SESSION });
    expect(cancel.stdout).toBe('minions: the unreadable loop state was archived; nothing is gated now.\n');
    expect(loop.dir.exists(`.agents/tmp/archive/${runId}/state.json`)).toBe(true);
  });
});
