/**
 * Bundles each hook entrypoint and the CLI into one self-contained file in dist/, then assembles
 * plugin/: the folder the marketplace entry points at, holding only what runs (both committed).
 *
 * The hooks are CommonJS, one file each: node starts a CommonJS script with less work than an ES
 * module, and a hook runs on every tool call of a loop, so its start-up is budgeted (bench/hooks.bench.ts).
 * Each bundle holds only the code its hook reaches: the read-only gates hold no transition, prompts
 * or aggregation. (esbuild splits shared chunks only for ES modules, so the hooks share none.)
 * hooks.json starts them through dist/launch.cjs, which keeps their compiled code in V8's code cache.
 * The CLI runs once per command, as an ES module.
 */
import { build, type BuildOptions, type Plugin } from 'esbuild';
import fs from 'node:fs';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** dist/ file → its source. */
export const ENTRYPOINTS: Record<string, string> = {
  'launch.cjs': 'src/launch.ts',
  'on-prompt-submit.cjs': 'src/hooks/on-prompt-submit.ts',
  'on-stop.cjs': 'src/hooks/on-stop.ts',
  'on-subagent-stop.cjs': 'src/hooks/on-subagent-stop.ts',
  'on-task-gate.cjs': 'src/hooks/on-task-gate.ts',
  'on-edit-gate.cjs': 'src/hooks/on-edit-gate.ts',
  'on-bash-gate.cjs': 'src/hooks/on-bash-gate.ts',
  'cli.mjs': 'src/cli/minions.ts',
};

/** The `minions` command (package.json's bin): an ES module with a shebang, executable. */
export const CLI = 'cli.mjs';

/** Files the bundles load at run time, copied next to them: the Bash gate's shell parser (WebAssembly). */
export const ASSETS: Record<string, string> = {
  'web-tree-sitter.wasm': 'node_modules/web-tree-sitter/web-tree-sitter.wasm',
  'tree-sitter-bash.wasm': 'node_modules/tree-sitter-bash/tree-sitter-bash.wasm',
};

const common: BuildOptions = {
  bundle: true,
  platform: 'node',
  // node_modules may be a symlink (a worktree sharing another's): paths, and so the bundles, stay the same.
  preserveSymlinks: true,
  target: 'node18',
  minify: true,
  legalComments: 'eof',
  logLevel: 'warning',
};

const FORMATS: Record<'cjs' | 'esm', BuildOptions> = {
  // The sources are ES modules: import.meta.url (the bundle's own place, for the .wasm beside it) is
  // the file's URL, and node:url is loaded before any script runs.
  // dist/launch.cjs runs the bundles as scripts, where import() has no loader: a bundled module's
  // import() becomes a require, and so does a dependency's import() of a builtin (builtinImports).
  cjs: {
    format: 'cjs',
    supported: { 'dynamic-import': false },
    define: { 'import.meta.url': '__minionsUrl' },
    banner: { js: "const __minionsUrl=require('node:url').pathToFileURL(__filename).href;const __minionsBuiltin=(id)=>require(id);" },
  },
  // CommonJS dependencies (fast-glob) use require().
  esm: { format: 'esm', banner: { js: "import{createRequire as __minionsRequire}from'node:module';const require=__minionsRequire(import.meta.url);" } },
};

/**
 * A dependency's import() of a node builtin (web-tree-sitter's `await import("module")`), in the
 * CommonJS bundles: the builtin is required through the banner's __minionsBuiltin, which a `var require`
 * of the dependency's own cannot shadow.
 */
const builtinImports: Plugin = {
  name: 'builtin-imports',
  setup(b) {
    b.onLoad({ filter: /[\\/]node_modules[\\/].*\.m?js$/ }, async (args) => {
      const text = await fs.promises.readFile(args.path, 'utf8');
      const rewritten = text.replace(/\bimport\(\s*(["'])([\w:/]+)\1\s*\)/g, (call, quote: string, id: string) =>
        isBuiltin(id) ? `Promise.resolve(__minionsBuiltin(${quote}${id}${quote}))` : call,
      );
      return rewritten === text ? undefined : { contents: rewritten, loader: 'js' };
    });
  },
};

/**
 * `import fs from 'node:fs'` in the CommonJS bundles: esbuild's interop wraps the builtin in __toESM, a
 * fresh object with a getter for each of its exports (node:fs has over a hundred), once per importing
 * module: about 1.3 ms of every hook's start (22 such imports in one bundle). A default import of a
 * builtin is the module object itself, so the import becomes that `require` (through the banner's
 * __minionsBuiltin). Only that exact form is rewritten; named imports already compile to a bare require.
 */
const BUILTIN_DEFAULT = /^import (\w+) from '(node:[\w/]+)';$/gm;
const builtinDefaults: Plugin = {
  name: 'builtin-defaults',
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, async (args) => {
      const text = await fs.promises.readFile(args.path, 'utf8');
      const rewritten = text.replace(BUILTIN_DEFAULT, (line, name: string, id: string) => (isBuiltin(id) ? `const ${name} = __minionsBuiltin('${id}');` : line));
      return rewritten === text ? undefined : { contents: rewritten, loader: 'ts' };
    });
  },
};

/**
 * Builds dist/ (or `outdir`); returns each file's bundled sources, relative to the repository. `variant`:
 * plugins run before the hooks' own (a bench builds the hooks with a part changed, never into dist/).
 */
export async function buildAll(outdir = path.join(root, 'dist'), variant: Plugin[] = []): Promise<Record<string, string[]>> {
  fs.rmSync(outdir, { recursive: true, force: true });
  const built = await Promise.all(
    Object.entries(ENTRYPOINTS).map(async ([file, source]) => {
      const result = await build({
        ...common,
        ...FORMATS[file.endsWith('.cjs') ? 'cjs' : 'esm'],
        ...(file.endsWith('.cjs') ? { plugins: [...variant, builtinImports, builtinDefaults] } : { plugins: variant }),
        ...(file === CLI ? { banner: { js: `#!/usr/bin/env node
${FORMATS.esm.banner!.js}` } } : {}),
        metafile: true,
        entryPoints: [path.join(root, source)],
        outfile: path.join(outdir, file),
      });
      // package.json's bin: run as a command (a global install, npx, or ./dist/cli.mjs).
      if (file === CLI) fs.chmodSync(path.join(outdir, file), 0o755);
      const inputs = Object.values(result.metafile.outputs)[0]!.inputs;
      return [file, Object.keys(inputs).map((input) => path.relative(root, path.resolve(root, input)))] as const;
    }),
  );
  for (const [name, from] of Object.entries(ASSETS)) fs.copyFileSync(path.join(root, from), path.join(outdir, name));
  return Object.fromEntries(built);
}

/**
 * What a user's install holds, relative to the repository root: the bundles, the agents, commands,
 * hooks and skill, the manifest and icon, and LICENSE. No package.json and no lockfile: the host
 * installs a plugin's npm dependencies only when its folder has a package.json with a lockfile, and
 * this folder has nothing to install.
 */
export const SHIPPED = ['.claude-plugin/plugin.json', '.claude-plugin/icon.png', 'LICENSE', 'agents', 'commands', 'hooks', 'skills', 'dist'];

/** Files assemblePlugin writes into the folder rather than copies: a short README (pluginReadme). */
export const WRITTEN = ['README.md'];

/** The shipped folder the marketplace entry (`"source": "./plugin"`) points at. */
export const PLUGIN_DIR = 'plugin';

/** The documents of the repository the plugin's README points to, each with what it is for. */
export const REPOSITORY_DOCS: readonly (readonly [string, string])[] = [
  ['README.md', 'install, update, uninstall, use, the outcomes and troubleshooting'],
  ['docs/internals.md', 'how the loop works: the state machine, grounding, checks, snapshots, the record'],
  ['docs/security.md', 'what the gates prevent, what is detected afterwards, what neither covers'],
  ['docs/performance.md', 'what the hooks cost, and the commands that measure it'],
  ['docs/CONTRIBUTING.md', 'build, test and release'],
  ['CHANGELOG.md', 'what each version changed'],
];

/**
 * plugin/README.md: what this folder is and where the documentation is, not a copy of the repository's
 * README (which would ship a second, stale copy of every page with each install).
 */
export function pluginReadme(manifest: { version: string; homepage?: string }): string {
  const where = manifest.homepage ? ` (${manifest.homepage.replace(/#.*$/, '')})` : '';
  return [
    '# minions',
    '',
    'A bounded review → fix loop inside your own Claude Code session: `/minions:review <what to review>` runs',
    'five read-only reviewer agents in parallel and one fixer, and repeats until a review is clean, the',
    "project's checks still pass and the fix raised nothing, or a budget is spent. The plugin's hooks own the",
    'loop, not the model.',
    '',
    `This folder is version ${manifest.version} of the plugin as Claude Code loads it: the hook bundles, agents,`,
    'commands, hooks and skill. It is built by `npm run build` in the minions repository; do not edit it.',
    '',
    `The documentation is in that repository${where} and in your clone of it:`,
    '',
    ...REPOSITORY_DOCS.map(([file, what]) => `- \`${file}\`: ${what}`),
    '',
  ].join('\n');
}

/** Copies SHIPPED from `from` (a repository root) into `dest`, replacing what was there, writes WRITTEN, and generates the Codex CLI agents. */
export function assemblePlugin(from = root, dest = path.join(root, PLUGIN_DIR)): void {
  fs.rmSync(dest, { recursive: true, force: true });
  for (const rel of SHIPPED) fs.cpSync(path.join(from, rel), path.join(dest, rel), { recursive: true });
  const manifest = JSON.parse(fs.readFileSync(path.join(from, '.claude-plugin', 'plugin.json'), 'utf8')) as { version: string; homepage?: string };
  fs.writeFileSync(path.join(dest, 'README.md'), pluginReadme(manifest));
  const agents = path.join(from, 'agents');
  fs.mkdirSync(path.join(dest, CODEX_AGENTS_DIR), { recursive: true });
  for (const file of fs.readdirSync(agents).filter((f) => f.endsWith('.md')).sort()) {
    const agent = codexAgent(fs.readFileSync(path.join(agents, file), 'utf8'));
    fs.writeFileSync(path.join(dest, CODEX_AGENTS_DIR, `${agent.file}.toml`), agent.toml);
  }
}

/**
 * Codex CLI registers custom agents only from $CODEX_HOME/agents/*.toml, not from a plugin's agents/*.md
 * (measured on 0.171.0): the six are generated here from the same Markdown, for the install step to copy.
 * Codex has no per-agent tool list; sandbox_mode stands in for it: read-only for an agent whose tools
 * edit nothing but its own findings file (the hooks write that file from a ```json answer), else
 * workspace-write. The hooks' gates hold on every host either way.
 */
export const CODEX_AGENTS_DIR = 'codex/agents';

/** The folders of plugin/ that the build generates rather than copies. */
export const GENERATED = ['codex'];

export function codexAgent(markdown: string): { file: string; toml: string } {
  const match = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(markdown);
  if (!match) throw new Error('an agent file without front matter');
  const fields = Object.fromEntries(
    match[1]!.split('\n').flatMap((line) => {
      const at = line.indexOf(':');
      return at > 0 ? [[line.slice(0, at).trim(), line.slice(at + 1).trim()] as const] : [];
    }),
  );
  const name = fields.name;
  if (!name || !fields.description || !fields.tools) throw new Error('an agent file without a name, description or tools');
  const tools = fields.tools.split(',').map((t) => t.trim());
  const writesProject = tools.includes('Edit');
  const note = writesProject
    ? ''
    : '\n\n## In Codex CLI\nYour sandbox is read-only: do not write your findings file. End your turn with your JSON findings, exactly as the file would hold them, in one ```json fenced block: the hooks validate it and write the file for you.\n';
  // JSON's string escapes are TOML's basic-string escapes.
  const toml = [
    `name = ${JSON.stringify(`minions:${name}`)}`,
    `description = ${JSON.stringify(fields.description)}`,
    `sandbox_mode = ${JSON.stringify(writesProject ? 'workspace-write' : 'read-only')}`,
    `developer_instructions = ${JSON.stringify(`${match[2]!.trim()}${note}`)}`,
    '',
  ].join('\n');
  return { file: name, toml };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildAll(process.argv[2] ? path.resolve(process.argv[2]) : undefined);
  if (!process.argv[2]) assemblePlugin();
}
