/**
 * Hook payloads with the shapes Claude Code 2.1.328 sends (see /work/shared/reference/claude-code-host.md
 * and test/e2e/HOST-NOTES.md): one builder per event. Every builder takes the project directory as cwd.
 */
export const SESSION = '5f0c1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b';
export const OTHER_SESSION = '9e8d7c6b-5a49-4382-b716-a5b4c3d2e1f0';

export type Payload = Record<string, unknown>;

export interface Common {
  session_id?: string;
  cwd: string;
  permission_mode?: string;
  prompt_id?: string;
}

let counter = 0;
const nextId = (prefix: string): string => `${prefix}${(++counter).toString(16).padStart(16, '0')}`;

function common(event: string, c: Common): Payload {
  const session = c.session_id ?? SESSION;
  return {
    session_id: session,
    transcript_path: `/root/.claude/projects/${c.cwd.replace(/[^A-Za-z0-9]/g, '-')}/${session}.jsonl`,
    cwd: c.cwd,
    prompt_id: c.prompt_id ?? 'b7f2c1d0-0000-4000-8000-000000000001',
    permission_mode: c.permission_mode ?? 'bypassPermissions',
    effort: { level: 'high' },
    hook_event_name: event,
  };
}

/** Inside a subagent every event also carries agent_id and agent_type. */
export interface InAgent extends Common {
  agentType?: string;
  agentId?: string;
}

function agentFields(c: InAgent): Payload {
  return c.agentType ? { agent_id: c.agentId ?? nextId('a'), agent_type: c.agentType } : {};
}

export function userPromptSubmit(prompt: string, c: Common): Payload {
  return { ...common('UserPromptSubmit', c), prompt };
}

/** The main thread dispatching a subagent (tool_name "Agent"; "Task" before 2.1.63, still matched). */
export function agentDispatch(subagentType: string, c: Common & { toolName?: 'Agent' | 'Task'; runInBackground?: boolean; prompt?: string; model?: string }): Payload {
  const name = subagentType.replace(/^.*:/, '');
  return {
    ...common('PreToolUse', c),
    tool_name: c.toolName ?? 'Agent',
    tool_input: {
      description: `Run ${name}`,
      prompt: c.prompt ?? `Review the change. Write your JSON findings to the path given.`,
      subagent_type: subagentType,
      run_in_background: c.runInBackground ?? false,
      ...(c.model !== undefined ? { model: c.model } : {}),
    },
    tool_use_id: nextId('toolu_01'),
  };
}

function preToolUse(toolName: string, toolInput: Payload, c: InAgent): Payload {
  return { ...common('PreToolUse', c), ...agentFields(c), tool_name: toolName, tool_input: toolInput, tool_use_id: nextId('toolu_01') };
}

export const writeTool = (filePath: string, c: InAgent, content = '{}\n'): Payload => preToolUse('Write', { file_path: filePath, content }, c);
export const editTool = (filePath: string, c: InAgent): Payload => preToolUse('Edit', { file_path: filePath, old_string: 'a', new_string: 'b', replace_all: false }, c);
export const multiEditTool = (filePath: string, c: InAgent): Payload =>
  preToolUse('MultiEdit', { file_path: filePath, edits: [{ old_string: 'a', new_string: 'b' }, { old_string: 'c', new_string: 'd' }] }, c);
export const notebookEditTool = (notebookPath: string, c: InAgent): Payload =>
  preToolUse('NotebookEdit', { notebook_path: notebookPath, cell_id: 'cell-1', new_source: 'print(1)', cell_type: 'code', edit_mode: 'replace' }, c);
export const bashTool = (command: string, c: InAgent): Payload => preToolUse('Bash', { command, description: 'run a command' }, c);

export interface BackgroundTask {
  id: string;
  type: 'subagent';
  status: string;
  description: string;
  agent_type: string;
}

export function backgroundTask(agentType: string, status = 'running'): BackgroundTask {
  return { id: nextId('a'), type: 'subagent', status, description: `Run ${agentType.replace(/^.*:/, '')}`, agent_type: agentType };
}

export function subagentStop(
  agentType: string,
  c: Common & { agentId?: string; lastAssistantMessage?: string | null; stopHookActive?: boolean; backgroundTasks?: BackgroundTask[]; transcriptPath?: string },
): Payload {
  const agentId = c.agentId ?? nextId('a');
  const session = c.session_id ?? SESSION;
  return {
    ...common('SubagentStop', c),
    agent_id: agentId,
    agent_type: agentType,
    agent_transcript_path: c.transcriptPath ?? `/root/.claude/projects/${c.cwd.replace(/[^A-Za-z0-9]/g, '-')}/${session}/subagents/agent-${agentId}.jsonl`,
    last_assistant_message: c.lastAssistantMessage === undefined ? 'Done. I wrote my findings to the output file.' : c.lastAssistantMessage,
    stop_hook_active: c.stopHookActive ?? false,
    background_tasks: c.backgroundTasks ?? [],
    session_crons: [],
  };
}

export function stop(c: Common & { stopHookActive?: boolean; lastAssistantMessage?: string; backgroundTasks?: BackgroundTask[] }): Payload {
  return {
    ...common('Stop', c),
    stop_hook_active: c.stopHookActive ?? false,
    last_assistant_message: c.lastAssistantMessage ?? 'I dispatched the agents.',
    background_tasks: c.backgroundTasks ?? [],
    session_crons: [],
  };
}
