/**
 * Hook start-up cost, as ratios to a bare `node -e ''` measured in the same run (these machines are noisy).
 * Each hook runs exactly as the host runs it: `/bin/sh -c <command from hooks/hooks.json>`, payload on stdin.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const runs = Number(process.env.BENCH_RUNS ?? 40);
const hooks = JSON.parse(fs.readFileSync(path.join(root, 'hooks/hooks.json'), 'utf8')).hooks;
const command = (event: string, matcher?: string): string =>
  hooks[event].find((h: { matcher?: string }) => h.matcher === matcher || (!matcher && !h.matcher)).hooks[0].command;

const project = fs.mkdtempSync(path.join(os.tmpdir(), 'minions-bench-'));
spawnSync('git', ['init', '-q'], { cwd: project });
fs.writeFileSync(path.join(project, 'a.ts'), 'export const a = 1;\n');
const env = { ...process.env, CLAUDE_PLUGIN_ROOT: root, CLAUDE_PROJECT_DIR: project };
const editPayload = JSON.stringify({ session_id: 'bench', cwd: project, hook_event_name: 'PreToolUse', tool_name: 'Edit', tool_input: { file_path: path.join(project, 'a.ts') } });
const promptPayload = JSON.stringify({ session_id: 'bench', cwd: project, hook_event_name: 'UserPromptSubmit', prompt: 'explain this code' });

interface Case {
  name: string;
  argv: string[];
  input?: string;
  setup?: () => void;
}
const sh = (cmd: string): string[] => ['/bin/sh', '-c', cmd];
const withState = () => {
  spawnSync('/bin/sh', ['-c', command('UserPromptSubmit')], { env, input: JSON.stringify({ session_id: 'bench', cwd: project, prompt: '/minions:review bench' }) });
};
const withoutState = () => fs.rmSync(path.join(project, '.agents'), { recursive: true, force: true });

const cases: Case[] = [
  { name: "baseline: node -e ''", argv: ['node', '-e', ''] },
  { name: 'idle edit gate (no state file)', argv: sh(command('PreToolUse', 'Edit|Write|MultiEdit|NotebookEdit')), input: editPayload, setup: withoutState },
  { name: 'idle Stop hook (no state file)', argv: sh(command('Stop')), input: editPayload, setup: withoutState },
  { name: 'idle prompt hook (ordinary prompt)', argv: sh(command('UserPromptSubmit')), input: promptPayload, setup: withoutState },
  { name: 'active edit gate (loop in this session)', argv: sh(command('PreToolUse', 'Edit|Write|MultiEdit|NotebookEdit')), input: editPayload, setup: withState },
  { name: "active edit gate (another session's loop)", argv: sh(command('PreToolUse', 'Edit|Write|MultiEdit|NotebookEdit')), input: editPayload.replace('"bench"', '"other"'), setup: withState },
];

function time(c: Case): number {
  const start = process.hrtime.bigint();
  const out = spawnSync(c.argv[0]!, c.argv.slice(1), { env, input: c.input ?? '', cwd: project });
  if (out.status !== 0) throw new Error(`${c.name} exited ${out.status}: ${out.stderr}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const samples = new Map<string, number[]>(cases.map((c) => [c.name, []]));
for (const c of cases) {
  c.setup?.();
  time(c); // warm-up
  for (let i = 0; i < runs; i++) samples.get(c.name)!.push(time(c));
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const base = median(samples.get(cases[0]!.name)!);
console.log(`hook start-up, median of ${runs} runs each (ratio to a bare node start in this run)`);
for (const c of cases) {
  const m = median(samples.get(c.name)!);
  console.log(`${c.name.padEnd(44)} ${m.toFixed(1).padStart(7)} ms   ${(m / base).toFixed(2)}×`);
}
fs.rmSync(project, { recursive: true, force: true });
