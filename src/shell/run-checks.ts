/**
 * Runs the project's checks: each command through /bin/sh in the project root, stdout and stderr into
 * one temporary file (in the order written), its own process group, a timeout. Whatever the command
 * leaves running is killed with its group. Returns plain data and never throws.
 */
import { spawn } from './child-process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CheckRun } from '../protocol/check-runs';
import { CHECKS_BUDGET_SECONDS } from '../config/options';

/** The full output kept of one check: its last bytes (a failing test suite's summary is at the end). */
export const MAX_LOG_BYTES = 1024 * 1024;
/** After SIGTERM, a check's process group has this long before SIGKILL. */
const KILL_GRACE_MS = 2000;

export interface RunChecksOptions {
  timeoutSeconds: number;
  /** All checks of this run together; a check that would start after it is spent is not run. */
  budgetSeconds?: number;
  env?: NodeJS.ProcessEnv;
}

export async function runChecks(root: string, commands: readonly string[], options: RunChecksOptions): Promise<CheckRun[]> {
  const deadline = Date.now() + (options.budgetSeconds ?? CHECKS_BUDGET_SECONDS) * 1000;
  const runs: CheckRun[] = [];
  for (const command of commands) {
    const left = deadline - Date.now();
    if (left < 1000) {
      runs.push({ command, exitCode: null, signal: null, timedOut: true, durationMs: 0, output: '', outputBytes: 0, error: `not run: the checks' ${options.budgetSeconds ?? CHECKS_BUDGET_SECONDS} s budget was spent` });
      continue;
    }
    runs.push(await runCheck(root, command, Math.min(options.timeoutSeconds * 1000, left), options.env));
  }
  return runs;
}

export async function runCheck(root: string, command: string, timeoutMs: number, env: NodeJS.ProcessEnv = process.env): Promise<CheckRun> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minions-check-'));
  const logFile = path.join(dir, 'output.log');
  const started = performance.now();
  let fd: number | null = null;
  try {
    fd = fs.openSync(logFile, 'w');
    const result = await new Promise<{ exitCode: number | null; signal: string | null; timedOut: boolean; error: string | null }>((resolve) => {
      let timedOut = false;
      let child: ReturnType<typeof spawn>;
      try {
        child = spawn('/bin/sh', ['-c', command], { cwd: root, env, stdio: ['ignore', fd!, fd!], detached: true });
      } catch (err) {
        resolve({ exitCode: null, signal: null, timedOut: false, error: `could not start: ${(err as Error).message}` });
        return;
      }
      const group = (signal: NodeJS.Signals): void => {
        try {
          if (child.pid !== undefined) process.kill(-child.pid, signal);
        } catch {
          // the group is gone already
        }
      };
      let killer: NodeJS.Timeout | undefined;
      const timer = setTimeout(() => {
        timedOut = true;
        group('SIGTERM');
        killer = setTimeout(() => group('SIGKILL'), KILL_GRACE_MS);
      }, timeoutMs);
      child.on('error', (err) => {
        clearTimeout(timer);
        if (killer) clearTimeout(killer);
        resolve({ exitCode: null, signal: null, timedOut: false, error: `could not start: ${err.message}` });
      });
      child.on('exit', (code, signal) => {
        clearTimeout(timer);
        if (killer) clearTimeout(killer);
        // Nothing the check started outlives it (a server, a watcher, a sleeping child).
        group('SIGKILL');
        resolve({ exitCode: code, signal, timedOut, error: null });
      });
    });
    const outputBytes = fs.fstatSync(fd).size;
    return { command, ...result, durationMs: performance.now() - started, output: readTail(logFile, outputBytes), outputBytes };
  } catch (err) {
    return { command, exitCode: null, signal: null, timedOut: false, durationMs: performance.now() - started, output: '', outputBytes: 0, error: `could not run: ${(err as Error).message}` };
  } finally {
    if (fd !== null) fs.closeSync(fd);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The file's last MAX_LOG_BYTES, as text, with a first line saying how much was cut. */
function readTail(file: string, size: number): string {
  const length = Math.min(size, MAX_LOG_BYTES);
  const buffer = Buffer.alloc(length);
  const fd = fs.openSync(file, 'r');
  try {
    fs.readSync(fd, buffer, 0, length, size - length);
  } finally {
    fs.closeSync(fd);
  }
  const text = buffer.toString('utf8').replace(/^\uFFFD+/, '');
  return size > length ? `[the first ${size - length} bytes of the output were cut]\n${text}` : text;
}
