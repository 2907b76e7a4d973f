/** The state file as a small database: validated reads, one lock, atomic writes, an archive. */
import fs from 'node:fs';
import path from 'node:path';
import { State, STATE_VERSION } from '../state/schema';
import { ARCHIVE_DIR, LOCK_FILE, PHASES_DIR, STATE_FILE, TMP_DIR } from '../state/paths';
import type { Effect, Loaded } from '../core/events';
import { describeZodError } from '../review/reviewer-output';
import { HookFailure } from './errors';

export const statePath = (root: string): string => path.join(root, STATE_FILE);

export function load(root: string): Loaded {
  let text: string;
  try {
    // A FIFO would block a read forever, a directory fails it: only a regular file is read.
    if (!fs.statSync(statePath(root)).isFile()) return { kind: 'broken', problem: 'it is not a regular file' };
    text = fs.readFileSync(statePath(root), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'none' };
    return { kind: 'broken', problem: `cannot read it: ${(err as Error).message}` };
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { kind: 'broken', problem: 'not valid JSON' };
  }
  return migrate(data);
}

/** Reads any known version of the state; only version 1 exists so far. */
export function migrate(data: unknown): Loaded {
  const version = (data as { version?: unknown } | null)?.version;
  if (version !== STATE_VERSION) return { kind: 'broken', problem: `unknown state version ${JSON.stringify(version)}` };
  const result = State.safeParse(data);
  return result.success ? { kind: 'ok', state: result.data } : { kind: 'broken', problem: describeZodError(result.error) };
}

// The lock and the atomic writer are loaded on first use: the read-only gates never pay for them.
async function writeAtomic(file: string, content: string): Promise<void> {
  const { default: writeFileAtomic } = await import('write-file-atomic');
  await writeFileAtomic(file, content);
}

export async function save(root: string, state: State): Promise<void> {
  await writeAtomic(statePath(root), `${JSON.stringify(state, null, 2)}\n`);
}

/** Runs fn under the project's inter-process lock; a lock left by a dead process is taken over after 10 s. */
export async function withLock<T>(root: string, fn: () => Promise<T>): Promise<T> {
  fs.mkdirSync(path.join(root, TMP_DIR), { recursive: true });
  const { default: lockfile } = await import('proper-lockfile');
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(path.join(root, TMP_DIR), {
      lockfilePath: path.join(root, LOCK_FILE),
      realpath: false,
      stale: 10_000,
      update: 2_000,
      retries: { retries: 200, factor: 1.2, minTimeout: 10, maxTimeout: 100, randomize: true },
    });
  } catch (err) {
    throw new HookFailure('lock-timeout', `could not lock ${LOCK_FILE} (${(err as Error).message}); if no loop hook is running, delete it`, err);
  }
  try {
    return await fn();
  } finally {
    await release().catch(() => undefined);
  }
}

const PRE_SAVE = new Set<Effect['type']>(['write', 'mkdir', 'archive-previous']);
export const isPreSave = (effect: Effect): boolean => PRE_SAVE.has(effect.type);

/** Carries out the file effects; answers (block, deny, notify …) are left to the runner. */
export async function applyFileEffect(root: string, effect: Effect, now: string): Promise<void> {
  switch (effect.type) {
    case 'write':
      fs.mkdirSync(path.dirname(path.join(root, effect.path)), { recursive: true });
      await writeAtomic(path.join(root, effect.path), effect.content);
      return;
    case 'mkdir':
      fs.mkdirSync(path.join(root, effect.path), { recursive: true });
      return;
    case 'archive-previous': {
      const into = effect.into ?? previousRunId(root) ?? `unknown-${now.replace(/[-:.]/g, '')}`;
      await archive(root, into, true);
      return;
    }
    case 'archive-run':
      await archive(root, effect.into, effect.phases);
      return;
    default:
      return;
  }
}

function previousRunId(root: string): string | null {
  try {
    const run = JSON.parse(fs.readFileSync(path.join(root, PHASES_DIR, 'run.json'), 'utf8')) as { runId?: unknown };
    return typeof run.runId === 'string' && /^[\w.-]+$/.test(run.runId) ? run.runId : null;
  } catch {
    return null;
  }
}

/** Moves the state file (and phases/) into archive/<id>/, never overwriting what is there. */
async function archive(root: string, id: string, withPhases: boolean): Promise<void> {
  // A finished run's state is archived when it ends, its phases at the next start: both land in one folder.
  const dir = path.join(root, ARCHIVE_DIR, id.replace(/[^\w.-]/g, '_'));
  const moves: [string, string][] = [[statePath(root), path.join(dir, 'state.json')]];
  if (withPhases) moves.push([path.join(root, PHASES_DIR), path.join(dir, 'phases')]);
  for (const [from, to] of moves) {
    if (!fs.existsSync(from)) continue;
    fs.mkdirSync(path.dirname(to), { recursive: true });
    // Same file system (both under .agents/tmp), so a rename moves it atomically.
    fs.renameSync(from, fs.existsSync(to) ? `${to}.${Date.now()}` : to);
  }
}
