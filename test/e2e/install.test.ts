/**
 * Installing as the README says, offline: `claude plugin marketplace add <clone>` then
 * `claude plugin install minions@minions` in an isolated HOME, with the package registry and every
 * proxy pointing at a closed loopback port. The install copies plugin/ only (no package.json, so the
 * host has nothing to install), and a `/minions:review` run with no --plugin-dir then runs its hooks.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { paced } from '../helpers/pace';
import { PLUGIN_DIR } from '../../scripts/build';
import { CLAUDE_BIN, claudeEnv, copyCommittedPlugin, REPO_ROOT } from './harness';
import { runLoop, sampleScenario } from './scenarios';

const run = promisify(execFile);
/**
 * The installed copy's size limit: within 20% of what plugin/ holds (3.63 MiB at 0.2.0, by the same sum
 * of file sizes), so that a bundle or asset that grows by half a megabyte is noticed. The README states it.
 */
const MAX_CACHE_BYTES = 4.2 * 1024 * 1024;
/** The version the manifest declares, which the host reports for the install. */
const VERSION = (JSON.parse(readFileSync(join(REPO_ROOT, '.claude-plugin', 'plugin.json'), 'utf8')) as { version: string }).version;

/** A loopback port nothing listens on: connections to it are refused at once. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Every file under dir (relative, sorted) and their total size. */
function tree(dir: string): { files: string[]; bytes: number } {
  const files: string[] = [];
  let bytes = 0;
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else {
        files.push(relative(dir, p));
        bytes += st.size;
      }
    }
  };
  walk(dir);
  return { files: files.sort(), bytes };
}

let clone: string;
let home: string;
let env: Record<string, string>;
const timings: Record<string, number> = {};

/** Runs the CLI; the exit code and the JSON files decide, the printed wording is only for the failure message. */
async function claude(step: string, ...args: string[]): Promise<{ code: number; out: string; stdout: string }> {
  const started = performance.now();
  const result = await run(CLAUDE_BIN, args, { env, timeout: paced(120_000) }).then(
    (r) => ({ code: 0, out: `${r.stdout}${r.stderr}`, stdout: r.stdout }),
    (e: { code?: number; stdout?: string; stderr?: string }) => ({ code: e.code ?? -1, out: `${e.stdout ?? ''}${e.stderr ?? ''}`, stdout: e.stdout ?? '' }),
  );
  timings[step] = performance.now() - started;
  return result;
}

beforeAll(async () => {
  clone = copyCommittedPlugin(REPO_ROOT);
  home = mkdtempSync(join(tmpdir(), 'claude-home-'));
  const offline = `http://127.0.0.1:${await closedPort()}`;
  env = {
    ...claudeEnv(offline, home, join(home, '.claude')),
    npm_config_registry: `${offline}/`,
    NPM_CONFIG_REGISTRY: `${offline}/`,
    HTTP_PROXY: offline,
    HTTPS_PROXY: offline,
    http_proxy: offline,
    https_proxy: offline,
    NO_PROXY: '',
    no_proxy: '',
  };
});

afterAll(() => {
  const ms = (step: string): string => `${((timings[step] ?? NaN) / 1000).toFixed(2)} s`;
  console.info(`offline install: marketplace add ${ms('add')}, plugin install ${ms('install')} (CLI ${CLAUDE_BIN})`);
  if (!process.env.MINIONS_E2E_KEEP) for (const dir of [clone, home]) rmSync(dir, { recursive: true, force: true });
});

describe('claude plugin install, offline', () => {
  let installPath: string;

  test('adds the clone as a marketplace and installs minions@minions from it', async () => {
    const add = await claude('add', 'plugin', 'marketplace', 'add', clone);
    expect(add.code, add.out).toBe(0);
    const install = await claude('install', 'plugin', 'install', 'minions@minions');
    expect(install.code, install.out).toBe(0);
    const installed = JSON.parse(readFileSync(join(home, '.claude', 'plugins', 'installed_plugins.json'), 'utf8')) as {
      plugins: Record<string, { installPath: string; version: string }[]>;
    };
    expect(installed.plugins['minions@minions']).toEqual([expect.objectContaining({ version: VERSION })]);
    installPath = installed.plugins['minions@minions']![0]!.installPath;
    expect(installPath.startsWith(join(home, '.claude', 'plugins', 'cache'))).toBe(true);
    const list = await claude('list', 'plugin', 'list', '--json');
    expect(list.code, list.out).toBe(0);
    // 2.1.332 also lists its built-in plugins.
    const listed = (JSON.parse(list.stdout) as { id: string }[]).filter((p) => p.id === 'minions@minions');
    expect(listed).toEqual([expect.objectContaining({ id: 'minions@minions', version: VERSION, enabled: true, installPath })]);
  });

  test('the installed copy is plugin/ and nothing else: no node_modules, no package.json, under 4.2 MiB', () => {
    const copy = tree(installPath);
    expect(copy.files).toEqual(tree(join(clone, PLUGIN_DIR)).files);
    expect(copy.files.filter((f) => /(^|\/)(node_modules|package(-lock)?\.json|src|test)(\/|$)/.test(f))).toEqual([]);
    const cache = tree(join(home, '.claude', 'plugins', 'cache'));
    console.info(`plugin cache: ${cache.files.length} files, ${(cache.bytes / 1024).toFixed(0)} KiB`);
    expect(cache.bytes).toBeLessThanOrEqual(MAX_CACHE_BYTES);
  });

  test('a /minions:review run without --plugin-dir runs the installed hooks to DONE', async () => {
    const r = await runLoop(sampleScenario({ name: 'installed' }), { homeDir: home, timeoutMs: paced(300_000) });
    try {
      expect(r.run.exitCode).toBe(0);
      expect(r.run.timedOut).toBe(false);
      // The host loads a plugin of a directory marketplace in place (2.1.328 and 2.1.332: the clone's
      // plugin/), and keeps the copy in the cache; both hold the shipped files only.
      const init = r.run.events.find((e) => e.type === 'system' && e.subtype === 'init') as { plugins?: { name: string; path: string; source: string }[] } | undefined;
      const loaded = init?.plugins?.find((p) => p.source === 'minions@minions');
      expect([installPath, join(clone, PLUGIN_DIR)]).toContain(loaded?.path);
      expect(tree(loaded!.path).files).toEqual(tree(installPath).files);
      for (const event of ['UserPromptSubmit', 'PreToolUse', 'SubagentStop', 'Stop']) {
        expect(r.hooks.filter((h) => h.event === event).length, `${event} hooks ran`).toBeGreaterThan(0);
      }
      expect(r.systemMessages.at(-1)).toMatch(/^minions: DONE — review 1\/5 found no issues\. Reviews: \.agents\/tmp\/phases\/review-1\/\n {2}Cost: [\d,]+ tokens over 5 agent runs · Report: \.agents\/tmp\/phases\/REPORT\.md$/);
      expect(r.stateWhere).toBe('archive');
      for (const dir of [installPath, clone, join(clone, PLUGIN_DIR)]) expect(existsSync(join(dir, 'node_modules')), dir).toBe(false);
    } catch (err) {
      if (err instanceof Error) err.message = `${err.message}\n\n${r.diagnostics()}`;
      throw err;
    }
    r.cleanup();
  });
});
