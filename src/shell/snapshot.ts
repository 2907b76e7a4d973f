/**
 * Tree snapshots of the project, as git tree objects built through a private index inside the git dir.
 * The user's index, branch, HEAD and stash are never touched: every call sets GIT_INDEX_FILE to a file of
 * the plugin's own. Blobs are written to the repository's object store (unreferenced, so `git gc`
 * eventually prunes them). All functions return plain data and never throw; outside a repository
 * snapshotTree answers null and the rest answer empty.
 *
 * What a snapshot covers: the files under the project root that git would see with `git add -A`
 * (tracked and untracked, .gitignore honoured), without the plugin's own `.agents/`.
 *
 * An agent with a shell can change the repository's config, attributes and excludes during the loop, so
 * a snapshot does not take them as it finds them: the settings that let git trust a file's stat data or
 * skip files are forced (FORCED_CONFIG, and the file system's own answers for fileMode, symlinks and
 * ignoreCase), the work tree is named (core.worktree, core.bare), every filter driver configured now is
 * blanked and those of the loop's start put back, and excludes (.git/info/exclude, core.excludesFile) are
 * those of the loop's start. What is left: docs/security.md, "Not covered by either".
 */
import { execFileSync } from './child-process';
import fs from 'node:fs';
import path from 'node:path';
import { createExclusive, removeFile } from './files';
import { findGitDir } from './record';

/** git's well-known empty tree: the "before" of a file that did not exist. */
export const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
const MAX_OUTPUT = 256 * 1024 * 1024;
/** A snapshot hashes the whole project the first time (later ones reuse the private index's stat cache). */
const SNAPSHOT_TIMEOUT_MS = 45_000;
const SHA = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

type Git = (args: string[], options?: { env?: NodeJS.ProcessEnv; input?: string; timeout?: number }) => string | null;

function gitIn(root: string): Git {
  return (args, options = {}) => {
    try {
      return execFileSync('git', ['-c', 'core.quotepath=off', '-c', 'core.fsmonitor=false', ...args], {
        cwd: root,
        encoding: 'utf8',
        stdio: ['pipe', 'pipe', 'ignore'],
        env: { ...process.env, GIT_OPTIONAL_LOCKS: '0', ...options.env },
        input: options.input,
        timeout: options.timeout ?? 15_000,
        maxBuffer: MAX_OUTPUT,
      });
    } catch {
      return null;
    }
  };
}

interface Repo {
  gitDir: string;
  /** The project root's path inside the repository, '' or ending in '/'. */
  prefix: string;
  /** The work tree's top, when found on the file system (not when GIT_DIR or GIT_WORK_TREE name the repository). */
  top?: string;
}

/** Repositories found by this process, by project root: a hook asks for one several times (snapshot, base tree). */
const repos = new Map<string, Repo>();

/**
 * The repository holding `root`, found on the file system as git finds it (from the real path of the
 * directory git runs in, walking up to the first `.git`, a worktree's `.git` file followed): no git
 * process, which costs a hook a few percent of a node start. A repository git then refuses fails the
 * git calls that follow, as it would have failed `rev-parse`.
 */
function repoOf(root: string): Repo | null {
  const known = repos.get(root);
  if (known) return known;
  // Told where the repository is (GIT_DIR, GIT_WORK_TREE), git does not search: then git is asked.
  if (process.env.GIT_DIR || process.env.GIT_WORK_TREE) return askedRepo(root);
  let real: string;
  try {
    real = fs.realpathSync(root);
  } catch {
    return null;
  }
  const found = findGitDir(real);
  if (!found) return null;
  const inside = path.relative(found.top, real).split(path.sep).join('/');
  const repo = { gitDir: path.resolve(found.gitDir), prefix: inside ? `${inside}/` : '', top: found.top };
  repos.set(root, repo);
  return repo;
}

function askedRepo(root: string): Repo | null {
  const out = gitIn(root)(['rev-parse', '--absolute-git-dir', '--show-prefix']);
  const [gitDir, prefix = ''] = out?.split('\n') ?? [];
  if (!gitDir) return null;
  const repo = { gitDir, prefix };
  repos.set(root, repo);
  return repo;
}

/** The plugin's folder inside the git dir, for files agents are never pointed at. */
export function privateDir(root: string): string | null {
  const repo = repoOf(root);
  return repo ? path.join(repo.gitDir, 'minions') : null;
}

/**
 * The project's working tree as a git tree id, or null outside a repository (or when git fails).
 * Each call works on its own copy of the private index (seeded from the last one for speed), so
 * concurrent hooks never meet on an index lock.
 */
export function snapshotTree(root: string): string | null {
  return snapshotWithDiff(root, null).tree;
}

/**
 * Config every git call of a snapshot is given, over the repository's own: git trusts no stat data it
 * would not trust by default (checkStat, trustctime, ignoreStat, fsmonitor, untrackedCache), writes no
 * shared index into the git dir (splitIndex), skips no path (sparseCheckout) and does not fail on a
 * line-end conversion (safecrlf). All plain words: the script takes them unquoted.
 */
const FORCED_CONFIG = [
  'core.quotepath=off',
  'core.fsmonitor=false',
  'core.checkStat=default',
  'core.trustctime=true',
  'core.ignoreStat=false',
  'core.untrackedCache=false',
  'core.splitIndex=false',
  'core.sparseCheckout=false',
  'core.safecrlf=false',
];

/** What the file system of a git dir does, asked as `git init` asks it; by git dir, once per process. */
const fsTraits = new Map<string, string[]>();

/**
 * core.fileMode, core.symlinks and core.ignoreCase as the file system holding `dir` answers them, not as
 * the config says: an agent's `core.fileMode=false` would hide a chmod +x, `core.ignoreCase=true` a new
 * file named like another but for case. A probe that fails leaves the setting to the config.
 */
function fileSystemConfig(dir: string): string[] {
  const known = fsTraits.get(dir);
  if (known) return known;
  const probe = path.join(dir, `probe.${process.pid}.${Date.now()}`);
  const link = `${probe}.link`;
  const out: string[] = [];
  try {
    fs.writeFileSync(probe, '', { mode: 0o644 });
    const before = fs.statSync(probe).mode;
    fs.chmodSync(probe, 0o755);
    const after = fs.statSync(probe).mode;
    out.push(`core.fileMode=${(before & 0o100) === 0 && (after & 0o100) !== 0}`);
    out.push(`core.ignoreCase=${fs.existsSync(path.join(dir, path.basename(probe).toUpperCase()))}`);
    let symlinks = true;
    try {
      fs.symlinkSync('probe', link);
    } catch {
      symlinks = false;
    }
    out.push(`core.symlinks=${symlinks}`);
  } catch {
    // the config decides
  } finally {
    removeFile(probe);
    removeFile(link);
  }
  fsTraits.set(dir, out);
  return out;
}

/**
 * The filter drivers of the loop's start (`git config -z --get-regexp '^filter\.'` as the script saved it:
 * `key\nvalue` or `key`, NUL-ended), as GIT_CONFIG_PARAMETERS entries: git reads them after the script's
 * blanking of the drivers configured now (GIT_CONFIG_COUNT), so a driver redefined during the loop runs as
 * it was defined at the start, and one defined during the loop does not run. Each entry is `'key=value'`,
 * the form every git reads: `'key'='value'` is git 2.31's, and an older git fails every command on it
 * (only a key with `=` in it, which needs 2.31 anyway, takes that form).
 */
export function filterParameters(saved: string): string {
  const sq = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;
  return saved
    .split('\0')
    .filter(Boolean)
    .map((entry) => {
      const eol = entry.indexOf('\n');
      if (eol === -1) return sq(entry);
      const key = entry.slice(0, eol);
      const value = entry.slice(eol + 1);
      return key.includes('=') ? `${sq(key)}=${sq(value)}` : sq(`${key}=${value}`);
    })
    .join(' ');
}

/**
 * The shell script of a snapshot: `git add -A` into the private index ($1), `git write-tree` (with $2, the
 * --prefix of a project below the repository's top, when set), the tree's id on the first line, and then,
 * when $3 names a tree-ish, `git diff-tree -z --raw -p` from it to the new tree. One process from the hook
 * instead of several: every process node starts costs the hook a fork of itself, a few percent of a node
 * start. A TERM (the hook's timeout) during an add, the step that can take long, ends the add as well.
 *
 * The settings of the loop's start live in $4.excludes (core.excludesFile's patterns, then
 * info/exclude's), $4.info-exclude and $4.filters; $5 = 1 (the loop's start) saves them from the
 * repository, $6 being its common git dir (where info/exclude is). Without them (a loop started before
 * they were kept) no excludes but .gitignore apply and no filter runs. The add honours .git/info/exclude
 * as it is now (git has no switch to skip it): when it differs from the saved one ($7 set), `git ls-files -o`
 * with only .gitignore and the saved excludes names what the add left out, and a second add takes those.
 * Exit status 1 of an add is a path it could not add (an empty nested repository, an unreadable file),
 * the rest added: not a failure. Exit status: 3 the add failed, 4 the write, 5 the diff (the tree's line is
 * printed by then).
 */
const snapshotScript = (config: readonly string[]): string => {
  const git = ['git', ...config.flatMap((c) => ['-c', c])].join(' ');
  return [
    `export GIT_INDEX_FILE="$1"`,
    `pid=`,
    `run() { "$@" & pid=$!; wait "$pid"; }`,
    `trap 'kill "$pid" 2>/dev/null; exit 143' TERM`,
    `if [ "$5" = 1 ]; then`,
    `  x=$(${git} config --path --get core.excludesFile) || x="\${XDG_CONFIG_HOME:-$HOME/.config}/git/ignore"`,
    `  { cat -- "$x"; echo; cat -- "$6/info/exclude"; } >"$1.x" 2>/dev/null`,
    `  cat -- "$6/info/exclude" >"$1.i" 2>/dev/null`,
    `  ${git} config -z --get-regexp '^filter\\.' >"$1.f"`,
    `  mv -f "$1.x" "$4.excludes" && mv -f "$1.i" "$4.info-exclude" && mv -f "$1.f" "$4.filters" || exit 3`,
    `else`,
    // Every filter key configured now, blanked: no clean or process command, not required.
    `  n=\${GIT_CONFIG_COUNT:-0}`,
    `  keys=$(${git} config --name-only --get-regexp '^filter\\.')`,
    `  while IFS= read -r k; do [ -z "$k" ] || { export "GIT_CONFIG_KEY_$n=$k" "GIT_CONFIG_VALUE_$n="; n=$((n + 1)); }; done <<EOF`,
    `$keys`,
    `EOF`,
    `  export GIT_CONFIG_COUNT=$n`,
    `fi`,
    `ex=/dev/null; [ ! -f "$4.excludes" ] || ex="$4.excludes"`,
    `run ${git} -c core.excludesFile="$ex" add -A --ignore-errors -- . ':(exclude).agents' >/dev/null 2>&1`,
    `[ $? -le 1 ] || exit 3`,
    `if [ -n "$7" ]; then`,
    `  ${git} ls-files -z -o --exclude-per-directory=.gitignore --exclude-from="$ex" -- . ':(exclude).agents' >"$1.new" || exit 3`,
    `  if [ -s "$1.new" ]; then`,
    `    run ${git} --literal-pathspecs add -f --ignore-errors --pathspec-from-file="$1.new" --pathspec-file-nul >/dev/null 2>&1`,
    `    [ $? -le 1 ] || exit 3`,
    `  fi`,
    `fi`,
    `trap - TERM`,
    `tree=$(${git} write-tree \${2:+"$2"}) || exit 4`,
    `printf '%s\\n' "$tree"`,
    `[ -n "$3" ] || exit 0`,
    // diffArgs are plain words: nothing to quote.
    `${git} ${diffArgs.join(' ')} -z --raw -p "$3" "$tree" || exit 5`,
  ].join('\n');
};

/** The repository's common git dir (a linked worktree's git dir names it in its commondir file). */
function commonDir(gitDir: string): string {
  try {
    return path.resolve(gitDir, fs.readFileSync(path.join(gitDir, 'commondir'), 'utf8').trim());
  } catch {
    return gitDir;
  }
}

/**
 * The project's tree (as snapshotTree) and, when `from` names a tree-ish, the patch from it to that tree
 * (as diffTreesOrNull, cut at maxBytes), from one process. The tree is null when the snapshot failed,
 * the patch null when the diff did. At the loop's start (`loopStart`) the repository's excludes and filter
 * drivers are saved for the loop's later snapshots.
 */
export function snapshotWithDiff(
  root: string,
  from: string | null,
  maxBytes = 512 * 1024,
  timeoutMs = SNAPSHOT_TIMEOUT_MS + 15_000,
  options: { loopStart?: boolean } = {},
): { tree: string | null; diff: Patch | null } {
  const none = { tree: null, diff: null };
  const repo = repoOf(root);
  if (!repo) return none;
  const dir = path.join(repo.gitDir, 'minions');
  const shared = path.join(dir, 'index');
  const mine = path.join(dir, `index.${process.pid}.${Date.now()}`);
  try {
    fs.mkdirSync(dir, { recursive: true });
    try {
      fs.copyFileSync(shared, mine);
      // git trusts a cached entry only when the file is older than the index file (racy-git): the copy
      // must keep the index's own time, or a file rewritten with the same size just after the last
      // snapshot keeps its old blob.
      const { atime, mtime } = fs.statSync(shared);
      fs.utimesSync(mine, atime, mtime);
    } catch {
      // first snapshot: start from an empty index
    }
    const saved = path.join(dir, 'loop');
    const env: NodeJS.ProcessEnv = { ...process.env, GIT_OPTIONAL_LOCKS: '0' };
    // Named, the work tree is the project's whatever core.worktree or core.bare now say.
    if (repo.top) env.GIT_WORK_TREE = repo.top;
    if (!options.loopStart) {
      const filters = filterParameters(readOptional(`${saved}.filters`) ?? '');
      if (filters) env.GIT_CONFIG_PARAMETERS = [process.env.GIT_CONFIG_PARAMETERS, filters].filter(Boolean).join(' ');
    }
    const common = commonDir(repo.gitDir);
    // Read as the script reads them (a missing file is empty): the second pass only when they differ.
    const infoChanged = !options.loopStart && (readOptional(path.join(common, 'info', 'exclude')) ?? '') !== (readOptional(`${saved}.info-exclude`) ?? '');
    const args = [mine, repo.prefix ? `--prefix=${repo.prefix}` : '', from ?? '', saved, options.loopStart ? '1' : '', common, infoChanged ? '1' : ''];
    let out: string;
    let diffFailed = false;
    try {
      out = execFileSync('/bin/sh', ['-c', snapshotScript([...FORCED_CONFIG, ...fileSystemConfig(dir)]), 'minions-snapshot', ...args], {
        cwd: root,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
        env,
        timeout: timeoutMs,
        maxBuffer: MAX_OUTPUT,
      });
    } catch (err) {
      const e = err as { status?: number | null; stdout?: string };
      if (e.status !== 5 || typeof e.stdout !== 'string') return none;
      out = e.stdout;
      diffFailed = true;
    }
    const eol = out.indexOf('\n');
    const tree = out.slice(0, eol);
    if (eol === -1 || !SHA.test(tree)) return none;
    fs.renameSync(mine, shared);
    if (from === null || diffFailed) return { tree, diff: null };
    return { tree, diff: from === tree ? { ...NO_CHANGE } : cutPatch(out.slice(eol + 1), maxBytes) };
  } catch {
    return none;
  } finally {
    for (const file of [mine, `${mine}.lock`, `${mine}.new`, `${mine}.x`, `${mine}.i`, `${mine}.f`]) removeFile(file);
  }
}

/**
 * The commit HEAD names, or null before the first commit or outside git. Read from the git dir as git
 * reads it (HEAD, then a loose ref or packed-refs, in the common dir of a worktree), with no process: a
 * loop's start names its base this way. A git dir it cannot read so (reftable, a ref it does not know
 * how to follow) is asked with `git rev-parse`.
 */
export function headCommit(root: string): string | null {
  const repo = repoOf(root);
  if (!repo) return null;
  const read = headFromFiles(repo.gitDir);
  if (read !== undefined) return read;
  const out = gitIn(root)(['rev-parse', '--verify', '-q', 'HEAD'])?.trim() ?? '';
  return SHA.test(out) ? out : null;
}

/** HEAD's commit from the git dir's files: null when the branch has no commit yet, undefined when the files do not say. */
export function headFromFiles(gitDir: string): string | null | undefined {
  // A worktree's git dir names the repository's common dir (refs, packed-refs) in its commondir file.
  const linked = readOptional(path.join(gitDir, 'commondir'));
  if (linked === undefined) return undefined;
  return headIn(gitDir, linked === null ? gitDir : path.resolve(gitDir, linked.trim()));
}

function headIn(gitDir: string, common: string): string | null | undefined {
  try {
    if (fs.existsSync(path.join(common, 'reftable'))) return undefined;
    let text = fs.readFileSync(path.join(gitDir, 'HEAD'), 'utf8').trim();
    for (let depth = 0; depth < 5; depth++) {
      if (SHA.test(text)) return text;
      const ref = /^ref: (refs\/[^\s]+)$/.exec(text)?.[1];
      if (!ref || ref.split('/').some((part) => part === '' || part === '.' || part === '..')) return undefined;
      // Refs of one worktree live in its own git dir, every other ref in the common dir.
      const dir = /^refs\/(?:bisect|worktree|rewritten)\//.test(ref) ? gitDir : common;
      const loose = readOptional(path.join(dir, ref));
      if (loose === undefined) return undefined;
      if (loose !== null) {
        text = loose.trim();
        continue;
      }
      const packed = readOptional(path.join(common, 'packed-refs'));
      if (packed === undefined) return undefined;
      const line = packed?.split('\n').find((l) => l.endsWith(` ${ref}`) && !l.startsWith('#') && !l.startsWith('^'));
      // A branch with no commit yet (a new repository): no loose ref, none packed.
      if (!line) return null;
      const oid = line.slice(0, line.indexOf(' '));
      return SHA.test(oid) ? oid : undefined;
    }
    return undefined;
  } catch {
    return undefined;
  }
}

/** A file's text, null when it does not exist, undefined when it cannot be read (or is not a file). */
function readOptional(file: string): string | null | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? null : undefined;
  }
}

/** The tree of a commit at the project root (the loop's base), or null. */
export function commitTree(root: string, commit: string): string | null {
  const at = commitTreeSpec(root, commit);
  if (!at) return null;
  const out = gitIn(root)(['rev-parse', '--verify', '-q', at])?.trim() ?? '';
  return SHA.test(out) ? out : null;
}

/** `<commit>:<prefix>`, git's name for the commit's tree at the project root (any tree-ish argument takes it), or null. */
export function commitTreeSpec(root: string, commit: string): string | null {
  const repo = repoOf(root);
  return repo && SHA.test(commit) ? `${commit}:${repo.prefix}` : null;
}

const diffArgs = ['diff-tree', '-r', '--no-color', '--no-ext-diff', '--no-textconv', '--find-renames'];

export interface Patch {
  text: string;
  /** True when the patch was cut at maxBytes; `files` then lists every changed path. */
  truncated: boolean;
  files: string[];
  /** The paths among files that are only a rename's old path (git names the new one as the change). */
  renamedFrom: string[];
  /** The paths among files that the `from` tree did not have (git's status A). */
  added?: string[];
}

const NO_CHANGE: Patch = { text: '', truncated: false, files: [], renamedFrom: [] };

/** The unified diff between two trees (binary files named, not dumped), cut at maxBytes. */
export function diffTrees(root: string, from: string, to: string, maxBytes = 512 * 1024): Patch {
  return diffTreesOrNull(root, from, to, maxBytes) ?? { ...NO_CHANGE };
}

/**
 * As diffTrees, from one git process (the changed paths from the same call's raw listing), or null when
 * git fails (a tree or `<commit>:<path>` it does not have).
 */
export function diffTreesOrNull(root: string, from: string, to: string, maxBytes = 512 * 1024): Patch | null {
  if (from === to) return { ...NO_CHANGE };
  const out = gitIn(root)([...diffArgs, '-z', '--raw', '-p', from, to]);
  return out === null ? null : cutPatch(out, maxBytes);
}

/** `git diff-tree -z --raw -p` output → the patch, cut at maxBytes, and every path it names. */
function cutPatch(out: string, maxBytes: number): Patch {
  const { files, renamedFrom, added, patch: text } = splitRawPatch(out);
  if (files.length === 0) return { ...NO_CHANGE };
  if (Buffer.byteLength(text) <= maxBytes) return { text, truncated: false, files, renamedFrom, added };
  const cut = Buffer.from(text).subarray(0, maxBytes).toString('utf8').replace(/\uFFFD*$/, '');
  return { text: cut.slice(0, cut.lastIndexOf('\n') + 1), truncated: true, files, renamedFrom, added };
}

/**
 * `git diff-tree -z --raw -p` output → the paths it names and the patch after them. Each raw entry is
 * `:<modes> <ids> <status>` then its path (a rename or copy: from-path and to-path), NUL-terminated;
 * a NUL ends the listing. Both sides of a rename are named, as `--no-renames` names them, in git's order
 * (paths as bytes).
 */
export function splitRawPatch(out: string): { files: string[]; renamedFrom: string[]; added: string[]; patch: string } {
  const names = new Set<string>();
  // A rename's old path, unless an entry names it as well (a file renamed away and another written in its place).
  const moved = new Set<string>();
  const named = new Set<string>();
  const added = new Set<string>();
  const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
  const result = (patch: string) => ({ files: [...names].sort(byBytes), renamedFrom: [...moved].filter((p) => !named.has(p)).sort(byBytes), added: [...added].sort(byBytes), patch });
  let at = 0;
  while (out[at] === ':') {
    const metaEnd = out.indexOf('\0', at);
    if (metaEnd === -1) break;
    const status = /([A-Z])\d*$/.exec(out.slice(at, metaEnd))?.[1];
    const paths = status === 'R' || status === 'C' ? 2 : 1;
    at = metaEnd + 1;
    for (let k = 0; k < paths; k++) {
      const end = out.indexOf('\0', at);
      if (end === -1) return result('');
      const name = out.slice(at, end);
      names.add(name);
      (status === 'R' && k === 0 ? moved : named).add(name);
      if (status === 'A') added.add(name);
      at = end + 1;
    }
  }
  if (out[at] === '\0') at++;
  return result(out.slice(at));
}

/** Which of `paths` the tree `treeSpec` (a tree id, or `<commit>:<prefix>`) holds; null when git fails. */
export function pathsIn(root: string, treeSpec: string, paths: readonly string[]): Set<string> | null {
  if (paths.length === 0) return new Set();
  const out = gitIn(root)(['ls-tree', '-r', '-z', '--name-only', treeSpec, '--', ...paths.map((p) => `:(literal)${p}`)]);
  return out === null ? null : new Set(out.split('\0').filter(Boolean));
}

/** Paths (relative to the project root) that differ between two trees. */
export function changedPaths(root: string, from: string, to: string): string[] {
  if (from === to) return [];
  const out = gitIn(root)(['diff-tree', '-r', '-z', '--name-only', '--no-renames', from, to]);
  return out ? out.split('\0').filter(Boolean) : [];
}

/** `git diff --stat` between two trees. */
export function diffStat(root: string, from: string, to: string): string {
  if (from === to) return '';
  return gitIn(root)(['diff-tree', '-r', '--stat', '--no-color', '--find-renames', from, to])?.trimEnd() ?? '';
}

/** A file's text in a tree, or null when the tree has no such file. */
export function readBlob(root: string, tree: string, rel: string): string | null {
  if (!SHA.test(tree)) return null;
  return gitIn(root)(['cat-file', 'blob', `${tree}:${rel}`]);
}

/**
 * Several files' contents in one tree, through one `git cat-file --batch`: path → bytes, or null when the
 * tree has no such file (or it is not a blob). Empty answers outside a repository or when git fails.
 */
export function readBlobs(root: string, tree: string, rels: readonly string[]): Map<string, Buffer | null> {
  const out = new Map<string, Buffer | null>();
  if (!SHA.test(tree) || rels.length === 0) return out;
  let raw: Buffer;
  try {
    raw = execFileSync('git', ['cat-file', '--batch'], {
      cwd: root,
      input: rels.map((rel) => `${tree}:${rel}\n`).join(''),
      maxBuffer: MAX_OUTPUT,
      stdio: ['pipe', 'pipe', 'ignore'],
      env: { ...process.env, GIT_OPTIONAL_LOCKS: '0' },
      timeout: 30_000,
    });
  } catch {
    return out;
  }
  let at = 0;
  for (const rel of rels) {
    const eol = raw.indexOf(0x0a, at);
    if (eol === -1) break;
    const header = raw.subarray(at, eol).toString('utf8');
    const m = /^[0-9a-f]+ (\w+) (\d+)$/.exec(header);
    if (!m) {
      out.set(rel, null); // "<object> missing"
      at = eol + 1;
      continue;
    }
    const size = Number(m[2]);
    out.set(rel, m[1] === 'blob' ? raw.subarray(eol + 1, eol + 1 + size) : null);
    at = eol + 1 + size + 1;
  }
  return out;
}

export interface Restored {
  written: string[];
  deleted: string[];
  failed: string[];
}

/** Whether a folder on the way from `root` to `rel`'s folder is a symbolic link (or not a folder): a write there would land elsewhere. */
function linkOnTheWay(root: string, rel: string): boolean {
  const parts = rel.split('/').slice(0, -1);
  for (let i = 1, at = root; i <= parts.length; i++) {
    at = path.join(at, parts[i - 1]!);
    const stat = fs.lstatSync(at, { throwIfNoEntry: false });
    if (!stat) return false; // made below by mkdir, which then follows nothing
    if (!stat.isDirectory()) return true;
  }
  return false;
}

/**
 * Puts the given paths back as they are in the tree: written when the tree has them, deleted when not.
 * A path whose folder is reached through a symbolic link (or a file) fails and is left alone; a file
 * is written as a new one (a link standing at it is removed, never followed).
 */
export function restorePaths(root: string, tree: string, paths: readonly string[]): Restored {
  const result: Restored = { written: [], deleted: [], failed: [] };
  const git = gitIn(root);
  for (const rel of paths) {
    const file = path.join(root, rel);
    if (rel.split('/').some((part) => part === '' || part === '.' || part === '..') || linkOnTheWay(root, rel)) {
      result.failed.push(rel);
      continue;
    }
    const entry = git(['ls-tree', '-z', tree, '--', rel])?.split('\0')[0] ?? '';
    const [mode, type, id] = entry.split(/\s+/);
    try {
      if (!entry || type !== 'blob' || !id) {
        removeFile(file);
        result.deleted.push(rel);
        continue;
      }
      const content = execFileSync('git', ['cat-file', 'blob', id], { cwd: root, maxBuffer: MAX_OUTPUT, stdio: ['ignore', 'pipe', 'ignore'] });
      fs.mkdirSync(path.dirname(file), { recursive: true });
      removeFile(file);
      if (mode === '120000') fs.symlinkSync(content.toString('utf8'), file);
      else createExclusive(file, content, mode === '100755' ? 0o755 : 0o644);
      result.written.push(rel);
    } catch {
      result.failed.push(rel);
    }
  }
  return result;
}

/** True when the repository still holds this tree (unreferenced snapshots are pruned by `git gc` in time). */
export function hasTree(root: string, tree: string): boolean {
  if (!SHA.test(tree)) return false;
  return gitIn(root)(['cat-file', '-e', `${tree}^{tree}`]) !== null;
}

/** The project root's path inside its repository ('' or ending in '/'), or null outside git. */
export function repoPrefix(root: string): string | null {
  return repoOf(root)?.prefix ?? null;
}
