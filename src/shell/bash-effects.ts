/** What a Bash command does, observed for the gate: the analysis (parser loaded only when needed), write targets resolved for real. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BashEffect, BashPlaces, WriteTarget } from '../core/gates';
import { NeedsParser, analyseCommand } from '../core/shell/analyse';
import type { PathArg } from '../core/shell/effects';
import { realpathLoose } from './project';

export const homeDir = (): string | null => process.env.HOME || os.homedir() || null;

/**
 * Analyses `command` as run from `cwd` (absolute). Commands without shell syntax are read without the
 * parser; the rest load it (once per process, lazily).
 */
export async function observeBash(command: string, cwd: string): Promise<BashEffect[]> {
  const options = { cwd: realpathLoose(cwd), home: homeDir() };
  let effects;
  try {
    effects = analyseCommand(command, { ...options, parse: null });
  } catch (err) {
    if (!(err instanceof NeedsParser)) throw err;
    const { loadBashParser } = await import('./bash-parser');
    effects = analyseCommand(command, { ...options, parse: await loadBashParser() });
  }
  return effects.flatMap((e): BashEffect[] => (e.kind === 'write' ? resolveTarget(e.target).map((target) => ({ ...e, target })) : [e]));
}

const GLOB = /(^|[^\\])[*?[]/;

/** The path as written and, when a symlink leads elsewhere, where it really points: both are checked. */
function resolveTarget(t: PathArg): WriteTarget[] {
  if (t.kind === 'dynamic') return [t];
  if (t.kind === 'glob') {
    const segments = t.pattern.split('/').filter(Boolean);
    const firstGlob = segments.findIndex((s) => GLOB.test(s));
    const prefix = `/${segments.slice(0, firstGlob).join('/')}`;
    const real = realpathLoose(prefix);
    const rest = segments.slice(firstGlob);
    return [...new Set([t.pattern, path.posix.join(real, ...rest)])].map((abs) => ({ kind: 'glob', abs }));
  }
  return [...new Set([t.path, realpathLoose(t.path)])].map((abs) => ({ kind: t.kind, abs }));
}

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

export function bashPlaces(root: string): BashPlaces {
  const env = [process.env.CLAUDE_PLUGIN_ROOT, process.env.CLAUDE_PLUGIN_DATA].filter((p): p is string => !!p).map((p) => path.resolve(p));
  const places = [...gitDirs(root), ...gitConfigFiles(homeDir()), ...env];
  return { root, protected: [...new Set(places.flatMap((p) => [p, realpathLoose(p)]))] };
}
