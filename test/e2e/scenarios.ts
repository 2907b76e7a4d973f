/**
 * The sample project with planted defects, the findings and fixes the scripted reviewers and fixer
 * use, scenario builders, and `runLoop`: one `/minions:review` run of the real CLI against the
 * scripted model, summarised for assertions (shared by review-loop.test.ts and demo.ts).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { hookResponses, makeGitProject, runClaude, type RunClaudeResult, type StreamEvent } from './harness';
import { contentText, startModelServer, type ModelServer, type RecordedRequest } from './model-server';
import { scriptedModel, type FixEdit, type Scenario, type ScenarioFinding, type ScriptedModelOptions } from './scripted-model';

// ── The sample project ──────────────────────────────────────────────────────────

/** Committed first: a tiny cart module that works. */
export const SAMPLE_BASE: Record<string, string> = {
  'package.json': `${JSON.stringify({ name: 'sample-shop', version: '1.0.0', type: 'module', private: true, scripts: { test: 'node --test' } }, null, 2)}\n`,
  'README.md': '# sample-shop\n\nA tiny shop library: cart lines, prices, settings.\n',
  'NOTES.md': '# Notes\n\n- ship the cart totals this week\n',
  'src/cart.js': `/** A shopping cart: a list of { name, price, qty } lines, prices in cents. */

export function addItem(cart, name, price, qty = 1) {
  return [...cart, { name, price, qty }];
}
`,
};

/** The change under review (left uncommitted): four planted defects and a test that catches one. */
export const SAMPLE_CHANGE: Record<string, string> = {
  'src/cart.js': `/** A shopping cart: a list of { name, price, qty } lines, prices in cents. */

export function addItem(cart, name, price, qty = 1) {
  return [...cart, { name, price, qty }];
}

/** The cart total in cents: every line's price times its quantity. */
export function total(cart) {
  let sum = 0;
  for (let i = 1; i < cart.length; i++) {
    sum += cart[i].price * cart[i].qty;
  }
  return sum;
}
`,
  'src/config.js': `import { readFileSync } from 'node:fs';

/** Reads the shop's settings (currency, tax rate) from a JSON file. */
export function loadConfig(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    return {};
  }
}
`,
  'src/price.js': `/** Applies a percentage discount (0-100) to a price in cents. */
export function discount(cents, percent) {
  return Math.round(cents - (cents * percent) / 10);
}

/** Formats cents as "12.34". */
export function formatPrice(cents) {
  return (cents / 10).toFixed(2);
}
`,
  'test/cart.test.js': `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addItem, total } from '../src/cart.js';

test('total adds every line', () => {
  const cart = addItem(addItem([], 'tea', 350, 2), 'cake', 420);
  assert.equal(total(cart), 1120);
});
`,
};

export const SAMPLE_TASK = 'Add cart totals, price helpers and the config loader (src/cart.js, src/price.js, src/config.js)';

/** The planted defects as reviewers report them. */
export const FINDING = {
  offByOne: {
    severity: 'critical',
    category: 'off-by-one',
    file: 'src/cart.js',
    evidence: '  for (let i = 1; i < cart.length; i++) {',
    description: 'total() starts at index 1 and skips the first cart line: [tea 350×2, cake 420] totals 420 instead of 1120.',
    suggestion: 'Start the loop at 0.',
  },
  failingTest: {
    severity: 'critical',
    category: 'failing-test',
    file: 'test/cart.test.js',
    evidence: "$ node --test test/cart.test.js\nnot ok 1 - total adds every line\n  expected: 1120\n  actual: 420",
    line: 7,
    description: 'The new test for total() fails: the first cart line is not counted.',
    suggestion: 'Fix the loop bound in src/cart.js; the test is right.',
  },
  swallowed: {
    severity: 'warning',
    category: 'swallowed-error',
    file: 'src/config.js',
    evidence: '  } catch (err) {\n    return {};\n  }',
    description: 'loadConfig() turns every failure (invalid JSON, EACCES) into an empty config, so a broken settings file silently runs the shop with defaults.',
    suggestion: 'Return {} only for ENOENT; rethrow anything else with the path and the cause.',
  },
  discountUnit: {
    severity: 'critical',
    category: 'unit-error',
    file: 'src/price.js',
    evidence: '  return Math.round(cents - (cents * percent) / 10);',
    description: 'discount() divides a percentage by 10: discount(1000, 10) returns 0 instead of 900.',
    suggestion: 'Divide by 100.',
  },
  formatUnit: {
    severity: 'warning',
    category: 'unit-error',
    file: 'src/price.js',
    evidence: '  return (cents / 10).toFixed(2);',
    description: 'formatPrice(1234) returns "123.40" instead of "12.34": cents are divided by 10.',
    suggestion: 'Divide by 100.',
  },
} satisfies Record<string, ScenarioFinding>;

/** The fixer's edits for each planted defect. */
export const FIX = {
  offByOne: { file: 'src/cart.js', find: 'for (let i = 1; i < cart.length; i++)', replace: 'for (let i = 0; i < cart.length; i++)', category: 'off-by-one', what: 'the loop starts at 0, so the first line counts' },
  swallowed: {
    file: 'src/config.js',
    find: '  } catch (err) {\n    return {};\n  }',
    replace: "  } catch (err) {\n    if (err.code === 'ENOENT') return {};\n    throw new Error(`cannot read the settings ${path}: ${err.message}`, { cause: err });\n  }",
    category: 'swallowed-error',
    what: 'only a missing file gives {}; other errors are rethrown with the path',
  },
  discountUnit: { file: 'src/price.js', find: '(cents * percent) / 10)', replace: '(cents * percent) / 100)', category: 'unit-error', what: 'percent divided by 100' },
  formatUnit: { file: 'src/price.js', find: '(cents / 10).toFixed(2)', replace: '(cents / 100).toFixed(2)', category: 'unit-error', what: 'cents divided by 100' },
} satisfies Record<string, FixEdit>;

/** A scenario over the sample project; override what differs. */
export function sampleScenario(over: Partial<Scenario> & Pick<Scenario, 'name'>): Scenario {
  return {
    task: SAMPLE_TASK,
    base: SAMPLE_BASE,
    files: SAMPLE_CHANGE,
    findings: () => [],
    ...over,
  };
}

/** A git project (a new temp dir, or `into`): `base` committed, `files` written over it and left uncommitted. */
export function makeScenarioProject(scenario: Scenario, prefix = 'e2e-project-', into?: string): string {
  const dir = makeGitProject(scenario.base ?? {}, prefix, into);
  for (const [rel, content] of Object.entries(scenario.files)) {
    const p = join(dir, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, content);
  }
  return dir;
}

// ── One run, summarised ─────────────────────────────────────────────────────────

export interface HookMessage {
  event: string;
  name: string;
  systemMessage?: string;
  additionalContext?: string;
  decision?: string;
  permissionDecision?: string;
  reason?: string;
  raw: string;
}

export interface Dispatch {
  agent: string;
  iteration: number | null;
  background: boolean;
  toolUseId: string;
  /** The tool_result the main thread got back for it (null if never seen). */
  result: { isError: boolean; text: string } | null;
}

export interface LoopReport {
  scenario: Scenario;
  projectDir: string;
  run: RunClaudeResult;
  server: ModelServer;
  modelLog: string;
  /** The loop state at the end: the archived one when the run was archived, else the live file. */
  state: Record<string, unknown> | null;
  stateWhere: 'archive' | 'live' | 'none';
  /** Files under .agents/tmp/phases/, relative to it, sorted. */
  phases: string[];
  hooks: HookMessage[];
  systemMessages: string[];
  dispatches: Dispatch[];
  read(rel: string): string | null;
  readPhase(rel: string): string | null;
  /** A long text for failure messages: hook events, state, model log. */
  diagnostics(): string;
  /** Removes the run's project, HOME and logs (call it when the assertions passed). */
  cleanup(): void;
}

export interface RunLoopOptions {
  /** `--plugin-dir`; omitted: the plugins installed in `homeDir`. */
  pluginDir?: string;
  /** The CLI's HOME (default: a fresh temp dir). */
  homeDir?: string;
  timeoutMs?: number;
  onEvent?: (e: StreamEvent) => void;
  model?: ScriptedModelOptions;
  /** Use this project instead of making one. */
  projectDir?: string;
  /** Started (and awaited) while the run goes on, e.g. a second session. */
  alongside?: (projectDir: string) => Promise<void>;
  env?: Record<string, string | undefined>;
}

export function reviewPrompt(scenario: Scenario): string {
  const checks = (scenario.checks ?? []).map((c) => ` --check "${c.replace(/["\\$`]/g, '\\$&')}"`).join('');
  return `/minions:review${scenario.flags ? ` ${scenario.flags}` : ''}${scenario.maxIterations ? ` --max-iterations ${scenario.maxIterations}` : ''}${checks} ${scenario.task}`.trimEnd();
}

export async function runLoop(scenario: Scenario, opts: RunLoopOptions): Promise<LoopReport> {
  const projectDir = opts.projectDir ?? makeScenarioProject(scenario);
  const logDir = mkdtempSync(join(tmpdir(), 'e2e-log-'));
  const modelLog = join(logDir, 'model.jsonl');
  const server = await startModelServer(scriptedModel(scenario, { projectDir, ...opts.model }), { logFile: modelLog });
  try {
    const running = runClaude({
      ...(opts.pluginDir === undefined ? {} : { pluginDir: opts.pluginDir }),
      ...(opts.homeDir === undefined ? {} : { homeDir: opts.homeDir }),
      projectDir,
      prompt: reviewPrompt(scenario),
      serverUrl: server.url,
      ...(scenario.permissionMode ? { permissionMode: scenario.permissionMode } : {}),
      timeoutMs: opts.timeoutMs,
      ...(opts.onEvent ? { onEvent: opts.onEvent } : {}),
      ...(opts.env ? { env: opts.env } : {}),
    });
    const [run] = await Promise.all([running, opts.alongside?.(projectDir)]);
    writeFileSync(join(logDir, 'stream.jsonl'), run.stdout);
    return summarise(scenario, projectDir, run, server, modelLog);
  } finally {
    await server.close();
  }
}

export function parseHookMessages(events: StreamEvent[]): HookMessage[] {
  return hookResponses(events).map(parseHookMessage);
}

/** What one `hook_response` stream event answered (its stdout JSON, read). */
export function parseHookMessage(e: StreamEvent): HookMessage {
  const raw = String(e.stdout ?? e.output ?? '');
  const out: HookMessage = { event: String(e.hook_event ?? ''), name: String(e.hook_name ?? ''), raw };
  const line = raw.trim().split('\n').filter((l) => l.startsWith('{')).at(-1);
  if (!line) return out;
  try {
    const j = JSON.parse(line) as Record<string, unknown>;
    const hso = (j.hookSpecificOutput ?? {}) as Record<string, unknown>;
    if (typeof j.systemMessage === 'string') out.systemMessage = j.systemMessage;
    if (typeof hso.additionalContext === 'string') out.additionalContext = hso.additionalContext;
    if (typeof j.decision === 'string') out.decision = j.decision;
    if (typeof hso.permissionDecision === 'string') out.permissionDecision = hso.permissionDecision;
    const reason = hso.permissionDecisionReason ?? j.reason;
    if (typeof reason === 'string') out.reason = reason;
  } catch {
    /* not JSON: keep raw */
  }
  return out;
}

/** Every Agent call the main thread made, with the iteration its output path names and its tool_result. */
export function mainDispatches(requests: RecordedRequest[]): Dispatch[] {
  const dispatches: Dispatch[] = [];
  const results = new Map<string, { isError: boolean; text: string }>();
  for (const r of requests) {
    if (!r.request || r.request.agentId !== undefined) continue;
    for (const m of r.request.messages) {
      if (m.role !== 'user' || typeof m.content === 'string') continue;
      for (const b of m.content) {
        if (b.type === 'tool_result' && b.tool_use_id) results.set(b.tool_use_id, { isError: b.is_error === true, text: contentText(b.content) });
      }
    }
  }
  for (const r of requests) {
    if (!r.request || r.request.agentId !== undefined) continue;
    for (const b of r.response ?? []) {
      if (b.type !== 'tool_use' || b.name !== 'Agent') continue;
      const input = b.input as Record<string, unknown>;
      const prompt = String(input.prompt ?? '');
      const path = /Write your (?:JSON findings|fix summary) to \S*review-(\d+)\//.exec(prompt);
      dispatches.push({
        agent: String(input.subagent_type),
        iteration: path ? Number(path[1]) : null,
        background: input.run_in_background === true,
        toolUseId: b.id!,
        result: results.get(b.id!) ?? null,
      });
    }
  }
  return dispatches;
}

/** Every tool_result (any thread) for tool_use ids the model emitted, keyed by id. */
export function toolResults(requests: RecordedRequest[]): Map<string, { isError: boolean; text: string }> {
  const results = new Map<string, { isError: boolean; text: string }>();
  for (const r of requests) {
    for (const m of r.request?.messages ?? []) {
      if (m.role !== 'user' || typeof m.content === 'string') continue;
      for (const b of m.content) {
        if (b.type === 'tool_result' && b.tool_use_id) results.set(b.tool_use_id, { isError: b.is_error === true, text: contentText(b.content) });
      }
    }
  }
  return results;
}

/** Every file below `root`, relative to it, sorted; [] when it does not exist. */
export function listFiles(root: string): string[] {
  if (!existsSync(root)) return [];
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(relative(root, p));
    }
  };
  walk(root);
  return out.sort();
}

function readJson(path: string): Record<string, unknown> | null {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch {
    return null;
  }
}

function summarise(scenario: Scenario, projectDir: string, run: RunClaudeResult, server: ModelServer, modelLog: string): LoopReport {
  const tmp = join(projectDir, '.agents', 'tmp');
  const live = readJson(join(tmp, 'state.json'));
  const archived = listFiles(join(tmp, 'archive')).filter((f) => f.endsWith('/state.json') && f.split('/').length === 2);
  const archivedState = archived.length ? readJson(join(tmp, 'archive', archived.at(-1)!)) : null;
  const state = live ?? archivedState;
  const hooks = parseHookMessages(run.events);
  const report: LoopReport = {
    scenario,
    projectDir,
    run,
    server,
    modelLog,
    state,
    stateWhere: live ? 'live' : archivedState ? 'archive' : 'none',
    phases: listFiles(join(tmp, 'phases')),
    hooks,
    systemMessages: hooks.flatMap((h) => (h.systemMessage ? [h.systemMessage] : [])),
    dispatches: mainDispatches(server.requests),
    read: (rel) => readOrNull(join(projectDir, rel)),
    readPhase: (rel) => readOrNull(join(tmp, 'phases', rel)),
    diagnostics: () => diagnostics(report),
    cleanup: () => {
      for (const dir of [projectDir, run.homeDir, dirname(modelLog)]) rmSync(dir, { recursive: true, force: true });
    },
  };
  return report;
}

function clip(s: string, n: number): string {
  return s.length <= n ? s : `${s.slice(0, n)}…[+${s.length - n}]`;
}

/** Hook events, the state file, the phases and a compact model log, for a failing test's message. */
export function diagnostics(r: LoopReport): string {
  const out: string[] = [];
  out.push(`── scenario "${r.scenario.name}" in ${r.projectDir}`);
  out.push(`exit=${r.run.exitCode} signal=${r.run.signal} timedOut=${r.run.timedOut} ${r.run.durationMs} ms; model log ${r.modelLog}`);
  out.push('── hook responses (event name: output)');
  for (const h of r.hooks) out.push(`  ${h.name}: ${h.raw.trim() ? clip(h.raw.trim().replace(/\n/g, ' '), 400) : '(empty)'}`);
  out.push(`── state (${r.stateWhere})`);
  out.push(r.state ? clip(JSON.stringify(r.state, null, 1), 4000) : '  (none)');
  out.push('── phases');
  out.push(...r.phases.map((p) => `  ${p}`));
  out.push('── model requests (n agent: last message → answer)');
  for (const rec of r.server.requests) {
    const q = rec.request;
    if (!q) continue;
    const last = q.messages.filter((m) => m.role !== 'system').at(-1);
    const lastText = last ? clip(contentText(last.content).replace(/\s+/g, ' '), 160) : '';
    const answer = (rec.response ?? [])
      .map((b) => (b.type === 'text' ? `text:${clip(b.text.replace(/\s+/g, ' '), 60)}` : `${b.name}(${clip(JSON.stringify(b.input), 100)})`))
      .join(' ');
    out.push(`  #${q.index} ${q.agentId ?? 'main'}: ${lastText} → ${answer}`);
  }
  if (r.run.stderr.trim()) out.push('── CLI stderr', clip(r.run.stderr, 2000));
  const results = r.run.events.filter((e) => e.type === 'result').map((e) => clip(JSON.stringify({ subtype: e.subtype, result: e.result, num_turns: e.num_turns }), 300));
  out.push('── result events', ...results);
  return out.join('\n');
}

/**
 * Runs a scenario's assertions: a failure carries the run's diagnostics, a passing run's files are removed
 * (with `alsoRemove`). MINIONS_E2E_KEEP keeps them; MINIONS_E2E_VERBOSE prints the diagnostics first.
 */
export function explain(report: { diagnostics(): string; cleanup(): void }, assertions: () => void, alsoRemove: readonly string[] = []): void {
  if (process.env.MINIONS_E2E_VERBOSE) console.log(report.diagnostics());
  try {
    assertions();
  } catch (err) {
    if (err instanceof Error) err.message = `${err.message}\n\n${report.diagnostics()}`;
    throw err;
  }
  if (!process.env.MINIONS_E2E_KEEP) {
    report.cleanup();
    for (const dir of alsoRemove) rmSync(dir, { recursive: true, force: true });
  }
}

/** A file's text, or null when it cannot be read. */
export function readOrNull(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}
