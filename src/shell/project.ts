/** Where the project is, and where a tool's path really points. */
import fs from 'node:fs';
import path from 'node:path';

/** The project root: CLAUDE_PROJECT_DIR (fixed for the session), else the payload's cwd. */
export function projectRoot(payloadCwd: string | undefined): string {
  const dir = process.env.CLAUDE_PROJECT_DIR || payloadCwd || process.cwd();
  return realpathLoose(path.resolve(dir));
}

/**
 * The project the CLI works on: CLAUDE_PROJECT_DIR when set, else the nearest folder from `cwd` upwards
 * that holds the plugin's `.agents/tmp/` (not any `.agents/`: other tools use that name too), else the top of the git work tree `cwd` is in (the nearest folder
 * with a `.git`), else `cwd` itself. A command run in a subfolder finds its project.
 */
export function cliProjectRoot(cwd: string = process.cwd(), env: NodeJS.ProcessEnv = process.env): string {
  if (env.CLAUDE_PROJECT_DIR) return realpathLoose(path.resolve(env.CLAUDE_PROJECT_DIR));
  const start = realpathLoose(path.resolve(cwd));
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (isDir(path.join(dir, '.agents', 'tmp'))) return dir;
    // The work tree's top: a .git folder, or the .git file of a worktree or submodule.
    if (fs.existsSync(path.join(dir, '.git'))) return dir;
    if (path.dirname(dir) === dir) return start;
  }
}

const isDir = (p: string): boolean => fs.lstatSync(p, { throwIfNoEntry: false })?.isDirectory() ?? false;

/**
 * Resolves a path as the file system will: symlinks followed, `..` and `.` removed, through the
 * nearest existing parent for a file that does not exist yet (dangling links are followed too).
 */
export function realpathLoose(p: string, hops = 0): string {
  // Only symlinks are counted (a loop of them ends here, where the write would fail too): a path of any
  // number of missing directories is walked up to the first that exists, or a symlink above it is missed.
  // A loop, not a recursion per directory: a path of 20,000 missing ones must not overflow the stack.
  if (hops > 40) return p;
  const missing: string[] = [];
  for (let dir = p; ; dir = path.dirname(dir)) {
    try {
      return path.join(fs.realpathSync.native(dir), ...missing.reverse());
    } catch {
      try {
        if (fs.lstatSync(dir).isSymbolicLink()) {
          return path.join(realpathLoose(path.resolve(path.dirname(dir), fs.readlinkSync(dir)), hops + 1), ...missing.reverse());
        }
      } catch {
        // dir does not exist: resolve its parent instead
      }
      if (path.dirname(dir) === dir) return path.join(dir, ...missing.reverse());
      missing.push(path.basename(dir));
    }
  }
}

/** POSIX path of `target` relative to `root`, or null when it lies outside. */
export function relativeInside(root: string, target: string): string | null {
  const rel = path.relative(root, target);
  if (rel === '') return '.';
  if (rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) return null; // not "..hidden.ts"
  return rel.split(path.sep).join('/');
}
