/**
 * Hook start-up cost: each hook's CPU time as a ratio to a bare `node -e ''`, measured in interleaved
 * pairs (bench/cpu.ts). Each hook runs as the host runs it: `/bin/sh -c <command from hooks/hooks.json>`,
 * payload on stdin, in a temp git repo whose loop state is put back before every sample.
 *
 * The targets (docs/performance.md), each printed with the figure measured and pass/fail:
 * - the idle path (no loop) starts no node process;
 * - the gates, Stop, SubagentStop and prompts in a running loop: at most 2× a node start, as CPU;
 * - the Bash gate with its parser loaded, and the loop start (once per loop, with its git snapshot): 3.5×;
 * - the Bash gate's parser-free reading (src/bash/syntax.ts) stays only while it saves at least a
 *   third of the gate's CPU on everyday commands: each is measured against the same gate built with that
 *   reading turned off (every command through the parser), in interleaved pairs.
 *
 *   npm run bench                 # every case, 15 pairs each
 *   BENCH_PAIRS=40 npm run bench  # steadier figures
 *   BENCH_ONLY=gate npm run bench # the cases whose name contains "gate"
 *   BENCH_AGAINST=../other npm run bench  # each case against the same case run from another checkout's
 *                                         # built plugin (ratio this / that), instead of a bare node start
 *
 * The states are made by the real hooks (start, dispatch, a review written), so the bench follows the
 * state schema as it changes.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'esbuild';
import { buildAll } from '../scripts/build';
import { bareNode, caBundleNote, formatPairs, formatTargets, measurePairs, nodeEnv, times, type Command, type PairResult, type TargetRow } from './cpu';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pairs = Number(process.env.BENCH_PAIRS ?? 15);
const only = process.env.BENCH_ONLY ?? '';
/** The gates, Stop, SubagentStop and prompts in a running loop, as a ratio to a node start. */
const IN_LOOP = 2;
/** The Bash gate with its parser loaded, and the loop start. */
const HEAVY = 3.5;
/** The share of the Bash gate's CPU its parser-free reading must save on everyday commands to stay. */
const FAST_PATH_SAVES = 1 / 3;
/** The everyday commands that share is measured on. */
const EVERYDAY = ['git diff', 'ls -la', 'cat src/cart.ts', 'npm test', 'grep -rn foo src'];

interface HookGroup {
  matcher?: string;
  hooks: { command: string }[];
}
const hooks = (JSON.parse(fs.readFileSync(path.join(root, 'hooks/hooks.json'), 'utf8')) as { hooks: Record<string, HookGroup[]> }).hooks;
/** The group the host runs for `tool` (a matcher is a regular expression over tool names, as the host reads it). */
const groupFor = (groups: HookGroup[] | undefined, tool?: string): HookGroup | undefined =>
  groups?.find((h) => (tool === undefined ? !h.matcher : !!h.matcher && new RegExp(`^(?:${h.matcher})$`).test(tool)));
const hookCommand = (event: string, tool?: string): string[] => {
  const group = groupFor(hooks[event], tool);
  if (!group) throw new Error(`hooks.json has no ${event} hook for ${tool ?? 'every tool'}`);
  return ['/bin/sh', '-c', group.hooks[0]!.command];
};
const EDIT = 'Edit';

// ── The project and its loop states ────────────────────────────────────────────

const SESSION = 'bench-session';
const project = fs.mkdtempSync(path.join(os.tmpdir(), 'minions-bench-'));
const git = (...args: string[]): void => {
  const out = spawnSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.com', ...args], { cwd: project, encoding: 'utf8' });
  if (out.status !== 0) throw new Error(`git ${args.join(' ')}: ${out.stderr}`);
};
const write = (rel: string, text: string): void => {
  fs.mkdirSync(path.dirname(path.join(project, rel)), { recursive: true });
  fs.writeFileSync(path.join(project, rel), text);
};
write('src/cart.ts', 'export const TAX = 0.2;\nexport function total(xs: number[]): number {\n  return xs.reduce((a, b) => a + b, 0);\n}\n');
write('README.md', '# cart\n');
git('init', '-q');
git('add', '-A');
git('commit', '-qm', 'init');
write('src/cart.ts', 'export const TAX = 0.2;\nexport function total(xs: number[]): number {\n  let s = 0;\n  for (let i = 0; i <= xs.length; i++) s += xs[i];\n  return s;\n}\n');

// As the host runs hooks: CLAUDE_PLUGIN_DATA holds the live-loop marker and dist/launch.cjs's code cache.
const pluginData = fs.mkdtempSync(path.join(os.tmpdir(), 'minions-bench-data-'));
/** Another built plugin measured beside this one, with a plugin data folder of its own (each launch keeps only its own bundle's code cache). */
interface OtherPlugin {
  root: string;
  data: string;
}
const otherPlugin = (pluginRoot: string): OtherPlugin => ({ root: pluginRoot, data: fs.mkdtempSync(path.join(os.tmpdir(), 'minions-bench-data-')) });
/**
 * BENCH_AGAINST: another checkout whose built hooks are the baseline of each case. A few percent is all a
 * change to a hook usually saves, well inside the noise of a ratio to a bare node start; against the same
 * hook before the change, the two share the project, the state and the machine's load sample by sample.
 */
const against = process.env.BENCH_AGAINST ? otherPlugin(path.resolve(process.env.BENCH_AGAINST)) : null;
/** These hooks with the Bash gate's parser-free reading turned off: every command goes through the parser. */
const fastPathMeasured = !against && (!only || EVERYDAY.some((c) => `Bash gate, \`${c}\``.includes(only)));
const parserOnly = fastPathMeasured ? otherPlugin(fs.mkdtempSync(path.join(os.tmpdir(), 'minions-bench-parser-only-'))) : null;
if (parserOnly) {
  let replaced = 0;
  const noPlainReading: Plugin = {
    name: 'no-plain-reading',
    setup(b) {
      b.onLoad({ filter: /[\\/]src[\\/]bash[\\/]syntax\.ts$/ }, async (args) => {
        replaced++;
        const text = await fs.promises.readFile(args.path, 'utf8');
        const head = 'export function plainScript(source: string): Script | null {';
        if (!text.includes(head)) throw new Error(`${args.path} no longer declares plainScript as the bench expects`);
        return { contents: text.replace(head, `${head}\n  if (source !== '') return null;`), loader: 'ts' };
      });
    },
  };
  await buildAll(path.join(parserOnly.root, 'dist'), [noPlainReading]);
  // A filter that matches nothing would measure the gate against itself: a saving of 0, silently.
  if (replaced === 0) throw new Error('the parser-only build found no src/bash/syntax.ts to change: update the filter above');
  fs.cpSync(path.join(root, 'hooks'), path.join(parserOnly.root, 'hooks'), { recursive: true });
}
const others = [against, parserOnly].filter((o): o is OtherPlugin => o !== null);
const env: NodeJS.ProcessEnv = { ...process.env, CLAUDE_PLUGIN_ROOT: root, CLAUDE_PROJECT_DIR: project, CLAUDE_PLUGIN_DATA: pluginData };
delete env.MINIONS_DEBUG;
/** The first call of each hook, before its code is cached. */
const noCache: NodeJS.ProcessEnv = { ...env };
delete noCache.CLAUDE_PLUGIN_DATA;
const payload = (event: string, fields: Record<string, unknown>): string => JSON.stringify({ session_id: SESSION, cwd: project, hook_event_name: event, ...fields });
const run = (argv: string[], input: string, runEnv = env): string => {
  const out = spawnSync(argv[0]!, argv.slice(1), { env: runEnv, input, cwd: project, encoding: 'utf8' });
  if (out.status !== 0 || out.stderr.trim()) throw new Error(`${argv.join(' ')} failed: ${out.stderr}`);
  return out.stdout;
};

/**
 * A loop's state lives in three places: .agents/ in the project, the hooks' record in the git dir, and
 * a live-loop marker in the plugin data folder. Each is saved and put back whole (the code cache in
 * the plugin data folder stays).
 */
const places = (): string[] => [
  path.join(project, '.agents'),
  path.join(project, '.git', 'minions'),
  path.join(pluginData, `live${project}`),
  ...others.map((o) => path.join(o.data, `live${project}`)),
];
const saved = path.join(project, '..', `${path.basename(project)}-states`);
const snapshot = (name: string): void => {
  places().forEach((from, i) => {
    if (fs.existsSync(from)) fs.cpSync(from, path.join(saved, name, String(i)), { recursive: true });
  });
  // The other plugins' data folders get the same live-loop marker.
  others.forEach((_, k) => {
    if (fs.existsSync(places()[2]!)) fs.cpSync(places()[2]!, path.join(saved, name, String(3 + k)), { recursive: true });
  });
};
const noState = (): void => {
  for (const place of places()) fs.rmSync(place, { recursive: true, force: true });
};
const restore = (name: string) => (): void => {
  noState();
  places().forEach((to, i) => {
    const from = path.join(saved, name, String(i));
    if (fs.existsSync(from)) fs.cpSync(from, to, { recursive: true });
  });
};

const startPayload = payload('UserPromptSubmit', { prompt: '/minions:review the change to src/cart.ts' });
run(hookCommand('UserPromptSubmit'), startPayload);
snapshot('r1');
const dispatch = (type: string): string => payload('PreToolUse', { tool_name: 'Agent', tool_input: { subagent_type: type, prompt: 'review', description: 'review' } });
run(hookCommand('PreToolUse', 'Agent'), dispatch('minions:critic'));
run(hookCommand('PreToolUse', 'Agent'), dispatch('minions:pedant'));
write(
  '.agents/tmp/phases/review-1/r1-critic.json',
  `${JSON.stringify({
    reviewer: 'critic',
    issues: [
      {
        severity: 'warning',
        category: 'logic-error',
        file: 'src/cart.ts',
        line: 4,
        description: 'the loop reads one element past the end',
        evidence: 'for (let i = 0; i <= xs.length; i++) s += xs[i];',
        suggestion: 'use i < xs.length',
      },
    ],
    summary: { critical: 0, warning: 1, info: 0, verdict: 'issues_found' },
  }, null, 2)}\n`,
);
snapshot('r1-critic-reviewed');

// ── The cases ──────────────────────────────────────────────────────────────────

interface Case extends Command {
  name: string;
  /** At most this ratio to a node start; 'no node' for the idle path; null: reported only (a first call, before the code cache). */
  target: number | 'no node' | null;
  /** What the hook prints on this path: checked once before measuring, so a case measures what it names. */
  expect: RegExp;
}
const hookCase = (name: string, target: Case['target'], argv: string[], input: string, setup: () => void, expect: RegExp, caseEnv = env): Case => ({
  name,
  target,
  argv,
  input,
  env: caseEnv,
  cwd: project,
  setup,
  expect,
});
const editPayload = (session: string): string =>
  JSON.stringify({ session_id: session, cwd: project, hook_event_name: 'PreToolUse', tool_name: 'Edit', tool_input: { file_path: path.join(project, 'src/cart.ts'), old_string: 'a', new_string: 'b' } });

const cases: Case[] = [
  hookCase('idle edit gate (no loop: no node)', 'no node', hookCommand('PreToolUse', EDIT), editPayload(SESSION), noState, /^$/),
  hookCase('idle prompt (no loop: no node)', 'no node', hookCommand('UserPromptSubmit'), payload('UserPromptSubmit', { prompt: 'explain this code' }), noState, /^$/),
  hookCase('edit gate, owning session (deny)', IN_LOOP, hookCommand('PreToolUse', EDIT), editPayload(SESSION), restore('r1'), /"permissionDecision":"deny"/),
  hookCase("edit gate, another session's loop", IN_LOOP, hookCommand('PreToolUse', EDIT), editPayload('other-session'), restore('r1'), /^$/),
  hookCase(
    'Bash gate, plain words (no parser)',
    IN_LOOP,
    hookCommand('PreToolUse', 'Bash'),
    payload('PreToolUse', { tool_name: 'Bash', tool_input: { command: 'git status' } }),
    restore('r1'),
    /^$/,
  ),
  hookCase(
    'Bash gate, a list of plain commands (no parser)',
    IN_LOOP,
    hookCommand('PreToolUse', 'Bash'),
    payload('PreToolUse', { tool_name: 'Bash', tool_input: { command: 'git status && git diff | head -50' } }),
    restore('r1'),
    /^$/,
  ),
  // Whole words in quotes are read without the parser (src/bash/syntax.ts).
  hookCase(
    'Bash gate, words in quotes (no parser)',
    IN_LOOP,
    hookCommand('PreToolUse', 'Bash'),
    payload('PreToolUse', { tool_name: 'Bash', tool_input: { command: 'grep -n "total" src/cart.ts | head -5' } }),
    restore('r1'),
    /^$/,
  ),
  // Other shell syntax (here a command substitution) loads the tree-sitter parser (WebAssembly).
  hookCase(
    'Bash gate, shell syntax (parser loaded)',
    HEAVY,
    hookCommand('PreToolUse', 'Bash'),
    payload('PreToolUse', { tool_name: 'Bash', tool_input: { command: 'grep -n "$(git config user.name)" src/cart.ts | head -5' } }),
    restore('r1'),
    /^$/,
  ),
  hookCase('task gate, reviewer dispatch', IN_LOOP, hookCommand('PreToolUse', 'Agent'), dispatch('minions:witness'), restore('r1'), /^$/),
  hookCase('Stop in R1 (re-injects the phase)', IN_LOOP, hookCommand('Stop'), payload('Stop', { stop_hook_active: false, background_tasks: [] }), restore('r1'), /\[PHASE R1\]/),
  hookCase(
    'SubagentStop, non-final reviewer',
    IN_LOOP,
    hookCommand('SubagentStop'),
    payload('SubagentStop', { agent_id: 'a1', agent_type: 'minions:critic', last_assistant_message: 'Done.', stop_hook_active: false }),
    restore('r1-critic-reviewed'),
    /critic/,
  ),
  hookCase('UserPromptSubmit, loop start', HEAVY, hookCommand('UserPromptSubmit'), startPayload, noState, /\[PHASE R1\]/),
  hookCase('UserPromptSubmit, prompt in owning session', IN_LOOP, hookCommand('UserPromptSubmit'), payload('UserPromptSubmit', { prompt: 'how is it going?' }), restore('r1'), /\[PHASE R1\]/),
  hookCase('edit gate, owning session, no code cache', null, hookCommand('PreToolUse', EDIT), editPayload(SESSION), restore('r1'), /"permissionDecision":"deny"/, noCache),
  hookCase('Stop in R1, no code cache', null, hookCommand('Stop'), payload('Stop', { stop_hook_active: false, background_tasks: [] }), restore('r1'), /\[PHASE R1\]/, noCache),
];
/** The everyday commands, through this gate and (fastPath) against the same gate without its parser-free reading. */
const everyday: Case[] = EVERYDAY.map((command) =>
  hookCase(`Bash gate, \`${command}\``, null, hookCommand('PreToolUse', 'Bash'), payload('PreToolUse', { tool_name: 'Bash', tool_input: { command } }), restore('r1'), /^$/),
);

// A hook reading stdin and printing {}: the least any node-starting hook can cost.
const floor: Command = { argv: [process.execPath, '-e', "process.stdin.resume();process.stdin.on('end',()=>process.stdout.write('{}\\n'))"], input: '{}', env: nodeEnv };

for (const c of [...cases, ...(fastPathMeasured ? everyday : [])].filter((c) => c.name.includes(only))) {
  c.setup!();
  const out = run(c.argv, c.input!, c.env);
  if (!c.expect.test(out.trim())) throw new Error(`${c.name}: expected output matching ${c.expect}, got ${out.slice(0, 300) || '(nothing)'}`);
}

/**
 * Whether the case starts a node process: run once with a `node` first on PATH that leaves a mark and
 * runs the real one (hooks.json starts node by name).
 */
function startsNode(c: Case): boolean {
  const shim = fs.mkdtempSync(path.join(os.tmpdir(), 'minions-bench-shim-'));
  const mark = path.join(shim, 'started');
  fs.writeFileSync(path.join(shim, 'node'), `#!/bin/sh\necho started >> '${mark}'\nexec '${process.execPath}' "$@"\n`, { mode: 0o755 });
  c.setup!();
  run(c.argv, c.input!, { ...c.env, PATH: `${shim}:${c.env!.PATH ?? ''}` });
  const started = fs.existsSync(mark);
  fs.rmSync(shim, { recursive: true, force: true });
  return started;
}

/** The other plugin's command for the hook this one runs with `command` (its hooks.json may differ). */
function otherCommand(other: OtherPlugin, command: string): string {
  const theirs = (JSON.parse(fs.readFileSync(path.join(other.root, 'hooks/hooks.json'), 'utf8')) as { hooks: Record<string, HookGroup[]> }).hooks;
  for (const [event, groups] of Object.entries(hooks)) {
    for (const group of groups) {
      if (group.hooks[0]!.command !== command) continue;
      const other = group.matcher ? groupFor(theirs[event], group.matcher.split('|')[0]) : groupFor(theirs[event]);
      if (other) return other.hooks[0]!.command;
    }
  }
  throw new Error(`${other.root}/hooks/hooks.json has no hook for ${command}`);
}

/** The same case run from the other plugin, its hooks.json's command, with its own plugin data folder (or none, as the case has). */
const otherCase = (other: OtherPlugin, c: Case): Command => ({
  ...c,
  argv: [c.argv[0]!, c.argv[1]!, otherCommand(other, c.argv[2]!)],
  env: { ...c.env, CLAUDE_PLUGIN_ROOT: other.root, ...(c.env?.CLAUDE_PLUGIN_DATA ? { CLAUDE_PLUGIN_DATA: other.data } : {}) },
});
const results: PairResult[] = [];
const targets: TargetRow[] = [];
if (!against && (!only || 'floor'.includes(only))) results.push(measurePairs('floor: node reading stdin, printing {}', bareNode, floor, pairs));
for (const c of cases.filter((c) => c.name.includes(only))) {
  const result = measurePairs(c.name, against ? otherCase(against, c) : bareNode, c, pairs);
  results.push(result);
  if (against) continue;
  if (c.target === 'no node') {
    const started = startsNode(c);
    targets.push({ target: c.name, measured: started ? 'node started' : 'no node started', limit: 'no node process', pass: !started });
  } else if (c.target !== null) {
    targets.push({ target: c.name, measured: times(result.ratio), limit: `≤ ${c.target}× a node start`, pass: result.ratio <= c.target });
  }
}
const fastPath: PairResult[] = [];
for (const c of fastPathMeasured ? everyday.filter((c) => c.name.includes(only)) : []) {
  const throughParser = otherCase(parserOnly!, c);
  throughParser.setup!();
  const out = run(throughParser.argv, throughParser.input!, throughParser.env);
  if (!c.expect.test(out.trim())) throw new Error(`${c.name} through the parser: expected output matching ${c.expect}, got ${out.slice(0, 300) || '(nothing)'}`);
  fastPath.push(measurePairs(c.name, throughParser, c, pairs));
}
if (fastPath.length > 0) {
  // Over the commands together: the sum of their medians with the reading against the sum through the parser.
  const withReading = fastPath.reduce((sum, r) => sum + r.caseMs, 0);
  const throughParser = fastPath.reduce((sum, r) => sum + r.baseMs, 0);
  const saves = 1 - withReading / throughParser;
  targets.push({
    target: `the Bash gate on ${fastPath.map((r) => r.name.replace('Bash gate, ', '')).join(', ')}: CPU its parser-free reading saves (${withReading.toFixed(0)} ms against ${throughParser.toFixed(0)} ms through the parser)`,
    measured: `${Math.round(saves * 100)}%`,
    limit: `≥ ${Math.round(FAST_PATH_SAVES * 100)}% to keep the reading`,
    pass: saves >= FAST_PATH_SAVES,
  });
}

fs.rmSync(project, { recursive: true, force: true });
fs.rmSync(saved, { recursive: true, force: true });
fs.rmSync(pluginData, { recursive: true, force: true });
for (const o of others) fs.rmSync(o.data, { recursive: true, force: true });
if (parserOnly) fs.rmSync(parserOnly.root, { recursive: true, force: true });

if (against) {
  console.log(`hook CPU time of this checkout as a ratio to the same hook of ${against.root} (${process.version}), median of ${pairs} interleaved pairs`);
  console.log(formatPairs(results));
  process.exit(0);
}
console.log(`hook CPU time as a ratio to a bare node start (${process.version}), median of ${pairs} interleaved pairs`);
console.log(formatPairs(results));
if (fastPath.length > 0) {
  console.log(`\nthe Bash gate on everyday commands as a ratio to the same gate reading every command through the parser, median of ${pairs} interleaved pairs`);
  console.log(formatPairs(fastPath));
}
const note = caBundleNote(pairs);
if (note) console.log(note);
// Reported, not enforced: on a busy machine a median of a few pairs moves by ±0.05×.
if (targets.length > 0) console.log(`\ntargets\n${formatTargets(targets)}`);
