/**
 * The other hosts' hook payloads, from the real ones captured under test/fixtures/hosts/<host>/ (GitHub
 * Copilot CLI 1.0.102 and Codex CLI 0.171.0, driven against a scripted model), and the output each host
 * accepts, per event, as a strict zod schema (from /work/shared/reference/other-hosts.md and the hosts'
 * own validation messages; docs/hosts.md).
 */
import fs from 'node:fs';
import path from 'node:path';
import * as z from 'zod/mini';
import type { Host } from '../../src/protocol/hosts';
import { REPO_ROOT, type HookName } from './run';
import type { Payload } from './payloads';

export const FIXTURES = path.join(REPO_ROOT, 'test/fixtures/hosts');
export const OTHER_HOSTS = ['copilot', 'codex'] as const satisfies readonly Host[];
export type OtherHost = (typeof OTHER_HOSTS)[number];

/** Every captured payload of a host, by fixture name (the file name without .json). */
export function fixtures(host: OtherHost): Record<string, Payload> {
  const dir = path.join(FIXTURES, host);
  return Object.fromEntries(
    fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort()
      .map((f) => [f.slice(0, -'.json'.length), JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as Payload]),
  );
}

/** What each host puts in its hooks' environment (beyond CLAUDE_PLUGIN_ROOT and CLAUDE_PLUGIN_DATA). */
export function hostEnv(host: Host, projectDir: string): Record<string, string | undefined> {
  if (host === 'copilot') return { COPILOT_CLI: '1', COPILOT_CLI_BINARY_VERSION: '1.0.102', COPILOT_PROJECT_DIR: projectDir, CLAUDE_PROJECT_DIR: projectDir };
  // Codex gives no project directory: the hooks take the payload's cwd.
  if (host === 'codex') return { CLAUDE_PROJECT_DIR: undefined };
  return {};
}

export interface Placed {
  session: string;
  cwd: string;
  /** For a payload from inside a subagent (or a subagent's stop). */
  agentType?: string;
  agentId?: string;
}

/**
 * A captured payload moved into a test project and session: its session, cwd, agent and paths replaced,
 * every other field as the host sent it. Copilot's subagent payloads carry the child's id as session_id
 * and the main session's as parent_agent_id; that is kept.
 */
export function place(host: OtherHost, captured: Payload, at: Placed, over: Payload = {}): Payload {
  const oldCwd = String(captured.cwd);
  const text = JSON.stringify(captured).split(oldCwd).join(at.cwd);
  const out = JSON.parse(text) as Payload;
  const inSubagent = typeof captured.agent_id === 'string';
  const agentId = at.agentId ?? `agent-${Math.random().toString(16).slice(2, 10)}`;
  if (inSubagent) {
    out.agent_id = agentId;
    if (at.agentType) out.agent_type = at.agentType;
  }
  if (host === 'copilot' && typeof captured.parent_agent_id === 'string') {
    out.parent_agent_id = at.session;
    out.session_id = captured.hook_event_name === 'SubagentStop' ? at.session : agentId;
  } else {
    out.session_id = at.session;
  }
  return { ...out, ...over };
}

/** The hook that runs a payload, by its event and tool (as hooks.json's matchers pick it); null: none of ours. */
export function hookFor(payload: Payload): HookName | null {
  const event = payload.hook_event_name;
  if (event === 'UserPromptSubmit') return 'on-prompt-submit';
  if (event === 'Stop') return 'on-stop';
  if (event === 'SubagentStop') return 'on-subagent-stop';
  if (event !== 'PreToolUse') return null;
  const tool = String(payload.tool_name);
  if (/^(Agent|Task|collaborationspawn_agent)$/.test(tool)) return 'on-task-gate';
  if (/^(Edit|Write|MultiEdit|NotebookEdit|apply_patch)$/.test(tool)) return 'on-edit-gate';
  if (tool === 'Bash') return 'on-bash-gate';
  return null;
}

// ── What each host accepts ──────────────────────────────────────────────────────

const text = z.string().check(z.minLength(1));
const block = { decision: z.optional(z.literal('block')), reason: z.optional(text) };
const universal = { systemMessage: z.optional(z.string()) };
const denyOrAllow = (decisions: readonly ['deny'] | readonly ['deny', 'allow']) =>
  z.strictObject({ hookEventName: z.literal('PreToolUse'), permissionDecision: z.enum(decisions), permissionDecisionReason: text });

type Event = 'UserPromptSubmit' | 'PreToolUse' | 'SubagentStop' | 'Stop';

/**
 * The answers each host takes, strict: a field outside these is one the host rejects or ignores.
 * - Codex: Stop and SubagentStop take only decision/reason/continue/stopReason/systemMessage/suppressOutput
 *   (hookSpecificOutput fails the hook); PreToolUse has no "allow" (the hook fails), and a deny needs a reason;
 *   UserPromptSubmit's context is hookSpecificOutput.additionalContext.
 * - Copilot: UserPromptSubmit's context is a top-level additionalContext (hookSpecificOutput's is not read);
 *   Stop continues with decision/reason; PreToolUse's hookSpecificOutput deny is honoured.
 * - Claude Code: the shapes of its hooks reference (Stop may continue with hookSpecificOutput.additionalContext).
 */
export const ACCEPTED: Record<Host, Record<Event, z.ZodMiniType>> = {
  codex: {
    UserPromptSubmit: z.strictObject({ ...block, ...universal, hookSpecificOutput: z.optional(z.strictObject({ hookEventName: z.literal('UserPromptSubmit'), additionalContext: z.string() })) }),
    PreToolUse: z.strictObject({ ...universal, hookSpecificOutput: z.optional(denyOrAllow(['deny'])) }),
    SubagentStop: z.strictObject({ ...block, ...universal, continue: z.optional(z.boolean()), stopReason: z.optional(z.string()), suppressOutput: z.optional(z.boolean()) }),
    Stop: z.strictObject({ ...block, ...universal, continue: z.optional(z.boolean()), stopReason: z.optional(z.string()), suppressOutput: z.optional(z.boolean()) }),
  },
  copilot: {
    UserPromptSubmit: z.strictObject({ ...block, ...universal, additionalContext: z.optional(z.string()) }),
    PreToolUse: z.strictObject({ ...universal, hookSpecificOutput: z.optional(denyOrAllow(['deny', 'allow'])) }),
    SubagentStop: z.strictObject({ ...block, ...universal }),
    Stop: z.strictObject({ ...block, ...universal }),
  },
  'claude-code': {
    UserPromptSubmit: z.strictObject({ ...block, ...universal, hookSpecificOutput: z.optional(z.strictObject({ hookEventName: z.literal('UserPromptSubmit'), additionalContext: z.string() })) }),
    PreToolUse: z.strictObject({ ...universal, hookSpecificOutput: z.optional(denyOrAllow(['deny', 'allow'])) }),
    SubagentStop: z.strictObject({ ...block, ...universal }),
    Stop: z.strictObject({ ...block, ...universal, hookSpecificOutput: z.optional(z.strictObject({ hookEventName: z.literal('Stop'), additionalContext: z.string() })) }),
  },
};

/** Null when the host accepts `output` for `event` (an empty stdout always is), else what it would reject. */
export function rejected(host: Host, event: string, output: Record<string, unknown> | null): string | null {
  if (output === null) return null;
  const schema = ACCEPTED[host][event as Event];
  if (!schema) return `no accepted shape for ${event}`;
  const parsed = schema.safeParse(output);
  if (!parsed.success) return `${host} rejects this ${event} answer: ${JSON.stringify(output).slice(0, 300)} (${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')})`;
  const o = output as { decision?: unknown; reason?: unknown };
  if (o.decision === 'block' && typeof o.reason !== 'string') return `${host}: a block without a reason`;
  return null;
}

/** The text an answer gives the model to carry on with, in whichever form the host reads. */
export function continuation(host: Host, output: Record<string, any> | null): string | undefined {
  if (!output) return undefined;
  if (host === 'copilot' && typeof output.additionalContext === 'string') return output.additionalContext;
  if (typeof output.hookSpecificOutput?.additionalContext === 'string') return output.hookSpecificOutput.additionalContext;
  return output.decision === 'block' ? output.reason : undefined;
}
