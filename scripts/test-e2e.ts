/**
 * `npm run test:e2e [-- vitest args]`: the end-to-end suite against a chosen Claude Code CLI.
 *
 *   npm run test:e2e                                 the pinned devDependency (node_modules/.bin/claude)
 *   MINIONS_CLAUDE_VERSION=2.1.332 npm run test:e2e  that version, installed once into
 *                                                    ~/.cache/minions/claude-code/<version>/ (outside the repo)
 *   MINIONS_CLAUDE_BIN=/path/to/claude npm run test:e2e   a CLI you installed yourself
 *
 * The harness (test/e2e/harness.ts) runs whatever MINIONS_CLAUDE_BIN names.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PACKAGE = '@anthropic-ai/claude-code';

/** The CLI for `version`, installed into the cache when it is not there yet. */
export function cachedClaude(version: string, cacheDir = process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache')): string {
  if (!/^\d+\.\d+\.\d+$/.test(version)) throw new Error(`MINIONS_CLAUDE_VERSION must be a version like 2.1.332, not ${JSON.stringify(version)}`);
  const prefix = path.join(cacheDir, 'minions', 'claude-code', version);
  const bin = path.join(prefix, 'node_modules', '.bin', 'claude');
  if (!fs.existsSync(bin)) {
    process.stderr.write(`test:e2e: installing ${PACKAGE}@${version} into ${prefix}\n`);
    fs.mkdirSync(prefix, { recursive: true });
    execFileSync('npm', ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--save-exact', `${PACKAGE}@${version}`], { stdio: 'inherit' });
  }
  return bin;
}

function pinnedBin(): string {
  return path.join(root, 'node_modules', '.bin', 'claude');
}

function main(): number {
  const version = process.env.MINIONS_CLAUDE_VERSION;
  const bin = process.env.MINIONS_CLAUDE_BIN || (version ? cachedClaude(version) : pinnedBin());
  const reported = execFileSync(bin, ['--version'], { encoding: 'utf8', env: { ...process.env, DISABLE_AUTOUPDATER: '1' } }).trim();
  if (version && !reported.startsWith(`${version} `)) {
    process.stderr.write(`test:e2e: ${bin} reports ${reported}, not ${version}\n`);
    return 1;
  }
  process.stderr.write(`test:e2e: Claude Code ${reported} at ${bin}\n`);
  const vitest = path.join(root, 'node_modules', '.bin', 'vitest');
  const result = spawnSync(vitest, ['run', '--project', 'e2e', ...process.argv.slice(2)], { stdio: 'inherit', cwd: root, env: { ...process.env, MINIONS_CLAUDE_BIN: bin } });
  return result.status ?? 1;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    process.exitCode = main();
  } catch (err) {
    process.stderr.write(`test:e2e: ${(err as Error).message}\n`);
    process.exitCode = 2;
  }
}
