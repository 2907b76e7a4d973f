import * as z from 'zod/mini';
import '../protocol/zod';

/**
 * The host's hook payloads (stdin), as measured on Claude Code 2.1.x. Unknown fields are ignored.
 * Each is built on first use (z.lazy): a hook builds only its own event's schema.
 */
const common = () => ({
  session_id: z.string().check(z.minLength(1), z.maxLength(500)),
  cwd: z.optional(z.string().check(z.maxLength(10_000))),
  hook_event_name: z.optional(z.string()),
  agent_id: z.optional(z.string()),
  agent_type: z.optional(z.string().check(z.maxLength(500))),
});

export const UserPromptSubmitPayload = z.lazy(() => z.object({ ...common(), prompt: z.string() }));
export const PreToolUsePayload = z.lazy(() => z.object({ ...common(), tool_name: z.string(), tool_input: z._default(z.record(z.string(), z.unknown()), {}) }));
export const SubagentStopPayload = z.lazy(() =>
  z.object({
    ...common(),
    /** The subagent's own transcript (JSONL), where the host records each response's token usage. */
    agent_transcript_path: z.optional(z.string().check(z.maxLength(10_000))),
    last_assistant_message: z.optional(z.nullable(z.string())),
    stop_hook_active: z.optional(z.boolean()),
  }),
);
export const StopPayload = z.lazy(() =>
  z.object({
    ...common(),
    stop_hook_active: z.optional(z.boolean()),
    background_tasks: z.optional(z.nullable(z.array(z.looseObject({ agent_type: z.optional(z.string()), status: z.optional(z.string()) })))),
  }),
);

export type UserPromptSubmitPayload = z.infer<typeof UserPromptSubmitPayload>;
export type PreToolUsePayload = z.infer<typeof PreToolUsePayload>;
export type SubagentStopPayload = z.infer<typeof SubagentStopPayload>;
export type StopPayload = z.infer<typeof StopPayload>;
