/** What a Bash command does, observed for the gate: the analysis (parser loaded only when needed), write targets resolved for real. */
import path from 'node:path';
import type { BashEffect, BashPlaces, WriteTarget } from '../core/gates';
import { NeedsParser, analyseCommand } from '../bash/analyse';
import type { PathArg, Surroundings } from '../bash/effects';
import { resolveLikeKernel } from './kernel-path';
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
  return effects.flatMap((e): BashEffect[] => {
    if (e.kind === 'write') {
      const { via, ...write } = e;
      return resolveTarget(e.target, via ?? NOTHING_KNOWN, linkDirs).map((target) => ({ ...write, target }));
    }
    return e.kind === 'git-cwd' ? resolveTarget(e.dir, NOTHING_KNOWN).map((dir) => ({ ...e, dir })) : [e];
  });
}

/** A process of which nothing is known: every descriptor and its directory undecided. */
const NOTHING_KNOWN: Surroundings = { fds: {}, cwd: null };

const GLOB = /(^|[^\\])[*?[]/;

/**
 * The path as written (`..` taken as text) and every place the kernel will take it to in the process
 * that opens it: all are checked. A file with other hard links is checked as its first other name
 * found below `linkDirs` too.
 */
function resolveTarget(t: PathArg, around: Surroundings, linkDirs: readonly string[] = []): WriteTarget[] {
  if (t.kind === 'dynamic') return [t];
  const written = t.kind === 'glob' ? t.pattern : t.path;
  let prefix = written;
  let rest: string[] = [];
  if (t.kind === 'glob') {
    const segments = t.pattern.split('/').filter(Boolean);
    const firstGlob = segments.findIndex((s) => GLOB.test(s));
    rest = segments.slice(firstGlob);
    // The names a glob matches may be links: what a `..` after one leads to, the gate cannot tell.
    if (rest.includes('..')) return [{ kind: 'undecided', text: t.pattern, why: 'a `..` after a glob' }];
    prefix = `/${segments.slice(0, firstGlob).join('/')}`;
  }
  const out = new Set<string>([path.posix.normalize(written)]);
  for (const r of resolveLikeKernel(prefix, around)) {
    if (r.kind === 'undecided') return [{ kind: 'undecided', text: written, why: r.why }];
    if (r.kind === 'stream') continue;
    const abs = path.posix.join(r.abs, ...rest);
    out.add(abs);
    if (t.kind === 'path' && linkDirs.length > 0) {
      const twin = hardLinksOf(abs, linkDirs).twin;
      if (twin) out.add(twin);
    }
  }
  // A stream alone (`>/dev/stdout`, a process substitution): the text is no file the gate guards.
  return [...out].filter((abs) => !isStreamWord(abs)).map((abs) => ({ kind: t.kind, abs }));
}

/** Paths that name a descriptor, not a file: decided above, never a file of the project. */
const isStreamWord = (abs: string): boolean => /^\/(?:dev\/(?:fd|stdin|stdout|stderr)|proc\/(?:self|thread-self|\d+)\/(?:task\/\d+\/)?(?:fd|cwd|root))(?:\/|$)/.test(abs);

export function bashPlaces(root: string): BashPlaces {
  return { root, protected: protectedPlaces(root).protected };
}
