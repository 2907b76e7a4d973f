/** What a Bash command does, observed for the gate: the analysis (parser loaded only when needed), write targets resolved for real. */
import path from 'node:path';
import type { BashEffect, BashPlaces, WriteTarget } from '../core/gates';
import { NeedsParser, analyseCommand } from '../core/shell/analyse';
import type { PathArg } from '../core/shell/effects';
import { realpathLoose } from './project';
import { hardLinksOf, homeDir, protectedPlaces } from './protected-places';

export { gitDirs, homeDir, linkPlaces } from './protected-places';


/**
 * Analyses `command` as run from `cwd` (absolute). Commands without shell syntax are read without the
 * parser; the rest load it (once per process, lazily). A written file with other hard links is also
 * checked as the first of them found below `linkDirs` (the hooks' and git's places).
 */
export async function observeBash(command: string, cwd: string, linkDirs: readonly string[] = []): Promise<BashEffect[]> {
  const options = { cwd: realpathLoose(cwd), home: homeDir() };
  let effects;
  try {
    effects = analyseCommand(command, { ...options, parse: null });
  } catch (err) {
    if (!(err instanceof NeedsParser)) throw err;
    const { loadBashParser } = await import('./bash-parser');
    effects = analyseCommand(command, { ...options, parse: await loadBashParser() });
  }
  return effects.flatMap((e): BashEffect[] =>
    e.kind === 'write' ? resolveTarget(e.target, linkDirs).map((target) => ({ ...e, target })) : e.kind === 'git-cwd' ? resolveTarget(e.dir).map((dir) => ({ ...e, dir })) : [e],
  );
}

const GLOB = /(^|[^\\])[*?[]/;

/** The path as written and, when a symlink leads elsewhere, where it really points: both are checked. */
function resolveTarget(t: PathArg, linkDirs: readonly string[] = []): WriteTarget[] {
  if (t.kind === 'dynamic') return [t];
  if (t.kind === 'glob') {
    const segments = t.pattern.split('/').filter(Boolean);
    const firstGlob = segments.findIndex((s) => GLOB.test(s));
    const prefix = `/${segments.slice(0, firstGlob).join('/')}`;
    const real = realpathLoose(prefix);
    const rest = segments.slice(firstGlob);
    return [...new Set([t.pattern, path.posix.join(real, ...rest)])].map((abs) => ({ kind: 'glob', abs }));
  }
  const real = realpathLoose(t.path);
  const twin = t.kind === 'path' && linkDirs.length > 0 ? hardLinksOf(real, linkDirs).twin : null;
  return [...new Set([t.path, real, ...(twin ? [twin] : [])])].map((abs) => ({ kind: t.kind, abs }));
}

export function bashPlaces(root: string): BashPlaces {
  return { root, protected: protectedPlaces(root).protected };
}
