import * as z from 'zod';

/** The host's hook payloads (stdin), as measured on Claude Code 2.1.x. Unknown fields are ignored. */
const common = {
  session_id: z.string().min(1).max(500),
  cwd: z.string().max(10_000).optional(),
  hook_event_name: z.string().optional(),
  agent_id: z.string().optional(),
  agent_type: z.string().max(500).optional(),
};

export const UserPromptSubmitPayload = z.object({ ...common, prompt: z.string() });
export const PreToolUsePayload = z.object({ ...common, tool_name: z.string(), tool_input: z.record(z.string(), z.unknown()).default({}) });
const BackgroundTask = z.object({ agent_type: z.string().optional(), status: z.string().optional() }).passthrough();
export const SubagentStopPayload = z.object({
  ...common,
  /** The subagent's own transcript (JSONL), where the host records each response's token usage. */
  agent_transcript_path: z.string().max(10_000).optional(),
  last_assistant_message: z.string().nullable().optional(),
  stop_hook_active: z.boolean().optional(),
});
export const StopPayload = z.object({
  ...common,
  stop_hook_active: z.boolean().optional(),
  background_tasks: z.array(BackgroundTask).nullable().optional(),
});

export type UserPromptSubmitPayload = z.infer<typeof UserPromptSubmitPayload>;
export type PreToolUsePayload = z.infer<typeof PreToolUsePayload>;
export type SubagentStopPayload = z.infer<typeof SubagentStopPayload>;
export type StopPayload = z.infer<typeof StopPayload>;
