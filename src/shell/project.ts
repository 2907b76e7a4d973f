/** Where the project is, and where a tool's path really points. */
import fs from 'node:fs';
import path from 'node:path';

/** The project root: CLAUDE_PROJECT_DIR (fixed for the session), else the payload's cwd. */
export function projectRoot(payloadCwd: string | undefined): string {
  const dir = process.env.CLAUDE_PROJECT_DIR || payloadCwd || process.cwd();
  return realpathLoose(path.resolve(dir));
}

/**
 * Resolves a path as the file system will: symlinks followed, `..` and `.` removed, through the
 * nearest existing parent for a file that does not exist yet (dangling links are followed too).
 */
export function realpathLoose(p: string, hops = 0): string {
  // Only symlinks are counted (a loop of them ends here, where the write would fail too): a path of any
  // number of missing directories is walked up to the first that exists, or a symlink above it is missed.
  if (hops > 40) return p;
  try {
    return fs.realpathSync.native(p);
  } catch {
    try {
      if (fs.lstatSync(p).isSymbolicLink()) {
        return realpathLoose(path.resolve(path.dirname(p), fs.readlinkSync(p)), hops + 1);
      }
    } catch {
      // p does not exist: resolve its parent instead
    }
    const parent = path.dirname(p);
    if (parent === p) return p;
    return path.join(realpathLoose(parent, hops), path.basename(p));
  }
}

/** POSIX path of `target` relative to `root`, or null when it lies outside. */
export function relativeInside(root: string, target: string): string | null {
  const rel = path.relative(root, target);
  if (rel === '') return '.';
  if (rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) return null; // not "..hidden.ts"
  return rel.split(path.sep).join('/');
}
