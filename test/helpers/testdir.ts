/**
 * Temporary git repositories for hook-process tests.
 *
 *   const dir = testdir({ 'src/a.ts': 'export const a = 1;\n' }, { uncommitted: { 'src/a.ts': 'export const a = 2;\n' } });
 *
 * The committed files are added and committed (one commit); `uncommitted` files are then written (null
 * deletes a file) and left in the working tree. Every directory is removed by removeTestdirs().
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export type Files = Record<string, string>;

export interface TestDir {
  /** Real (symlink-free) absolute path of the repository. */
  root: string;
  /** Absolute path of a project-relative path. */
  abs(rel: string): string;
  read(rel: string): string;
  readJson<T = any>(rel: string): T;
  exists(rel: string): boolean;
  write(rel: string, content: string): void;
  /** The files under a project-relative directory, recursively, POSIX and sorted ([] when it does not exist). */
  list(rel: string): string[];
  git(...args: string[]): string;
}

const created: string[] = [];

/** A clean environment for git: no user or system config, fixed identity and dates. */
export const GIT_ENV: NodeJS.ProcessEnv = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.com',
  GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z',
  GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z',
};

/** Where temp folders go: the run's folder (vitest.config.ts), which the run removes even if a worker is stopped. */
const tempRoot = (): string => {
  const run = process.env.MINIONS_TEST_TMP;
  return run && fs.existsSync(run) ? run : os.tmpdir();
};

export function tempDir(prefix = 'minions-'): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(tempRoot(), prefix)));
  created.push(dir);
  return dir;
}

export function writeFiles(root: string, files: Record<string, string | null>): void {
  for (const [rel, content] of Object.entries(files)) {
    const file = path.join(root, rel);
    if (content === null) {
      fs.rmSync(file, { force: true });
      continue;
    }
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
  }
}

function listFiles(dir: string, prefix = ''): string[] {
  if (!fs.existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...listFiles(path.join(dir, entry.name), rel));
    else out.push(rel);
  }
  return out.sort();
}

export function openTestdir(root: string): TestDir {
  const abs = (rel: string): string => path.join(root, rel);
  return {
    root,
    abs,
    read: (rel) => fs.readFileSync(abs(rel), 'utf8'),
    readJson: (rel) => JSON.parse(fs.readFileSync(abs(rel), 'utf8')),
    exists: (rel) => fs.existsSync(abs(rel)),
    write: (rel, content) => writeFiles(root, { [rel]: content }),
    list: (rel) => listFiles(abs(rel)),
    git: (...args) => execFileSync('git', args, { cwd: root, env: GIT_ENV, encoding: 'utf8' }),
  };
}

/**
 * The repositories made so far in this test process, by committed files: a copy of one is the same
 * repository (fixed identity and dates give the same commit) without running git three times. They
 * outlive removeTestdirs() and go when the process exits.
 */
const templates = new Map<string, string>();
let templateRoot: string | null = null;

function committedRepo(committed: Files): string {
  const key = JSON.stringify(Object.entries(committed).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const known = templates.get(key);
  if (known && fs.existsSync(known)) return known;
  if (!templateRoot) {
    const made = fs.realpathSync(fs.mkdtempSync(path.join(tempRoot(), 'minions-templates-')));
    process.once('exit', () => fs.rmSync(made, { recursive: true, force: true }));
    templateRoot = made;
  }
  const root = path.join(templateRoot, String(templates.size));
  fs.mkdirSync(root);
  const dir = openTestdir(root);
  writeFiles(root, committed);
  dir.git('init', '-q', '-b', 'main');
  dir.git('add', '-A');
  dir.git('commit', '-q', '--allow-empty', '-m', 'initial');
  templates.set(key, root);
  return root;
}

export function testdir(committed: Files = { 'src/a.ts': 'export const a = 1;\n' }, options: { uncommitted?: Record<string, string | null>; git?: boolean } = {}): TestDir {
  const root = tempDir();
  if (options.git === false) writeFiles(root, committed);
  else fs.cpSync(committedRepo(committed), root, { recursive: true, verbatimSymlinks: true });
  if (options.uncommitted) writeFiles(root, options.uncommitted);
  return openTestdir(root);
}

/** A copy of a whole test directory (its .git included), for repeating one scenario from the same start. */
export function cloneTestdir(from: TestDir): TestDir {
  const root = tempDir();
  fs.cpSync(from.root, root, { recursive: true, verbatimSymlinks: true });
  return openTestdir(root);
}

export function removeTestdirs(): void {
  for (const dir of created.splice(0)) {
    try {
      fs.chmodSync(dir, 0o700);
    } catch {
      // already gone
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
