/** The few git facts the prompts need. Never throws: outside a repository the answers are empty. */
import { execFileSync } from './child-process';

function git(root: string, args: string[]): string | null {
  try {
    return execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 5000, maxBuffer: 4 * 1024 * 1024 });
  } catch {
    return null;
  }
}

export function head(root: string): string | null {
  return git(root, ['rev-parse', '--verify', '-q', 'HEAD'])?.trim() || null;
}

const listed = (names: Iterable<string>): string[] => [...new Set([...names].map((f) => f.trim()).filter((f) => f && !f.startsWith('.agents/')))].sort();

/** Files changed against base (or in the working tree), untracked included, the plugin's own files left out. */
export function changedFiles(root: string, base: string | null): string[] {
  const tracked = base ? git(root, ['diff', '--name-only', base]) : git(root, ['diff', '--name-only', '--cached']);
  const untracked = git(root, ['ls-files', '--others', '--exclude-standard']);
  return listed(`${tracked ?? ''}\n${untracked ?? ''}`.split('\n'));
}

export interface StartFacts {
  head: string | null;
  /** As changedFiles(root, head). */
  changedFiles: string[];
}

/**
 * HEAD and the changed files as a loop starts, from one `git status` rather than three commands: each
 * process a hook starts costs it a few percent of a node start. --no-optional-locks: status must not
 * rewrite the user's index.
 */
export function startFacts(root: string): StartFacts {
  const out = git(root, ['--no-optional-locks', 'status', '--porcelain=v2', '-z', '--branch', '--untracked-files=all']);
  return out === null ? { head: null, changedFiles: [] } : parseStatus(out);
}

/** `git status --porcelain=v2 -z --branch` output → HEAD (null before the first commit) and the paths it lists. */
export function parseStatus(out: string): StartFacts {
  let head: string | null = null;
  const paths: string[] = [];
  const entries = out.split('\0');
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    const oid = /^# branch\.oid ([0-9a-f]+)$/.exec(entry);
    if (oid) head = oid[1]!;
    // "1 XY sub mH mI mW hH hI path", "2 … Xscore path" then the renamed-from path as its own entry (left
    // out, as git diff names only the new one), "u XY sub m1 m2 m3 mW h1 h2 h3 path", "? path". Paths may hold spaces.
    const fields = { '1': 8, '2': 9, u: 10, '?': 1 }[entry[0] ?? ''];
    if (fields) paths.push(entry.split(' ').slice(fields).join(' '));
    if (entry[0] === '2') i++;
  }
  return { head, changedFiles: listed(paths) };
}
