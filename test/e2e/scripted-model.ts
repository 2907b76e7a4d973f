/**
 * A scripted "capable model" for the minions review loop, as a model-server Policy.
 *
 * It follows only the plugin's protocol, as a real model would read it:
 * - Main thread (no x-claude-code-agent-id header): acts on the LATEST `[PHASE R1]` / `[PHASE R2]`
 *   text anywhere in the conversation (the UserPromptSubmit context in the system-role message, or a
 *   Stop-hook system-reminder). It dispatches, in one assistant message, one Agent call per
 *   `- minions:<agent> → <path>` line of that prompt that it has not dispatched since that prompt
 *   (passing on the prompt's context lines), and otherwise ends its turn with a short text: after the
 *   tool results of its dispatches, and on background-agent wake-ups alike. No phase prompt: a plain
 *   session (answer, or the scenario's `plainEdits`).
 * - Subagents: recognised by the agent body in their system prompt (`You are the **critic**`) or the
 *   output path in their task. A reviewer writes the scenario's findings for (reviewer, iteration) to
 *   its path with the Write tool (the line found from the evidence in the file as it stands), then
 *   ends with one line. The fixer Reads the hooks' r2-findings.json, Reads and Edits what the scenario
 *   says, Writes r2-fix-summary.md and r2-fix-summary.json (one answer per fingerprint; could_not_fix
 *   with the error for a finding whose Edit was refused), then ends.
 *   A SubagentStop block (a new user turn after the agent's final text, however the host words it)
 *   makes them redo their output.
 *
 * Progress is read from the conversation itself (which tool calls were made after the latest prompt),
 * never from counters, so the policy is deterministic and survives continuations and wake-ups.
 * Scenarios are plain data (see `Scenario`).
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type { PermissionMode } from './harness';
import {
  contentText,
  text,
  toolUse,
  type AssistantBlock,
  type ModelRequest,
  type Policy,
  type RequestContentBlock,
  type RequestMessage,
} from './model-server';

export const REVIEWER_NAMES = ['critic', 'pedant', 'witness', 'security-reviewer', 'silent-failure-hunter'] as const;
export type ReviewerName = (typeof REVIEWER_NAMES)[number];
export const FIXER_NAME = 'review-fixer';

// ── Scenario data ───────────────────────────────────────────────────────────────

/** A finding as a scenario states it; `line` is found from `evidence` in the file as it is when reviewed. */
export interface ScenarioFinding {
  severity: 'critical' | 'warning' | 'info';
  category: string;
  file: string;
  evidence: string;
  description: string;
  suggestion?: string;
  /** Used when the evidence is not (or no longer) in the file. Default null (whole-file). */
  line?: number | null;
  /** The reviewer's confidence, 0–100 (left out of the review when not given). */
  confidence?: number;
}

/**
 * What one reviewer does in one iteration:
 * - a list of findings (empty = clean), written with the Write tool;
 * - `invalidFirst`: first Write this raw text, then (when the hook continues it) the findings;
 * - `fenceOnly`: never Write; end with the findings in a ```json fence;
 * - `shellFirst`: first run this command with the Bash tool (e.g. a write the Bash gate cannot see), then Write the findings;
 * - `thenWait`: Write the findings, then wait for this promise (given the file's path and what was written) before the final message.
 */
export type ReviewerScript =
  | ScenarioFinding[]
  | { invalidFirst: string; findings?: ScenarioFinding[] }
  | { fenceOnly: true; findings?: ScenarioFinding[] }
  | { shellFirst: string; findings?: ScenarioFinding[] }
  | { thenWait: (file: string, written: string) => Promise<void>; findings?: ScenarioFinding[] };

/** One fixer edit: replace `find` (unique in the file) with `replace`. */
export interface FixEdit {
  file: string;
  find: string;
  replace: string;
  category?: string;
  what?: string;
}

/** The fixer's answer for one finding of r2-findings.json (`kind` defaults to patch for a fix). */
export interface FixAnswer {
  status: 'fixed' | 'declined' | 'could_not_fix' | 'escalate';
  kind?: 'patch' | 'structural';
  reason?: string;
}

/** A class of r2-findings.json (`classes`): several sites to fix together, or audit-first. */
export interface BriefClass {
  class: string;
  fingerprints: string[];
  sites: string[];
  instruction: 'fix_together' | 'audit_first';
}

/** A finding as the hooks hand it to the fixer (r2-findings.json). */
export interface BriefFinding {
  fingerprint: string;
  severity: string;
  category: string;
  file: string;
  line: number | null;
  description: string;
  evidence?: string;
}

/**
 * What the fixer does in one iteration: its edits, and optionally its own summary text and answers.
 * Default answers: `fixed` when an edit touches the finding's file (or any edit was made), else
 * `could_not_fix`.
 */
export type FixerScript = FixEdit[] | { edits: FixEdit[]; summary?: string; answer?: (finding: BriefFinding) => FixAnswer };

export interface OrchestratorQuirks {
  /** Dispatch minions:review-fixer during R1 (before the reviewers). true = iteration 1 only; or a list of iterations. */
  dispatchFixerInR1?: boolean | number[];
  /** Read, then Edit a project file during R1 (before the reviewers). Applied in iteration 1 only. */
  editSourceInR1?: FixEdit;
  /** Launch every agent with run_in_background: true (default false). */
  background?: boolean;
}

export interface Scenario {
  name: string;
  /** The task typed after /minions:review. */
  task: string;
  /** Committed first (the base of the change). Default: none, everything is the change. */
  base?: Record<string, string>;
  /** The working tree after the change (written over the base, left uncommitted). */
  files: Record<string, string>;
  maxIterations?: number;
  /** The project's checks, given as --check flags (each quoted). */
  checks?: string[];
  /** Other flags of /minions:review, as typed (e.g. `--no-fix --base main --sarif minions.sarif`). */
  flags?: string;
  findings: (reviewer: ReviewerName, iteration: number) => ReviewerScript;
  fixer?: (iteration: number) => FixerScript;
  orchestrator?: OrchestratorQuirks;
  /** A main thread without any phase prompt (a plain session): Read + Edit these, then end. */
  plainEdits?: FixEdit[];
  /** Delay before each subagent answer (ms), to make a run last longer. */
  agentDelayMs?: number;
  /** The CLI's `--permission-mode` (default bypassPermissions). */
  permissionMode?: PermissionMode;
  /** Reviewers Read every `.patch` file their task names (diff.patch, fix-delta.patch) before they write, as the agents are told to. */
  reviewersReadPatches?: boolean;
}

export interface ScriptedModelOptions {
  /** Fallback when the request does not name its working directory. */
  projectDir?: string;
  /** Called for every decision (for logs and demos). */
  onDecision?: (d: Decision) => void;
  /** Called just before a plain-session Edit is emitted (scenario 9 checks the loop is live then). */
  beforePlainEdit?: () => void;
}

export interface Decision {
  role: 'main' | ReviewerName | typeof FIXER_NAME | 'unknown';
  agentId: string | undefined;
  action: string;
}

// ── Conversation reading ────────────────────────────────────────────────────────

const PHASE_HEADER = /\[PHASE (R1|R2)\] minions review — Iteration (\d+)\/(\d+)/g;
/** `- minions:critic → <path>`, or with the model an effort profile asks: `- minions:critic (model: "sonnet") → <path>`. */
const AGENT_LINE = /^- (minions:[\w-]+)(?: \(model: "([\w.-]+)"\))? → (\S+)\s*$/gm;

export interface PhasePrompt {
  phase: 'R1' | 'R2';
  iteration: number;
  maxIterations: number;
  /** Index in `messages` of the message that carries it. */
  messageIndex: number;
  /** The prompt text, from its header to the next header or the end of the block. */
  body: string;
  agents: { type: string; path: string; model?: string }[];
  /** Each reviewer's copy of the project's review rules, when the prompt names them. */
  rules: Record<string, string>;
  task: string;
  /** What the prompt says to pass on to the agents: every line but the header, the dispatch orders and the agent list. */
  context: string[];
}

/** The text blocks of a message, tool results excluded (they are not instructions). */
function instructionTexts(m: RequestMessage): string[] {
  if (typeof m.content === 'string') return [m.content];
  return m.content.filter((b) => b.type === 'text' && typeof b.text === 'string').map((b) => b.text!);
}

/** The latest phase prompt in the request, or null. */
export function latestPhasePrompt(req: ModelRequest): PhasePrompt | null {
  let found: PhasePrompt | null = null;
  req.messages.forEach((m, messageIndex) => {
    if (m.role === 'assistant') return;
    for (const block of instructionTexts(m)) {
      const headers = [...block.matchAll(PHASE_HEADER)];
      headers.forEach((h, k) => {
        const end = k + 1 < headers.length ? headers[k + 1]!.index : block.length;
        const body = block.slice(h.index, end).replace(/<\/system-reminder>[\s\S]*$/, '');
        found = parsePhasePrompt(body, h[1] as 'R1' | 'R2', Number(h[2]), Number(h[3]), messageIndex);
      });
    }
  });
  return found;
}

function parsePhasePrompt(body: string, phase: 'R1' | 'R2', iteration: number, maxIterations: number, messageIndex: number): PhasePrompt {
  const agents = [...body.matchAll(AGENT_LINE)].map((m) => ({ type: m[1]!, path: m[3]!, ...(m[2] ? { model: m[2] } : {}) }));
  const task = /^Task: (.*)$/m.exec(body)?.[1]?.trim() ?? '';
  const rulesLine = /^Give each reviewer its own copy of the project's review rules.*$/m.exec(body)?.[0] ?? '';
  const rules = Object.fromEntries([...rulesLine.matchAll(/(minions:[\w-]+): (\S+?\.md)/g)].map((m) => [m[1]!, m[2]!]));
  const orders = /^(\[PHASE |Task: |Dispatch |Still missing |- minions:|Then end your turn|Give each reviewer)/;
  const context = body.split('\n').filter((l) => l.trim() !== '' && !orders.test(l));
  return { phase, iteration, maxIterations, messageIndex, body, agents, rules, task, context };
}

const toolUses = (m: RequestMessage): RequestContentBlock[] =>
  typeof m.content === 'string' ? [] : m.content.filter((b) => b.type === 'tool_use');

/** The conversation without system-role messages (the CLI appends those after tool results). */
const dialogue = (req: ModelRequest): RequestMessage[] => req.messages.filter((m) => m.role !== 'system');

/** The working directory the request names ("Primary working directory: …"). */
export function workingDirectory(req: ModelRequest, fallback?: string): string {
  for (const m of req.messages) {
    for (const t of instructionTexts(m)) {
      const match = /Primary working directory: (\S+)/.exec(t);
      if (match) return match[1]!;
    }
  }
  const inSystem = /Primary working directory: (\S+)/.exec(req.system);
  if (inSystem) return inSystem[1]!;
  if (fallback) return fallback;
  throw new Error('scripted-model: the request names no working directory and no projectDir was given');
}

/** The first real user text of a (sub)agent's conversation: its task. */
function firstTask(req: ModelRequest): string {
  const first = req.messages.find((m) => m.role === 'user');
  if (!first) return '';
  return instructionTexts(first).filter((t) => !t.startsWith('<system-reminder>')).join('\n');
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

// ── Findings and edits ──────────────────────────────────────────────────────────

function readProjectFile(dir: string, rel: string): string | null {
  try {
    return readFileSync(isAbsolute(rel) ? rel : join(dir, rel), 'utf8');
  } catch {
    return null;
  }
}

/** 1-based line where `needle` starts in `content`, or null. */
export function lineOf(content: string | null, needle: string): number | null {
  if (content === null || needle.length === 0) return null;
  const at = content.indexOf(needle);
  if (at < 0) return null;
  return content.slice(0, at).split('\n').length;
}

export function reviewJson(reviewer: string, findings: ScenarioFinding[], dir: string): string {
  const issues = findings.map((f) => ({
    severity: f.severity,
    category: f.category,
    file: f.file,
    line: lineOf(readProjectFile(dir, f.file), f.evidence) ?? f.line ?? null,
    description: f.description,
    evidence: f.evidence,
    suggestion: f.suggestion ?? '',
    ...(f.confidence === undefined ? {} : { confidence: f.confidence }),
  }));
  const count = (s: string): number => issues.filter((i) => i.severity === s).length;
  return `${JSON.stringify(
    {
      reviewer,
      issues,
      summary: { critical: count('critical'), warning: count('warning'), info: count('info'), verdict: issues.length ? 'issues_found' : 'clean' },
    },
    null,
    2,
  )}\n`;
}

export function normalizeReviewer(script: ReviewerScript): {
  first: 'write' | 'invalid' | 'fence' | 'shell';
  invalid?: string;
  shell?: string;
  findings: ScenarioFinding[];
  thenWait?: (file: string, written: string) => Promise<void>;
} {
  if (Array.isArray(script)) return { first: 'write', findings: script };
  if ('thenWait' in script) return { first: 'write', findings: script.findings ?? [], thenWait: script.thenWait };
  if ('invalidFirst' in script) return { first: 'invalid', invalid: script.invalidFirst, findings: script.findings ?? [] };
  if ('shellFirst' in script) return { first: 'shell', shell: script.shellFirst, findings: script.findings ?? [] };
  return { first: 'fence', findings: script.findings ?? [] };
}

export function normalizeFixer(script: FixerScript | undefined): { edits: FixEdit[]; summary?: string; answer: (finding: BriefFinding) => FixAnswer } {
  const { edits, summary, answer } = !script ? { edits: [] as FixEdit[] } : Array.isArray(script) ? { edits: script } : script;
  const byDefault = (f: BriefFinding): FixAnswer => {
    if (editFor(edits, f)) return { status: 'fixed', kind: 'patch' };
    if (edits.length > 0) return { status: 'fixed', kind: 'patch', reason: `fixed by the change to ${[...new Set(edits.map((e) => e.file))].join(', ')}` };
    return { status: 'could_not_fix', reason: 'the scripted fixer has no change for it' };
  };
  return { edits, ...(summary === undefined ? {} : { summary }), answer: answer ?? byDefault };
}

const squash = (t: string): string => t.replace(/\s+/g, '');

/** The edit that fixes a finding: same file, and its `find` text overlaps the evidence (else the first edit of the file). */
export function editFor(edits: FixEdit[], f: BriefFinding): FixEdit | undefined {
  const mine = edits.filter((e) => e.file === f.file);
  const evidence = squash(f.evidence ?? '');
  return mine.find((e) => evidence && (evidence.includes(squash(e.find)) || squash(e.find).includes(evidence))) ?? mine[0];
}

/** The text of a Read tool_result without the line-number gutter. */
export function withoutGutter(text: string): string {
  return text
    .split('\n')
    .map((line) => line.replace(/^\s*\d+(?:→|\t)/, ''))
    .join('\n');
}

/** r2-findings.json as the fixer Read it (null when not read or unreadable). */
function readBrief(messages: RequestMessage[], path: string): { findings: BriefFinding[]; classes: BriefClass[] } | null {
  const readId = messages
    .filter((m) => m.role === 'assistant')
    .flatMap(toolUses)
    .find((u) => u.name === 'Read' && (u.input as Record<string, unknown>).file_path === path)?.id;
  if (!readId) return null;
  for (const m of messages) {
    if (typeof m.content === 'string') continue;
    for (const b of m.content) {
      if (b.type !== 'tool_result' || b.tool_use_id !== readId) continue;
      const text = withoutGutter(contentText(b.content));
      const start = text.indexOf('{');
      const end = text.lastIndexOf('}');
      try {
        const data = JSON.parse(text.slice(start, end + 1)) as { findings?: BriefFinding[]; classes?: BriefClass[] };
        return { findings: Array.isArray(data.findings) ? data.findings : [], classes: Array.isArray(data.classes) ? data.classes : [] };
      } catch {
        return null;
      }
    }
  }
  return null;
}

/** The edits whose Edit call came back as an error (e.g. the host refused it), with the error text. */
function refusedEdits(messages: RequestMessage[], edits: FixEdit[], dir: string): Map<FixEdit, string> {
  const errors = new Map<string, string>();
  for (const m of messages) {
    if (typeof m.content === 'string') continue;
    for (const b of m.content) if (b.type === 'tool_result' && b.is_error === true && b.tool_use_id) errors.set(b.tool_use_id, contentText(b.content));
  }
  const refused = new Map<FixEdit, string>();
  for (const u of messages.filter((m) => m.role === 'assistant').flatMap(toolUses)) {
    if (u.name !== 'Edit' || !u.id || !errors.has(u.id)) continue;
    const input = (u.input ?? {}) as Record<string, unknown>;
    const edit = edits.find((e) => join(dir, e.file) === input.file_path && e.find === input.old_string);
    if (edit) refused.set(edit, errors.get(u.id)!);
  }
  return refused;
}

// ── The policy ──────────────────────────────────────────────────────────────────

export function scriptedModel(scenario: Scenario, opts: ScriptedModelOptions = {}): Policy {
  return async (req) => {
    const role = identify(req);
    let blocks: AssistantBlock[];
    if (role === 'main') blocks = mainThread(req, scenario, opts);
    else {
      if (scenario.agentDelayMs) await sleep(scenario.agentDelayMs);
      if (role === FIXER_NAME) blocks = fixer(req, scenario, opts);
      else if (role === 'unknown') blocks = [text('I do not know which agent I am; ending.')];
      else blocks = await reviewer(req, role, scenario, opts);
    }
    opts.onDecision?.({ role, agentId: req.agentId, action: describe(blocks) });
    return blocks;
  };
}

function describe(blocks: AssistantBlock[]): string {
  return blocks
    .map((b) => {
      if (b.type === 'text') return `text(${b.text.slice(0, 60)})`;
      const input = b.input as Record<string, unknown>;
      return `${b.name}(${String(input.subagent_type ?? input.file_path ?? '')})`;
    })
    .join(' ');
}

export function identify(req: ModelRequest): Decision['role'] {
  if (req.agentId === undefined) return 'main';
  const named = /You are the \*\*([\w-]+)\*\*/.exec(req.system)?.[1];
  const all: string[] = [...REVIEWER_NAMES, FIXER_NAME];
  if (named && all.includes(named)) return named as Decision['role'];
  const task = firstTask(req);
  if (/r2-fix-summary\.md/.test(task) && /Write your fix summary/.test(task)) return FIXER_NAME;
  const byPath = /Write your JSON findings to \S*r1-([\w-]+)\.json/.exec(task)?.[1];
  if (byPath && all.includes(byPath)) return byPath as Decision['role'];
  return 'unknown';
}

// ── Main thread ─────────────────────────────────────────────────────────────────

const appliesTo = (flag: boolean | number[] | undefined, iteration: number): boolean =>
  Array.isArray(flag) ? flag.includes(iteration) : flag === true && iteration === 1;

function mainThread(req: ModelRequest, scenario: Scenario, opts: ScriptedModelOptions): AssistantBlock[] {
  const prompt = latestPhasePrompt(req);
  const dir = workingDirectory(req, opts.projectDir);
  if (!prompt) return plainSession(req, scenario, dir, opts);

  const after = req.messages.slice(prompt.messageIndex + 1).filter((m) => m.role === 'assistant');
  const used = after.flatMap(toolUses);
  const dispatched = new Set(used.filter((u) => u.name === 'Agent').map((u) => String((u.input as Record<string, unknown>).subagent_type)));
  const background = scenario.orchestrator?.background === true;

  // Quirks first (R1 only): a model that jumps the gun.
  if (prompt.phase === 'R1') {
    const edit = prompt.iteration === 1 ? scenario.orchestrator?.editSourceInR1 : undefined;
    const fixerEarly = appliesTo(scenario.orchestrator?.dispatchFixerInR1, prompt.iteration);
    const abs = edit ? join(dir, edit.file) : '';
    if (edit && !used.some((u) => u.name === 'Read' && (u.input as Record<string, unknown>).file_path === abs)) {
      return [text('Let me look at the code first.'), toolUse('Read', { file_path: abs })];
    }
    const quirkDone = used.some((u) => u.name === 'Edit') || dispatched.has(`minions:${FIXER_NAME}`);
    if ((edit || fixerEarly) && !quirkDone) {
      const blocks: AssistantBlock[] = [text('I will fix this directly.')];
      if (edit) blocks.push(toolUse('Edit', { file_path: abs, old_string: edit.find, new_string: edit.replace }));
      if (fixerEarly) blocks.push(agentCall(`minions:${FIXER_NAME}`, `.agents/tmp/phases/review-${prompt.iteration}/r2-fix-summary.md`, prompt, background));
      return blocks;
    }
  }

  const todo = prompt.agents.filter((a) => !dispatched.has(a.type));
  if (todo.length === 0) {
    return [text(`Dispatched the ${prompt.phase} agents for iteration ${prompt.iteration}; the hooks take it from here.`)];
  }
  return [
    text(`${prompt.phase}, iteration ${prompt.iteration}: dispatching ${todo.map((a) => a.type).join(', ')}.`),
    ...todo.map((a) => agentCall(a.type, a.path, prompt, background, a.model)),
  ];
}

function agentCall(type: string, path: string, prompt: PhasePrompt, background: boolean, model?: string): AssistantBlock {
  const name = type.replace(/^minions:/, '');
  const lines = [`Task: ${prompt.task}`, ...prompt.context];
  lines.push(name === FIXER_NAME ? `Write your fix summary to ${path}` : `Write your JSON findings to ${path}`);
  const rules = prompt.rules[type];
  if (rules) lines.push(`Read the project's review rules at ${rules} and apply them`);
  return toolUse('Agent', {
    description: `${name} (iteration ${prompt.iteration})`,
    prompt: lines.join('\n'),
    subagent_type: type,
    run_in_background: background,
    ...(model ? { model } : {}),
  });
}

/** A session without a loop: answer briefly, or carry out the scenario's plain edits. */
function plainSession(req: ModelRequest, scenario: Scenario, dir: string, opts: ScriptedModelOptions): AssistantBlock[] {
  const edits = scenario.plainEdits ?? [];
  const used = dialogue(req).filter((m) => m.role === 'assistant').flatMap(toolUses);
  const step = nextEditStep(edits, used, dir);
  if (step.kind === 'read') return [toolUse('Read', { file_path: step.path })];
  if (step.kind === 'edit') {
    opts.beforePlainEdit?.();
    return [toolUse('Edit', { file_path: step.path, old_string: step.edit.find, new_string: step.edit.replace })];
  }
  return [text(edits.length ? `Done: edited ${[...new Set(edits.map((e) => e.file))].join(', ')}.` : 'Nothing to do here.')];
}

type EditStep = { kind: 'read'; path: string } | { kind: 'edit'; path: string; edit: FixEdit } | { kind: 'done' };

/** The next Read or Edit of an edit list, given the tool calls already made. */
function nextEditStep(edits: FixEdit[], used: RequestContentBlock[], dir: string): EditStep {
  const input = (u: RequestContentBlock): Record<string, unknown> => (u.input ?? {}) as Record<string, unknown>;
  for (const edit of edits) {
    const path = join(dir, edit.file);
    if (!used.some((u) => u.name === 'Read' && input(u).file_path === path)) return { kind: 'read', path };
    if (!used.some((u) => u.name === 'Edit' && input(u).file_path === path && input(u).old_string === edit.find)) return { kind: 'edit', path, edit };
  }
  return { kind: 'done' };
}

// ── Subagents ───────────────────────────────────────────────────────────────────

/**
 * Index (in the dialogue) of the last hook continuation, or -1: a user turn right after an assistant
 * turn that made no tool call (the agent had ended, so only a SubagentStop block can have continued it).
 * Read from the conversation's shape, not from the host's wording around the hook's reason.
 */
function lastContinuation(messages: RequestMessage[]): number {
  for (let i = messages.length - 1; i > 0; i--) {
    const m = messages[i]!;
    const before = messages[i - 1]!;
    if (m.role === 'user' && before.role === 'assistant' && toolUses(before).length === 0) return i;
  }
  return -1;
}

function outputPath(task: string, pattern: RegExp): string | null {
  const match = pattern.exec(task);
  return match ? match[1]!.replace(/[.,;:"'`]+$/, '') : null;
}

function iterationOf(path: string): number {
  return Number(/review-(\d+)\//.exec(path)?.[1] ?? 1);
}

async function reviewer(req: ModelRequest, name: ReviewerName, scenario: Scenario, opts: ScriptedModelOptions): Promise<AssistantBlock[]> {
  const dir = workingDirectory(req, opts.projectDir);
  const rel = outputPath(firstTask(req), /Write your JSON findings to (\S+)/);
  if (!rel) return [text('My prompt names no output path; ending.')];
  const abs = isAbsolute(rel) ? rel : join(dir, rel);
  const script = normalizeReviewer(scenario.findings(name, iterationOf(rel)));

  const messages = dialogue(req);
  const cont = lastContinuation(messages);
  const since = messages.slice(cont + 1).filter((m) => m.role === 'assistant');
  const wrote = since.some((m) => toolUses(m).some((u) => u.name === 'Write'));
  const attempt = cont < 0 ? 0 : 1;

  if (wrote || (since.length > 0 && script.first === 'fence')) {
    const written = since.flatMap(toolUses).find((u) => u.name === 'Write');
    if (script.thenWait && written) await script.thenWait(abs, String((written.input as Record<string, unknown>).content));
    const n = script.findings.length;
    return [text(`${rel}: ${n === 0 ? 'clean' : `${n} issue${n === 1 ? '' : 's'}`}.`)];
  }
  if (scenario.reviewersReadPatches && script.first !== 'fence') {
    const read = new Set(messages.flatMap((m) => (m.role === 'assistant' ? toolUses(m) : [])).filter((u) => u.name === 'Read').map((u) => String((u.input as Record<string, unknown>).file_path)));
    const patch = [...firstTask(req).matchAll(/(\/\S+\.patch)\b/g)].map((m) => m[1]!).find((p) => !read.has(p));
    if (patch) return [toolUse('Read', { file_path: patch })];
  }
  const content = reviewJson(name, script.findings, dir);
  if (script.first === 'fence') {
    return [text(`Review done; the findings follow.\n\n\`\`\`json\n${content}\`\`\``)];
  }
  if (script.first === 'invalid' && attempt === 0) return [toolUse('Write', { file_path: abs, content: script.invalid })];
  const ranShell = messages.some((m) => m.role === 'assistant' && toolUses(m).some((u) => u.name === 'Bash'));
  if (script.first === 'shell' && !ranShell) return [text('Let me check something first.'), toolUse('Bash', { command: script.shell!, description: 'look around' })];
  return [toolUse('Write', { file_path: abs, content })];
}

function fixer(req: ModelRequest, scenario: Scenario, opts: ScriptedModelOptions): AssistantBlock[] {
  const dir = workingDirectory(req, opts.projectDir);
  const task = firstTask(req);
  const abs = (rel: string): string => (isAbsolute(rel) ? rel : join(dir, rel));
  // Its own summary is the one it is told to write (an audit-first prompt also names earlier rounds' summaries).
  const mdRel = outputPath(task, /Write your fix summary to (\S+)/) ?? /(\S*r2-fix-summary\.md)\b/.exec(task)?.[1];
  if (!mdRel) return [text('My prompt names no summary path; ending.')];
  const dirOf = mdRel.slice(0, mdRel.lastIndexOf('/') + 1);
  const jsonRel = task.includes(`${dirOf}r2-fix-summary.json`) ? `${dirOf}r2-fix-summary.json` : null;
  const briefRel = task.includes(`${dirOf}r2-findings.json`) ? `${dirOf}r2-findings.json` : (/(\S*r2-findings\.json)\b/.exec(task)?.[1] ?? null);
  const { edits, summary, answer: scripted } = normalizeFixer(scenario.fixer?.(iterationOf(mdRel)));

  const messages = dialogue(req);
  // A fix whose edit was refused is reported as such, as the fixer's instructions say.
  const refused = refusedEdits(messages, edits, dir);
  const answer = (f: BriefFinding): FixAnswer => {
    const edit = editFor(edits, f);
    const why = edit && refused.get(edit);
    return why ? { status: 'could_not_fix', reason: `the edit of ${edit.file} was refused: ${why.replace(/\s+/g, ' ').slice(0, 200)}` } : scripted(f);
  };
  const cont = lastContinuation(messages);
  const used = messages.filter((m) => m.role === 'assistant').flatMap(toolUses);
  const usedSince = messages.slice(cont + 1).filter((m) => m.role === 'assistant').flatMap(toolUses);
  const wrote = (rel: string): boolean => usedSince.some((u) => u.name === 'Write' && (u.input as Record<string, unknown>).file_path === abs(rel));

  // 1. Read the findings the hooks merged; 2. edit; 3. both summaries; 4. a one-line report.
  if (briefRel && !used.some((u) => u.name === 'Read' && (u.input as Record<string, unknown>).file_path === abs(briefRel))) {
    return [toolUse('Read', { file_path: abs(briefRel) })];
  }
  const step = nextEditStep(edits, used, dir);
  if (step.kind === 'read') return [toolUse('Read', { file_path: step.path })];
  if (step.kind === 'edit') return [toolUse('Edit', { file_path: step.path, old_string: step.edit.find, new_string: step.edit.replace })];
  const { findings: brief, classes } = (briefRel ? readBrief(messages, abs(briefRel)) : null) ?? { findings: [], classes: [] };
  if (!wrote(mdRel)) return [toolUse('Write', { file_path: abs(mdRel), content: summary ?? fixSummary(edits, dir, brief, answer) })];
  if (jsonRel && !wrote(jsonRel)) {
    const fixes = brief.map((f) => {
      const a = answer(f);
      return { fingerprint: f.fingerprint, status: a.status, ...(a.status === 'fixed' ? { kind: a.kind ?? 'patch' } : {}), ...(a.reason ? { reason: a.reason } : {}) };
    });
    const patterns = classes.filter((c) => c.instruction === 'audit_first').map((c) => ({ class: c.class, pattern: `one pattern at ${c.sites.join(', ')}`, sites: c.sites }));
    return [toolUse('Write', { file_path: abs(jsonRel), content: `${JSON.stringify({ fixes, patterns }, null, 2)}\n` })];
  }
  const fixed = brief.length ? brief.filter((f) => answer(f).status === 'fixed').length : edits.length;
  return [text(`Fixed ${fixed} finding${fixed === 1 ? '' : 's'}; summary in ${mdRel}.`)];
}

/** The Markdown summary: one line per finding (or per edit when no findings file was given). */
export function fixSummary(edits: FixEdit[], dir: string, brief: BriefFinding[] = [], answer?: (f: BriefFinding) => FixAnswer): string {
  const tag = { fixed: '[fixed]', declined: '[declined]', could_not_fix: '[could not fix]', escalate: '[escalate]' } as const;
  const lines = brief.length
    ? brief.map((f) => {
        const a = answer?.(f) ?? { status: 'fixed' as const };
        const edit = editFor(edits, f);
        const what = a.status === 'fixed' ? edit?.what ?? a.reason ?? 'fixed' : a.reason ?? 'no reason given';
        return `- ${tag[a.status]} ${f.file}${f.line ? `:${f.line}` : ''} ${f.category} — ${what}`;
      })
    : edits.map((e) => {
        const content = readProjectFile(dir, e.file);
        const line = lineOf(content, e.replace) ?? lineOf(content, e.find);
        return `- [fixed] ${e.file}${line ? `:${line}` : ''} ${e.category ?? 'fix'} — ${e.what ?? 'applied the suggested change'}`;
      });
  return ['# Fix summary', '', ...(lines.length ? lines : ['- The findings file holds no finding.']), '', '## Tests run', '- none (scripted fixer)', ''].join('\n');
}

export { contentText };
