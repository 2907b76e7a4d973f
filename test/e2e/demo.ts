/**
 * `npm run demo`: watch the real Claude Code CLI run `/minions:review` on a small sample project with
 * planted defects, offline, against a scripted model on 127.0.0.1 (see scripted-model.ts).
 *
 *   npm run demo                          offline, scripted model, sample project in a temp dir
 *   npm run demo -- --live                the real API (needs ANTHROPIC_API_KEY), sample project
 *   npm run demo -- --live --project DIR  the real API on your own git project
 *   options: --max-iterations N (default 3), --task "…", --model NAME (live only),
 *            --keep (keep the temp dir: sample project, CLI home, model log; removed otherwise).
 *            MINIONS_DEMO_KEEP=1 keeps it too, and so does `npm run demo --keep` (npm passes that one
 *            on as npm_config_keep, not as an argument).
 *   The sample project's own tests (`node --test`) run as the loop's --check: at the start, where the
 *   planted off-by-one fails them, and after each fix.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLAUDE_BIN, copyShippedPlugin, runClaude, type StreamEvent } from './harness';
import { startModelServer, type ModelServer } from './model-server';
import { FINDING, FIX, makeScenarioProject, parseHookMessage, SAMPLE_TASK, sampleScenario } from './scenarios';
import { readinessText } from '../../src/report/texts';
import { scriptedModel, type Scenario } from './scripted-model';

// ── Options ─────────────────────────────────────────────────────────────────────

interface Options {
  live: boolean;
  project: string | null;
  maxIterations: number;
  task: string | null;
  model: string | null;
  keep: boolean;
  help: boolean;
}

/** Keep the temp dir without the flag: MINIONS_DEMO_KEEP=1, or `npm run demo --keep` (which npm turns into npm_config_keep). */
export const keepFromEnv = (env: NodeJS.ProcessEnv): boolean => env.MINIONS_DEMO_KEEP === '1' || env.npm_config_keep === 'true';

/** The sample project's tests, run by the loop as its check. */
export const SAMPLE_CHECK = 'node --test';

/** The prompt the demo types: the sample project's tests as a --check; a project of the user's is left to its own config. */
export function demoPrompt(o: Pick<Options, 'maxIterations' | 'task' | 'project'>, task: string): string {
  const check = o.project ? '' : ` --check ${JSON.stringify(SAMPLE_CHECK)}`;
  return `/minions:review --max-iterations ${o.maxIterations}${check}${o.task || !o.project ? ` ${task}` : ''}`;
}

const SEVERITY_ORDER: Record<string, number> = { critical: 0, warning: 1, info: 2 };
/** Findings most severe first; the verdict's order within a severity. */
export const bySeverity = <T extends { severity: string }>(findings: readonly T[]): T[] =>
  findings.map((f, i) => ({ f, i })).sort((a, b) => (SEVERITY_ORDER[a.f.severity] ?? 3) - (SEVERITY_ORDER[b.f.severity] ?? 3) || a.i - b.i).map(({ f }) => f);

export function parseArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): Options {
  const o: Options = { live: false, project: null, maxIterations: 3, task: null, model: null, keep: keepFromEnv(env), help: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) fail(`${a} needs a value`);
      return v;
    };
    if (a === '--live') o.live = true;
    else if (a === '--project') o.project = resolve(value());
    else if (a === '--max-iterations') o.maxIterations = Number(value());
    else if (a === '--task') o.task = value();
    else if (a === '--model') o.model = value();
    else if (a === '--keep') o.keep = true;
    else if (a === '--help' || a === '-h') o.help = true;
    else fail(`unknown option ${a} (try --help)`);
  }
  if (!Number.isInteger(o.maxIterations) || o.maxIterations < 1 || o.maxIterations > 20) fail('--max-iterations must be a whole number from 1 to 20');
  if (o.project && !o.live) fail('--project needs --live: the scripted model only knows the sample project');
  return o;
}

function fail(message: string): never {
  process.stderr.write(`demo: ${message}\n`);
  process.exit(1);
}

// ── Output ──────────────────────────────────────────────────────────────────────

const COLOR = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (code: string) => (s: string): string => (COLOR ? `\x1b[${code}m${s}\x1b[0m` : s);
const bold = paint('1');
const dim = paint('2');
const green = paint('32');
const red = paint('31');
const yellow = paint('33');
const cyan = paint('36');
const say = (line = ''): void => void process.stdout.write(`${line}\n`);
/** A label column: every label of a block padded to the same width. */
const label = (text: string, width: number): string => bold(text.padEnd(width));

// ── The demo scenario: five findings in round 1, all fixed, clean in round 2 ────

const DEMO: Scenario = sampleScenario({
  name: 'demo',
  agentDelayMs: 250,
  findings: (reviewer, i) => {
    if (i !== 1) return [];
    if (reviewer === 'critic') return [FINDING.offByOne];
    if (reviewer === 'witness') return [FINDING.failingTest];
    if (reviewer === 'silent-failure-hunter') return [FINDING.swallowed];
    if (reviewer === 'pedant') return [FINDING.discountUnit, FINDING.formatUnit];
    return [];
  },
  fixer: (i) => (i === 1 ? [FIX.offByOne, FIX.swallowed, FIX.discountUnit, FIX.formatUnit] : []),
});

const PLANTED: [file: string, what: string][] = [
  ['src/cart.js', 'total() starts its loop at 1 and skips the first line (off-by-one)'],
  ['src/config.js', 'loadConfig() turns every error into {} (swallowed error)'],
  ['src/price.js', 'discount() and formatPrice() divide by 10 instead of 100 (units)'],
  ['test/cart.test.js', 'a test that catches the off-by-one'],
];

// ── Live progress from stream-json ──────────────────────────────────────────────

/** Turns stream-json events into one readable line each (or nothing). */
function progressPrinter(projectDir: string): (e: StreamEvent) => void {
  const agentOf = new Map<string, string>(); // Agent tool_use id → agent name
  let pendingDispatch: { id: string; names: string[] } | null = null;
  let started = false;
  let flushTimer: NodeJS.Timeout | null = null;
  const flush = (): void => {
    if (flushTimer) clearTimeout(flushTimer);
    flushTimer = null;
    if (!pendingDispatch) return;
    say(`  ${cyan('→')} dispatched ${pendingDispatch.names.join(', ')}`);
    pendingDispatch = null;
  };
  const print = (line: string): void => {
    flush();
    say(line);
  };
  const short = (p: string): string => (p.startsWith(projectDir) ? relative(projectDir, p) : p);

  return (e) => {
    const message = e.message as { id?: string; content?: unknown } | undefined;
    const blocks = Array.isArray(message?.content) ? (message!.content as Record<string, unknown>[]) : [];
    const parent = typeof e.parent_tool_use_id === 'string' ? e.parent_tool_use_id : null;
    // One assistant message's Agent calls arrive as separate events, hook events between them: print
    // them together once the message's calls have stopped coming (a quarter second), or before the next line.
    if (pendingDispatch && e.type === 'assistant' && !parent && message?.id !== pendingDispatch.id) flush();

    if (e.type === 'assistant' && !parent) {
      for (const b of blocks) {
        if (b.type !== 'tool_use') continue;
        const input = (b.input ?? {}) as Record<string, unknown>;
        if (b.name === 'Agent' || b.name === 'Task') {
          const name = String(input.subagent_type ?? 'agent').replace(/^minions:/, '');
          agentOf.set(String(b.id), name);
          if (pendingDispatch && pendingDispatch.id !== message?.id) flush();
          pendingDispatch ??= { id: message?.id ?? '', names: [] };
          pendingDispatch.names.push(name + (input.run_in_background === true ? ' (background)' : ''));
          if (flushTimer) clearTimeout(flushTimer);
          flushTimer = setTimeout(flush, 250);
        } else {
          print(`  ${cyan('→')} the orchestrator calls ${String(b.name)} ${dim(short(String(input.file_path ?? input.command ?? '')))}`);
        }
      }
      return;
    }

    if (e.type === 'assistant' && parent) {
      const who = agentOf.get(parent) ?? 'agent';
      for (const b of blocks) {
        if (b.type !== 'tool_use') continue;
        const input = (b.input ?? {}) as Record<string, unknown>;
        if ((b.name === 'Edit' || b.name === 'MultiEdit') && typeof input.file_path === 'string') print(`    ${yellow('✎')} ${who} edits ${short(input.file_path)}`);
        else if (b.name === 'Write' && who === 'review-fixer' && typeof input.file_path === 'string') print(`    ${yellow('✎')} ${who} writes ${short(input.file_path)}`);
        else if (b.name === 'Bash' && typeof input.command === 'string') print(`    ${dim(`$ ${who}: ${input.command.split('\n')[0]!.slice(0, 100)}`)}`);
      }
      return;
    }

    if (e.type === 'user') {
      for (const b of blocks) {
        if (b.type === 'tool_result' && b.is_error === true) {
          const text = typeof b.content === 'string' ? b.content : JSON.stringify(b.content);
          const who = parent ? agentOf.get(parent) ?? 'an agent' : 'the orchestrator';
          print(`  ${red('✗')} refused for ${who}: ${text.replace(/\s+/g, ' ').slice(0, 160)}`);
        }
      }
      return;
    }

    if (e.type === 'system' && e.subtype === 'init' && !started) {
      started = true;
      const plugin = (e.plugins as { name: string; version?: string }[] | undefined)?.find((p) => p.name === 'minions');
      print(`  ${bold('▸')} ${dim(`Claude Code ${String(e.claude_code_version ?? '')} is up${plugin ? `, with the minions plugin ${plugin.version ?? ''}` : ''}`)}`);
      return;
    }

    if (e.type === 'system' && e.subtype === 'hook_response') {
      const h = parseHookMessage(e);
      for (const line of (h.systemMessage ?? '').split('\n').filter(Boolean)) {
        const styled = /DONE/.test(line) ? green(line) : /STOPPED|invalid|paused/.test(line) ? red(line) : line;
        print(`  ${bold('▸')} ${styled}`);
      }
      if (h.additionalContext && h.event === 'Stop') print(`  ${dim(`↻ the Stop hook hands the model its next step: ${h.additionalContext.split('\n')[0]}`)}`);
      if (h.reason && h.decision === 'block' && h.event === 'SubagentStop') print(`  ${dim(`↻ an agent is sent back to redo its output: ${h.reason.replace(/\s+/g, ' ').slice(0, 110)}…`)}`);
      return;
    }
  };
}

// ── After the run ───────────────────────────────────────────────────────────────

const clip = (text: string, n: number): string => (text.length <= n ? text : `${text.slice(0, n - 1).replace(/\s+\S*$/, '')} …`);

function readJson<T>(path: string): T | null {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch {
    return null;
  }
}

interface VerdictFinding {
  severity: string;
  file: string;
  line: number | null;
  category: string;
  description: string;
  reporters?: string[];
  reviewer?: string;
  toFixer?: boolean;
  grounding?: { status: string };
  status?: string;
}

interface VerdictFile {
  iteration: number;
  total_issues: number;
  next: string;
  stopDetail?: string | null;
  score?: number;
  readiness?: string;
  findings?: VerdictFinding[];
  issues?: VerdictFinding[];
}

function loopState(projectDir: string): { where: string; state: { currentPhase: string; iteration: number; maxIterations: number; stopReason: string | null } } | null {
  const live = join(projectDir, '.agents/tmp/state.json');
  if (existsSync(live)) return { where: live, state: readJson(live)! };
  const archive = join(projectDir, '.agents/tmp/archive');
  if (!existsSync(archive)) return null;
  const newest = readdirSync(archive)
    .map((d) => join(archive, d, 'state.json'))
    .filter((p) => existsSync(p))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
  return newest ? { where: newest, state: readJson(newest)! } : null;
}

const SKIP = /(^|[/\\])(\.git|\.agents|node_modules)([/\\]|$)/;

/** Copies the working tree (minus .git, .agents and node_modules) so the fixer's changes can be diffed afterwards. */
function snapshot(projectDir: string, into: string): void {
  cpSync(projectDir, into, { recursive: true, filter: (src) => !SKIP.test(relative(projectDir, src)) });
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (SKIP.test(relative(dir, p))) continue;
      if (statSync(p).isDirectory()) walk(p);
      else out.push(relative(dir, p));
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}

/** A unified diff (1 line of context) of every file that changed between the snapshot and now. */
function fixerDiff(before: string, after: string, maxLines: number): string[] {
  const files = [...new Set([...filesUnder(before), ...filesUnder(after)])].sort();
  const lines: string[] = [];
  for (const file of files) {
    const a = join(before, file);
    const b = join(after, file);
    let out = '';
    try {
      execFileSync('git', ['diff', '--no-index', '--no-color', '--unified=1', '--', existsSync(a) ? a : '/dev/null', existsSync(b) ? b : '/dev/null'], { encoding: 'utf8' });
      continue; // exit 0: no difference
    } catch (err) {
      out = String((err as { stdout?: string }).stdout ?? ''); // exit 1: the files differ
    }
    lines.push(bold(`  ${file}`));
    for (const line of out.split('\n')) {
      if (line.startsWith('@@')) lines.push(dim(`  ${line.replace(/ @@.*/, ' @@')}`));
      else if (line.startsWith('+++') || line.startsWith('---')) continue;
      else if (line.startsWith('+')) lines.push(green(`  ${line}`));
      else if (line.startsWith('-')) lines.push(red(`  ${line}`));
      else if (line.startsWith(' ')) lines.push(`  ${line}`);
    }
  }
  if (lines.length > maxLines) return [...lines.slice(0, maxLines), dim(`  … ${lines.length - maxLines} more lines`)];
  return lines;
}

/** The outcome, each review's findings and the fixer's answers, the fixer's diff; where the files are when they stay. */
function report(projectDir: string, before: string | null, startedAt: number, filesStay: boolean): number {
  const phases = join(projectDir, '.agents/tmp/phases');
  const found = loopState(projectDir);
  say();
  if (!found) {
    say(red('The loop did not start: no state under .agents/tmp/. Check the lines above.'));
    return 1;
  }
  const { state, where: stateFile } = found;
  const seconds = ((Date.now() - startedAt) / 1000).toFixed(1);
  const outcome =
    state.currentPhase === 'DONE'
      ? green(`DONE — a clean review at iteration ${state.iteration} of ${state.maxIterations}`)
      : state.currentPhase === 'STOPPED'
        ? red(`STOPPED at iteration ${state.iteration} of ${state.maxIterations} (${state.stopReason ?? 'stopped'})`)
        : yellow(`${state.currentPhase}, iteration ${state.iteration} of ${state.maxIterations} (the loop is still open)`);
  say(`${bold('Outcome')}   ${outcome}  ${dim(`(${seconds} s)`)}`);

  for (let i = 1; existsSync(join(phases, `review-${i}`)); i++) {
    const verdict = readJson<VerdictFile>(join(phases, `review-${i}`, 'r1-verdict.json'));
    say();
    const score = verdict?.score === undefined ? '' : `, score ${verdict.score.toFixed(2)} ${verdict.readiness ? readinessText(verdict.readiness) : ''}`;
    say(bold(`Review ${i}`) + dim(`  ${verdict ? `${verdict.total_issues} finding${verdict.total_issues === 1 ? '' : 's'} to fix${score} → ${verdict.next}` : 'no verdict'}`));
    if (verdict?.stopDetail) say(dim(`  ${verdict.stopDetail}`));
    const findings = bySeverity(verdict?.findings ?? verdict?.issues ?? []);
    const where = (f: VerdictFinding): string => `${f.file}${f.line ? `:${f.line}` : ''}`;
    const whereWidth = Math.max(0, ...findings.map((f) => where(f).length)) + 1;
    for (const f of findings) {
      const sev = f.severity === 'critical' ? red(f.severity.padEnd(8)) : f.severity === 'warning' ? yellow(f.severity.padEnd(8)) : f.severity.padEnd(8);
      const who = (f.reporters ?? (f.reviewer ? [f.reviewer] : [])).join(', ');
      const notes = [f.status && f.status !== 'NEW' ? f.status : '', f.grounding?.status === 'ungrounded' ? 'ungrounded, not sent to the fixer' : ''].filter(Boolean).join('; ');
      say(`  ${sev} ${where(f).padEnd(whereWidth)}${clip(f.description, 90)} ${dim(`(${who}${notes ? `; ${notes}` : ''})`)}`);
    }
    const summary = join(phases, `review-${i}`, 'r2-fix-summary.md');
    if (existsSync(summary)) {
      say(`  ${bold('Fixer')}:`);
      for (const line of readFileSync(summary, 'utf8').split('\n').filter((l) => /^- \[/.test(l))) say(`    ${line.slice(2)}`);
    }
  }

  if (filesStay) {
    say();
    say(bold('Where the files are'));
    const rounds = existsSync(phases) ? readdirSync(phases).filter((d) => /^review-\d+$/.test(d)).sort() : [];
    say(`  ${'project'.padEnd(12)}${projectDir}`);
    say(`  ${'reviews'.padEnd(12)}${phases}/  ${dim(`(${rounds.join(', ')}: the five reviews, the verdict, the fixer's brief, summary and answers)`)}`);
    say(`  ${'loop state'.padEnd(12)}${stateFile}`);
  }
  if (before) {
    const diff = fixerDiff(before, projectDir, 40);
    say();
    say(bold('What the fixer changed'));
    say(diff.length ? diff.join('\n') : dim('  nothing'));
  }
  return state.currentPhase === 'DONE' || state.currentPhase === 'STOPPED' ? 0 : 1;
}

// ── Main ────────────────────────────────────────────────────────────────────────

async function main(): Promise<number> {
  const o = parseArgs(process.argv.slice(2));
  if (o.help) {
    say(readFileSync(new URL(import.meta.url), 'utf8').split('*/')[0]!.replace(/^\/\*\*|^ \* ?/gm, '').trim());
    return 0;
  }
  if (!existsSync(CLAUDE_BIN)) fail(`the Claude Code CLI is not installed at ${CLAUDE_BIN}: run npm ci first`);
  if (o.live && !process.env.ANTHROPIC_API_KEY) {
    process.stderr.write('demo --live uses the real Anthropic API: set ANTHROPIC_API_KEY first (or run `npm run demo` without --live for the offline demo).\n');
    return 1;
  }

  const root = mkdtempSync(join(tmpdir(), 'minions-demo-'));
  // Ctrl-C (or a closed pipe) stops the CLI's process group too, so the temp dir can go.
  const interrupt = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => interrupt.abort());
  process.stdout.on('error', () => interrupt.abort());
  let server: ModelServer | null = null;
  try {
    const pluginDir = copyShippedPlugin(join(root, 'plugin'));
    const scenario: Scenario = { ...DEMO, maxIterations: o.maxIterations, task: o.task ?? SAMPLE_TASK };
    const projectDir = o.project ?? makeScenarioProject(scenario, 'minions-demo-', join(root, 'sample-shop'));
    const before = join(root, 'before');
    snapshot(projectDir, before);
    const version = execFileSync(CLAUDE_BIN, ['--version'], { encoding: 'utf8', env: { ...process.env, DISABLE_AUTOUPDATER: '1' } }).trim().split(/\s+/)[0];

    say(bold('minions demo'));
    say(
      o.live
        ? `The real Claude Code CLI (${version}) runs /minions:review with ${yellow('the real Anthropic API')} (this costs tokens).`
        : `The real Claude Code CLI (${version}) runs /minions:review against a scripted model on 127.0.0.1: offline, no API key.`,
    );
    say(dim('The hooks own the loop: five reviewers in parallel, a verdict, the fixer, a fresh review, until clean.'));
    say();
    const width = 'Sample project'.length + 2;
    if (!o.project) {
      say(`${label('Sample project', width)}${projectDir}  ${dim('(a git repo; the change under review is uncommitted)')}`);
      const fileWidth = Math.max(...PLANTED.map(([file]) => file.length)) + 2;
      for (const [file, what] of PLANTED) say(`  ${file.padEnd(fileWidth)}${dim(what)}`);
    } else {
      say(`${label('Project', width)}${projectDir}`);
      say(yellow(`  The model runs with --permission-mode bypassPermissions in this directory; the minions hooks gate what its agents may write.`));
    }
    say(`${label('Plugin', width)}${pluginDir}  ${dim('(a copy of plugin/, what `claude plugin install` installs)')}`);
    say();

    const prompt = demoPrompt(o, scenario.task);
    if (!o.live) server = await startModelServer(scriptedModel(scenario, { projectDir }), { logFile: join(root, 'model.jsonl') });
    say(`${dim('$')} claude -p ${JSON.stringify(prompt)} --plugin-dir ${dim('<plugin>')} --output-format stream-json …`);
    say();

    const startedAt = Date.now();
    const waiting = startingLine(startedAt);
    const printer = progressPrinter(projectDir);
    const run = await runClaude({
      pluginDir,
      projectDir,
      prompt,
      serverUrl: server?.url ?? 'http://127.0.0.1:9',
      homeDir: join(root, 'home'),
      timeoutMs: o.live ? 60 * 60_000 : 180_000,
      signal: interrupt.signal,
      onEvent: (e) => {
        waiting.stop();
        printer(e);
      },
      ...(o.live ? { env: { ANTHROPIC_BASE_URL: process.env.ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY: process.env.ANTHROPIC_API_KEY } } : {}),
      ...(o.live && o.model ? { extraArgs: ['--model', o.model] } : {}),
    });
    waiting.stop();
    if (interrupt.signal.aborted) say(red('  interrupted'));
    else if (run.timedOut) say(red(`  the CLI run timed out after ${((Date.now() - startedAt) / 1000).toFixed(0)} s`));
    else if (run.exitCode !== 0) say(red(`  the CLI exited with code ${run.exitCode}: ${run.stderr.trim().split('\n').slice(-3).join(' | ')}`));
    const code = report(projectDir, before, startedAt, o.keep || o.project !== null);
    say();
    if (o.keep) {
      say(dim(`Logs: ${join(root, 'home')} (CLI transcripts)${server ? `, ${join(root, 'model.jsonl')} (every model request)` : ''}.`));
      if (!o.project) say(dim(`Try the tests yourself: cd ${projectDir} && node --test`));
    } else {
      say(dim(`Removed ${root} (the sample project, the CLI's home and the logs); --keep keeps it.`));
    }
    if (interrupt.signal.aborted) return 130;
    return run.exitCode === 0 && !run.timedOut ? code : 1;
  } finally {
    await server?.close();
    if (!o.keep) rmSync(root, { recursive: true, force: true });
  }
}

/** Says at once that the CLI is starting; on a terminal it counts the seconds until the first event. */
function startingLine(startedAt: number): { stop(): void } {
  const text = (): string => `  ${dim(`… starting Claude Code${process.stdout.isTTY ? ` (${Math.floor((Date.now() - startedAt) / 1000)} s)` : ''}`)}`;
  if (!process.stdout.isTTY) {
    say(text());
    return { stop: () => undefined };
  }
  process.stdout.write(text());
  let timer: NodeJS.Timeout | null = setInterval(() => process.stdout.write(`\r${text()}`), 1000);
  return {
    stop: () => {
      if (!timer) return;
      clearInterval(timer);
      timer = null;
      process.stdout.write(`\r${text()}\n`);
    },
  };
}

// Run as `npm run demo`; imported (by its test), it only lends its helpers.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`demo: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
