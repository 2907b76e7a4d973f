/**
 * The project's inter-process lock, .agents/tmp/state.lock: a file that names its holder (pid, host,
 * a unique token), created whole in one step (link(2) of a written ticket). The holder is alive as long
 * as its process is: a hook busy for seconds in synchronous work keeps the lock without refreshing it,
 * and the lock of a holder that was killed is taken over at once. A lock older than MAX_HOLD_MS is taken
 * over whatever its pid says (a reused pid, or a holder on another machine of a shared file system):
 * the host kills every hook long before that.
 *
 * Why not proper-lockfile: its liveness is the lock's mtime, refreshed by a timer, so a holder that blocks
 * its event loop for longer than `stale` loses the lock to the next hook and then crashes on ECOMPROMISED;
 * it has no pid-based option, and breaking a stale lock (rmdir, mkdir) can remove a lock just taken by a
 * third process. Breaking here happens under a short guard and only if the lock is still the dead one.
 */
import fs from 'node:fs';
import path from 'node:path';
import { HookFailure } from './errors';
import { HOST, isRunning, readRegular, readText, removeFile, tempPath, uniqueHex } from './files';

export const MAX_HOLD_MS = 120_000;
/** A legacy lock directory (proper-lockfile's) is stale after this long without an update. */
const LEGACY_STALE_MS = 10_000;
/** How far ahead of this machine's clock a holder's time may be (another machine of a shared file system). */
const CLOCK_SKEW_MS = 5_000;
/** A breaker holds its guard for a few system calls; a guard older than this was left by a killed one. */
const GUARD_STALE_MS = 5_000;
/** How long a take-over (LockOptions.takeOver) keeps breaking what stands at the lock before it gives up. */
const TAKE_OVER_MS = 5_000;

interface Holder {
  pid: number;
  host: string;
  token: string;
  at: number;
}

type Seen = { kind: 'free' } | { kind: 'held' } | { kind: 'dead'; raw: string | null };

export interface LockOptions {
  /** How long to wait for a live holder before giving up; default 25 s. */
  waitMs?: number;
  /** Where the ticket's temporary file is written (same file system as the lock). */
  tempRoot: string;
  /**
   * After the wait, take the lock whoever holds it (the cancel): a lock naming any live process and
   * rewritten every second looks held for ever, so without this an agent's background process could
   * keep /minions:cancel from ever running.
   */
  takeOver?: boolean;
}

/**
 * Runs fn while holding the lock file at `lockPath`. fn is given `held()`: whether the lock is still this
 * holder's, for a write to check first (only the cancel's take-over takes a live holder's lock).
 */
export async function withFileLock<T>(lockPath: string, options: LockOptions, fn: (held: () => boolean) => Promise<T>): Promise<T> {
  const token = `${process.pid}-${uniqueHex(8)}`;
  const deadline = Date.now() + (options.waitMs ?? 25_000);
  let delay = 5;
  for (;;) {
    if (tryAcquire(lockPath, token, options.tempRoot)) break;
    const seen = inspect(lockPath);
    if (seen.kind === 'dead') {
      breakDead(lockPath, seen.raw);
      continue;
    }
    if (seen.kind === 'free') continue;
    if (options.takeOver && Date.now() > deadline) {
      breakDead(lockPath, standing(lockPath), true);
      if (Date.now() < deadline + TAKE_OVER_MS) continue;
    }
    if (Date.now() > deadline) {
      throw new HookFailure('lock-timeout', `the loop's lock ${path.basename(lockPath)} is held by a running hook (waited ${Math.round((options.waitMs ?? 25_000) / 1000)} s); the action proceeds unchecked`);
    }
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(Math.round(delay * 1.5), 100);
  }
  const held = (): boolean => {
    const read = readRegular(lockPath);
    return read instanceof Buffer && parseHolder(read.toString('utf8'))?.token === token;
  };
  try {
    return await fn(held);
  } finally {
    release(lockPath, token);
  }
}

function tryAcquire(lockPath: string, token: string, tempRoot: string): boolean {
  const holder: Holder = { pid: process.pid, host: HOST, token, at: Date.now() };
  const ticket = tempPath(tempRoot);
  try {
    fs.writeFileSync(ticket, JSON.stringify(holder), { flag: 'wx' });
    try {
      fs.linkSync(ticket, lockPath);
      return true;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return false;
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'EXDEV') throw err;
    }
    // A file system without hard links: create exclusively, then fill (a reader allows for the gap).
    try {
      fs.writeFileSync(lockPath, JSON.stringify(holder), { flag: 'wx' });
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw err;
    }
  } finally {
    removeFile(ticket);
  }
}

function inspect(lockPath: string): Seen {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(lockPath);
  } catch {
    return { kind: 'free' };
  }
  const age = Date.now() - stat.mtimeMs;
  if (stat.isDirectory()) return age > LEGACY_STALE_MS ? { kind: 'dead', raw: null } : { kind: 'held' };
  const read = readRegular(lockPath);
  // No hook makes anything but a file here: a FIFO (whose read would block) or the like is nobody's lock.
  if (read === 'not-a-file') return { kind: 'dead', raw: null };
  if (read === null) return { kind: 'free' };
  const raw = read.toString('utf8');
  const holder = parseHolder(raw);
  // Unreadable: being filled (no hard links) if young, else left by something else.
  if (!holder) return age > GUARD_STALE_MS ? { kind: 'dead', raw } : { kind: 'held' };
  // A holder dated in the future (past a little clock skew), or a lock file dated so, is no hook's: a
  // forged lock must not hold the loop, and /minions:cancel, for ever.
  const now = Date.now();
  if (holder.at > now + CLOCK_SKEW_MS || stat.mtimeMs > now + CLOCK_SKEW_MS) return { kind: 'dead', raw };
  const alive = now - holder.at < MAX_HOLD_MS && age < MAX_HOLD_MS && (holder.host !== HOST || isRunning(holder.pid));
  return alive ? { kind: 'held' } : { kind: 'dead', raw };
}

function parseHolder(raw: string): Holder | null {
  try {
    const h = JSON.parse(raw) as Partial<Holder>;
    return typeof h.pid === 'number' && typeof h.host === 'string' && typeof h.token === 'string' && typeof h.at === 'number' ? (h as Holder) : null;
  } catch {
    return null;
  }
}

/** What stands at the lock, as breakDead compares it: a file's text, or null for anything else. */
function standing(lockPath: string): string | null {
  const read = readRegular(lockPath);
  return read instanceof Buffer ? read.toString('utf8') : null;
}

/** Removes a dead holder's lock, unless someone replaced it meanwhile; `force` takes a guard however young (the cancel's take-over). */
function breakDead(lockPath: string, raw: string | null, force = false): void {
  const guard = `${lockPath}.break`;
  try {
    fs.mkdirSync(guard);
  } catch {
    try {
      if (force || Date.now() - fs.statSync(guard).mtimeMs > GUARD_STALE_MS) fs.rmSync(guard, { recursive: true, force: true });
    } catch {
      // gone meanwhile
    }
    return;
  }
  try {
    const stat = fs.statSync(lockPath, { throwIfNoEntry: false });
    if (!stat) return;
    if (stat.isDirectory()) {
      if (raw === null) fs.rmSync(lockPath, { recursive: true, force: true });
      return;
    }
    const now = readRegular(lockPath);
    if (now === 'not-a-file' ? raw === null : now !== null && now.toString('utf8') === raw) fs.unlinkSync(lockPath);
  } catch {
    // taken or removed meanwhile: the next attempt sees it
  } finally {
    fs.rmSync(guard, { recursive: true, force: true });
  }
}

function release(lockPath: string, token: string): void {
  try {
    const raw = readText(lockPath);
    if (raw !== null && parseHolder(raw)?.token === token) fs.unlinkSync(lockPath);
  } catch {
    // already gone
  }
}
