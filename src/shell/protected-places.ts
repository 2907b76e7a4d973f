/**
 * The places outside a project's own files that the loop's agents may not write, found as git and the
 * hooks find them (no process): used by the Bash gate and the edit gate alike.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { realpathLoose } from './project';

export const homeDir = (): string | null => process.env.HOME || os.homedir() || null;

/** The git directories of the repository holding `root` (found by walking up), real paths. */
export function gitDirs(root: string): string[] {
  for (let dir = root; ; dir = path.dirname(dir)) {
    const dotGit = path.join(dir, '.git');
    try {
      const stat = fs.statSync(dotGit);
      if (stat.isDirectory()) return [realpathLoose(dotGit)];
      const pointer = /^gitdir:\s*(.+?)\s*$/m.exec(fs.readFileSync(dotGit, 'utf8'))?.[1];
      if (!pointer) return [realpathLoose(dotGit)];
      const gitDir = realpathLoose(path.resolve(dir, pointer));
      let common: string | null = null;
      try {
        common = realpathLoose(path.resolve(gitDir, fs.readFileSync(path.join(gitDir, 'commondir'), 'utf8').trim()));
      } catch {
        // not a linked worktree
      }
      return [...new Set([realpathLoose(dotGit), gitDir, ...(common ? [common] : [])])];
    } catch {
      // no .git here
    }
    if (path.dirname(dir) === dir) return [];
  }
}

/** Where git reads user and system configuration (git-config(1), FILES). */
function gitConfigFiles(home: string | null): string[] {
  const xdg = process.env.XDG_CONFIG_HOME || (home ? path.join(home, '.config') : null);
  return [...(home ? [path.join(home, '.gitconfig')] : []), ...(xdg ? [path.join(xdg, 'git')] : []), '/etc/gitconfig'];
}

/**
 * `hooks`: the hooks' own records, which nobody edits, whatever session asks (each git dir's minions/
 * folder: the record and the private index; the plugin's data folder: the code cache, the live-loop
 * markers). `protected`: every place no agent of a running loop may write (those, the git directories,
 * git's user and system configuration, the plugin's own files). Real paths, and the paths as given.
 */
export function protectedPlaces(root: string): { hooks: string[]; protected: string[] } {
  const git = gitDirs(root);
  const plugin = process.env.CLAUDE_PLUGIN_ROOT ? [path.resolve(process.env.CLAUDE_PLUGIN_ROOT)] : [];
  const data = process.env.CLAUDE_PLUGIN_DATA ? [path.resolve(process.env.CLAUDE_PLUGIN_DATA)] : [];
  const both = (ps: string[]): string[] => [...new Set(ps.flatMap((p) => [p, realpathLoose(p)]))];
  return { hooks: both([...git.map((g) => path.join(g, 'minions')), ...data]), protected: both([...git, ...gitConfigFiles(homeDir()), ...plugin, ...data]) };
}

/** Whether `target` (absolute, resolved) is one of `places` or lies under one. */
export const isUnder = (target: string, places: readonly string[]): boolean => places.some((p) => target === p || target.startsWith(p.endsWith('/') ? p : `${p}/`));

/** Where a hard link to one of the hooks' or git's files would have its other name. */
export function linkPlaces(root: string, places = protectedPlaces(root)): string[] {
  return [path.join(root, '.agents'), ...places.hooks, ...places.protected];
}

/**
 * A file with more than one hard link is also each of its other names, which no realpath finds.
 * `linked`: `file` has other names; `twin`: the first of them found below `dirs` (walked in order,
 * links not followed, at most `limit` entries), or null.
 */
export function hardLinksOf(file: string, dirs: readonly string[], limit = 20_000): { linked: boolean; twin: string | null } {
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(file, { throwIfNoEntry: false });
  } catch {
    // a name no file can have (a NUL byte, too long): nothing is written there
  }
  if (!stat?.isFile() || stat.nlink < 2) return { linked: false, twin: null };
  const queue = [...dirs];
  let seen = 0;
  while (queue.length > 0 && seen < limit) {
    const dir = queue.shift()!;
    let names: fs.Dirent[];
    try {
      names = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      continue; // missing or unreadable: nothing of ours below it
    }
    for (const entry of names) {
      if (++seen > limit) break;
      const abs = path.join(dir, entry.name);
      if (entry.isDirectory()) queue.push(abs);
      else if (entry.isFile() && abs !== file) {
        const other = fs.lstatSync(abs, { throwIfNoEntry: false });
        if (other && other.ino === stat.ino && other.dev === stat.dev) return { linked: true, twin: abs };
      }
    }
  }
  return { linked: true, twin: null };
}
