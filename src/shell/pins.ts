/**
 * Reads the pins (checks/pins.ts): fingerprints of the files outside the tree snapshot that change what
 * git or the project's checks run. Returns plain data and never throws.
 *
 * The git dir's pins, taken at the loop's start and read again at each phase end. Everything git reads
 * as configuration or runs as a program, for this work tree:
 * - the common git dir's `config` and `config.worktree`, its `hooks/` and `info/` (attributes, exclude,
 *   sparse-checkout, grafts: every file, new ones included), `objects/info/alternates` and
 *   `objects/info/http-alternates` (where objects come from);
 * - a linked worktree's own git dir: `config.worktree`, `commondir` (which common dir it reads) and `info/`;
 *   and the `.git` file in the work tree that names that git dir;
 * - submodules' git dirs under `modules/` (their `config`, `config.worktree`, `hooks/`, `info/`): `git
 *   status` recurses into them;
 * - the config files git names for the loop's start (`git config --list --show-origin`: system, global,
 *   XDG, every included file), the global ones even when absent then (`~/.gitconfig`,
 *   `$XDG_CONFIG_HOME/git/config`, `$GIT_CONFIG_GLOBAL`) and the global attributes file, and the folder
 *   core.hooksPath names.
 * Not pinned: refs, HEAD, the index, logs and objects (data, not programs); other worktrees' own files;
 * a file a conditional include names that did not exist at the start.
 *
 * The checks' pins, taken at the loop's start when checks are configured: what a check command resolves
 * to (checkNames) that the start's snapshot does not hold. A bare program name is looked up in
 * node_modules/.bin, .venv/bin and venv/bin; a path is taken as written. A link pins its target, the file
 * it leads to, and, in node_modules, that package's folder by the stat data of its files (size, times,
 * mode: a package is not hashed, and ctime cannot be set back).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from './child-process';
import { findGitDir } from './record';
import { sha256 } from '../state/digest';
import { checkNames, mergeChanges, pinChanges, type PinChange, type PinRecord, type Pins } from '../checks/pins';
import type { PinnedChanges } from '../core/events';

/** A key ending so is a folder whose entries are pinned one by one; ending `/**`, one pinned by the stat data of its tree. */
const EACH = '/';
const TREE = '/**';
/** A package folder is fingerprinted by at most this many entries. */
const MAX_TREE_ENTRIES = 5000;
/** Where a bare program name of a check is looked up, in the project. */
const BIN_DIRS = ['node_modules/.bin', '.venv/bin', 'venv/bin'];
/** Files larger than this are pinned by their stat data, not hashed. */
const MAX_HASHED = 16 * 1024 * 1024;

function commonDirOf(gitDir: string): string {
  try {
    return path.resolve(gitDir, fs.readFileSync(path.join(gitDir, 'commondir'), 'utf8').trim());
  } catch {
    return gitDir;
  }
}

/** The global config files git reads whether or not they exist now. */
function globalConfigFiles(env: NodeJS.ProcessEnv): string[] {
  const home = env.HOME ?? os.homedir();
  const xdg = env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : path.join(home, '.config');
  return [
    path.join(home, '.gitconfig'),
    path.join(xdg, 'git', 'config'),
    path.join(xdg, 'git', 'attributes'),
    ...(env.GIT_CONFIG_GLOBAL && path.isAbsolute(env.GIT_CONFIG_GLOBAL) ? [env.GIT_CONFIG_GLOBAL] : []),
  ];
}

/** Submodule git dirs under `modules/` (nested ones too), a few levels deep. */
function submoduleDirs(dir: string, depth = 0): string[] {
  if (depth > 4) return [];
  let names: string[];
  try {
    names = fs.readdirSync(dir).sort();
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const sub = path.join(dir, name);
    if (!fs.statSync(sub, { throwIfNoEntry: false })?.isDirectory()) return [];
    if (fs.existsSync(path.join(sub, 'config')) || fs.existsSync(path.join(sub, 'HEAD'))) return [sub, ...submoduleDirs(path.join(sub, 'modules'), depth + 1)];
    return submoduleDirs(sub, depth + 1);
  });
}

/** The git dir's pin keys for the project at `root` (empty outside git): files, and folders (EACH) whose entries are pinned. */
export function gitDirKeys(root: string, env: NodeJS.ProcessEnv = process.env): string[] {
  let real: string;
  try {
    real = fs.realpathSync(root);
  } catch {
    return [];
  }
  const found = findGitDir(real);
  if (!found) return [];
  const gitDir = path.resolve(found.gitDir);
  const common = commonDirOf(gitDir);
  const keys = new Set<string>();
  const dotGit = path.join(found.top, '.git');
  if (fs.lstatSync(dotGit, { throwIfNoEntry: false })?.isFile()) keys.add(dotGit);
  const gitDirFiles = (dir: string) => {
    keys.add(path.join(dir, 'config'));
    keys.add(path.join(dir, 'config.worktree'));
    keys.add(path.join(dir, 'hooks') + EACH);
    keys.add(path.join(dir, 'info') + EACH);
  };
  gitDirFiles(common);
  keys.add(path.join(common, 'objects', 'info', 'alternates'));
  keys.add(path.join(common, 'objects', 'info', 'http-alternates'));
  if (gitDir !== common) {
    keys.add(path.join(gitDir, 'config.worktree'));
    keys.add(path.join(gitDir, 'commondir'));
    keys.add(path.join(gitDir, 'info') + EACH);
  }
  for (const sub of submoduleDirs(path.join(common, 'modules'))) gitDirFiles(sub);
  for (const file of globalConfigFiles(env)) keys.add(file);
  return [...keys];
}

/**
 * What the loop's start adds to gitDirKeys: the config files git names (system, includes) and the folder
 * core.hooksPath names. One git process, with fsmonitor off (the config may already name one).
 */
export function configuredKeys(root: string): string[] {
  let out: string;
  try {
    out = execFileSync('git', ['-c', 'core.fsmonitor=false', 'config', '--list', '--show-origin', '-z'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 10_000,
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch {
    return [];
  }
  const keys = new Set<string>();
  const fields = out.split('\0');
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const origin = fields[i]!;
    const entry = fields[i + 1]!;
    if (origin.startsWith('file:')) {
      const file = path.resolve(root, origin.slice('file:'.length));
      keys.add(file);
    }
    const eol = entry.indexOf('\n');
    const key = (eol === -1 ? entry : entry.slice(0, eol)).toLowerCase();
    if (key === 'core.hookspath' && eol !== -1) {
      const value = entry.slice(eol + 1).replace(/^~(?=\/)/, os.homedir());
      if (value) keys.add(path.resolve(root, value) + EACH);
    }
  }
  return [...keys];
}

/** A file's fingerprint: its sha256, a link's target (and what it leads to), stat data for the rest; null when absent. */
function fileFingerprint(file: string): string | null {
  const stat = fs.lstatSync(file, { throwIfNoEntry: false });
  if (!stat) return null;
  if (stat.isSymbolicLink()) {
    let target = '';
    try {
      target = fs.readlinkSync(file);
    } catch {
      // unreadable: the link alone
    }
    const led = fs.statSync(file, { throwIfNoEntry: false });
    return `link:${target}${led?.isFile() ? `>${fileFingerprint(fs.realpathSync(file))}` : ''}`;
  }
  if (stat.isFile() && stat.size <= MAX_HASHED) {
    try {
      return `sha256:${sha256(fs.readFileSync(file))}`;
    } catch {
      // unreadable: stat data
    }
  }
  return `stat:${stat.isDirectory() ? 'd' : 'f'}:${stat.size}:${stat.mode}:${stat.mtimeMs}:${stat.ctimeMs}`;
}

/** A folder's tree by the stat data of its entries (sorted, at most MAX_TREE_ENTRIES), as one digest; null when absent. */
function treeFingerprint(dir: string): string | null {
  if (!fs.lstatSync(dir, { throwIfNoEntry: false })?.isDirectory()) return null;
  const lines: string[] = [];
  const walk = (at: string, rel: string) => {
    let names: string[];
    try {
      names = fs.readdirSync(at).sort();
    } catch {
      lines.push(`${rel}\0unreadable`);
      return;
    }
    for (const name of names) {
      if (lines.length >= MAX_TREE_ENTRIES) return;
      const file = path.join(at, name);
      const stat = fs.lstatSync(file, { throwIfNoEntry: false });
      if (!stat) continue;
      const sub = rel ? `${rel}/${name}` : name;
      lines.push(`${sub}\0${stat.mode}\0${stat.size}\0${stat.mtimeMs}\0${stat.ctimeMs}`);
      if (stat.isDirectory()) walk(file, sub);
    }
  };
  walk(dir, '');
  return `tree:${sha256(lines.join('\n'))}`;
}

/**
 * The fingerprints of these keys as they are now: a folder pinned entry by entry (EACH) is 'dir' (null when
 * absent) and its entries as they are now are pinned with it, one level; a TREE key is its tree's stat digest.
 */
export function readPins(keys: Iterable<string>): Pins {
  const pins: Pins = {};
  for (const key of keys) {
    try {
      if (key.endsWith(TREE)) {
        pins[key] = treeFingerprint(key.slice(0, -TREE.length));
      } else if (key.endsWith(EACH)) {
        const dir = key.slice(0, -EACH.length);
        const isDir = fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory() ?? false;
        pins[key] = isDir ? 'dir' : null;
        if (!isDir) continue;
        for (const name of fs.readdirSync(dir)) pins[path.join(dir, name)] = fileFingerprint(path.join(dir, name));
      } else {
        pins[key] = fileFingerprint(key);
      }
    } catch (err) {
      // Not readable (no permission, a loop of links): that is its fingerprint, compared like any other.
      pins[key] = `unreadable:${(err as NodeJS.ErrnoException).code ?? 'error'}`;
    }
  }
  return pins;
}

/** The git dir's pins when the loop starts, by absolute path. */
export function startGitDirPins(root: string, env: NodeJS.ProcessEnv = process.env): Pins {
  return readPins([...gitDirKeys(root, env), ...configuredKeys(root)]);
}

/** A key's path and its folder mark (EACH, TREE or none). */
function splitMark(key: string): [string, string] {
  if (key.endsWith(TREE)) return [key.slice(0, -TREE.length), TREE];
  if (key.endsWith(EACH) && key.length > 1) return [key.slice(0, -EACH.length), EACH];
  return [key, ''];
}

/** The project's real path and its repository's top, which the record's keys are relative to. */
function anchors(root: string): { real: string; top: string | null } {
  let real = root;
  try {
    real = fs.realpathSync(root);
  } catch {
    // as given
  }
  return { real, top: findGitDir(real)?.top ?? null };
}

const within = (dir: string | null, file: string): boolean => dir !== null && !path.relative(dir, file).startsWith('..') && !path.isAbsolute(path.relative(dir, file));

/**
 * Pins as the record keeps them: a path in the project or its repository's work tree relative to the
 * project (a copied or moved clone keeps them, as it keeps its record), any other absolute.
 */
function storedPins(root: string, pins: Pins): Pins {
  const { real, top } = anchors(root);
  const out: Pins = {};
  for (const [key, value] of Object.entries(pins)) {
    const [file, mark] = splitMark(key);
    out[within(real, file) || within(top, file) ? path.relative(real, file) + mark : key] = value;
  }
  return out;
}

/** The record's pins by absolute path again. */
function absolutePins(root: string, pins: Pins): Pins {
  const { real } = anchors(root);
  const out: Pins = {};
  for (const [key, value] of Object.entries(pins)) {
    if (path.isAbsolute(key)) {
      out[key] = value;
      continue;
    }
    const [file, mark] = splitMark(key);
    out[path.resolve(real, file) + mark] = value;
  }
  return out;
}

/** The package.json scripts at the project root (none when it does not read). */
function packageScripts(root: string): Record<string, string> {
  try {
    const scripts = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts?: unknown }).scripts;
    if (!scripts || typeof scripts !== 'object') return {};
    return Object.fromEntries(Object.entries(scripts).filter((e): e is [string, string] => typeof e[1] === 'string'));
  } catch {
    return {};
  }
}

/** The package folder a file in node_modules belongs to (the nearest folder with a package.json below a node_modules), or null. */
function packageDirOf(file: string): string | null {
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    if (fs.existsSync(path.join(dir, 'package.json')) && /[/\\]node_modules[/\\]/.test(`${dir}${path.sep}`)) return dir;
    if (path.basename(dir) === 'node_modules') return null;
  }
}

/** The absolute paths the checks resolve to (files, and TREE keys of packages), whether or not the snapshot holds them. */
export function checkSurface(given: string, commands: readonly string[]): string[] {
  let root = given;
  try {
    root = fs.realpathSync(given);
  } catch {
    // as given
  }
  const scripts = packageScripts(root);
  const keys = new Set<string>();
  const addFile = (file: string) => {
    const stat = fs.lstatSync(file, { throwIfNoEntry: false });
    if (!stat || stat.isDirectory()) return;
    keys.add(file);
    if (!stat.isSymbolicLink()) return;
    try {
      const target = fs.realpathSync(file);
      keys.add(target);
      const pkg = packageDirOf(target);
      if (pkg) keys.add(pkg + TREE);
    } catch {
      // a dangling link: the link alone
    }
  };
  for (const command of commands) {
    const names = checkNames(command, scripts);
    // npm puts node_modules/.bin on a script's PATH; a project's virtualenv holds its Python tools.
    for (const bin of names.bins) for (const dir of BIN_DIRS) addFile(path.join(root, dir, bin));
    for (const file of names.files) addFile(path.resolve(root, file));
  }
  return [...keys].sort();
}

/**
 * Of these absolute paths, the ones the project tree `tree` does not hold (its path inside the project,
 * with no symbolic link on the way, is not in the tree). One git process, for the paths inside the project.
 */
export function outsideSnapshot(root: string, tree: string | null, keys: readonly string[]): string[] {
  const inside = new Map<string, string>();
  let real = root;
  try {
    real = fs.realpathSync(root);
  } catch {
    // as given
  }
  for (const key of keys) {
    if (key.endsWith(TREE)) continue;
    const rel = path.relative(real, key);
    if (rel.startsWith('..') || path.isAbsolute(rel)) continue;
    // A path through a symbolic link (a linked node_modules) is not what the snapshot holds there.
    let dir: string;
    try {
      dir = fs.realpathSync(path.dirname(key));
    } catch {
      continue;
    }
    if (dir !== path.join(real, path.dirname(rel))) continue;
    inside.set(rel.split(path.sep).join('/'), key);
  }
  const held = new Set<string>();
  if (tree && inside.size > 0) {
    try {
      const out = execFileSync('git', ['-c', 'core.fsmonitor=false', 'ls-tree', '-r', '-z', '--full-tree', '--name-only', tree, '--', ...inside.keys()], {
        cwd: root,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
        timeout: 10_000,
        maxBuffer: 16 * 1024 * 1024,
      });
      for (const name of out.split('\0')) if (inside.has(name)) held.add(inside.get(name)!);
    } catch {
      // git failed: every path is pinned
    }
  }
  return keys.filter((k) => !held.has(k));
}

/** The checks' pins when the loop starts: what they resolve to and the snapshot `tree` does not hold. */
export function startCheckPins(root: string, commands: readonly string[], tree: string | null): Pins {
  if (commands.length === 0) return {};
  return readPins(outsideSnapshot(root, tree, checkSurface(root, commands)));
}

/** How a pinned path reads in a message: project-relative inside the project, `~/…` in the home folder, else absolute. */
export function pinName(root: string, key: string, home: string = os.homedir()): string {
  const trimmed = key.endsWith(TREE) ? key.slice(0, -TREE.length + 1) : key;
  const rel = path.relative(root, trimmed);
  if (rel && !rel.startsWith('..') && !path.isAbsolute(rel)) return rel.split(path.sep).join('/') + (trimmed.endsWith('/') ? '/' : '');
  if (home && trimmed.startsWith(`${home}${path.sep}`)) return `~/${trimmed.slice(home.length + 1)}`;
  return trimmed;
}

/** What changed in a set of pins since they were taken, named for the user; the keys are read again (and folders' entries as they are now). */
export function pinnedChanges(root: string, pinned: Pins, now: Pins = readPins(Object.keys(pinned))): PinChange[] {
  const changes = pinChanges(pinned, now);
  if (changes.length === 0) return changes;
  // The keys were made from the project's real path (a temp folder may be reached through a link).
  let real = root;
  try {
    real = fs.realpathSync(root);
  } catch {
    // as given
  }
  const inside = (key: string) => !path.relative(real, key).startsWith('..');
  return changes.map((c) => ({ ...c, file: pinName(inside(c.file) ? real : root, c.file) }));
}

/** The pins of a loop's start, for the record. */
export function startPins(root: string, commands: readonly string[], tree: string | null): PinRecord {
  return { gitDir: storedPins(root, startGitDirPins(root)), checks: storedPins(root, startCheckPins(root, commands, tree)) };
}

/**
 * What changed among the pins the record keeps, read now (the git dir's folders as they are now, and any
 * submodule or global config file that appeared); null when the record keeps none (a loop started by
 * hooks from before pins).
 */
export function pinnedObservation(root: string, pins: PinRecord | null | undefined): PinnedChanges | null {
  if (!pins) return null;
  const gitDir = absolutePins(root, pins.gitDir);
  const checks = absolutePins(root, pins.checks);
  const gitDirNow = readPins(new Set([...Object.keys(gitDir), ...(Object.keys(gitDir).length > 0 ? gitDirKeys(root) : [])]));
  return { gitDir: pinnedChanges(root, gitDir, gitDirNow), checks: pinnedChanges(root, checks) };
}

/** Two observations' changes as one (a check may have put back what was changed before it ran). */
export function mergeObservations(a: PinnedChanges | null, b: PinnedChanges | null): PinnedChanges | null {
  if (!a || !b) return a ?? b;
  return { gitDir: mergeChanges(a.gitDir, b.gitDir), checks: mergeChanges(a.checks, b.checks) };
}
