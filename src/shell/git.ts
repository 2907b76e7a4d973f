/** The few git facts the prompts need. Never throws: outside a repository the answers are empty. */
import { execFileSync } from './child-process';

function git(root: string, args: string[]): string | null {
  try {
    // No fsmonitor: the config may name one an agent planted (the loop's pins name that change).
    return execFileSync('git', ['-c', 'core.fsmonitor=false', ...args], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 5000, maxBuffer: 4 * 1024 * 1024 });
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
