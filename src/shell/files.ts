/**
 * Atomic file writes whose temporary files a killed process cannot strand: every temporary file is
 * named after its writer's pid in one folder per destination tree, and sweepTemps() removes those of
 * dead writers. Writes are atomic against a killed process (rename), not fsynced against power loss.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as shellTexts from './texts';
import { AGENTS_DIR, TMP_DIR } from '../protocol/paths';

/** The folder under a destination tree (.agents/tmp, the record) that holds its temporary files. */
export const TEMP_DIR = '.tmp';
const TEMP_NAME = /^(\d+)\.[0-9a-f]+\.tmp$/;

let counter = 0;

/**
 * `bytes` bytes of hex for names that must not collide: temporary files (beside the writer's pid and a
 * counter, created with O_EXCL) and lock tickets (beside the holder's pid). They need to differ, not to be
 * secret, so V8's generator (seeded per process from the system's entropy) does it, without node:crypto,
 * whose first randomBytes() costs a hook that hashes nothing 4–5 ms of CPU to load it.
 */
export function uniqueHex(bytes: number): string {
  let hex = '';
  for (let i = 0; i < bytes; i++) hex += ((Math.random() * 256) | 0).toString(16).padStart(2, '0');
  return hex;
}

/**
 * Removes a file if it is there: fs.rmSync(file, { force: true }) without node's rimraf and assert,
 * which rmSync loads on first use (a few percent of a hook's start).
 */
export function removeFile(file: string): void {
  try {
    fs.unlinkSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

/** What stands at a path, read only when it is a regular file (see openRegular). */
export type RegularRead = { kind: 'bytes'; bytes: Buffer } | { kind: 'absent' } | { kind: 'not-a-file' } | { kind: 'unreadable'; error: Error };

/**
 * A regular file opened for reading: its descriptor (the caller closes it) and its size, or what stands
 * there instead. It is opened without blocking and checked on the open descriptor, so nothing can be
 * swapped in between the check and the reads: a FIFO, which would block a read (and the hook with it)
 * until the host's timeout, a directory or a socket is 'not-a-file'.
 */
export function openDescriptor(file: string): { kind: 'open'; fd: number; size: number } | Exclude<RegularRead, { kind: 'bytes' }> {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? { kind: 'absent' } : code === 'EISDIR' ? { kind: 'not-a-file' } : { kind: 'unreadable', error: err as Error };
  }
  try {
    const stat = fs.fstatSync(fd);
    if (stat.isFile()) return { kind: 'open', fd, size: stat.size };
    fs.closeSync(fd);
    return { kind: 'not-a-file' };
  } catch (err) {
    fs.closeSync(fd);
    return { kind: 'unreadable', error: err as Error };
  }
}

/**
 * The most a hook reads of one file whole: ten times the largest file the hooks or their agents write
 * legitimately (a review of 16 MB), and far below what one string can hold (512 MB), so a file an agent
 * made huge (a sparse `truncate -s 600M`) is 'unreadable' instead of failing the hook that decodes it.
 */
export const MAX_READ_BYTES = 256 * 1024 * 1024;

/**
 * A file's bytes, read only when it is a regular file (openDescriptor): 'not-a-file' when something else
 * stands at the path, 'absent' when nothing does, 'unreadable' when it cannot be opened or read or is over
 * MAX_READ_BYTES. `into` may give the buffer to read it into, for its size (null: one of node's own).
 */
export function openRegular(file: string, into?: (size: number) => Buffer | null): RegularRead {
  const opened = openDescriptor(file);
  if (opened.kind !== 'open') return opened;
  if (opened.size > MAX_READ_BYTES) {
    fs.closeSync(opened.fd);
    return { kind: 'unreadable', error: new Error(`it is larger than ${MAX_READ_BYTES / 1024 ** 2} MB`) };
  }
  try {
    const target = into?.(opened.size);
    return { kind: 'bytes', bytes: target ? readAll(opened.fd, target) : fs.readFileSync(opened.fd) };
  } catch (err) {
    return { kind: 'unreadable', error: err as Error };
  } finally {
    fs.closeSync(opened.fd);
  }
}

/** openRegular's bytes, 'not-a-file', or null when the file is absent or unreadable. */
export function readRegular(file: string, into?: (size: number) => Buffer | null): Buffer | 'not-a-file' | null {
  const read = openRegular(file, into);
  return read.kind === 'bytes' ? read.bytes : read.kind === 'not-a-file' ? 'not-a-file' : null;
}

/** Reads a file into `target` from its start, up to the target's size or the file's end, whichever comes first. */
function readAll(fd: number, target: Buffer): Buffer {
  let got = 0;
  for (let n = 1; n > 0 && got < target.length; got += n) n = fs.readSync(fd, target, got, target.length - got, got);
  return target.subarray(0, got);
}

/** A regular file's text (UTF-8), or null: absent, unreadable, or not a regular file (see readRegular). */
export function readText(file: string): string | null {
  const bytes = readRegular(file);
  return bytes === null || bytes === 'not-a-file' ? null : bytes.toString('utf8');
}

/**
 * What stands at a path, symlinks followed or (`link`) the link itself: null when nothing does, or a
 * folder above it is not a folder.
 */
function statOf(file: string, link = false): fs.Stats | null {
  try {
    return (link ? fs.lstatSync : fs.statSync)(file, { throwIfNoEntry: false }) ?? null;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOTDIR') return null;
    throw err;
  }
}

/** Moves what stands at `file` to `<file>.moved-<ms>` beside it: the hooks need the name, and lose nothing. */
function moveAside(file: string): void {
  fs.renameSync(file, `${file}.moved-${Date.now()}-${uniqueHex(2)}`);
}

/**
 * Makes `dir` a folder, for the hooks' own trees (.agents/tmp, the record): a file, FIFO or socket that
 * stands where it or a folder above it should be (an agent's `touch .agents/tmp/archive`) is moved aside
 * rather than failing every later hook, the cancel included. From `within` down to `dir` (the tree's
 * root, when `dir` is in it) a symlink is moved aside too: the hooks' files are written in their own
 * folders, not wherever a link put there leads (`ln -s /elsewhere .agents/tmp/archive`).
 */
export function ownDir(dir: string, within?: string): void {
  if (within !== undefined && (dir === within || dir.startsWith(`${within}${path.sep}`))) {
    const parts = path.relative(within, dir).split(path.sep).filter(Boolean);
    for (let i = 0, at = within; i <= parts.length; at = path.join(at, parts[i] ?? ''), i++) {
      if (!statOf(at, true)?.isSymbolicLink()) continue;
      moveAside(at);
      break; // what was below it went with it
    }
  }
  try {
    fs.mkdirSync(dir, { recursive: true });
    return;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // ENOENT: a symlink to nothing on the way (mkdir follows it).
    if (code !== 'EEXIST' && code !== 'ENOTDIR' && code !== 'ENOENT') throw err;
  }
  // The deepest path that exists, from `dir` upwards: it is the one that is not a folder.
  for (let at = dir; ; at = path.dirname(at)) {
    const stat = statOf(at);
    if (stat) {
      if (!stat.isDirectory()) moveAside(at);
      break;
    }
    // A symlink to nothing: mkdir cannot make a folder through it either.
    if (statOf(at, true)?.isSymbolicLink()) {
      moveAside(at);
      break;
    }
    if (path.dirname(at) === at) break;
  }
  fs.mkdirSync(dir, { recursive: true });
}

/** A write refused because of what stands where it would go; its message is for the user, as it is. */
export class WriteRefused extends Error {}

/** Whether `dir`'s real path is `base`'s real path or below it (false when either cannot be resolved). */
export function realInside(dir: string, base: string): boolean {
  try {
    const real = fs.realpathSync.native(dir);
    const top = fs.realpathSync.native(base);
    return real === top || real.startsWith(`${top}${path.sep}`);
  } catch {
    return false;
  }
}

const CREATE_NEW = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | (fs.constants.O_NOFOLLOW ?? 0);

/** Creates `file` and writes `content` into it; anything standing there, a link included, fails it (EEXIST) and is left alone. */
export function createExclusive(file: string, content: string | Uint8Array, mode = 0o644): void {
  const fd = fs.openSync(file, CREATE_NEW, mode);
  try {
    fs.writeFileSync(fd, content);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Writes `file` through a temporary file in `tempRoot/.tmp` (the same file system) and a rename. Only for
 * the hooks' own files: a rename replaces a file, FIFO, socket or symlink (never followed), and a folder
 * standing at `file` is moved aside (looked for only when the rename fails, so a write costs no extra
 * call). A file in `tempRoot` is written only when its folder's real path is in `tempRoot`'s (see ownDir
 * for the links on the way); WriteRefused otherwise.
 */
export function writeAtomic(file: string, content: string | Uint8Array, tempRoot: string): void {
  const dir = path.dirname(file);
  ownDir(dir, tempRoot);
  const temp = tempPath(tempRoot);
  // A link put on the way since ownDir looked, or above tempRoot's own check: nothing goes through it.
  if ((dir === tempRoot || dir.startsWith(`${tempRoot}${path.sep}`)) && !(realInside(dir, tempRoot) && realInside(path.dirname(temp), tempRoot))) {
    throw new WriteRefused(shellTexts.files.linkedOut(dir, tempRoot));
  }
  try {
    createExclusive(temp, content);
    try {
      fs.renameSync(temp, file);
    } catch (err) {
      if (!statOf(file, true)?.isDirectory()) throw err;
      moveAside(file);
      fs.renameSync(temp, file);
    }
  } catch (err) {
    removeFile(temp);
    throw err;
  }
}

/** What `.agents/.gitignore` holds when the plugin made `.agents`: everything in it stays out of git. */
export const AGENTS_GITIGNORE = '*\n';

/**
 * The project's `.agents/tmp`, made a folder of the plugin's own (see ownDir) and returned. A `.agents`
 * the plugin makes gets a `.gitignore` that keeps it out of `git status`. `strict` (the CLI): a symbolic
 * link at `.agents` is refused (WriteRefused), and so is a `.agents/tmp` whose real path is not
 * `<root>/.agents/tmp`; the hooks leave that to writeAtomic's check of each file.
 */
export function ownTmp(root: string, strict = false): string {
  const agents = path.join(root, AGENTS_DIR);
  const tmp = path.join(root, TMP_DIR);
  const stat = statOf(agents, true);
  if (stat === null) {
    try {
      fs.mkdirSync(agents);
      createExclusive(path.join(agents, '.gitignore'), AGENTS_GITIGNORE);
    } catch (err) {
      // Made meanwhile by another hook, which writes the .gitignore itself.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  } else if (strict && stat.isSymbolicLink()) {
    throw new WriteRefused(shellTexts.files.agentsLinked(agents));
  }
  ownDir(tmp, tmp);
  if (strict && fs.realpathSync.native(tmp) !== path.join(fs.realpathSync.native(root), TMP_DIR)) throw new WriteRefused(shellTexts.files.linkedOut(tmp, root));
  return tmp;
}

/**
 * The CLI's write of a file of its own under the project's `.agents/tmp` (`rel`, project-relative): never
 * through a link, never outside it (ownTmp strict, then writeAtomic).
 */
export function writeInTmp(root: string, rel: string, content: string | Uint8Array): void {
  const tmp = ownTmp(root, true);
  const file = path.join(root, rel);
  if (!file.startsWith(`${tmp}${path.sep}`)) throw new WriteRefused(shellTexts.files.linkedOut(file, tmp));
  writeAtomic(file, content, tmp);
}

/**
 * Writes a file the user named (`minions report --out FILE`), wherever it is: through a new temporary file
 * beside it (created exclusively) and a rename, so a link standing at FILE is replaced, not followed. A
 * missing folder, a folder at FILE or a path through a non-folder is refused (WriteRefused), naming it.
 */
export function writeBeside(file: string, content: string | Uint8Array, shown: string = file): void {
  const dir = path.dirname(file);
  const shownDir = path.dirname(shown);
  const dirStat = statOf(dir);
  if (dirStat === null) throw new WriteRefused(shellTexts.files.missingFolder(shownDir === '.' ? dir : shownDir));
  if (!dirStat.isDirectory()) throw new WriteRefused(shellTexts.files.notAFolder(shownDir));
  if (statOf(file, true)?.isDirectory()) throw new WriteRefused(shellTexts.files.isAFolder(shown));
  const temp = path.join(dir, `.${path.basename(file)}.${process.pid}.${uniqueHex(4)}.tmp`);
  try {
    createExclusive(temp, content);
    fs.renameSync(temp, file);
  } catch (err) {
    removeFile(temp);
    throw err;
  }
}

/** Removes the temporary files (and lock tickets) of writers that are no longer running. */
export function sweepTemps(tempRoot: string): void {
  const dir = path.join(tempRoot, TEMP_DIR);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(TEMP_NAME.exec(name)?.[1] ?? NaN);
    if (Number.isInteger(pid) && pid !== process.pid && !isRunning(pid)) removeFile(path.join(dir, name));
  }
}

/** True while a process with this pid exists on this machine (EPERM: it exists, as another user). */
export function isRunning(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export const HOST = os.hostname();

/** A fresh temporary file's path under `tempRoot/.tmp`, named after this process. */
export function tempPath(tempRoot: string): string {
  const dir = path.join(tempRoot, TEMP_DIR);
  ownDir(dir, tempRoot);
  return path.join(dir, `${process.pid}.${(++counter).toString(16)}${uniqueHex(4)}.tmp`);
}
