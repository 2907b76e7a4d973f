/**
 * A prompt in the owning session while the loop runs: the model is reminded of the phase. When the prompt
 * changes nothing (the loop was marked fresh minutes ago and its idle guard is at rest) the reminder comes
 * from the state as the gates read it: nothing is written and no lock is taken. Everything else (a loop
 * not marked for ten minutes, a counted guard, a tampered file) goes the locked way, as before.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { Loop, additionalContext, projectTestdir } from '../helpers/loop';
import { SESSION, userPromptSubmit } from '../helpers/payloads';
import { rewriteState } from '../helpers/state';
import { removeTestdirs } from '../helpers/testdir';

afterAll(removeTestdirs);

const STATE = '.agents/tmp/state.json';
const LOCK = '.agents/tmp/state.lock';

/** Ages the loop's last mark by `minutes`, as the hooks would have saved it (the lock file is left as it stands). */
function rewriteStateUnlocked(root: string, minutes: number): void {
  rewriteState(root, (s) => ({ ...s, updatedAt: new Date(Date.now() - minutes * 60_000).toISOString() }));
}

async function started(): Promise<Loop> {
  const loop = new Loop(projectTestdir(), SESSION);
  await loop.start('--max-iterations 3 review the change');
  return loop;
}

describe.concurrent('a prompt in the owning session', () => {
  it('minutes after the last write: the reminder, and not a byte written', async () => {
    const loop = await started();
    const before = loop.snapshot();
    const stateBefore = fs.readFileSync(loop.dir.abs(STATE));
    const r = await loop.prompt('how is it going?');
    expect(additionalContext(r)).toContain('[PHASE R1]');
    expect(r.stderr).toBe('');
    expect(fs.readFileSync(loop.dir.abs(STATE)).equals(stateBefore)).toBe(true);
    expect(loop.snapshot()).toEqual(before);
  });

  it('while another hook holds the lock: the reminder, without waiting for it', async () => {
    const loop = await started();
    const holder = spawn('sleep', ['120']);
    try {
      fs.writeFileSync(loop.dir.abs(LOCK), JSON.stringify({ pid: holder.pid, host: os.hostname(), token: `t${holder.pid}`, at: Date.now() }));
      // The locked way would wait out the holder (here 0.1 s) and then step aside with no reminder.
      const r = await loop.hook('on-prompt-submit', userPromptSubmit('how is it going?', loop.common()), { env: { MINIONS_LOCK_WAIT_MS: '100' } });
      expect(additionalContext(r)).toContain('[PHASE R1]');
      expect(r.stderr).toBe('');
      // The same prompt when the loop must be marked fresh does wait, and says why it could not.
      rewriteStateUnlocked(loop.root, 11);
      const waited = await loop.hook('on-prompt-submit', userPromptSubmit('how is it going?', loop.common()), { env: { MINIONS_LOCK_WAIT_MS: '100' } });
      expect(additionalContext(waited)).toBeUndefined();
      expect(waited.stderr).toMatch(/lock/);
    } finally {
      holder.kill();
    }
  });

  it('after eleven minutes without a write: the loop is marked fresh (the locked way)', async () => {
    const loop = await started();
    const old = new Date(Date.now() - 11 * 60_000).toISOString();
    rewriteState(loop.root, (s) => ({ ...s, updatedAt: old }));
    const r = await loop.prompt('still there?');
    expect(additionalContext(r)).toContain('[PHASE R1]');
    expect(Date.parse(loop.state().updatedAt)).toBeGreaterThan(Date.parse(old));
  });

  it('with the idle guard counting: the guard is reset and saved', async () => {
    const loop = await started();
    rewriteState(loop.root, (s) => ({ ...s, stopGuard: { key: 'k', blocks: 1 } }));
    await loop.prompt('go on');
    expect(loop.state().stopGuard).toEqual({ key: '', blocks: 0 });
  });

  it('with a hooks-only file changed: the prompt says nothing of it, and the next Stop stops the loop as tampered', async () => {
    const loop = await started();
    fs.appendFileSync(loop.dir.abs('.agents/tmp/phases/run.json'), ' ');
    const r = await loop.prompt('how is it going?');
    expect(additionalContext(r)).toContain('[PHASE R1]');
    const stopped = await loop.stop();
    expect(JSON.stringify(stopped.stdout)).toContain("STOPPED (the loop's files were changed outside the hooks)");
    expect(JSON.stringify(stopped.stdout)).toContain('run.json');
  });
});
