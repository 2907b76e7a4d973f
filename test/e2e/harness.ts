/**
 * Runs the real Claude Code CLI headless against a scripted model server (see model-server.ts).
 *
 *   const server = await startModelServer(policy, { logFile });
 *   const run = await runClaude({ pluginDir, projectDir, prompt: "/minions:review x", serverUrl: server.url, timeoutMs: 120_000 });
 *
 * Each run gets a fresh temporary HOME and CLAUDE_CONFIG_DIR, runs with cwd = projectDir, and is
 * killed (whole process group) at the timeout.
 */
import { execFileSync, spawn } from "node:child_process";
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, existsSync, lstatSync, readlinkSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { paced } from "../helpers/pace";
import { PLUGIN_DIR } from "../../scripts/build";

const HERE = dirname(fileURLToPath(import.meta.url));
/** The repository root (test/e2e/../..). */
export const REPO_ROOT = resolve(HERE, "..", "..");
/** The pinned CLI installed as a dev dependency. */
export const CLAUDE_BIN = process.env.MINIONS_CLAUDE_BIN ?? join(REPO_ROOT, "node_modules", ".bin", "claude");

/** One parsed line of `--output-format stream-json`. */
export type StreamEvent = { type: string; subtype?: string; [k: string]: unknown };

export interface RunClaudeOptions {
  /** `--plugin-dir`; omitted: the plugins installed in the run's HOME (see homeDir). */
  pluginDir?: string;
  projectDir: string;
  prompt: string;
  serverUrl: string;
  /** Hard timeout; the process group is killed (SIGTERM, then SIGKILL 2 s later). Default 120 000 on an idle machine (paced). */
  timeoutMs?: number;
  /** Extra environment (overrides the defaults). A value of undefined removes the variable. */
  env?: Record<string, string | undefined>;
  /** Extra CLI arguments appended after the defaults. */
  extraArgs?: string[];
  /** Use this HOME instead of a fresh temp dir (CLAUDE_CONFIG_DIR becomes <home>/.claude). */
  homeDir?: string;
  /** Called for each stream-json event as it arrives (for live progress). */
  onEvent?: (event: StreamEvent) => void;
  /** `--permission-mode`; default bypassPermissions. */
  permissionMode?: PermissionMode;
  /** Aborting it kills the run's process group, as the timeout does. */
  signal?: AbortSignal;
}

/** The CLI's `--permission-mode` values the tests use. */
export type PermissionMode = "bypassPermissions" | "default" | "acceptEdits";

export interface RunClaudeResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  /** Parsed stream-json lines (lines that are not JSON are skipped; see stdout). */
  events: StreamEvent[];
  stdout: string;
  stderr: string;
  durationMs: number;
  /** The temporary HOME and CLAUDE_CONFIG_DIR used (transcripts live under <configDir>/projects). */
  homeDir: string;
  configDir: string;
}

/** Variables from the parent environment that must not leak into the child CLI. */
const SCRUB = /^(ANTHROPIC_|CLAUDE_|CLAUDECODE$|OTEL_|MCP_)/;

export function claudeEnv(serverUrl: string, homeDir: string, configDir: string): Record<string, string> {
  const base: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !SCRUB.test(k)) base[k] = v;
  return {
    ...base,
    HOME: homeDir,
    CLAUDE_CONFIG_DIR: configDir,
    // Background-agent output files (tasks/<agentId>.output) go here instead of /tmp/claude-<uid>/.
    CLAUDE_CODE_TMPDIR: join(homeDir, "tmp"),
    ANTHROPIC_BASE_URL: serverUrl,
    ANTHROPIC_API_KEY: "test",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    IS_SANDBOX: "1",
  };
}

export function parseStreamJson(stdout: string): StreamEvent[] {
  const events: StreamEvent[] = [];
  for (const line of stdout.split("\n")) {
    const t = line.trim();
    if (!t.startsWith("{")) continue;
    try {
      events.push(JSON.parse(t) as StreamEvent);
    } catch {
      /* partial or non-JSON line */
    }
  }
  return events;
}

export function runClaude(opts: RunClaudeOptions): Promise<RunClaudeResult> {
  const timeoutMs = opts.timeoutMs ?? paced(120_000);
  const homeDir = opts.homeDir ?? mkdtempSync(join(tmpdir(), "claude-home-"));
  const configDir = join(homeDir, ".claude");
  mkdirSync(configDir, { recursive: true });
  mkdirSync(join(homeDir, "tmp"), { recursive: true });
  const env: Record<string, string> = claudeEnv(opts.serverUrl, homeDir, configDir);
  for (const [k, v] of Object.entries(opts.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  const args = [
    "-p",
    opts.prompt,
    ...(opts.pluginDir === undefined ? [] : ["--plugin-dir", opts.pluginDir]),
    "--permission-mode",
    opts.permissionMode ?? "bypassPermissions",
    "--output-format",
    "stream-json",
    "--verbose",
    "--include-hook-events",
    ...(opts.extraArgs ?? []),
  ];
  const started = Date.now();
  return new Promise((resolvePromise, reject) => {
    const child = spawn(CLAUDE_BIN, args, {
      cwd: opts.projectDir,
      env,
      detached: true, // own process group, so the timeout can kill hooks and subprocesses too
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    let pending = "";
    const emitLines = (final: boolean): void => {
      if (!opts.onEvent) return;
      const lines = pending.split("\n");
      pending = final ? "" : lines.pop() ?? "";
      for (const event of parseStreamJson(lines.join("\n"))) {
        try {
          opts.onEvent(event);
        } catch {
          /* a listener's error must not break the run */
        }
      }
    };
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      stdout += d;
      pending += d;
      emitLines(false);
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const killGroup = (sig: NodeJS.Signals): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, sig);
      } catch {
        /* already gone */
      }
    };
    let killTimer: NodeJS.Timeout | undefined;
    const stopRun = (): void => {
      killGroup("SIGTERM");
      killTimer = setTimeout(() => killGroup("SIGKILL"), 2000);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stopRun();
    }, timeoutMs);
    opts.signal?.addEventListener("abort", stopRun, { once: true });
    child.on("error", (e) => {
      clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      reject(e);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      opts.signal?.removeEventListener("abort", stopRun);
      if (killTimer) clearTimeout(killTimer);
      // Reap anything the CLI left behind in its group (background hooks, shells).
      killGroup("SIGKILL");
      emitLines(true);
      resolvePromise({
        exitCode: code,
        signal,
        timedOut,
        events: parseStreamJson(stdout),
        stdout,
        stderr,
        durationMs: Date.now() - started,
        homeDir,
        configDir,
      });
    });
  });
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "e2e",
      GIT_AUTHOR_EMAIL: "e2e@example.invalid",
      GIT_COMMITTER_NAME: "e2e",
      GIT_COMMITTER_EMAIL: "e2e@example.invalid",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/**
 * A fresh git repository holding `files` (relative path → content), committed: a new temp dir, or
 * `into` (created if missing; it should be empty).
 */
export function makeGitProject(files: Record<string, string>, prefix = "e2e-project-", into?: string): string {
  const dir = into ?? mkdtempSync(join(tmpdir(), prefix));
  mkdirSync(dir, { recursive: true });
  for (const [rel, content] of Object.entries(files)) {
    const p = join(dir, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, content);
  }
  git(dir, "init", "-q", "-b", "main");
  git(dir, "config", "commit.gpgsign", "false");
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "--allow-empty", "-m", "initial");
  return dir;
}

/**
 * Copies what a `git clone` of the working tree would contain: tracked files plus untracked files
 * that are not ignored (so uncommitted work is included, node_modules and build junk are not).
 * Files deleted from the working tree but still tracked are skipped.
 */
export function copyCommittedPlugin(repoDir: string, dest?: string): string {
  const out = dest ?? mkdtempSync(join(tmpdir(), "e2e-plugin-"));
  const listed = git(repoDir, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    .split("\0")
    .filter((f) => f.length > 0);
  for (const rel of new Set(listed)) {
    const src = join(repoDir, rel);
    if (!existsSync(src) && !isSymlink(src)) continue;
    const dst = join(out, rel);
    mkdirSync(dirname(dst), { recursive: true });
    if (isSymlink(src)) symlinkSync(readlinkSync(src), dst);
    else if (lstatSync(src).isFile()) copyFileSync(src, dst);
  }
  return out;
}

/** A copy of the shipped plugin folder (plugin/, what `claude plugin install` copies), in a new temp dir or `dest`. */
export function copyShippedPlugin(dest?: string): string {
  const out = dest ?? mkdtempSync(join(tmpdir(), "e2e-plugin-"));
  cpSync(join(REPO_ROOT, PLUGIN_DIR), out, { recursive: true });
  return out;
}

function isSymlink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// stream-json helpers

/** Hook events surfaced by --include-hook-events (`system` events with subtype hook_started / hook_response). */
export function hookEvents(events: StreamEvent[]): StreamEvent[] {
  return events.filter((e) => e.type === "system" && typeof e.subtype === "string" && e.subtype.startsWith("hook"));
}

/**
 * `hook_response` events, optionally only those of one event (`hook_event`, e.g. "Stop") or one
 * `hook_name` (e.g. "PreToolUse:Write"). Each has output, stdout, stderr, exit_code, outcome.
 */
export function hookResponses(events: StreamEvent[], eventOrName?: string): StreamEvent[] {
  return events.filter(
    (e) =>
      e.type === "system" &&
      e.subtype === "hook_response" &&
      (eventOrName === undefined || e.hook_event === eventOrName || e.hook_name === eventOrName),
  );
}

/**
 * All `result` events. A -p run emits one per main-thread turn: background agents waking the main
 * agent add turns, so there can be several (`result_index` 0, 1, …), all printed at the end.
 */
export function resultEvents(events: StreamEvent[]): StreamEvent[] {
  return events.filter((e) => e.type === "result");
}

/** The last `result` event, if any. */
export function resultEvent(events: StreamEvent[]): StreamEvent | undefined {
  return resultEvents(events).at(-1);
}

/** `system` events of a given subtype (e.g. "informational", "notification", "task_notification"). */
export function systemEvents(events: StreamEvent[], subtype: string): StreamEvent[] {
  return events.filter((e) => e.type === "system" && e.subtype === subtype);
}
