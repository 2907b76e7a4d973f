/**
 * One small adapter per agent host, at the hook runner's boundary. Claude Code, GitHub Copilot CLI and
 * Codex CLI run the same hooks.json with Claude Code's event names; they differ in a few field names,
 * tool names and output forms (measured: docs/hosts.md, test/fixtures/hosts/). The runner asks which
 * host called, normalises the payload to Claude Code's shape before its schema reads it, and renders
 * the effects in that host's form. The core never learns which host called.
 */
import type { Host } from '../protocol/hosts';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Copilot CLI sets COPILOT_CLI (and COPILOT_* variables) in its hooks' environment. Codex sets nothing of
 * its own there, but every payload of a turn carries its `turn_id`; Claude Code's never does.
 */
export function detectHost(env: NodeJS.ProcessEnv, data: unknown): Host {
  if (env.COPILOT_CLI || env.COPILOT_HOOK_DIR) return 'copilot';
  if (isObject(data) && typeof data.turn_id === 'string') return 'codex';
  return 'claude-code';
}

/** The tool names each host uses, by the tool they stand for in Claude Code. */
export const TOOL_NAMES = {
  /** Claude Code (Task before 2.1.63), Copilot's task tool (named Agent in hooks), Codex's collaboration.spawn_agent. */
  dispatch: ['Agent', 'Task', 'collaborationspawn_agent', 'spawn_agent'],
  /** Codex reports exec_command as Bash; the raw names are kept for hosts that do not. */
  shell: ['Bash', 'bash', 'exec_command', 'shell'],
  /** Copilot's create/edit tools are reported as Write/Edit; apply_patch (Codex, Copilot's GPT models) names its files in the patch. */
  edit: ['Edit', 'Write', 'MultiEdit', 'NotebookEdit', 'apply_patch', 'create', 'edit', 'str_replace_editor'],
} as const;

/** The files an apply_patch text adds, updates, deletes or moves to. */
export function patchFiles(patch: string): string[] {
  const files: string[] = [];
  for (const match of patch.matchAll(/^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+?)\s*$/gm)) files.push(match[1]!);
  return [...new Set(files)];
}

/** The patch text of an apply_patch call, under whichever key the host put it. */
function patchText(input: unknown): string | null {
  if (typeof input === 'string') return input;
  if (!isObject(input)) return null;
  for (const key of ['command', 'input', 'patch']) {
    const value = input[key];
    if (typeof value === 'string') return value;
    // An exec-style argv: ["apply_patch", "<patch>"].
    if (Array.isArray(value) && value.length === 2 && value[0] === 'apply_patch' && typeof value[1] === 'string') return value[1];
  }
  return null;
}

/** A shell command under whichever key and form the host gives it: a string, or an argv like ["bash", "-lc", "<script>"]. */
function shellCommand(input: Json): string | null {
  const raw = input.command ?? input.cmd;
  if (typeof raw === 'string') return raw;
  if (Array.isArray(raw) && raw.every((w) => typeof w === 'string')) {
    const words = raw as string[];
    if (words.length === 3 && /(^|\/)(ba|z|da)?sh$/.test(words[0]!) && /^-\w*c$/.test(words[1]!)) return words[2]!;
    return words.map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`)).join(' ');
  }
  return null;
}

export type Normalised = { kind: 'payload'; data: unknown } | { kind: 'ignore'; why: string };

/**
 * The payload in Claude Code's shape. What is left alone is left for the hook's schema to judge.
 * - A subagent's own UserPromptSubmit or Stop (Copilot's children fire both, with an agent_id) is not
 *   the main session's: ignored.
 * - Copilot gives a child's tool calls the child's id as session_id, and the main session's as
 *   parent_agent_id: the session is the main one, as on the other hosts.
 * - Dispatch: agent_type → subagent_type. Shell: cmd or argv → command. Edits: path → file_path, and an
 *   apply_patch's files → file_paths.
 * - Codex's agent_transcript_path (not Claude Code's format) is dropped.
 */
export function normalisePayload(event: string, data: unknown, host: Host = 'claude-code'): Normalised {
  if (!isObject(data)) return { kind: 'payload', data };
  const out: Json = { ...data };
  // Codex's agent transcript is a rollout file in its own format: the cost reader (Claude Code's JSONL)
  // would wait out its deadline on it for nothing. The agent's cost is then unknown.
  if (host === 'codex' && event === 'SubagentStop') delete out.agent_transcript_path;
  const inSubagent = typeof out.agent_id === 'string' && out.agent_id !== '';
  if ((event === 'UserPromptSubmit' || event === 'Stop') && inSubagent) return { kind: 'ignore', why: `a subagent's own ${event} (${String(out.agent_type ?? out.agent_id)})` };
  if (inSubagent && typeof out.parent_agent_id === 'string' && out.parent_agent_id !== '') out.session_id = out.parent_agent_id;
  if (event !== 'PreToolUse' || typeof out.tool_name !== 'string') return { kind: 'payload', data: out };

  const tool = out.tool_name;
  // A tool_input that is not an object is left for the schema to refuse, but for a raw apply_patch text.
  if (!isObject(out.tool_input) && !(tool === 'apply_patch' && typeof out.tool_input === 'string')) return { kind: 'payload', data: out };
  const input: Json = isObject(out.tool_input) ? { ...out.tool_input } : {};
  if ((TOOL_NAMES.dispatch as readonly string[]).includes(tool)) {
    if (input.subagent_type === undefined && typeof input.agent_type === 'string') input.subagent_type = input.agent_type;
  } else if ((TOOL_NAMES.shell as readonly string[]).includes(tool)) {
    const command = shellCommand(input);
    if (command !== null) input.command = command;
  } else if (tool === 'apply_patch') {
    const patch = patchText(out.tool_input);
    // A patch whose files cannot be read is judged as a write to the project itself ('.'): refused to the
    // reviewers and the orchestrator during the loop, rather than waved through.
    const files = patch === null ? [] : patchFiles(patch);
    input.file_paths = files.length ? files : ['.'];
  } else if ((TOOL_NAMES.edit as readonly string[]).includes(tool)) {
    if (input.file_path === undefined && typeof input.path === 'string') input.file_path = input.path;
  }
  out.tool_input = input;
  return { kind: 'payload', data: out };
}

/**
 * Claude Code's output (io.ts's renderOutput) in the host's form; null: say nothing.
 * - Codex: Stop takes only decision/reason/continue/stopReason/systemMessage/suppressOutput, so a
 *   continuation is a block; PreToolUse has no "allow" (a hook that answers it fails), so an allow says nothing.
 * - Copilot: UserPromptSubmit's context is read top-level only; Stop continues with a block.
 */
export function renderForHost(host: Host, event: string, output: Json | null): Json | null {
  if (!output || host === 'claude-code') return output;
  const out: Json = { ...output };
  const specific = isObject(out.hookSpecificOutput) ? out.hookSpecificOutput : null;
  if (event === 'Stop' && specific) {
    delete out.hookSpecificOutput;
    if (typeof specific.additionalContext === 'string') {
      out.decision = 'block';
      out.reason = specific.additionalContext;
    }
  } else if (event === 'UserPromptSubmit' && specific && host === 'copilot') {
    delete out.hookSpecificOutput;
    if (typeof specific.additionalContext === 'string') out.additionalContext = specific.additionalContext;
  } else if (event === 'PreToolUse' && specific && host === 'codex' && specific.permissionDecision === 'allow') {
    delete out.hookSpecificOutput;
  }
  return Object.keys(out).length ? out : null;
}
