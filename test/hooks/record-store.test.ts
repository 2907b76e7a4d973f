/**
 * The store, the record and the lock in-process, on a real temp git repo: what a load says after each
 * kind of outside change, that a commit cut short at any point is never mistaken for tampering, and that
 * the lock follows its holder's life, not a timer.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { initialState } from '../../src/core/start';
import { sweepTemps, writeAtomic } from '../../src/shell/files';
import { MAX_HOLD_MS, withFileLock } from '../../src/shell/lock';
import { readRecord, recordDir, writeRecord } from '../../src/shell/record';
import { commit, frozenText, load, loadFrom, openStore } from '../../src/shell/store';
import { sha256 } from '../../src/state/digest';
import type { Loaded } from '../../src/core/events';
import { STATE_SHAPE, type State } from '../../src/state/schema';
import { hookEnv } from '../helpers/run';
import { recordDirOf } from '../helpers/state';
import { removeTestdirs, tempDir, testdir, type TestDir } from '../helpers/testdir';

afterAll(removeTestdirs);

const STATE = '.agents/tmp/state.json';
const VERDICT = '.agents/tmp/phases/review-1/r1-verdict.json';
const NOW = new Date().toISOString();

/** A project whose loop was started and one verdict written, through commit(). */
function started(): { dir: TestDir; state: State; env: NodeJS.ProcessEnv } {
  const dir = testdir();
  const env = hookEnv(dir.root);
  const state = initialState('s1', 'task', 3, null, NOW);
  const store = openStore(dir.root, env);
  commit(store, { kind: 'none' }, { state, effects: [{ type: 'write', path: VERDICT, content: '{"v":1}\n' }] }, NOW);
  return { dir, state, env };
}

describe('load against the record', () => {
  it('what the hooks wrote loads, with every owned file vouched for', () => {
    const { dir, state, env } = started();
    expect(loadFrom(openStore(dir.root, env), true)).toEqual({ kind: 'ok', state });
    const record = readRecord(recordDirOf(dir.root))!;
    expect(Object.keys(record.files).sort()).toEqual([VERDICT, STATE].sort());
    // Pinned by the hooks' copies, named by the commit that wrote them: nothing is hashed.
    expect(record.files[STATE]).toMatch(/^c1\.\d$/);
    expect(record.files[VERDICT]).toMatch(/^c1\.\d$/);
    expect(record.version).toBe(2);
    expect(fs.readFileSync(path.join(recordDirOf(dir.root), 'objects', record.files[STATE]!), 'utf8')).toBe(dir.read(STATE));
    expect(fs.readFileSync(path.join(recordDirOf(dir.root), 'objects', record.files[VERDICT]!), 'utf8')).toBe('{"v":1}\n');
    expect(record.prior).toEqual({});
  });

  it.each<[string, (d: TestDir) => void, string, boolean]>([
    ['state.json rewritten', (d) => d.write(STATE, d.read(STATE).replace('"R1"', '"DONE"')), 'changed', true],
    ['state.json deleted', (d) => fs.rmSync(d.abs(STATE)), 'deleted', true],
    ['state.json garbled', (d) => d.write(STATE, '0\n'), 'changed', true],
    ['the verdict deleted', (d) => fs.rmSync(d.abs(VERDICT)), 'deleted', false],
    ['the verdict rewritten', (d) => d.write(VERDICT, '{"v":2}\n'), 'changed', false],
  ])('%s: tampered, with the last state the hooks wrote', (_, change, problem, gatesSee) => {
    const { dir, state, env } = started();
    change(dir);
    const file = gatesSee ? STATE : VERDICT;
    expect(loadFrom(openStore(dir.root, env), true)).toEqual({ kind: 'tampered', state, problems: [{ file, problem }] });
    // The gates' read checks state.json only (one digest): a verdict change waits for the next locked hook.
    expect(load(dir.root, env)).toEqual(gatesSee ? { kind: 'tampered', state, problems: [{ file, problem }] } : { kind: 'ok', state });
  });

  /** The object holding the hooks' copy of a file. */
  const copyOf = (d: TestDir, rel: string): string => path.join(recordDirOf(d.root), 'objects', readRecord(recordDirOf(d.root))!.files[rel]!);

  it.each<[string, (d: TestDir) => void, string]>([
    ["the hooks' copy of the state deleted", (d) => fs.rmSync(copyOf(d, STATE)), STATE],
    ["the hooks' copy of the state made a folder", (d) => {
      fs.rmSync(copyOf(d, STATE));
      fs.mkdirSync(copyOf(d, STATE));
    }, STATE],
    ["the hooks' copy deleted and state.json rewritten", (d) => {
      fs.rmSync(copyOf(d, STATE));
      d.write(STATE, d.read(STATE).replace('"R1"', '"DONE"'));
    }, STATE],
    ["the hooks' copy of the verdict deleted", (d) => fs.rmSync(copyOf(d, VERDICT)), VERDICT],
  ])('%s: nothing vouches for the file, and the load says which copy went', (_, change, file) => {
    const { dir, state, env } = started();
    change(dir);
    const problems = [{ file: `${file} (the hooks' copy)`, problem: 'deleted' }];
    // Without its copy the state cannot be vouched for, nor taken as the last one the hooks wrote.
    if (file === STATE) {
      expect(load(dir.root, env)).toMatchObject({ kind: 'tampered', state: null, problems });
      expect(loadFrom(openStore(dir.root, env), true)).toMatchObject({ kind: 'tampered', state: null, problems, claimedBy: 's1' });
    } else {
      expect(load(dir.root, env)).toEqual({ kind: 'ok', state });
      expect(loadFrom(openStore(dir.root, env), true)).toEqual({ kind: 'tampered', state, problems });
    }
  });

  it("a copy changed beside its file (both rewritten alike, by whoever can write the record's folder) is believed, as a rewritten record.json would be", () => {
    const { dir, env } = started();
    dir.write(VERDICT, '{"v":2}\n');
    fs.writeFileSync(copyOf(dir, VERDICT), '{"v":2}\n');
    expect(loadFrom(openStore(dir.root, env), true).kind).toBe('ok');
  });

  it('a copy planted under the name the next commit will give it is written over with what the hooks wrote', () => {
    const { dir, state, env } = started();
    const recordDir = recordDirOf(dir.root);
    const generation = readRecord(recordDir)!.generation!;
    // Names are foreseeable (the record's count and an index): whatever stands there is compared first.
    const planted = [0, 1, 2].map((n) => path.join(recordDir, 'objects', `c${generation + 1}.${n}`));
    for (const file of planted) fs.writeFileSync(file, '{"forged":true}\n');
    const next = { ...state, updatedAt: new Date(Date.now() + 1000).toISOString() };
    commit(openStore(dir.root, env), { kind: 'ok', state }, { state: next, effects: [{ type: 'write', path: VERDICT, content: '{"v":4}\n' }] }, NOW);
    const record = readRecord(recordDir)!;
    expect(fs.readFileSync(path.join(recordDir, 'objects', record.files[STATE]!), 'utf8')).toBe(dir.read(STATE));
    expect(fs.readFileSync(path.join(recordDir, 'objects', record.files[VERDICT]!), 'utf8')).toBe('{"v":4}\n');
    expect(loadFrom(openStore(dir.root, env), true)).toEqual({ kind: 'ok', state: next });
    // The one planted copy no file names is pruned with the rest.
    expect(planted.filter((file) => fs.existsSync(file))).toHaveLength(2);
  });

  it('a record of version 1 (every file pinned by its sha256) is still read: its files are hashed, and the next commit pins copies', () => {
    const { dir, state, env } = started();
    const recordDir = recordDirOf(dir.root);
    const record = readRecord(recordDir)!;
    writeRecord(recordDir, { ...record, version: 1, files: { [STATE]: sha256(dir.read(STATE)), [VERDICT]: sha256(dir.read(VERDICT)) } });
    fs.rmSync(path.join(recordDir, 'objects'), { recursive: true });
    expect(loadFrom(openStore(dir.root, env), true)).toEqual({ kind: 'ok', state });
    dir.write(VERDICT, '{"v":2}\n');
    expect(loadFrom(openStore(dir.root, env), true)).toEqual({ kind: 'tampered', state, problems: [{ file: VERDICT, problem: 'changed' }] });
    dir.write(VERDICT, '{"v":1}\n');
    const next = { ...state, updatedAt: new Date(Date.now() + 1000).toISOString() };
    commit(openStore(dir.root, env), { kind: 'ok', state }, { state: next, effects: [] }, NOW);
    const after = readRecord(recordDir)!;
    expect(after).toMatchObject({ version: 2, files: { [STATE]: expect.stringMatching(/^c\d+\.0$/), [VERDICT]: sha256('{"v":1}\n') } });
    expect(loadFrom(openStore(dir.root, env), true)).toEqual({ kind: 'ok', state: next });
  });

  /** Replaces the state with `text` as the hooks would have saved it (copy, digest), the record's shape set to `shape`. */
  const saveAs = (dir: TestDir, text: string, shape: string | null): void => {
    const recordDir = recordDirOf(dir.root);
    const digest = sha256(text);
    fs.writeFileSync(path.join(recordDir, 'objects', digest), text);
    dir.write(STATE, text);
    const record = readRecord(recordDir)!;
    writeRecord(recordDir, { ...record, files: { ...record.files, [STATE]: digest }, shape });
  };

  it("the hooks' own copy saved under this schema is read as it is; under another shape (other hooks, a plugin update) the schema reads it, defaults and all", () => {
    const { dir, state, env } = started();
    expect(readRecord(recordDirOf(dir.root))!.shape).toBe(STATE_SHAPE);
    // A state from hooks before `changedFiles` existed: the schema gives its default, [].
    const { changedFiles: _, ...older } = state;
    const text = `${JSON.stringify(older, null, 2)}\n`;
    saveAs(dir, text, 'an-older-shape');
    expect(load(dir.root, env)).toEqual({ kind: 'ok', state: { ...older, changedFiles: [] } });
    saveAs(dir, text, null);
    expect(loadFrom(openStore(dir.root, env), true)).toEqual({ kind: 'ok', state: { ...older, changedFiles: [] } });
    // Under this very shape the copy is trusted as written: no schema ran (the field stays absent).
    saveAs(dir, text, STATE_SHAPE);
    expect(load(dir.root, env)).toEqual({ kind: 'ok', state: older });
  });

  it('a commit that does not save the state leaves the shape it was saved under', () => {
    const { dir, state, env } = started();
    const { changedFiles: _, ...older } = state;
    saveAs(dir, `${JSON.stringify(older, null, 2)}\n`, 'an-older-shape');
    const store = openStore(dir.root, env);
    const loaded = loadFrom(store, true);
    expect(loaded).toEqual({ kind: 'ok', state: { ...older, changedFiles: [] } });
    // The state as loaded (defaults filled in) is the outcome's: nothing to save, only the verdict written.
    commit(store, loaded, { state: (loaded as { state: State }).state, effects: [{ type: 'write', path: VERDICT, content: '{"v":3}\n' }] }, NOW);
    expect(readRecord(recordDirOf(dir.root))!.shape).toBe('an-older-shape');
    expect(load(dir.root, env)).toEqual({ kind: 'ok', state: { ...older, changedFiles: [] } });
    // Once saved by these hooks, the state is theirs.
    const again = loadFrom(openStore(dir.root, env), true) as { kind: 'ok'; state: State };
    commit(openStore(dir.root, env), again, { state: { ...again.state, updatedAt: NOW }, effects: [] }, NOW);
    expect(readRecord(recordDirOf(dir.root))!.shape).toBe(STATE_SHAPE);
  });

  it("the hooks' own copy read without the schema still has its invariants checked", () => {
    const { dir, state, env } = started();
    saveAs(dir, `${JSON.stringify({ ...state, iteration: 4 }, null, 2)}\n`, STATE_SHAPE);
    expect(load(dir.root, env)).toMatchObject({ kind: 'tampered', problems: expect.arrayContaining([{ file: STATE, problem: 'invariant', detail: 'iteration 4 is over maxIterations 3' }]) });
    saveAs(dir, 'null\n', STATE_SHAPE);
    expect(load(dir.root, env)).toMatchObject({ kind: 'broken' });
  });

  it('a state file where the record expects none was not written by the hooks', () => {
    const { dir, state, env } = started();
    const store = openStore(dir.root, env);
    commit(store, { kind: 'ok', state }, { state, effects: [{ type: 'archive-run', into: state.runId, phases: false }] }, NOW);
    expect(load(dir.root, env)).toEqual({ kind: 'none' });
    dir.write(STATE, `${JSON.stringify(state, null, 2)}\n`);
    // Nothing of the file is believed but the session it names: whose hooks act on it.
    expect(load(dir.root, env)).toEqual({ kind: 'tampered', state: null, problems: [{ file: STATE, problem: 'added' }], claimedBy: state.sessionId });
  });

  it('a frozen review whose copy is gone is named', () => {
    const { dir, env } = started();
    const text = '{"issues":[],"summary":{"critical":0,"warning":0,"info":0,"verdict":"clean"}}';
    const store = openStore(dir.root, env);
    const loaded = loadFrom(store, true) as { kind: 'ok'; state: State };
    const it0 = loaded.state.iterations[0]!;
    const next: State = { ...loaded.state, iterations: [{ ...it0, r1: { ...it0.r1, reviewers: { ...it0.r1.reviewers, critic: { ...it0.r1.reviewers.critic, status: 'valid', dispatches: 1, frozen: sha256(text) } } } }] };
    commit(store, loaded, { state: next, effects: [{ type: 'freeze', content: text }] }, NOW);
    expect(loadFrom(openStore(dir.root, env), true).kind).toBe('ok');
    fs.rmSync(path.join(recordDirOf(dir.root), 'objects', sha256(text)));
    expect(loadFrom(openStore(dir.root, env), true)).toMatchObject({ kind: 'tampered', problems: [{ file: ".agents/tmp/phases/review-1/r1-critic.json (the hooks' copy)", problem: 'deleted' }] });
  });

  /** A review frozen and its file pinned, as a reviewer's stop records them; `bytes` is what the reviewer wrote. */
  function frozenReview(bytes: Buffer) {
    const { dir, env } = started();
    const file = '.agents/tmp/phases/review-1/r1-critic.json';
    fs.mkdirSync(path.dirname(dir.abs(file)), { recursive: true });
    fs.writeFileSync(dir.abs(file), bytes);
    const text = fs.readFileSync(dir.abs(file), 'utf8');
    const store = openStore(dir.root, env);
    const loaded = loadFrom(store, true) as { kind: 'ok'; state: State };
    const it0 = loaded.state.iterations[0]!;
    const next: State = { ...loaded.state, iterations: [{ ...it0, r1: { ...it0.r1, reviewers: { ...it0.r1.reviewers, critic: { ...it0.r1.reviewers.critic, status: 'valid', dispatches: 1, frozen: sha256(text) } } } }] };
    commit(store, loaded, { state: next, effects: [{ type: 'freeze', content: text }, { type: 'pin', path: file, content: text }] }, NOW);
    return { dir, env, file, text, object: path.join(recordDirOf(dir.root), 'objects', sha256(text)) };
  }

  it('a review written in other bytes than UTF-8 is checked as the text it was frozen as: not a change', () => {
    // "café" in Latin-1: the é is one byte that is not UTF-8, read as U+FFFD.
    const { dir, env, file, text } = frozenReview(Buffer.from('{"issues":[],"summary":{"critical":0,"warning":0,"info":0,"verdict":"clean"},"notes":["caf\xe9"]}', 'latin1'));
    expect(text).toContain('caf\uFFFD');
    const store = openStore(dir.root, env);
    expect(loadFrom(store, true).kind).toBe('ok');
    expect(frozenText(store, sha256(text))).toBe(text);
    fs.writeFileSync(dir.abs(file), Buffer.from(text.replace('caf', 'cab'), 'latin1'));
    expect(loadFrom(openStore(dir.root, env), true)).toMatchObject({ kind: 'tampered', problems: [{ file, problem: 'changed' }] });
  });

  it('a frozen copy forged to other bytes of the same length is no copy, though the review file is intact', () => {
    const { dir, env, file, text, object } = frozenReview(Buffer.from('{"issues":[],"summary":{"critical":0,"warning":0,"info":0,"verdict":"clean"}}'));
    const store = openStore(dir.root, env);
    expect(loadFrom(store, true).kind).toBe('ok');
    expect(frozenText(store, sha256(text))).toBe(text);
    fs.writeFileSync(object, text.replace('clean', 'CLEAN'));
    expect(loadFrom(openStore(dir.root, env), true)).toMatchObject({ kind: 'tampered', problems: [{ file: `${file} (the hooks' copy)`, problem: 'deleted' }] });
  });

  it('without a record the file is all there is, as before', () => {
    const dir = testdir();
    dir.write(STATE, '{');
    expect(load(dir.root, hookEnv(dir.root))).toEqual({ kind: 'broken', problem: 'not valid JSON' });
  });
});

describe("the record's folder for a project", () => {
  it('a project at the top of its repository: record/top', () => {
    const dir = testdir();
    expect(recordDir(dir.root, {})).toBe(path.join(dir.root, '.git/minions/record/top'));
  });

  it('a project in a folder of its repository: its path spelled as one name, worked out without hashing', () => {
    const repo = testdir({ 'packages/my app/é/a.ts': 'x\n' });
    expect(recordDir(repo.abs('packages/my app/é'), {})).toBe(path.join(repo.root, '.git/minions/record/p-packages%2Fmy%20app%2F%C3%A9'));
    // Two folders never share a name: the spelling is one to one.
    expect(recordDir(repo.abs('packages/my app/é'), {})).not.toBe(recordDir(repo.abs('packages/my%20app/é'), {}));
  });

  it("a loop older hooks started keeps its record, named by the path's sha256, until a folder of the new name is there", () => {
    const repo = testdir({ 'app/a.ts': 'x\n' });
    const old = path.join(repo.root, '.git/minions/record', sha256('app').slice(0, 16));
    fs.mkdirSync(old, { recursive: true });
    expect(recordDir(repo.abs('app'), {})).toBe(old);
    fs.mkdirSync(path.join(repo.root, '.git/minions/record/p-app'));
    expect(recordDir(repo.abs('app'), {})).toBe(path.join(repo.root, '.git/minions/record/p-app'));
  });

  it('a path too long for one name is named by its sha256', () => {
    const deep = Array.from({ length: 30 }, (_, i) => `folder-number-${i}`).join('/');
    const repo = testdir({ [`${deep}/a.ts`]: 'x\n' });
    expect(recordDir(repo.abs(deep), {})).toBe(path.join(repo.root, '.git/minions/record', sha256(deep).slice(0, 16)));
  });

  it("outside git: in the plugin's data folder, under the project's path spelled the same way", () => {
    const data = tempDir('minions-data-');
    const root = tempDir('minions-plain-');
    expect(recordDir(root, { CLAUDE_PLUGIN_DATA: data })).toBe(path.join(data, 'records', `p-${root.replace(/\//g, '%2F')}`));
    expect(recordDir(root, {})).toBeNull();
  });
});

describe('a commit cut short is not tampering', () => {
  // The record is written first, naming the new copies and what each touched file may still hold.
  it.each([
    ['before the state was written', (d: TestDir, old: string) => d.write(STATE, old)],
    ['after the state was written', () => undefined],
    ['with the verdict written, not the state', (d: TestDir, old: string) => d.write(STATE, old)],
  ])('%s', (_, rollBack) => {
    const { dir, state, env } = started();
    const old = dir.read(STATE);
    const recordDir = recordDirOf(dir.root);
    const before = readRecord(recordDir)!;
    // The copies the first write of the record names as alternatives: a commit cut short never pruned them.
    const oldCopies = [STATE, VERDICT].map((rel) => [path.join(recordDir, 'objects', before.files[rel]!), fs.readFileSync(path.join(recordDir, 'objects', before.files[rel]!))] as const);
    const next = { ...state, updatedAt: new Date(Date.now() + 1000).toISOString() };
    const store = openStore(dir.root, env);
    commit(store, { kind: 'ok', state }, { state: next, effects: [{ type: 'write', path: VERDICT, content: '{"v":3}\n' }] }, NOW);
    const after = readRecord(recordDir)!;
    // Put back the record as the first write left it: new copies, and the old ones as alternatives.
    writeRecord(recordDir, { ...after, prior: { [STATE]: [before.files[STATE]!, null], [VERDICT]: [before.files[VERDICT]!, null] } });
    for (const [file, bytes] of oldCopies) fs.writeFileSync(file, bytes);
    rollBack(dir, old);
    expect(['ok']).toContain(load(dir.root, env).kind);
    expect(loadFrom(openStore(dir.root, env), true).kind).toBe('ok');
  });
});

describe('atomic writes and their temporary files', () => {
  it('a dead writer’s temporary files are swept, a live one’s kept', async () => {
    const dir = testdir();
    const tmp = path.join(dir.root, '.agents/tmp/.tmp');
    fs.mkdirSync(tmp, { recursive: true });
    const dead = await deadPid();
    fs.writeFileSync(path.join(tmp, `${dead}.1abcdef.tmp`), 'x');
    fs.writeFileSync(path.join(tmp, `${process.pid}.2abcdef.tmp`), 'x');
    sweepTemps(path.join(dir.root, '.agents/tmp'));
    expect(fs.readdirSync(tmp)).toEqual([`${process.pid}.2abcdef.tmp`]);
    writeAtomic(dir.abs('x.json'), '{}', path.join(dir.root, '.agents/tmp'));
    expect(dir.read('x.json')).toBe('{}');
  });
});

/** A pid that was just used and is free now. */
function deadPid(): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn('true');
    child.on('exit', () => resolve(child.pid!));
  });
}

describe('the lock follows its holder, not a timer', () => {
  const lockOf = (dir: TestDir) => dir.abs('.agents/tmp/state.lock');
  const holder = (pid: number, ageMs: number) => JSON.stringify({ pid, host: os.hostname(), token: `t${pid}`, at: Date.now() - ageMs });
  const options = (dir: TestDir, waitMs = 30_000) => ({ tempRoot: dir.abs('.agents/tmp'), waitMs });

  it("a dead holder's lock is taken over at once", async () => {
    const dir = testdir();
    fs.mkdirSync(dir.abs('.agents/tmp'), { recursive: true });
    fs.writeFileSync(lockOf(dir), holder(await deadPid(), 1000));
    expect(await withFileLock(lockOf(dir), options(dir, 0), async () => 'ran')).toBe('ran');
    expect(fs.existsSync(lockOf(dir))).toBe(false);
  });

  it('a live holder keeps it however old its lock file looks, and it is taken when the holder dies', async () => {
    const dir = testdir();
    fs.mkdirSync(dir.abs('.agents/tmp'), { recursive: true });
    const sleeper = spawn('sleep', ['60']);
    fs.writeFileSync(lockOf(dir), holder(sleeper.pid!, 20_000));
    const old = new Date(Date.now() - 20_000);
    fs.utimesSync(lockOf(dir), old, old);
    let ran = false;
    const waiting = withFileLock(lockOf(dir), options(dir), async () => {
      ran = true;
    });
    // Older than proper-lockfile's 10 s stale: still held while the holder lives.
    await new Promise((r) => setTimeout(r, 1500));
    expect(ran).toBe(false);
    sleeper.kill('SIGKILL');
    await waiting;
    expect(ran).toBe(true);
  });

  it('a waiter gives up with a typed failure when a live holder keeps it', async () => {
    const dir = testdir();
    fs.mkdirSync(dir.abs('.agents/tmp'), { recursive: true });
    fs.writeFileSync(lockOf(dir), holder(process.pid, 0));
    await expect(withFileLock(lockOf(dir), options(dir, 200), async () => 'ran')).rejects.toMatchObject({ code: 'lock-timeout' });
  });

  it(`a lock older than ${MAX_HOLD_MS / 1000} s is taken over whatever its pid says (a reused pid)`, async () => {
    const dir = testdir();
    fs.mkdirSync(dir.abs('.agents/tmp'), { recursive: true });
    fs.writeFileSync(lockOf(dir), holder(process.pid, MAX_HOLD_MS + 1000));
    expect(await withFileLock(lockOf(dir), options(dir, 0), async () => 'ran')).toBe('ran');
  });

  it("the cancel's take-over of a live holder's lock: the holder sees it has lost it, so it saves nothing over the cancel", async () => {
    const dir = testdir();
    fs.mkdirSync(dir.abs('.agents/tmp'), { recursive: true });
    let release!: () => void;
    const waited = new Promise<void>((r) => (release = r));
    const seen: boolean[] = [];
    const holding = withFileLock(lockOf(dir), options(dir), async (held) => {
      seen.push(held());
      await waited;
      seen.push(held());
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(await withFileLock(lockOf(dir), { ...options(dir, 200), takeOver: true }, async (held) => held())).toBe(true);
    release();
    await holding;
    expect(seen).toEqual([true, false]);
  });

  it('no ticket or guard is left behind', async () => {
    const dir = testdir();
    await Promise.all(Array.from({ length: 8 }, () => withFileLock(lockOf(dir), options(dir), async () => new Promise((r) => setTimeout(r, 5)))));
    expect(fs.readdirSync(dir.abs('.agents/tmp')).filter((n) => n !== '.tmp')).toEqual([]);
    expect(fs.readdirSync(dir.abs('.agents/tmp/.tmp'))).toEqual([]);
  });
});
