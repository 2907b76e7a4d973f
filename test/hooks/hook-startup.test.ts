/**
 * What a hook loads when it starts (its cost is budgeted: bench/hooks.bench.ts). Measured without a
 * clock: which sources each bundle holds, which node builtins a run loads, and whether dist/launch.cjs
 * ran the bundle from V8's code cache.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Loop, denyReason, messages, projectTestdir } from '../helpers/loop';
import { REVIEWERS, agentType, cleanReview, issue, reviewWithIssues } from '../helpers/reviews';
import { REPO_ROOT, cleanEnv, spawnProcess, type HookResult } from '../helpers/run';
import { cloneTestdir, openTestdir, removeTestdirs, tempDir, testdir, type TestDir } from '../helpers/testdir';

afterAll(removeTestdirs);

const HOOKS = ['on-prompt-submit', 'on-task-gate', 'on-edit-gate', 'on-bash-gate', 'on-subagent-stop', 'on-stop'] as const;

describe('what each hook bundle holds', () => {
  // Built once per run from src/ by test/helpers/hooks-setup.ts.
  const { sources } = inject('build');

  it('the read-only gates hold no transition, phase handlers, aggregation, grounding or git', () => {
    for (const gate of ['on-edit-gate.cjs', 'on-bash-gate.cjs']) {
      expect(sources[gate], gate).toContain('src/core/gates.ts');
      for (const heavy of ['src/core/transition.ts', 'src/shell/transact.ts', 'src/core/round.ts', 'src/review/aggregate.ts', 'src/review/grounding.ts', 'src/shell/snapshot.ts', 'src/shell/git.ts']) {
        expect(sources[gate], `${gate} holds ${heavy}`).not.toContain(heavy);
      }
    }
  });

  it('no hook holds the classic zod API (zod/mini is a fraction of its start-up cost)', () => {
    for (const hook of HOOKS) {
      const bundle = sources[`${hook}.cjs`]!;
      expect(bundle.some((s) => s.includes('zod/v4/mini/')), hook).toBe(true);
      expect(bundle.filter((s) => s.includes('zod/v4/classic/')), hook).toEqual([]);
    }
  });

  it('every hook bundle, and the launcher, is ASCII: read as UTF-8 it is a one-byte string', () => {
    // A single other character makes the launcher's read of the bundle a two-byte string, twice the memory,
    // and decoding it costs about 1 ms more of every hook's start. esbuild escapes strings but leaves
    // regular expression literals as written: write their other characters as \u escapes.
    const { dist } = inject('build');
    for (const file of ['launch.cjs', ...HOOKS.map((h) => `${h}.cjs`)]) {
      const text = fs.readFileSync(path.join(dist, file), 'latin1');
      const other = /[^\x00-\x7f]/.exec(text);
      expect(other && text.slice(Math.max(0, other.index - 40), other.index + 10), file).toBeNull();
    }
  });

  it('no hook loads node:child_process, node:net or node:tty as it starts (only on first use)', () => {
    for (const hook of HOOKS) {
      const text = fs.readFileSync(path.join(REPO_ROOT, 'dist', `${hook}.cjs`), 'utf8');
      expect(text.match(/require\("node:(?:child_process|net|tty)"\)/g), hook).toBeNull();
    }
  });
});

describe('the node builtins a hook run loads', () => {
  let r1: TestDir;
  let recorder: string;
  beforeAll(async () => {
    const loop = new Loop(projectTestdir());
    await loop.start('--max-iterations 2 startup');
    r1 = loop.dir;
    recorder = path.join(tempDir('minions-recorder-'), 'record.cjs');
    fs.writeFileSync(
      recorder,
      "process.on('exit', () => require('fs').appendFileSync(process.env.MINIONS_TEST_MODULES, JSON.stringify(process.moduleLoadList) + '\\n'));\n",
    );
  });

  /** Runs one hook with a preload that records the builtins it loaded. */
  async function loaded(run: (loop: Loop) => Promise<HookResult>): Promise<{ result: HookResult; modules: string[] }> {
    const dir = cloneTestdir(r1);
    const log = dir.abs('../modules.log');
    const loop = new Loop(dir, undefined, { env: { NODE_OPTIONS: `--require ${recorder}`, MINIONS_TEST_MODULES: log } });
    const result = await run(loop);
    return { result, modules: JSON.parse(fs.readFileSync(log, 'utf8').trim().split('\n').at(-1)!) as string[] };
  }
  const NOT_ON_START = ['NativeModule child_process', 'NativeModule net', 'NativeModule tty'];

  it.each([
    ['the edit gate denying the orchestrator', (l: Loop) => l.gateWrite(l.dir.abs('src/a.ts'), null), (r: HookResult) => expect(denyReason(r)).toMatch(/R1/)],
    ['the Bash gate', (l: Loop) => l.gateBash('git status', null), (r: HookResult) => expect(r.raw).toBe('')],
    ['the task gate dispatching a reviewer', (l: Loop) => l.dispatch(agentType('critic')), (r: HookResult) => expect(r.raw).toBe('')],
    ['Stop re-injecting R1', (l: Loop) => l.stop(), (r: HookResult) => expect(r.stdout?.hookSpecificOutput?.additionalContext).toMatch(/\[PHASE R1\]/)],
    ['a prompt in the owning session', (l: Loop) => l.prompt('how far is it?'), (r: HookResult) => expect(r.stdout?.hookSpecificOutput?.additionalContext).toMatch(/\[PHASE R1\]/)],
  ] as const)('%s: no child_process, net or tty', async (_, run, check) => {
    const { result, modules } = await loaded(run);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    check(result);
    expect(modules.filter((m) => NOT_ON_START.includes(m))).toEqual([]);
  });

  // node:crypto is loaded on a hook's first digest (state/digest.ts) and node:v8 by the shell parser and
  // the switch for a large round; each loads node's streams. The gates on everyday input need none of
  // them (state.json is compared with the hooks' copy, not hashed; the Bash gate's --liftoff-only is on
  // its command line): bench/hooks.bench.ts measured node:crypto alone at a fifth of a node start here.
  // Nor do hooks that change the state before a review is recorded: the record pins what the hooks write
  // by copies (shell/record.ts), and temporary names and lock tickets need no random bytes. Once reviews
  // are frozen, every locked load checks their copies against the sha256 that names them.
  it.each([
    ['Stop re-injecting R1', (l: Loop) => l.stop()],
    ['the task gate dispatching a reviewer', (l: Loop) => l.dispatch(agentType('critic'))],
    ['a prompt in the owning session', (l: Loop) => l.prompt('how far is it?')],
    ['the edit gate denying the orchestrator', (l: Loop) => l.gateWrite(l.dir.abs('src/a.ts'), null)],
    ["the edit gate in another session's loop", (l: Loop) => l.gateWrite(l.dir.abs('src/a.ts'), null, { session_id: 'another-session' })],
    ['the Bash gate on plain words', (l: Loop) => l.gateBash('git status', null)],
    // Whole words in quotes are read without the shell parser too, which would load node:v8 (--liftoff-only).
    ['the Bash gate on whole words in quotes', (l: Loop) => l.gateBash(`grep -n "items.length" 'src/cart.ts' | head -5`, null)],
  ] as const)('%s: no crypto, v8 or streams', async (_, run) => {
    const { result, modules } = await loaded(run);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(modules.filter((m) => ['NativeModule crypto', 'NativeModule v8', 'NativeModule stream'].includes(m))).toEqual([]);
  });

  it('in a project in a folder of its repository too: the record is found without hashing its path', async () => {
    const repo = testdir({ 'app/src/a.ts': 'export const a = 1;\n', 'README.md': '# mono\n' });
    const app = openTestdir(repo.abs('app'));
    await new Loop(app, undefined, { projectDir: app.root }).start('--max-iterations 2 mono');
    expect(fs.readdirSync(repo.abs('.git/minions/record'))).toEqual(['p-app']);
    const log = repo.abs('../modules.log');
    const loop = new Loop(app, undefined, { projectDir: app.root, env: { NODE_OPTIONS: `--require ${recorder}`, MINIONS_TEST_MODULES: log } });
    for (const run of [() => loop.gateWrite(app.abs('src/a.ts'), null), () => loop.stop()]) {
      const result = await run();
      expect(result).toMatchObject({ code: 0, stderr: '' });
      const modules = JSON.parse(fs.readFileSync(log, 'utf8').trim().split('\n').at(-1)!) as string[];
      expect(modules.filter((m) => ['NativeModule crypto', 'NativeModule stream'].includes(m))).toEqual([]);
    }
  });

  it('the Bash gate on other shell syntax loads the parser, and with it node:v8', async () => {
    const { result, modules } = await loaded((l) => l.gateBash('echo "$(git status)"', null));
    expect(result).toMatchObject({ code: 0, stderr: '', raw: '' });
    expect(modules).toContain('NativeModule v8');
  });

  it('starting a loop runs git, and so loads child_process (the recorder sees it)', async () => {
    const { result, modules } = await loaded((l) => l.start('--max-iterations 2 again --force'));
    expect(result.stdout?.hookSpecificOutput?.additionalContext).toMatch(/\[PHASE R1\]/);
    expect(modules).toContain('NativeModule child_process');
  });
  // shell/jit.ts: a large round is worked through with TurboFan off, which loads node:v8; a small one is not.
  it.each([
    ['a reviewer\'s stop of a review of 700 findings (over 256 KB) switches TurboFan off', 700, true],
    ['a reviewer\'s stop of a review of 3 findings leaves it on', 3, false],
  ] as const)('%s', async (_, findings, tuned) => {
    const { result, modules } = await loaded(async (l) => {
      await l.dispatchReviewers(['pedant']);
      l.writeReview(1, 'pedant', reviewWithIssues('pedant', Array.from({ length: findings }, (_, i) => issue({ description: `finding ${i} ${'explained at length '.repeat(15)}` }))));
      return l.reviewerStop('pedant', { message: 'Done.' });
    });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout?.systemMessage).toMatch(/pedant/);
    expect(modules.includes('NativeModule v8')).toBe(tuned);
  });
});

describe('dist/launch.cjs and the code cache', () => {
  let r1: TestDir;
  beforeAll(async () => {
    const loop = new Loop(projectTestdir());
    await loop.start('--max-iterations 2 cache');
    r1 = loop.dir;
  });

  /** The edit gate denying the orchestrator, with this plugin data folder; returns its answer and the cache line. */
  async function gate(pluginData: string | undefined): Promise<{ denied: string | undefined; cache: string | undefined; stderr: string }> {
    const loop = new Loop(cloneTestdir(r1), undefined, { env: { CLAUDE_PLUGIN_DATA: pluginData, MINIONS_DEBUG: '1' } });
    const r = await loop.gateWrite(loop.dir.abs('src/a.ts'), null);
    expect(r.code).toBe(0);
    const lines = r.stderr.trim().split('\n').filter(Boolean);
    return { denied: denyReason(r), cache: /code cache (\w+)/.exec(r.stderr)?.[1], stderr: lines.filter((l) => !/code cache/.test(l)).join('\n') };
  }
  const cacheFiles = (data: string): string[] => (fs.existsSync(path.join(data, 'code-cache')) ? fs.readdirSync(path.join(data, 'code-cache')) : []);

  it('the first run compiles and keeps the code, the next runs from it, and both answer the same', async () => {
    const data = tempDir('minions-plugin-data-');
    const first = await gate(data);
    expect(first).toMatchObject({ cache: 'miss', stderr: '' });
    expect(cacheFiles(data)).toEqual([expect.stringMatching(/^on-edit-gate-\d+-\d+-v[\d.]+-\w+\.bin$/)]);
    const second = await gate(data);
    expect(second).toEqual({ ...first, cache: 'hit' });
    expect(second.denied).toMatch(/project files are changed only by minions:review-fixer/);
  });

  it('a corrupt cache file is refused by V8, the hook still answers, and the file is rewritten', async () => {
    const data = tempDir('minions-plugin-data-');
    await gate(data);
    const [file] = cacheFiles(data);
    fs.writeFileSync(path.join(data, 'code-cache', file!), 'not a code cache');
    const corrupt = await gate(data);
    expect(corrupt).toMatchObject({ cache: 'rejected', stderr: '' });
    expect(corrupt.denied).toMatch(/project files are changed only by minions:review-fixer/);
    expect((await gate(data)).cache).toBe('hit');
  });

  it('without a data folder, or with one it cannot write, the hook runs uncached and says nothing', async () => {
    const none = await gate(undefined);
    expect(none).toMatchObject({ cache: 'miss', stderr: '' });
    expect(none.denied).toMatch(/project files are changed only by minions:review-fixer/);
    // Under a regular file: no folder can be made there, not even by root.
    const file = path.join(tempDir('minions-plugin-data-'), 'a-file');
    fs.writeFileSync(file, '');
    const blocked = await gate(path.join(file, 'data'));
    expect(blocked).toMatchObject({ cache: 'miss', stderr: '', denied: none.denied });
    expect((await gate(path.join(file, 'data'))).cache).toBe('miss');
  });

  it('a large round, worked through with TurboFan off, keeps a cache the next call runs from', async () => {
    // shell/jit.ts sets the flag back before the launcher writes the cache: V8 refuses a cache made under
    // other flags, and every later call would compile the bundle again (and write it again).
    const data = tempDir('minions-plugin-data-');
    const stop = async (findings: number): Promise<string | undefined> => {
      const loop = new Loop(cloneTestdir(r1), undefined, { env: { CLAUDE_PLUGIN_DATA: data, MINIONS_DEBUG: '1' } });
      await loop.dispatchReviewers(['pedant']);
      loop.writeReview(1, 'pedant', reviewWithIssues('pedant', Array.from({ length: findings }, (_, i) => issue({ description: `finding ${i} ${'explained at length '.repeat(15)}` }))));
      const r = await loop.reviewerStop('pedant', { message: 'Done.' });
      expect(r.code).toBe(0);
      expect(r.stdout?.systemMessage).toMatch(/pedant/);
      return /on-subagent-stop: code cache (\w+)/.exec(r.stderr)?.[1];
    };
    expect(await stop(700)).toBe('miss');
    expect(await stop(700)).toBe('hit');
    expect(await stop(3)).toBe('hit');
  });

  it('a cache of an older bundle is removed when the new one is written', async () => {
    const data = tempDir('minions-plugin-data-');
    fs.mkdirSync(path.join(data, 'code-cache'));
    fs.writeFileSync(path.join(data, 'code-cache', 'on-edit-gate-1-1-v0.0.0-x64.bin'), 'old');
    fs.writeFileSync(path.join(data, 'code-cache', 'on-stop-1-1-v0.0.0-x64.bin'), 'another hook');
    await gate(data);
    const files = cacheFiles(data);
    expect(files).toHaveLength(2);
    expect(files).toContain('on-stop-1-1-v0.0.0-x64.bin');
    expect(files.filter((f) => f.startsWith('on-edit-gate-'))).toEqual([expect.not.stringMatching(/-1-1-v0\.0\.0-/)]);
  });

  it('the hooks of a whole round answer the same from the cache', async () => {
    const data = tempDir('minions-plugin-data-');
    // Every line the hooks print, in any order: which of the five concurrent stops aggregates varies.
    const round = async (): Promise<string[]> => {
      const loop = new Loop(cloneTestdir(r1), undefined, { env: { CLAUDE_PLUGIN_DATA: data } });
      const results = [...(await loop.dispatchReviewers()), await loop.stop()];
      for (const r of REVIEWERS) loop.writeReview(1, r, cleanReview(r));
      results.push(...(await loop.reviewersStop()), await loop.stop());
      for (const r of results) expect(r).toMatchObject({ code: 0, stderr: '' });
      const contexts = results.flatMap((r) => (r.stdout?.hookSpecificOutput?.additionalContext ? [r.stdout.hookSpecificOutput.additionalContext as string] : []));
      return [...messages(results), ...contexts].map((text) => text.split(loop.root).join('<root>')).sort();
    };
    const cold = await round();
    expect(cold.some((l) => l.includes('→ DONE'))).toBe(true);
    expect(cacheFiles(data).length).toBeGreaterThanOrEqual(3);
    expect(await round()).toEqual(cold);
  });
});

// hooks.json starts node with NODE_EXTRA_CA_CERTS emptied (parsing a system's CA bundle is most of a node
// start) and dist/launch.cjs puts the user's value back for what the hook starts. Node warns on stderr at
// start when the file it names cannot be read, so a missing file shows whether node tried to load it.
describe('NODE_EXTRA_CA_CERTS', () => {
  const probe = `printf '%s|%s' "\${NODE_EXTRA_CA_CERTS-unset}" "\${MINIONS_NODE_EXTRA_CA_CERTS-unset}" > ca.txt`;

  it("no hook's node loads the bundle it names; the project's checks get the user's value back", async () => {
    const missing = path.join(tempDir('minions-ca-'), 'no-such-bundle.pem');
    const loop = new Loop(projectTestdir(), undefined, { env: { NODE_EXTRA_CA_CERTS: missing } });
    const started = await loop.start(`--max-iterations 2 --check "${probe}" the cart`);
    expect(started).toMatchObject({ code: 0, stderr: '' });
    expect(started.stdout?.hookSpecificOutput?.additionalContext).toMatch(/\[PHASE R1\]/);
    expect(loop.dir.read('ca.txt')).toBe(`${missing}|unset`);
    for (const r of [await loop.gateWrite(loop.dir.abs('src/a.ts'), null), await loop.gateBash('git status', null), await loop.dispatch(agentType('critic')), await loop.stop()]) {
      expect(r).toMatchObject({ code: 0, stderr: '' });
    }
  });

  it("unset, it stays unset for the project's checks", async () => {
    const loop = new Loop(projectTestdir(), undefined, { env: { NODE_EXTRA_CA_CERTS: undefined } });
    const started = await loop.start(`--max-iterations 2 --check "${probe}" the cart`);
    expect(started).toMatchObject({ code: 0, stderr: '' });
    expect(loop.dir.read('ca.txt')).toBe('unset|unset');
  });

  it('node itself warns about the missing bundle (the check above can fail)', async () => {
    const missing = path.join(tempDir('minions-ca-'), 'no-such-bundle.pem');
    const r = await spawnProcess(process.execPath, ['-e', ''], { cwd: REPO_ROOT, env: { ...cleanEnv(), NODE_EXTRA_CA_CERTS: missing } });
    expect(r.stderr).toContain(missing);
  });
});
