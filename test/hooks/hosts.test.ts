/**
 * The other hosts at the hook runner's boundary: GitHub Copilot CLI and Codex CLI, fed the payloads they
 * really send (test/fixtures/hosts/, captured from the real CLIs) through the built hooks, as those
 * hosts run them. Every answer must be one the host accepts (test/helpers/hosts.ts's ACCEPTED), every
 * gate must hold, and a loop is owned by the host that started it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Loop, projectTestdir } from '../helpers/loop';
import { OTHER_SESSION, SESSION, stop, userPromptSubmit, type Payload } from '../helpers/payloads';
import { FIXER, REVIEWERS, agentType, cleanReview, reviewWithIssues, reviewerFile, fixSummaryFile, type Reviewer } from '../helpers/reviews';
import { continuation, fixtures, hookFor, hostEnv, OTHER_HOSTS, place, rejected, type OtherHost } from '../helpers/hosts';
import { recordDirOf, rewriteState } from '../helpers/state';
import { readRecord, writeRecord } from '../../src/shell/record';
import { removeTestdirs } from '../helpers/testdir';
import type { HookName, HookResult } from '../helpers/run';

afterAll(removeTestdirs);

/** A loop driven with one host's payload shapes and environment; each answer is checked against what that host accepts. */
class HostLoop {
  readonly loop: Loop;
  readonly f: Record<string, Payload>;
  constructor(
    readonly host: OtherHost,
    session = SESSION,
  ) {
    const dir = projectTestdir();
    this.loop = new Loop(dir, session, { env: hostEnv(host, dir.root) });
    this.f = fixtures(host);
  }

  get root(): string {
    return this.loop.root;
  }

  async run(name: HookName, payload: Payload): Promise<HookResult> {
    const result = await this.loop.hook(name, payload);
    expect(result.code).toBe(0);
    expect(result.stderr, `${name} wrote to stderr`).toBe('');
    expect(rejected(this.host, String(payload.hook_event_name), result.stdout)).toBeNull();
    return result;
  }

  at(agentType?: string): { session: string; cwd: string; agentType?: string } {
    return { session: this.loop.session, cwd: this.root, ...(agentType ? { agentType } : {}) };
  }

  prompt(text: string): Promise<HookResult> {
    return this.run('on-prompt-submit', place(this.host, this.f['user-prompt-submit']!, this.at(), { prompt: text }));
  }

  dispatch(type: string): Promise<HookResult> {
    const captured = this.f[this.host === 'copilot' ? 'pre-tool-use-agent' : 'pre-tool-use-collaborationspawn-agent']!;
    return this.run('on-task-gate', place(this.host, captured, this.at(), { tool_input: { ...(captured.tool_input as Payload), agent_type: type, message: `Write your JSON findings to ${type}` } }));
  }

  /** A subagent's file write, as the host's edit tool sends it: Copilot's create (Write, `path`), Codex's apply_patch. */
  write(agent: string, file: string): Promise<HookResult> {
    const abs = file.startsWith('/') ? file : `${this.root}/${file}`;
    if (this.host === 'copilot') return this.run('on-edit-gate', place(this.host, this.f['pre-tool-use-write-in-subagent']!, this.at(agent), { tool_input: { path: abs, file_text: '{}\n' } }));
    const patch = `*** Begin Patch\n*** Update File: ${abs}\n@@\n-a\n+b\n*** End Patch\n`;
    return this.run('on-edit-gate', place(this.host, this.f['pre-tool-use-apply-patch-in-subagent']!, this.at(agent), { tool_input: { command: patch } }));
  }

  /** The main thread's write (the orchestrator's): Copilot's create, Codex's apply_patch, with no agent_id. */
  mainWrite(file: string): Promise<HookResult> {
    const abs = `${this.root}/${file}`;
    if (this.host === 'copilot') return this.run('on-edit-gate', place(this.host, this.f['pre-tool-use-write']!, this.at(), { tool_input: { path: abs, file_text: 'x\n' } }));
    return this.run('on-edit-gate', place(this.host, this.f['pre-tool-use-apply-patch']!, this.at(), { tool_input: { command: `*** Begin Patch\n*** Add File: ${abs}\n+x\n*** End Patch\n` } }));
  }

  shell(agent: string, command: string): Promise<HookResult> {
    return this.run('on-bash-gate', place(this.host, this.f['pre-tool-use-bash-in-subagent']!, this.at(agent), { tool_input: { command } }));
  }

  subagentStop(agent: string, message = 'Done.'): Promise<HookResult> {
    return this.run('on-subagent-stop', place(this.host, this.f['subagent-stop']!, this.at(agent), { last_assistant_message: message }));
  }

  stop(): Promise<HookResult> {
    return this.run('on-stop', place(this.host, this.f.stop!, this.at()));
  }
}

const denied = (r: HookResult): boolean => r.stdout?.hookSpecificOutput?.permissionDecision === 'deny';
const reason = (r: HookResult): string => String(r.stdout?.hookSpecificOutput?.permissionDecisionReason ?? '');

describe.concurrent.each(OTHER_HOSTS)('%s', (host) => {
  it('every recorded payload goes through the hook that runs it, and each answer is in the form the host accepts', async () => {
    const h = new HostLoop(host);
    await h.prompt('/minions:review --max-iterations 2 review the change');
    for (const [name, captured] of Object.entries(h.f)) {
      const hook = hookFor(captured);
      if (!hook) continue;
      const agent = typeof captured.agent_id === 'string' ? agentType('critic') : undefined;
      const result = await h.run(hook, place(host, captured, h.at(agent)));
      expect(result.stderr, name).toBe('');
    }
    expect(h.loop.state()).toMatchObject({ host, currentPhase: 'R1' });
  });

  it('runs a whole loop: R1 → R2 → R1 → DONE, every gate holding, in the host\'s own shapes', async () => {
    const h = new HostLoop(host);
    const started = await h.prompt('/minions:review --max-iterations 2 review the change');
    expect(continuation(host, started.stdout)).toMatch(/^\[PHASE R1\] minions review — Iteration 1\/2$/m);
    expect(h.loop.state()).toMatchObject({ host, currentPhase: 'R1', sessionId: SESSION });

    // The dispatch gate: no fixer in R1, then the five reviewers.
    const early = await h.dispatch(FIXER);
    expect(denied(early)).toBe(true);
    for (const r of REVIEWERS) expect(denied(await h.dispatch(agentType(r)))).toBe(false);

    // The edit gate and the Bash gate on a reviewer: its own file only, no shell write to the project.
    expect(denied(await h.write(agentType('critic'), reviewerFile(1, 'critic')))).toBe(false);
    const projectWrite = await h.write(agentType('critic'), 'src/a.ts');
    expect(denied(projectWrite)).toBe(true);
    expect(reason(projectWrite)).toMatch(/critic/);
    expect(denied(await h.shell(agentType('pedant'), `echo x > ${h.root}/src/a.ts`))).toBe(true);
    // Nor may the orchestrator edit during the loop.
    expect(denied(await h.mainWrite('src/b.ts'))).toBe(true);

    const reviews = (iteration: number, issues: Reviewer[]): Promise<HookResult[]> => {
      for (const r of REVIEWERS) h.loop.writeReview(iteration, r, issues.includes(r) ? reviewWithIssues(r) : cleanReview(r));
      return Promise.all(REVIEWERS.map((r) => h.subagentStop(agentType(r))));
    };
    await reviews(1, ['critic']);
    expect(h.loop.state()).toMatchObject({ currentPhase: 'R2', iteration: 1 });

    const r2 = await h.stop();
    expect(continuation(host, r2.stdout)).toMatch(/^\[PHASE R2\] minions review — Iteration 1\/2$/m);
    expect(denied(await h.dispatch(agentType('critic')))).toBe(true);
    expect(denied(await h.dispatch(FIXER))).toBe(false);
    // The fixer edits the project; no reviewer may.
    expect(denied(await h.write(FIXER, 'src/a.ts'))).toBe(false);
    h.loop.writeFixSummary(1);
    await h.subagentStop(FIXER);
    expect(h.loop.state()).toMatchObject({ currentPhase: 'R1', iteration: 2 });

    const r1 = await h.stop();
    expect(continuation(host, r1.stdout)).toMatch(/^\[PHASE R1\] minions review — Iteration 2\/2$/m);
    for (const r of REVIEWERS) expect(denied(await h.dispatch(agentType(r)))).toBe(false);
    await reviews(2, []);
    const done = await h.stop();
    expect(continuation(host, done.stdout)).toBeUndefined();
    expect(String(done.stdout?.systemMessage)).toMatch(/^minions: DONE — review 2\/2 found no issues after 1 fix round/);
    expect(h.loop.hasState()).toBe(false);
  });

  it('a loop that never comes clean ends STOPPED when its budget is spent', async () => {
    const h = new HostLoop(host);
    await h.prompt('/minions:review --max-iterations 1 review the change');
    for (const r of REVIEWERS) await h.dispatch(agentType(r));
    for (const r of REVIEWERS) h.loop.writeReview(1, r, r === 'witness' ? reviewWithIssues(r) : cleanReview(r));
    await Promise.all(REVIEWERS.map((r) => h.subagentStop(agentType(r))));
    const end = await h.stop();
    expect(continuation(host, end.stdout)).toBeUndefined();
    expect(String(end.stdout?.systemMessage)).toMatch(/^minions: STOPPED — the iteration budget is spent/);
  });

  it('a patch or an edit with no readable file is judged as a write to the project', async () => {
    const h = new HostLoop(host);
    await h.prompt('/minions:review review the change');
    const captured = host === 'codex' ? h.f['pre-tool-use-apply-patch-in-subagent']! : h.f['pre-tool-use-write-in-subagent']!;
    const payload =
      host === 'codex'
        ? place(host, captured, h.at(agentType('critic')), { tool_input: { command: 'not a patch' } })
        : place(host, captured, h.at(agentType('critic')), { tool_name: 'apply_patch', tool_input: { input: '*** Begin Patch\n*** End Patch\n' } });
    const result = await h.run('on-edit-gate', payload);
    expect(denied(result)).toBe(true);
  });
});

describe.concurrent('Copilot CLI: a subagent fires its own UserPromptSubmit and Stop', () => {
  it('neither is taken for the main session\'s: no answer, no change to the loop', async () => {
    const h = new HostLoop('copilot');
    await h.prompt('/minions:review review the change');
    await h.dispatch(agentType('critic'));
    const before = h.loop.stateBytes();
    const prompt = await h.run('on-prompt-submit', place('copilot', h.f['user-prompt-submit-in-subagent']!, h.at(agentType('critic')), { prompt: '/minions:review --force hijack' }));
    const own = await h.run('on-stop', place('copilot', h.f['stop-in-subagent']!, h.at(agentType('critic'))));
    expect([prompt.stdout, own.stdout]).toEqual([null, null]);
    expect(h.loop.stateBytes()).toBe(before);
  });

  it("a child's tool call is gated as the main session's (Copilot gives the child's id as its session_id)", async () => {
    const h = new HostLoop('copilot');
    await h.prompt('/minions:review review the change');
    const payload = place('copilot', h.f['pre-tool-use-edit-in-subagent']!, h.at(agentType('pedant')), { tool_input: { path: `${h.root}/src/a.ts`, old_str: 'a', new_str: 'b' } });
    expect(payload.session_id).not.toBe(SESSION);
    expect(denied(await h.run('on-edit-gate', payload))).toBe(true);
  });
});

describe.concurrent('a loop belongs to the host that started it', () => {
  it("another host's hooks neither advance nor gate it, and its user is told why", async () => {
    const h = new HostLoop('codex');
    await h.prompt('/minions:review review the change');
    await h.dispatch(agentType('critic'));
    const before = h.loop.stateBytes();
    // Claude Code in the same project, even under the same session id.
    const claude = new Loop(h.loop.dir, SESSION);
    const stopped = await claude.hook('on-stop', stop({ ...claude.common() }));
    expect(stopped.stdout).toBeNull();
    const plain = await claude.prompt('what is this project?');
    expect(plain.stdout?.systemMessage).toMatch(/^minions: the review loop in this project was started under Codex CLI \(R1, .*the hooks of this Claude Code session neither advance nor gate it/);
    const again = await claude.start('review it here');
    expect(again.stdout).toMatchObject({ decision: 'block', reason: expect.stringMatching(/started under Codex CLI.*--force/) });
    expect(h.loop.stateBytes()).toBe(before);
    // Copilot, another session: the same.
    const copilot = new Loop(h.loop.dir, OTHER_SESSION, { env: hostEnv('copilot', h.root) });
    const told = await copilot.hook('on-prompt-submit', userPromptSubmit('hello', copilot.common()));
    expect(told.stdout?.systemMessage).toMatch(/started under Codex CLI.*this GitHub Copilot CLI session/);
    expect(h.loop.stateBytes()).toBe(before);

    // A forced start takes the loop over, archiving the old one.
    const taken = await claude.start('--force review it here');
    expect(taken.stdout?.hookSpecificOutput?.additionalContext).toMatch(/^\[PHASE R1\]/m);
    expect(claude.state()).toMatchObject({ host: 'claude-code', task: 'review it here' });
  });

  it('a state saved before hosts were recorded is read as a Claude Code loop', async () => {
    const loop = new Loop(projectTestdir(), SESSION);
    await loop.start('review the change');
    // Saved by hooks of an older shape (before hosts were recorded): the schema reads it, with its default.
    rewriteState(loop.root, (state) => {
      const { host: _host, ...rest } = state;
      return rest as typeof state;
    });
    const record = readRecord(recordDirOf(loop.root))!;
    writeRecord(recordDirOf(loop.root), { ...record, shape: 'an-older-shape' });
    expect(loop.state().host).toBeUndefined();
    expect((await loop.dispatch(agentType('critic'))).stdout?.hookSpecificOutput?.permissionDecision).not.toBe('deny');
    const codex = new Loop(loop.dir, OTHER_SESSION, { env: hostEnv('codex', loop.root) });
    const told = await codex.hook('on-prompt-submit', { ...userPromptSubmit('hello', codex.common()), turn_id: 'turn-1' });
    expect(told.stdout?.systemMessage).toMatch(/started under Claude Code/);
    expect(loop.state()).toMatchObject({ host: 'claude-code' });
  });
});
