/**
 * Where a path written by a shell command really leads, resolved as the kernel will resolve it in the
 * process that opens it: each symlink followed before the `..` after it is applied, and the magic links
 * of /proc (`/proc/self/fd/N`, `/proc/self/cwd`, `/proc/self/root`, also through `/dev/fd/N`,
 * `/dev/stdin`, `/dev/stdout`, `/dev/stderr` and `/proc/thread-self`) read from that process's
 * descriptors and directory, as the command sets them up (Surroundings), not from the hook's own.
 */
import fs from 'node:fs';
import type { Descriptor, Surroundings } from '../bash/effects';
import { PROCESS_SUBSTITUTION } from '../bash/words';

export type KernelPath =
  /** A file or directory (absolute, no `.`, `..` or symlink in the part that exists). */
  | { kind: 'path'; abs: string }
  /** A pipe, a heredoc or the tool's own output: no file of the project. */
  | { kind: 'stream' }
  /** The gate cannot tell where it leads: why. */
  | { kind: 'undecided'; why: string };

/** The file system as the resolver sees it: what a path is, without following a symlink at its end. */
export interface PathFs {
  kind(abs: string): 'link' | 'dir' | 'other' | 'missing';
  readlink(abs: string): string;
}

export const realFs: PathFs = {
  kind(abs) {
    try {
      const st = fs.lstatSync(abs);
      return st.isSymbolicLink() ? 'link' : st.isDirectory() ? 'dir' : 'other';
    } catch {
      return 'missing';
    }
  },
  readlink: (abs) => fs.readlinkSync(abs),
};

/** Linux's limit on symlinks followed in one lookup (ELOOP past it). */
const MAX_LINKS = 40;
const PROCESS_SUBSTITUTION_NAME = PROCESS_SUBSTITUTION.slice('/dev/fd/'.length);

const segments = (p: string): string[] => p.split('/').filter((s) => s !== '' && s !== '.');

/** /dev's names for the calling process's descriptors, as the kernel (Linux) or devfs (macOS) has them. */
const DEV_ALIASES: Record<string, string[]> = {
  '/dev/fd': ['proc', 'self', 'fd'],
  '/dev/stdin': ['proc', 'self', 'fd', '0'],
  '/dev/stdout': ['proc', 'self', 'fd', '1'],
  '/dev/stderr': ['proc', 'self', 'fd', '2'],
};

/**
 * A /proc/<pid> entry that is a magic link, from `sub`, the segments after /proc/<pid>: `task/<tid>/` dropped (a thread shares its process's descriptors and
 * directory). null: a plain /proc file, resolved as text.
 */
function magicOf(sub: readonly string[]): { link: 'fd'; fd: string } | { link: 'cwd' | 'root' | 'other' } | null {
  const own = sub[0] === 'task' && sub.length >= 2 ? sub.slice(2) : sub;
  if (own.length === 2 && own[0] === 'fd') return { link: 'fd', fd: own[1]! };
  if (own.length === 1 && (own[0] === 'cwd' || own[0] === 'root')) return { link: own[0] };
  if ((own.length === 1 && own[0] === 'exe') || (own.length === 2 && own[0] === 'map_files') || (own.length === 2 && own[0] === 'ns')) return { link: 'other' };
  return null;
}

/**
 * Resolves `abs` (absolute; `..` may stand anywhere) for a process with `around`'s descriptors and
 * directory. Every place it may lead is returned (a descriptor opened in several possible directories
 * leads to each). Parts that do not exist yet are taken as text, as a command that makes them would.
 */
export function resolveLikeKernel(abs: string, around: Surroundings, files: PathFs = realFs): KernelPath[] {
  const out: KernelPath[] = [];
  walk(segments(abs), around, files, out, { links: 0 });
  return out;
}

function walk(rest: string[], around: Surroundings, files: PathFs, out: KernelPath[], count: { links: number }): void {
  let real: string[] = [];
  /** Inside /proc/<pid>: the entries below it, which the hook cannot look up for the command's process. */
  let proc: { pid: string; sub: string[] } | null = null;
  const followLink = (target: string[], absolute: boolean): boolean => {
    if (++count.links > MAX_LINKS) {
      out.push({ kind: 'undecided', why: 'more than 40 symbolic links' });
      return false;
    }
    if (absolute) real = [];
    rest = [...target, ...rest];
    return true;
  };
  while (rest.length > 0) {
    const seg = rest.shift()!;
    if (proc) {
      if (seg === '..') {
        if (proc.sub.length === 0) {
          proc = null;
          real = ['proc'];
        } else proc.sub.pop();
        continue;
      }
      proc.sub.push(seg);
      const magic = magicOf(proc.sub);
      if (!magic) continue;
      const shown = `/proc/${proc.pid}/${proc.sub.join('/')}`;
      if (proc.pid !== 'self') {
        out.push({ kind: 'undecided', why: `${shown} belongs to a process the gate cannot know` });
        return;
      }
      if (magic.link === 'other') {
        out.push({ kind: 'undecided', why: `${shown} is a link only the running process can resolve` });
        return;
      }
      if (magic.link === 'root') {
        if (!followLink([], true)) return;
        proc = null;
        continue;
      }
      const fd = magic.link === 'fd' ? magic.fd : 'cwd';
      const leads = magic.link === 'fd' ? fdDescriptor(magic.fd, around) : cwdDescriptor(around);
      if (leads.kind === 'unknown') {
        out.push({ kind: 'undecided', why: magic.link === 'cwd' ? 'the directory the command runs in is not known' : `descriptor ${fd} is not one the command opens itself` });
        return;
      }
      if (leads.kind === 'stream') {
        out.push(rest.length === 0 ? { kind: 'stream' } : { kind: 'undecided', why: `${shown} is a stream, not a directory` });
        return;
      }
      if (++count.links > MAX_LINKS) {
        out.push({ kind: 'undecided', why: 'more than 40 symbolic links' });
        return;
      }
      for (const p of leads.paths) walk([...segments(p), ...rest], around, files, out, count);
      return;
    }
    if (seg === '..') {
      real.pop();
      continue;
    }
    const here = `/${[...real, seg].join('/')}`;
    if (here === '/proc/self' || here === '/proc/thread-self' || /^\/proc\/\d+$/.test(here)) {
      proc = { pid: /^\d+$/.test(seg) ? seg : 'self', sub: [] };
      continue;
    }
    const alias = Object.hasOwn(DEV_ALIASES, here) ? DEV_ALIASES[here] : undefined;
    if (alias) {
      if (!followLink(alias, true)) return;
      continue;
    }
    const kind = files.kind(here);
    if (kind === 'link') {
      let target: string;
      try {
        target = files.readlink(here);
      } catch {
        out.push({ kind: 'undecided', why: `${here} could not be read` });
        return;
      }
      if (!followLink(segments(target), target.startsWith('/'))) return;
      continue;
    }
    real.push(seg);
    if (kind === 'missing') {
      // Made by the command, if at all: a directory (mkdir -p) or a file; below it, text.
      for (const s of rest) {
        if (s === '..') real.pop();
        else real.push(s);
      }
      break;
    }
  }
  if (proc) out.push({ kind: 'path', abs: `/proc/${proc.pid}${proc.sub.length ? `/${proc.sub.join('/')}` : ''}` });
  else out.push({ kind: 'path', abs: `/${real.join('/')}` });
}

function fdDescriptor(fd: string, around: Surroundings): Descriptor {
  if (fd === PROCESS_SUBSTITUTION_NAME) return { kind: 'stream' };
  if (!/^\d+$/.test(fd)) return { kind: 'unknown' };
  return around.fds[Number(fd)] ?? { kind: 'unknown' };
}

function cwdDescriptor(around: Surroundings): Descriptor {
  return around.cwd === null ? { kind: 'unknown' } : { kind: 'paths', paths: [...around.cwd] };
}
