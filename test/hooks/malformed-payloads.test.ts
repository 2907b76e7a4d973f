/**
 * Malformed payloads: every hook exits 0 with nothing on stdout and exactly one line on stderr (no
 * stack trace), and changes nothing. A live loop is present so that each hook really starts node.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Loop, projectTestdir } from '../helpers/loop';
import { agentDispatch, bashTool, stop, subagentStop, userPromptSubmit, writeTool, type Payload } from '../helpers/payloads';
import { agentType } from '../helpers/reviews';
import type { HookName } from '../helpers/run';
import { cloneTestdir, removeTestdirs, type TestDir } from '../helpers/testdir';

afterAll(removeTestdirs);

let dir: TestDir;
let loop: Loop;

beforeAll(async () => {
  loop = new Loop(projectTestdir());
  await loop.start('--max-iterations 2 malformed');
  await loop.dispatchReviewers(['critic']);
  dir = loop.dir;
});

/** A valid payload per hook, and one with a field of the wrong type. */
const HOOKS: { name: HookName; valid: () => Payload; wrongType: (p: Payload) => Payload }[] = [
  { name: 'on-prompt-submit', valid: () => userPromptSubmit('hello', loop.common()), wrongType: (p) => ({ ...p, prompt: 42 }) },
  { name: 'on-task-gate', valid: () => agentDispatch(agentType('pedant'), loop.common()), wrongType: (p) => ({ ...p, tool_input: 'minions:pedant' }) },
  { name: 'on-edit-gate', valid: () => writeTool(dir.abs('src/a.ts'), loop.common()), wrongType: (p) => ({ ...p, tool_name: ['Write'] }) },
  { name: 'on-bash-gate', valid: () => bashTool('git commit -m x', { ...loop.common(), agentType: agentType('critic') }), wrongType: (p) => ({ ...p, tool_input: 7 }) },
  { name: 'on-subagent-stop', valid: () => subagentStop(agentType('critic'), loop.common()), wrongType: (p) => ({ ...p, last_assistant_message: { text: 'x' }, stop_hook_active: 'yes' }) },
  { name: 'on-stop', valid: () => stop(loop.common()), wrongType: (p) => ({ ...p, background_tasks: 'none' }) },
];

const without = (p: Payload, key: string): Payload => Object.fromEntries(Object.entries(p).filter(([k]) => k !== key));
const NINE_MB = 9 * 1024 * 1024;

const MALFORMED: [string, (h: (typeof HOOKS)[number]) => Payload | string, RegExp][] = [
  ['not JSON', () => '{"session_id": "x", ', /ignored a \w+ payload that is not JSON \(\d+ bytes\)/],
  ['empty stdin', () => '', /ignored a \w+ payload that is not JSON \(0 bytes\)/],
  ['a JSON array', () => '[1, 2, 3]', /ignored a malformed \w+ payload: /],
  ['JSON null', () => 'null', /ignored a malformed \w+ payload: /],
  ['a field of the wrong type', (h) => h.wrongType(h.valid()), /ignored a malformed \w+ payload: /],
  ['no session_id', (h) => without(h.valid(), 'session_id'), /ignored a malformed \w+ payload: session_id: /],
  ['an empty session_id', (h) => ({ ...h.valid(), session_id: '' }), /ignored a malformed \w+ payload: session_id: /],
  ['a 9 MB string', (h) => ({ ...h.valid(), last_assistant_message: 'x'.repeat(NINE_MB), prompt: (h.valid().prompt as string | undefined) ?? 'x'.repeat(NINE_MB) }), /payload is larger than 8388608 bytes/],
];

/** The four the seed names run against every hook; the other shapes against two of them. */
const EVERY_HOOK = new Set(['not JSON', 'a field of the wrong type', 'no session_id', 'a 9 MB string']);

describe.concurrent('malformed payloads', () => {
  const cases = HOOKS.flatMap((h, i) =>
    MALFORMED.filter(([label]) => EVERY_HOOK.has(label) || i % 3 === 0).map(([label, make, expected]) => [h.name, label, h, make, expected] as const),
  );

  it.each(cases)('%s, %s: exit 0, no stdout, one stderr line, nothing changed', async (name, label, h, make, expected) => {
    let payload = make(h);
    // The prompt hook gets the 9 MB in its prompt (what a pasted log would do).
    if (label === 'a 9 MB string' && name === 'on-prompt-submit') payload = { ...(payload as Payload), prompt: `/minions:status ${'x'.repeat(NINE_MB)}` };
    const before = loop.snapshot();
    const r = await loop.hook(name, payload, { projectDir: dir.root });
    expect(r.code).toBe(0);
    expect(r.signal).toBeNull();
    expect(r.raw).toBe('');
    const lines = r.stderr.split('\n').filter((l) => l !== '');
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^minions ${name}: `));
    expect(lines[0]).toMatch(expected);
    expect(lines[0]).toMatch(/\(set MINIONS_DEBUG=1 for details\)$/);
    expect(r.stderr).not.toMatch(/^\s{4}at /m);
    expect(loop.snapshot()).toEqual(before);
  });

  it('unknown extra fields are ignored (the host adds fields over time)', async () => {
    const own = new Loop(cloneTestdir(dir));
    const r = await own.hook('on-stop', { ...stop(own.common()), brand_new_field: { nested: [1, 2] }, session_crons: [{ id: 'c1' }] });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout?.hookSpecificOutput?.additionalContext).toContain('[PHASE R1]');
  });
});
