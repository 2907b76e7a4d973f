/**
 * Bundles each hook entrypoint and the CLI into a self-contained dist/*.mjs, then assembles plugin/:
 * the folder the marketplace entry points at, holding only what runs (both committed).
 */
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export const ENTRYPOINTS: Record<string, string> = {
  'on-prompt-submit': 'src/hooks/on-prompt-submit.ts',
  'on-stop': 'src/hooks/on-stop.ts',
  'on-subagent-stop': 'src/hooks/on-subagent-stop.ts',
  'on-task-gate': 'src/hooks/on-task-gate.ts',
  'on-edit-gate': 'src/hooks/on-edit-gate.ts',
  'on-bash-gate': 'src/hooks/on-bash-gate.ts',
  cli: 'src/cli/minions.ts',
};

/** Files the bundles load at run time, copied next to them: the Bash gate's shell parser (WebAssembly). */
export const ASSETS: Record<string, string> = {
  'web-tree-sitter.wasm': 'node_modules/web-tree-sitter/web-tree-sitter.wasm',
  'tree-sitter-bash.wasm': 'node_modules/tree-sitter-bash/tree-sitter-bash.wasm',
};

export async function buildAll(outdir = path.join(root, 'dist')): Promise<void> {
  fs.rmSync(outdir, { recursive: true, force: true });
  await build({
    entryPoints: Object.fromEntries(Object.entries(ENTRYPOINTS).map(([name, file]) => [name, path.join(root, file)])),
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    // Shared code goes to dist/chunk-*.mjs once instead of into every bundle; the lock and the atomic
    // writer (dynamic imports) become chunks that the read-only gates never load.
    splitting: true,
    chunkNames: 'chunk-[hash]',
    platform: 'node',
    // node_modules may be a symlink (a worktree sharing another's): paths, and so chunk names, stay the same.
    preserveSymlinks: true,
    format: 'esm',
    target: 'node18',
    minify: true,
    legalComments: 'eof',
    // CommonJS dependencies (proper-lockfile, graceful-fs, write-file-atomic) use require() and __filename.
    banner: {
      js: "import{createRequire as __minionsRequire}from'node:module';import{fileURLToPath as __minionsPath}from'node:url';" +
        'const require=__minionsRequire(import.meta.url);const __filename=__minionsPath(import.meta.url);',
    },
    logLevel: 'warning',
  });
  for (const [name, from] of Object.entries(ASSETS)) fs.copyFileSync(path.join(root, from), path.join(outdir, name));
}

/**
 * What a user's install holds, relative to the repository root: the bundles, the agents, commands,
 * hooks and skill, the manifest and icon, README and LICENSE. No package.json and no lockfile: the host
 * installs a plugin's npm dependencies only when its folder has a package.json with a lockfile, and
 * this folder has nothing to install.
 */
export const SHIPPED = ['.claude-plugin/plugin.json', '.claude-plugin/icon.png', 'README.md', 'LICENSE', 'agents', 'commands', 'hooks', 'skills', 'dist'];

/** The shipped folder the marketplace entry (`"source": "./plugin"`) points at. */
export const PLUGIN_DIR = 'plugin';

/** Copies SHIPPED from `from` (a repository root) into `dest`, replacing what was there. */
export function assemblePlugin(from = root, dest = path.join(root, PLUGIN_DIR)): void {
  fs.rmSync(dest, { recursive: true, force: true });
  for (const rel of SHIPPED) fs.cpSync(path.join(from, rel), path.join(dest, rel), { recursive: true });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildAll(process.argv[2] ? path.resolve(process.argv[2]) : undefined);
  if (!process.argv[2]) assemblePlugin();
}
