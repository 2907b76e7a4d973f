/**
 * The idle path: with no .agents/tmp/state.json the gate, stop and subagent-stop commands of
 * hooks.json exit 0 in the shell, with no output, without starting node; so does the prompt hook for a
 * prompt that is not a /minions: command. Proven with a PATH whose `node` is a stub that records each
 * call, and with a PATH that has no node at all.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Loop, projectTestdir } from '../helpers/loop';
import { agentDispatch, bashTool, editTool, multiEditTool, notebookEditTool, stop, subagentStop, userPromptSubmit, writeTool, type Payload } from '../helpers/payloads';
import { FIXER, STATE, agentType } from '../helpers/reviews';
import { hookEntries, pluginDataDir, type HookName } from '../helpers/run';
import { removeTestdirs, tempDir, type TestDir } from '../helpers/testdir';

afterAll(removeTestdirs);

let dir: TestDir;
let loop: Loop;
let stubBin: string;
let bareBin: string;
let calls: string;

beforeAll(() => {
  loop = new Loop(projectTestdir());
  dir = loop.dir;
  const bins = tempDir('minions-bin-');
  calls = path.join(bins, 'node-calls.log');
  // A `node` that only records that it was started (and drains stdin, as a hook would).
  stubBin = path.join(bins, 'stub');
  fs.mkdirSync(stubBin);
  fs.writeFileSync(path.join(stubBin, 'node'), `#!/bin/sh\necho "node $*" >> "${calls}"\ncat > /dev/null\nexit 0\n`, { mode: 0o755 });
  // A PATH with the few tools the commands use (cat for the prompt hook) and no node at all.
  bareBin = path.join(bins, 'bare');
  fs.mkdirSync(bareBin);
  fs.symlinkSync(fs.realpathSync('/bin/cat'), path.join(bareBin, 'cat'));
});

const nodeCalls = (): string[] => (fs.existsSync(calls) ? fs.readFileSync(calls, 'utf8').trim().split('\n').filter(Boolean) : []);

function idlePayloads(): [HookName, Payload][] {
  const c = loop.common();
  const critic = { ...c, agentType: agentType('critic') };
  return [
    ['on-prompt-submit', userPromptSubmit('fix the failing test please', c)],
    ['on-prompt-submit', userPromptSubmit('<task-notification><status>completed</status></task-notification>', c)],
    ['on-task-gate', agentDispatch(agentType('critic'), c)],
    ['on-task-gate', agentDispatch(FIXER, { ...c, toolName: 'Task' })],
    ['on-edit-gate', writeTool(dir.abs('src/a.ts'), c)],
    ['on-edit-gate', editTool(dir.abs('src/a.ts'), critic)],
    ['on-edit-gate', multiEditTool(dir.abs('src/a.ts'), critic)],
    ['on-edit-gate', notebookEditTool(dir.abs('n.ipynb'), c)],
    ['on-bash-gate', bashTool('git commit -am x', critic)],
    ['on-subagent-stop', subagentStop(agentType('critic'), c)],
    ['on-subagent-stop', subagentStop('other-plugin:helper', c)],
    ['on-stop', stop(c)],
  ];
}

describe('the idle path', () => {
  it('every hooks.json command but the prompt hook tests for the state file and the live-loop marker before starting node', () => {
    for (const entry of hookEntries()) {
      if (entry.event === 'UserPromptSubmit') continue;
      // -e, not -f: a state path that is not a regular file must reach node to be reported (FINDINGS.md #2).
      // The marker (plugin data) is there while a loop runs, so a deleted state.json still reaches node.
      expect(entry.command).toMatch(
        /^\[ -e "\$\{CLAUDE_PROJECT_DIR:-\.\}\/\.agents\/tmp\/state\.json" \] \|\| \[ -e "\$\{CLAUDE_PLUGIN_DATA:-\/nonexistent\}\/live\$\{CLAUDE_PROJECT_DIR:-\/nonexistent\}\/loop" \] \|\| exit 0; MINIONS_NODE_EXTRA_CA_CERTS="\$\{NODE_EXTRA_CA_CERTS-\}" NODE_EXTRA_CA_CERTS= exec node /,
      );
    }
  });

  it('with no state file, no hook starts node (a stub node records every start)', async () => {
    expect(dir.exists(STATE)).toBe(false);
    const results = await Promise.all(idlePayloads().map(([name, p]) => loop.hook(name, p, { env: { PATH: `${stubBin}:/usr/bin:/bin` } })));
    for (const r of results) expect(r).toMatchObject({ code: 0, raw: '', stderr: '' });
    expect(nodeCalls()).toEqual([]);
  });

  it('with no node on PATH at all, the idle hooks still exit 0 (not 127)', async () => {
    const results = await Promise.all(idlePayloads().map(([name, p]) => loop.hook(name, p, { env: { PATH: bareBin } })));
    for (const r of results) expect(r).toMatchObject({ code: 0, raw: '', stderr: '' });
  });

  it('the stub is really used: a /minions: prompt and a present state file start node', async () => {
    const c = loop.common();
    await loop.hook('on-prompt-submit', userPromptSubmit('/minions:review x', c), { env: { PATH: `${stubBin}:/usr/bin:/bin` } });
    expect(nodeCalls()).toHaveLength(1);
    expect(nodeCalls()[0]).toMatch(/\/dist\/launch\.cjs on-prompt-submit$/);

    dir.write(STATE, '{}');
    try {
      const results = await Promise.all(idlePayloads().map(([name, p]) => loop.hook(name, p, { env: { PATH: `${stubBin}:/usr/bin:/bin` } })));
      for (const r of results) expect(r.code).toBe(0);
      expect(nodeCalls()).toHaveLength(1 + idlePayloads().length);
      // Without node, the same commands now fail to start it: exit 127, which the host would report.
      const bare = await loop.hook('on-stop', stop(c), { env: { PATH: bareBin } });
      expect(bare.code).toBe(127);
    } finally {
      fs.rmSync(dir.abs(STATE));
    }
  });

  it("a live loop's marker in the plugin data folder starts node although state.json is gone", async () => {
    const marker = path.join(pluginDataDir(), `live${dir.root}`, 'loop');
    fs.mkdirSync(path.dirname(marker), { recursive: true });
    fs.writeFileSync(marker, `${dir.root}\n`);
    const before = nodeCalls().length;
    try {
      const results = await Promise.all(idlePayloads().map(([name, p]) => loop.hook(name, p, { env: { PATH: `${stubBin}:/usr/bin:/bin` } })));
      for (const r of results) expect(r.code).toBe(0);
      // Every hook but the prompt hook for a prompt that is not a /minions: command, and the task notification.
      expect(nodeCalls().length - before).toBe(idlePayloads().length);
    } finally {
      fs.rmSync(marker);
    }
  });

  it('a large payload on the idle path is not read and does not break the pipe for the host', async () => {
    const big = { ...stop(loop.common()), last_assistant_message: 'x'.repeat(512 * 1024) };
    const r = await loop.hook('on-stop', big, { env: { PATH: `${stubBin}:/usr/bin:/bin` } });
    expect(r).toMatchObject({ code: 0, raw: '', stderr: '' });
  });
});
