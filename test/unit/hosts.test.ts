/** The host adapter at the hook runner's boundary (src/shell/hosts.ts): detection, payloads in, answers out. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { detectHost, normalisePayload, patchFiles, renderForHost } from '../../src/shell/hosts';

describe('detectHost', () => {
  it.each([
    ['Copilot sets COPILOT_CLI', { COPILOT_CLI: '1' }, { session_id: 's', turn_id: 't' }, 'copilot'],
    ['Codex: a payload with a turn_id', {}, { session_id: 's', turn_id: 't' }, 'codex'],
    ['Claude Code: neither', {}, { session_id: 's', prompt_id: 'p' }, 'claude-code'],
    ['not an object', {}, 'text', 'claude-code'],
  ] as const)('%s', (_, env, data, host) => {
    expect(detectHost(env, data)).toBe(host);
  });
});

describe('patchFiles', () => {
  it('names every file a patch adds, updates, deletes or moves to, once each', () => {
    const patch = ['*** Begin Patch', '*** Add File: /p/a.ts', '+x', '*** Update File: b.ts', '*** Move to: c.ts', '@@', '-a', '+b', '*** Delete File: /p/a.ts', '*** End Patch', ''].join('\n');
    expect(patchFiles(patch)).toEqual(['/p/a.ts', 'b.ts', 'c.ts']);
  });

  it('a hunk line that quotes a header (+*** Add File: …) is content, not a file', () => {
    expect(patchFiles('*** Begin Patch\n*** Update File: a\n@@\n+*** Add File: evil\n*** End Patch')).toEqual(['a']);
  });

  it('never throws, and every name it returns is a header of the text', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        for (const file of patchFiles(text)) expect(text).toContain(file);
      }),
    );
  });
});

describe('normalisePayload', () => {
  const pre = (tool_name: string, tool_input: unknown, extra: Record<string, unknown> = {}) => ({ session_id: 'main', cwd: '/p', tool_name, tool_input, ...extra });
  const input = (r: ReturnType<typeof normalisePayload>) => (r.kind === 'payload' ? (r.data as { tool_input: Record<string, unknown> }).tool_input : null);

  it.each([
    ['Copilot task tool (Agent): agent_type', pre('Agent', { agent_type: 'minions:critic', prompt: 'p' }), { subagent_type: 'minions:critic' }],
    ['Codex spawn_agent', pre('collaborationspawn_agent', { agent_type: 'minions:pedant', task_name: 't', message: 'm' }), { subagent_type: 'minions:pedant' }],
    ['Claude Code subagent_type wins over agent_type', pre('Agent', { subagent_type: 'minions:witness', agent_type: 'x' }), { subagent_type: 'minions:witness' }],
    ['Codex exec_command cmd', pre('exec_command', { cmd: 'ls' }), { command: 'ls' }],
    ['a shell argv', pre('shell', { command: ['bash', '-lc', 'echo x > f'] }), { command: 'echo x > f' }],
    ['a plain argv is quoted', pre('shell', { command: ['rm', 'a b'] }), { command: "rm 'a b'" }],
    ['Copilot create (Write, path)', pre('Write', { path: '/p/a', file_text: 'x' }), { file_path: '/p/a' }],
    ['Codex apply_patch', pre('apply_patch', { command: '*** Begin Patch\n*** Add File: /p/x\n+1\n*** End Patch' }), { file_paths: ['/p/x'] }],
    ['apply_patch as a raw string', pre('apply_patch', '*** Begin Patch\n*** Delete File: q\n*** End Patch'), { file_paths: ['q'] }],
    ['apply_patch with no file: the project itself', pre('apply_patch', { command: 'garbage' }), { file_paths: ['.'] }],
    ['apply_patch unreadable: the project itself', pre('apply_patch', { other: 1 }), { file_paths: ['.'] }],
  ])('%s', (_, payload, expected) => {
    expect(input(normalisePayload('PreToolUse', payload))).toMatchObject(expected);
  });

  it("a subagent's own UserPromptSubmit and Stop are ignored; its SubagentStop is not", () => {
    const child = { session_id: 'child', agent_id: 'child', agent_type: 'minions:critic', parent_agent_id: 'main' };
    expect(normalisePayload('UserPromptSubmit', { ...child, prompt: '/minions:review x' }).kind).toBe('ignore');
    expect(normalisePayload('Stop', child).kind).toBe('ignore');
    expect(normalisePayload('SubagentStop', { ...child, session_id: 'main' })).toMatchObject({ kind: 'payload', data: { session_id: 'main' } });
  });

  it("Codex's agent transcript (its own rollout format) is not handed to the cost reader", () => {
    const stop = { session_id: 's', agent_id: 'a', agent_type: 'minions:critic', agent_transcript_path: '/x/rollout-1.jsonl', turn_id: 't' };
    expect(normalisePayload('SubagentStop', stop, 'codex')).toEqual({ kind: 'payload', data: { session_id: 's', agent_id: 'a', agent_type: 'minions:critic', turn_id: 't' } });
    expect(normalisePayload('SubagentStop', stop, 'claude-code')).toEqual({ kind: 'payload', data: stop });
  });

  it("a Copilot child's tool call belongs to the main session (parent_agent_id)", () => {
    const r = normalisePayload('PreToolUse', pre('Bash', { command: 'ls' }, { session_id: 'child', agent_id: 'child', agent_type: 'minions:critic', parent_agent_id: 'main' }));
    expect(r).toMatchObject({ kind: 'payload', data: { session_id: 'main', agent_type: 'minions:critic' } });
  });

  it('leaves what it does not know to the hook schema', () => {
    expect(normalisePayload('PreToolUse', 'text')).toEqual({ kind: 'payload', data: 'text' });
    expect(normalisePayload('PreToolUse', { session_id: 's', tool_name: 'Bash', tool_input: 5 })).toEqual({ kind: 'payload', data: { session_id: 's', tool_name: 'Bash', tool_input: 5 } });
  });
});

describe('renderForHost', () => {
  const stopContinue = { systemMessage: 'm', hookSpecificOutput: { hookEventName: 'Stop', additionalContext: '[PHASE R2] …' } };
  const promptContext = { hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: '[PHASE R1] …' } };
  const allow = { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', permissionDecisionReason: 'own file' } };
  const deny = { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'no' } };

  it.each([
    ['claude-code', 'Stop', stopContinue, stopContinue],
    ['codex', 'Stop', stopContinue, { systemMessage: 'm', decision: 'block', reason: '[PHASE R2] …' }],
    ['copilot', 'Stop', stopContinue, { systemMessage: 'm', decision: 'block', reason: '[PHASE R2] …' }],
    ['codex', 'UserPromptSubmit', promptContext, promptContext],
    ['copilot', 'UserPromptSubmit', promptContext, { additionalContext: '[PHASE R1] …' }],
    ['codex', 'PreToolUse', allow, null],
    ['copilot', 'PreToolUse', allow, allow],
    ['codex', 'PreToolUse', deny, deny],
    ['codex', 'SubagentStop', { decision: 'block', reason: 'r' }, { decision: 'block', reason: 'r' }],
    ['copilot', 'Stop', null, null],
  ] as const)('%s %s', (host, event, output, expected) => {
    expect(renderForHost(host, event, output as Record<string, unknown> | null)).toEqual(expected);
  });
});
