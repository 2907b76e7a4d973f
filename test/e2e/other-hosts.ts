/**
 * Runs GitHub Copilot CLI and Codex CLI (pinned devDependencies) headless against a scripted model on
 * loopback, with the plugin as each host installs it, in a temp git project:
 *
 * - Copilot CLI: `copilot -p … --allow-all --plugin-dir plugin/`, BYOK with COPILOT_OFFLINE=true and a
 *   private COPILOT_HOME; the provider is Anthropic-type, so model-server.ts serves it (Copilot's tools
 *   through dialects.ts).
 * - Codex CLI: the marketplace added and the plugin installed into a private CODEX_HOME, the six agents
 *   copied to $CODEX_HOME/agents/, `codex exec --enable multi_agent_v2` against responses-server.ts.
 *   A model catalog names the scripted model so that Codex offers it apply_patch.
 *
 * Each run is killed (its whole process group) when `timeoutMs` passes; that only stops a hung run.
 */
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { paced } from '../helpers/pace';
import { CODEX_AGENTS_DIR } from '../../scripts/build';
import { copyShippedPlugin, REPO_ROOT } from './harness';
import { inDialect, type HostName } from './dialects';
import { contentText, startModelServer, type ModelServer } from './model-server';
import { startResponsesServer } from './responses-server';
import { listFiles, makeScenarioProject, readOrNull, reviewPrompt } from './scenarios';
import { scriptedModel, type Scenario } from './scripted-model';

export const COPILOT_BIN = join(REPO_ROOT, 'node_modules', '.bin', 'copilot');
export const CODEX_BIN = join(REPO_ROOT, 'node_modules', '.bin', 'codex');
/** The versions the scenarios were written against (package.json pins them). */
export const VERSIONS = { copilot: '1.0.102', codex: '0.171.0' } as const;

export interface HostRun {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  durationMs: number;
  /** The run's private home (COPILOT_HOME or CODEX_HOME). */
  home: string;
}

/** Variables of the surrounding session or user that must not reach the CLI under test. */
const SCRUB = /^(ANTHROPIC_|CLAUDE_|CLAUDECODE$|COPILOT_|GITHUB_TOKEN$|GH_TOKEN$|GH_HOST$|OPENAI_|CODEX_|OTEL_|MCP_|MINIONS_)/;

function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !SCRUB.test(k)) env[k] = v;
  return env;
}

function run(bin: string, args: string[], cwd: string, env: Record<string, string>, timeoutMs: number, home: string): Promise<HostRun> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const kill = (sig: NodeJS.Signals): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, sig);
      } catch {
        /* gone */
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill('SIGTERM');
      setTimeout(() => kill('SIGKILL'), 2000).unref();
    }, timeoutMs);
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (exitCode, signal) => {
      clearTimeout(timer);
      kill('SIGKILL');
      resolve({ exitCode, signal, timedOut, stdout, stderr, durationMs: Date.now() - started, home });
    });
  });
}

/**
 * Copilot CLI runs the plugin from `--plugin-dir`, or (`installed`) from its marketplace as a user adds it:
 * a copy of this repository's marketplace (pointing at plugin/) added and minions@minions installed.
 */
export function runCopilot(opts: { pluginDir: string; projectDir: string; prompt: string; serverUrl: string; timeoutMs: number; installed?: boolean }): Promise<HostRun> {
  const home = mkdtempSync(join(tmpdir(), 'copilot-home-'));
  if (opts.installed) {
    const marketplace = join(home, 'marketplace');
    mkdirSync(join(marketplace, '.claude-plugin'), { recursive: true });
    cpSync(join(REPO_ROOT, '.claude-plugin', 'marketplace.json'), join(marketplace, '.claude-plugin', 'marketplace.json'));
    copyShippedPlugin(join(marketplace, 'plugin'));
    const env = { ...baseEnv(), COPILOT_HOME: home, COPILOT_OFFLINE: 'true' };
    execFileSync(COPILOT_BIN, ['plugin', 'marketplace', 'add', marketplace], { env, stdio: 'pipe' });
    execFileSync(COPILOT_BIN, ['plugin', 'install', 'minions@minions'], { env, stdio: 'pipe' });
  }
  const env = {
    ...baseEnv(),
    COPILOT_HOME: home,
    COPILOT_OFFLINE: 'true',
    COPILOT_PROVIDER_TYPE: 'anthropic',
    COPILOT_PROVIDER_BASE_URL: opts.serverUrl,
    COPILOT_PROVIDER_API_KEY: 'test',
    COPILOT_MODEL: 'claude-sonnet-4.5',
  };
  const plugin = opts.installed ? [] : ['--plugin-dir', opts.pluginDir];
  return run(COPILOT_BIN, ['-p', opts.prompt, '--allow-all', '--no-auto-update', ...plugin], opts.projectDir, env, opts.timeoutMs, home);
}

/** A model catalog entry for the scripted model: Codex then offers it apply_patch (freeform), as its own models get. */
const CATALOG = {
  models: [
    {
      slug: 'scripted',
      display_name: 'scripted',
      description: 'A scripted model on loopback.',
      supports_reasoning_summaries: false,
      support_verbosity: false,
      default_verbosity: null,
      apply_patch_tool_type: 'freeform',
      input_modalities: ['text'],
      truncation_policy: { mode: 'tokens', limit: 10000 },
      supports_parallel_tool_calls: true,
      context_window: 272000,
      reasoning_summary_format: 'none',
      default_reasoning_level: 'medium',
      supported_reasoning_levels: [{ effort: 'medium', description: 'medium' }],
      shell_type: 'shell_command',
      visibility: 'list',
      minimal_client_version: '0.0.1',
      supported_in_api: true,
      upgrade: null,
      priority: 0,
      base_instructions: 'You are a scripted model.',
      experimental_supported_tools: [],
    },
  ],
};

/**
 * A CODEX_HOME with the plugin installed as a user installs it: the marketplace (a copy of this
 * repository's, pointing at plugin/) added, minions@minions added, the six agents copied to agents/.
 */
export function codexHome(serverUrl: string): string {
  const home = mkdtempSync(join(tmpdir(), 'codex-home-'));
  const marketplace = join(home, 'marketplace');
  mkdirSync(join(marketplace, '.claude-plugin'), { recursive: true });
  cpSync(join(REPO_ROOT, '.claude-plugin', 'marketplace.json'), join(marketplace, '.claude-plugin', 'marketplace.json'));
  copyShippedPlugin(join(marketplace, 'plugin'));
  writeFileSync(join(home, 'catalog.json'), JSON.stringify(CATALOG));
  writeFileSync(
    join(home, 'config.toml'),
    [
      'model = "scripted"',
      'model_provider = "local"',
      `model_catalog_json = ${JSON.stringify(join(home, 'catalog.json'))}`,
      '[model_providers.local]',
      'name = "local"',
      `base_url = ${JSON.stringify(`${serverUrl}/v1`)}`,
      'wire_api = "responses"',
      'env_key = "LOCAL_API_KEY"',
      '',
    ].join('\n'),
  );
  const env = { ...baseEnv(), CODEX_HOME: home, LOCAL_API_KEY: 'test' };
  execFileSync(CODEX_BIN, ['plugin', 'marketplace', 'add', marketplace], { env, stdio: 'pipe' });
  execFileSync(CODEX_BIN, ['plugin', 'add', 'minions@minions'], { env, stdio: 'pipe' });
  cpSync(join(marketplace, 'plugin', CODEX_AGENTS_DIR), join(home, 'agents'), { recursive: true });
  return home;
}

export function runCodex(opts: { projectDir: string; prompt: string; serverUrl: string; timeoutMs: number }): Promise<HostRun> {
  const home = codexHome(opts.serverUrl);
  const env = { ...baseEnv(), CODEX_HOME: home, LOCAL_API_KEY: 'test' };
  const args = ['exec', '--skip-git-repo-check', '--dangerously-bypass-hook-trust', '--dangerously-bypass-approvals-and-sandbox', '--enable', 'multi_agent_v2', opts.prompt];
  return run(CODEX_BIN, args, opts.projectDir, env, opts.timeoutMs, home);
}

// ── One scenario, run and summarised ────────────────────────────────────────────

export interface HostLoopReport {
  host: HostName;
  scenario: Scenario;
  projectDir: string;
  run: HostRun;
  server: ModelServer;
  modelLog: string;
  state: Record<string, any> | null;
  stateWhere: 'archive' | 'live' | 'none';
  /** Files under .agents/tmp/phases/, relative to it. */
  phases: string[];
  read(rel: string): string | null;
  readPhase(rel: string): string | null;
  /** Every tool result the host gave back, by the model's call (Claude Code's name and input) — denials included. */
  results: { name: string; input: Record<string, unknown>; agent: string | undefined; text: string; isError: boolean }[];
  diagnostics(): string;
  cleanup(): void;
}

function readJson(file: string): Record<string, any> | null {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, any>;
  } catch {
    return null;
  }
}

const clip = (s: string, n: number): string => (s.length <= n ? s : `${s.slice(0, n)}…[+${s.length - n}]`);

export async function runHostLoop(host: HostName, scenario: Scenario, opts: { pluginDir: string; timeoutMs?: number; installed?: boolean }): Promise<HostLoopReport> {
  const projectDir = makeScenarioProject(scenario, `e2e-${host}-`);
  const logDir = mkdtempSync(join(tmpdir(), `e2e-${host}-log-`));
  const modelLog = join(logDir, 'model.jsonl');
  const calls = new Map<string, import('./model-server').ToolUseBlock>();
  const policy = inDialect(host, scriptedModel(scenario, { projectDir }), calls);
  // Copilot marks its subagents' requests with x-interaction-type; model-server.ts reads Claude Code's header.
  const server =
    host === 'codex'
      ? await startResponsesServer(policy, { logFile: modelLog })
      : await startModelServer(
          (req) => {
            if (req.headers['x-interaction-type'] === 'conversation-subagent') req.agentId = 'copilot-subagent';
            return policy(req);
          },
          { logFile: modelLog },
        );
  const timeoutMs = opts.timeoutMs ?? paced(300_000);
  try {
    const prompt = reviewPrompt(scenario);
    const result =
      host === 'codex'
        ? await runCodex({ projectDir, prompt, serverUrl: server.url, timeoutMs })
        : await runCopilot({ pluginDir: opts.pluginDir, projectDir, prompt, serverUrl: server.url, timeoutMs, installed: opts.installed === true });
    writeFileSync(join(logDir, 'stdout.txt'), result.stdout);
    writeFileSync(join(logDir, 'stderr.txt'), result.stderr);
    const tmp = join(projectDir, '.agents', 'tmp');
    const live = readJson(join(tmp, 'state.json'));
    const archived = listFiles(join(tmp, 'archive')).filter((f) => f.endsWith('/state.json') && f.split('/').length === 2);
    const archivedState = archived.length ? readJson(join(tmp, 'archive', archived.at(-1)!)) : null;
    const results: HostLoopReport['results'] = [];
    const seen = new Set<string>();
    for (const rec of server.requests) {
      for (const m of rec.request?.messages ?? []) {
        if (typeof m.content === 'string') continue;
        for (const b of m.content) {
          if (b.type !== 'tool_result' || !b.tool_use_id || seen.has(b.tool_use_id) || !calls.has(b.tool_use_id)) continue;
          seen.add(b.tool_use_id);
          const call = calls.get(b.tool_use_id)!;
          const text = contentText(b.content) || (typeof b.content === 'string' ? b.content : JSON.stringify(b.content ?? ''));
          results.push({ name: call.name, input: (call.input ?? {}) as Record<string, unknown>, agent: rec.request?.agentId, text, isError: b.is_error === true });
        }
      }
    }
    const report: HostLoopReport = {
      host,
      scenario,
      projectDir,
      run: result,
      server,
      modelLog,
      state: live ?? archivedState,
      stateWhere: live ? 'live' : archivedState ? 'archive' : 'none',
      phases: listFiles(join(tmp, 'phases')),
      read: (rel) => readOrNull(join(projectDir, rel)),
      readPhase: (rel) => readOrNull(join(tmp, 'phases', rel)),
      results,
      diagnostics: () =>
        [
          `── ${host} scenario "${scenario.name}" in ${projectDir}; exit=${result.exitCode} signal=${result.signal} timedOut=${result.timedOut} ${result.durationMs} ms; logs ${logDir}`,
          `── state (${report.stateWhere})`,
          report.state ? clip(JSON.stringify(report.state, null, 1), 3000) : '  (none)',
          '── phases',
          ...report.phases.map((p) => `  ${p}`),
          '── tool results',
          ...results.map((r) => `  ${r.agent ?? 'main'} ${r.name}(${clip(JSON.stringify(r.input), 120)}) → ${r.isError ? 'ERROR ' : ''}${clip(r.text.replace(/\s+/g, ' '), 200)}`),
          '── stdout',
          clip(result.stdout, 3000),
          '── stderr',
          clip(result.stderr, 3000),
        ].join('\n'),
      cleanup: () => {
        for (const dir of [projectDir, result.home, logDir]) rmSync(dir, { recursive: true, force: true });
      },
    };
    return report;
  } finally {
    await server.close();
  }
}

