/**
 * A `.agents` that is a symbolic link (a cloned repository can carry one): the hooks write the loop's
 * files only in a folder of their own in the project, so /minions:review is refused, saying what to do,
 * and nothing is written where the link leads, another project's running loop included. Any other prompt
 * goes on: the user is never kept from their session.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Loop, blockReason, projectTestdir } from '../helpers/loop';
import { OTHER_SESSION, SESSION } from '../helpers/payloads';
import { runCli } from '../helpers/run';
import { removeTestdirs, tempDir } from '../helpers/testdir';

afterAll(removeTestdirs);

/** Every file under `dir` with its bytes. */
function contents(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) out[path.relative(dir, path.join(entry.parentPath, entry.name))] = fs.readFileSync(path.join(entry.parentPath, entry.name), 'latin1');
  }
  return out;
}

describe.concurrent('a .agents that is a symbolic link', () => {
  it('to a folder outside the project: /minions:review is refused, naming the link, and nothing is written there', async () => {
    const loop = new Loop(projectTestdir(), SESSION);
    const elsewhere = tempDir('minions-elsewhere-');
    fs.writeFileSync(path.join(elsewhere, 'victim.txt'), 'precious\n');
    fs.symlinkSync(elsewhere, loop.dir.abs('.agents'));
    const r = await loop.start('--max-iterations 2 review the change');
    expect(blockReason(r)).toBe(`minions: ${loop.dir.abs('.agents')} is a symbolic link; minions writes only in a folder of its own there. Remove the link (or move it) and run the command again`);
    expect(r.stderr).not.toMatch(/internal error|\bat .*\.c?js/);
    expect(contents(elsewhere)).toEqual({ 'victim.txt': 'precious\n' });
    // A prompt that is not a minions command is not held up.
    const plain = await loop.prompt('explain the pager');
    expect(blockReason(plain)).toBeUndefined();
    expect(contents(elsewhere)).toEqual({ 'victim.txt': 'precious\n' });
    // With the link removed, the same command starts the loop in a folder of the project's own.
    fs.unlinkSync(loop.dir.abs('.agents'));
    const started = await loop.start('--max-iterations 2 review the change');
    expect(blockReason(started)).toBeUndefined();
    expect(fs.lstatSync(loop.dir.abs('.agents')).isDirectory()).toBe(true);
    expect(loop.state()).toMatchObject({ currentPhase: 'R1', sessionId: SESSION });
  });

  it("to another project's .agents with a running loop: that loop's files are left exactly as they were", async () => {
    const owner = new Loop(projectTestdir(), SESSION);
    expect(blockReason(await owner.start('--max-iterations 3 the first project'))).toBeUndefined();
    const before = contents(owner.dir.abs('.agents'));
    const other = new Loop(projectTestdir(), OTHER_SESSION);
    fs.symlinkSync(owner.dir.abs('.agents'), other.dir.abs('.agents'));
    for (const args of ['the second project', '--force the second project']) {
      expect(blockReason(await other.start(args))).toContain('is a symbolic link');
    }
    // /minions:cancel runs the CLI (the command's own line), which refuses the link as well.
    const cancel = await runCli(['cancel', '--force'], { cwd: other.root });
    expect(cancel).toMatchObject({ code: 1, stderr: expect.stringContaining(`${other.dir.abs('.agents')} is a symbolic link`) });
    expect(contents(owner.dir.abs('.agents'))).toEqual(before);
    expect(owner.state()).toMatchObject({ currentPhase: 'R1', sessionId: SESSION });
  });
});
