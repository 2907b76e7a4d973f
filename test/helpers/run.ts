/**
 * Runs the built hooks and CLI the way the host does.
 *
 * runHook('on-edit-gate', payload, { projectDir }) takes the exact command string for that bundle from
 * <pluginRoot>/hooks/hooks.json, checks the host would run it for this payload (event and matcher), and
 * runs it through `/bin/sh -c` with CLAUDE_PROJECT_DIR, CLAUDE_PLUGIN_ROOT, CLAUDE_PLUGIN_DATA and
 * CLAUDE_CODE_SESSION_ID set, cwd = the project, the payload on stdin.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { paced } from './pace';
import { tempDir } from './testdir';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export type HookName = 'on-prompt-submit' | 'on-task-gate' | 'on-edit-gate' | 'on-bash-gate' | 'on-subagent-stop' | 'on-stop';

interface HookEntry {
  event: string;
  matcher: string | undefined;
  command: string;
  timeout: number | undefined;
}

interface HooksFile {
  hooks: Record<string, { matcher?: string; hooks: { type: string; command: string; timeout?: number }[] }[]>;
}

export function hookEntries(pluginRoot = REPO_ROOT): HookEntry[] {
  const file = JSON.parse(fs.readFileSync(path.join(pluginRoot, 'hooks', 'hooks.json'), 'utf8')) as HooksFile;
  return Object.entries(file.hooks).flatMap(([event, groups]) =>
    groups.flatMap((group) => group.hooks.map((h) => ({ event, matcher: group.matcher, command: h.command, timeout: h.timeout }))),
  );
}

/** The hooks.json entry whose command runs dist/<name>.cjs (through dist/launch.cjs). */
export function hookEntry(name: HookName, pluginRoot = REPO_ROOT): HookEntry {
  const runs = new RegExp(`/dist/(?:launch\\.cjs"? )?${name}(?:\\.cjs)?(?:"|\\s|$)`);
  const found = hookEntries(pluginRoot).filter((e) => runs.test(e.command));
  if (found.length !== 1) throw new Error(`hooks.json has ${found.length} commands for ${name}`);
  return found[0]!;
}

/** The host matches a PreToolUse matcher against the whole tool name. */
export const matcherMatches = (matcher: string | undefined, toolName: string): boolean =>
  matcher === undefined || matcher === '' || matcher === '*' || new RegExp(`^(?:${matcher})$`).test(toolName);

/** The test process's environment without anything the host or a surrounding session set. */
export function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !/^(CLAUDE_|CLAUDECODE$|ANTHROPIC_|MINIONS_)/.test(k)) env[k] = v;
  return env;
}

export interface ProcessResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export interface HookResult extends Omit<ProcessResult, 'stdout'> {
  /** stdout parsed as JSON, or null when it was empty. */
  stdout: Record<string, any> | null;
  raw: string;
}

export interface SpawnOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdin?: string | Buffer;
  timeoutMs?: number;
  /** SIGKILLs the process when this settles (crash tests). */
  killOn?: Promise<unknown>;
}

export function spawnProcess(command: string, args: string[], options: SpawnOptions): Promise<ProcessResult> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    // A hook may exit without reading its stdin (the early `exit 0`): that is not an error.
    child.stdin.on('error', () => undefined);
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? paced(30_000));
    void options.killOn?.then(() => child.kill('SIGKILL'));
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), ms: Math.round(performance.now() - started) });
    });
    child.stdin.end(options.stdin ?? '');
  });
}

let pluginData: string | null = null;

/** The run's plugin data folder, made by test/helpers/hooks-setup.ts. */
export const PLUGIN_DATA_ENV = 'MINIONS_TEST_PLUGIN_DATA';

/**
 * The plugin's data folder the hooks are given (CLAUDE_PLUGIN_DATA): one per run, as the host has one
 * per plugin, so the hooks' code cache (dist/launch.cjs) is compiled once per bundle; outside the
 * hooks project, one per test process, removed with the test dirs. What the hooks keep there is
 * keyed by project, so tests do not see each other's.
 */
export function pluginDataDir(): string {
  const shared = process.env[PLUGIN_DATA_ENV];
  if (shared) return shared;
  if (!pluginData || !fs.existsSync(pluginData)) pluginData = tempDir('minions-data-');
  return pluginData;
}

/** The environment the host gives every hook of a project (before the test's additions). */
export const hookEnv = (projectDir: string, pluginRoot = REPO_ROOT): NodeJS.ProcessEnv => ({
  ...cleanEnv(),
  CLAUDE_PROJECT_DIR: projectDir,
  CLAUDE_PLUGIN_ROOT: pluginRoot,
  CLAUDE_PLUGIN_DATA: pluginDataDir(),
});

export interface RunHookOptions {
  /** The project (CLAUDE_PROJECT_DIR); default: the payload's cwd. */
  projectDir?: string;
  /** The hook's working directory; default: the project. */
  cwd?: string;
  /** Added to (or, with undefined, removed from) the hook's environment. */
  env?: Record<string, string | undefined>;
  pluginRoot?: string;
  /** argv before `/bin/sh -c <command>`, e.g. setpriv to run as another user. */
  wrap?: string[];
  timeoutMs?: number;
  /** SIGKILLs the hook when this settles (crash tests). */
  killOn?: Promise<unknown>;
}

/** Runs one hook as the host would; `payload` is an object (sent as JSON) or raw stdin text. */
export async function runHook(name: HookName, payload: Record<string, unknown> | string | Buffer, options: RunHookOptions = {}): Promise<HookResult> {
  const pluginRoot = options.pluginRoot ?? REPO_ROOT;
  const entry = hookEntry(name, pluginRoot);
  const isObject = typeof payload === 'object' && !Buffer.isBuffer(payload);
  if (isObject) {
    if (payload.hook_event_name !== undefined && payload.hook_event_name !== entry.event) {
      throw new Error(`${name} runs on ${entry.event}, the payload is a ${String(payload.hook_event_name)}`);
    }
    if (entry.event === 'PreToolUse' && typeof payload.tool_name === 'string' && !matcherMatches(entry.matcher, payload.tool_name)) {
      throw new Error(`the host would not run ${name} (matcher ${entry.matcher}) for tool ${payload.tool_name}`);
    }
  }
  const projectDir = options.projectDir ?? (isObject && typeof payload.cwd === 'string' ? payload.cwd : undefined);
  if (!projectDir) throw new Error('runHook needs a projectDir for a raw payload');
  const env: NodeJS.ProcessEnv = {
    ...hookEnv(projectDir, pluginRoot),
    ...(isObject && typeof payload.session_id === 'string' ? { CLAUDE_CODE_SESSION_ID: payload.session_id } : {}),
  };
  for (const [k, v] of Object.entries(options.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  const argv = [...(options.wrap ?? []), '/bin/sh', '-c', entry.command];
  const result = await spawnProcess(argv[0]!, argv.slice(1), {
    cwd: options.cwd ?? projectDir,
    env,
    stdin: isObject ? JSON.stringify(payload) : payload,
    // The host's own limit, scaled to this run's pace.
    timeoutMs: options.timeoutMs ?? paced((entry.timeout ?? 60) * 1000),
    killOn: options.killOn,
  });
  const raw = result.stdout;
  let stdout: Record<string, any> | null = null;
  if (raw.trim() !== '') {
    try {
      stdout = JSON.parse(raw);
    } catch {
      throw new Error(`${name} printed something that is not JSON: ${raw.slice(0, 300)}`);
    }
  }
  return { ...result, stdout, raw };
}

export interface RunCliOptions {
  cwd: string;
  /** CLAUDE_CODE_SESSION_ID, as the host sets it for a command's `!` line; omitted when undefined. */
  sessionId?: string;
  env?: Record<string, string | undefined>;
  pluginRoot?: string;
  /** argv before `node`, e.g. setpriv to run as another user. */
  wrap?: string[];
  /** Killed (SIGKILL) after this long; default 30 s on an idle machine (paced). */
  timeoutMs?: number;
}

/** Runs dist/cli.mjs as a command's `!` line does: cwd = the project, no CLAUDE_PROJECT_DIR / CLAUDE_PLUGIN_ROOT. */
export async function runCli(args: string[], options: RunCliOptions): Promise<ProcessResult> {
  const env: NodeJS.ProcessEnv = { ...cleanEnv(), ...(options.sessionId ? { CLAUDE_CODE_SESSION_ID: options.sessionId } : {}) };
  for (const [k, v] of Object.entries(options.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  const argv = [...(options.wrap ?? []), process.execPath, path.join(options.pluginRoot ?? REPO_ROOT, 'dist', 'cli.mjs'), ...args];
  return spawnProcess(argv[0]!, argv.slice(1), { cwd: options.cwd, env, timeoutMs: options.timeoutMs });
}

/**
 * Runs a command file's `!` line (commands/<name>.md) as the host does: ${CLAUDE_PLUGIN_ROOT} and
 * $ARGUMENTS substituted in the text, then `/bin/sh -c` in the project with CLAUDE_CODE_SESSION_ID set.
 */
export async function runCommandLine(name: 'status' | 'cancel' | 'restore' | 'report' | 'dismiss', args: string, options: RunCliOptions): Promise<ProcessResult> {
  const pluginRoot = options.pluginRoot ?? REPO_ROOT;
  const text = fs.readFileSync(path.join(pluginRoot, 'commands', `${name}.md`), 'utf8');
  const line = /^!`(.*)`\s*$/m.exec(text)?.[1];
  if (!line) throw new Error(`commands/${name}.md has no ! line`);
  const command = line.replaceAll('${CLAUDE_PLUGIN_ROOT}', pluginRoot).replaceAll('$ARGUMENTS', args);
  const env: NodeJS.ProcessEnv = { ...cleanEnv(), ...(options.sessionId ? { CLAUDE_CODE_SESSION_ID: options.sessionId } : {}) };
  return spawnProcess('/bin/sh', ['-c', command], { cwd: options.cwd, env });
}
