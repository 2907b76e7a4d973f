/**
 * What the Bash gate's shell parser costs a hook process: CPU time against a bare node start, in
 * interleaved pairs (bench/cpu.ts). The candidates load their WebAssembly and parse one command, with
 * V8's default tiers and with the baseline compiler only (--liftoff-only, as src/shell/bash-parser.ts
 * sets it); then the built Bash gate itself, in a live loop, for a command read without the parser and
 * for one that needs it, each printed against its target (docs/performance.md): at most 2× a node start
 * without the parser, 3.5× with it. Whether the parser-free reading earns its place is measured by
 * bench/hooks.bench.ts (the same gate with that reading turned off).
 *
 *   npx tsx bench/parser.bench.ts            (PAIRS=20 by default)
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bareNode, formatPairs, formatTargets, measurePairs, nodeEnv, times, type Command, type PairResult } from './cpu';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pairs = Number(process.env.PAIRS ?? 20);
const require = createRequire(import.meta.url);
const COMMAND = 'echo 0 1>.agents/tmp/state.json; git -c alias.s=stash s';
const node = (script: string): Command => ({ argv: [process.execPath, '--input-type=module', '-e', script], env: nodeEnv });
const liftoff = "import v8 from 'node:v8'; v8.setFlagsFromString('--liftoff-only');";

function resolved(id: string): string | null {
  try {
    return require.resolve(id);
  } catch {
    return null;
  }
}

const cases: [string, Command][] = [];
const treeSitter = resolved('web-tree-sitter');
const bashWasm = resolved('tree-sitter-bash/package.json');
if (treeSitter && bashWasm) {
  const load =
    `const { Parser, Language } = await import(${JSON.stringify(pathToFileURL(treeSitter).href)}); await Parser.init();` +
    `const p = new Parser(); p.setLanguage(await Language.load(${JSON.stringify(path.join(path.dirname(bashWasm), 'tree-sitter-bash.wasm'))}));` +
    `p.parse(${JSON.stringify(COMMAND)}).delete();`;
  cases.push(['tree-sitter-bash, default tiers', node(load)], ['tree-sitter-bash, --liftoff-only', node(liftoff + load)]);
}
const shSyntax = resolved('sh-syntax');
if (shSyntax) {
  const load = `const { parse } = await import(${JSON.stringify(pathToFileURL(shSyntax.replace(/index\.cjs$/, 'index.js')).href)}); await parse(${JSON.stringify(COMMAND)});`;
  cases.push(['sh-syntax (mvdan/sh), default tiers', node(load)], ['sh-syntax (mvdan/sh), --liftoff-only', node(liftoff + load)]);
}

// The built gate in a live loop: one command the plain reader handles, one that loads the parser.
const project = fs.mkdtempSync(path.join(os.tmpdir(), 'minions-parser-bench-'));
spawnSync('git', ['init', '-q'], { cwd: project });
const hooks = JSON.parse(fs.readFileSync(path.join(root, 'hooks/hooks.json'), 'utf8')).hooks;
const hookCommand = (event: string, tool?: string): string =>
  hooks[event].find((h: { matcher?: string }) => (tool === undefined ? !h.matcher : !!h.matcher && new RegExp(`^(?:${h.matcher})$`).test(tool))).hooks[0].command;
// As the host runs hooks: CLAUDE_PLUGIN_DATA holds the live-loop marker and dist/launch.cjs's code cache.
const pluginData = fs.mkdtempSync(path.join(os.tmpdir(), 'minions-parser-bench-data-'));
const env = { ...process.env, CLAUDE_PLUGIN_ROOT: root, CLAUDE_PROJECT_DIR: project, CLAUDE_PLUGIN_DATA: pluginData };
spawnSync('/bin/sh', ['-c', hookCommand('UserPromptSubmit')], { env, input: JSON.stringify({ session_id: 'bench', cwd: project, prompt: '/minions:review bench' }) });
const gate = (command: string): Command => ({
  argv: ['/bin/sh', '-c', hookCommand('PreToolUse', 'Bash')],
  env,
  cwd: project,
  input: JSON.stringify({ session_id: 'bench', cwd: project, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command } }),
});
const GATES: Record<string, number> = { 'Bash gate, `git status` (no parser)': 2, 'Bash gate, `echo "$(git status)"` (parser)': 3.5 };
cases.push(['Bash gate, `git status` (no parser)', gate('git status')], ['Bash gate, `echo "$(git status)"` (parser)', gate('echo "$(git status)"')]);

const results: PairResult[] = cases.map(([name, command]) => measurePairs(name, bareNode, command, pairs));
console.log(`CPU time against a bare node start (${process.version}), median of ${pairs} interleaved pairs\n${formatPairs(results)}`);
const targets = results.filter((r) => r.name in GATES).map((r) => ({ target: r.name, measured: times(r.ratio), limit: `≤ ${GATES[r.name]}× a node start`, pass: r.ratio <= GATES[r.name]! }));
console.log(`\ntargets\n${formatTargets(targets)}`);
fs.rmSync(project, { recursive: true, force: true });
fs.rmSync(pluginData, { recursive: true, force: true });
