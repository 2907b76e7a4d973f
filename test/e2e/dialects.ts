/**
 * The scripted model (scripted-model.ts) speaks Claude Code's tools: Agent, Read, Write, Edit, Bash. A
 * dialect puts its calls in another host's tools and reads that host's calls back, so the same policy
 * drives GitHub Copilot CLI and Codex CLI:
 * - every tool call the policy makes is remembered by its id, and the host's call with that id is shown
 *   to the policy again as the Claude Code call it came from;
 * - a result the host gave for a call its hook denied is marked is_error, as Claude Code marks it.
 * Codex speaks the Responses API: responses-server.ts turns its requests into this form first.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { AssistantBlock, ModelRequest, Policy, RequestContentBlock, ToolUseBlock } from './model-server';

export type HostName = 'copilot' | 'codex';

type Input = Record<string, unknown>;
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Codex's apply_patch text writing `content` to `file` whole (an update when the file exists, the whole text replaced). */
export function writePatch(file: string, content: string): string {
  const lines = (text: string, sign: string): string[] => (text === '' ? [] : text.replace(/\n$/, '').split('\n').map((l) => `${sign}${l}`));
  if (!existsSync(file)) return ['*** Begin Patch', `*** Add File: ${file}`, ...lines(content, '+'), '*** End Patch', ''].join('\n');
  const old = readFileSync(file, 'utf8');
  return ['*** Begin Patch', `*** Update File: ${file}`, '@@', ...lines(old, '-'), ...lines(content, '+'), '*** End Patch', ''].join('\n');
}

/** Codex's apply_patch text replacing `find` with `replace` in `file`: the whole lines around it, as the patch format wants. */
export function editPatch(file: string, find: string, replace: string): string {
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const at = text.indexOf(find);
  // Not there: a patch that fails, as Claude Code's Edit fails.
  if (at < 0 || find === '') return ['*** Begin Patch', `*** Update File: ${file}`, '@@', `-${find.split('\n')[0] ?? ''}`, `+${replace.split('\n')[0] ?? ''}`, '*** End Patch', ''].join('\n');
  const start = text.lastIndexOf('\n', at - 1) + 1;
  const endAt = text.indexOf('\n', at + find.length);
  const end = endAt < 0 ? text.length : endAt;
  const before = text.slice(start, end);
  const after = `${text.slice(start, at)}${replace}${text.slice(at + find.length, end)}`;
  return ['*** Begin Patch', `*** Update File: ${file}`, '@@', ...before.split('\n').map((l) => `-${l}`), ...after.split('\n').map((l) => `+${l}`), '*** End Patch', ''].join('\n');
}

/** A Codex task name from a dispatch: lowercase letters, digits and underscores, unique per call. */
const taskName = (type: string, id: string): string => `${type.replace(/^minions:/, '')}_${id}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');

/** The Claude Code call `block` in the host's tools (same id). */
export function toHost(host: HostName, block: ToolUseBlock): ToolUseBlock {
  const input = (block.input ?? {}) as Input;
  const id = block.id!;
  const call = (name: string, hostInput: unknown): ToolUseBlock => ({ type: 'tool_use', name, input: hostInput, id });
  if (host === 'copilot') {
    switch (block.name) {
      case 'Agent':
        return call('task', { description: str(input.description), prompt: str(input.prompt), agent_type: str(input.subagent_type), name: str(input.subagent_type).replace(/^minions:/, '') });
      case 'Read':
        return call('view', { path: str(input.file_path) });
      case 'Write':
        return call('create', { path: str(input.file_path), file_text: str(input.content) });
      case 'Edit':
        return call('edit', { path: str(input.file_path), old_str: str(input.old_string), new_str: str(input.new_string) });
      case 'Bash':
        return call('bash', { command: str(input.command), description: str(input.description) || 'run a command' });
      default:
        return block;
    }
  }
  switch (block.name) {
    case 'Agent':
      // The full history is forked (the default): the spawn's message is only in it (responses-server.ts's ownItems).
      return call('collaboration.spawn_agent', { task_name: taskName(str(input.subagent_type), id.slice(-6)), message: str(input.prompt), agent_type: str(input.subagent_type) });
    case 'Read':
      return call('exec_command', { cmd: `cat '${str(input.file_path).replace(/'/g, `'\\''`)}'` });
    case 'Write':
      return call('apply_patch', writePatch(str(input.file_path), str(input.content)));
    case 'Edit':
      return call('apply_patch', editPatch(str(input.file_path), str(input.old_string), str(input.new_string)));
    case 'Bash':
      return call('exec_command', { cmd: str(input.command) });
    default:
      return block;
  }
}

/** How each host words a result its PreToolUse hook denied. */
const DENIED: Record<HostName, RegExp> = {
  copilot: /^Denied by preToolUse hook/,
  codex: /PreToolUse hook|blocked by (a )?hook|denied/i,
};

/** A result's text, whatever its form. */
function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((c) => (typeof c === 'string' ? c : str((c as { text?: unknown }).text))).join('\n');
  return '';
}

/**
 * The policy, speaking the host's tools. `calls` remembers every call made (id → Claude Code call); the
 * host's own ids are the ones the policy gave (both hosts keep a call's id).
 */
export function inDialect(host: HostName, policy: Policy, calls = new Map<string, ToolUseBlock>()): Policy {
  let counter = 0;
  return async (req: ModelRequest) => {
    const messages = req.messages.map((m) => {
      if (typeof m.content === 'string') return m;
      const content = m.content.map((b): RequestContentBlock => {
        if (b.type === 'tool_use' && b.id && calls.has(b.id)) {
          const own = calls.get(b.id)!;
          return { ...b, name: own.name, input: own.input };
        }
        if (b.type === 'tool_result' && b.tool_use_id && calls.has(b.tool_use_id) && b.is_error !== true && DENIED[host].test(resultText(b.content))) return { ...b, is_error: true };
        return b;
      });
      return { ...m, content };
    });
    const blocks = await policy({ ...req, messages });
    return blocks.map((b): AssistantBlock => {
      if (b.type !== 'tool_use') return b;
      const id = b.id ?? `call_${host}_${Date.now().toString(36)}_${(++counter).toString(36)}`;
      const own = { ...b, id };
      calls.set(id, own);
      return toHost(host, own);
    });
  };
}
