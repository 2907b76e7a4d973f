/**
 * Drives a review loop through the hook processes, one session at a time: what the host would run
 * when the user types a prompt, the orchestrator dispatches agents, the agents write and stop.
 */
import fs from 'node:fs';
import path from 'node:path';
import { agentDispatch, bashTool, stop, subagentStop, userPromptSubmit, writeTool, SESSION, type BackgroundTask, type Common, type Payload } from './payloads';
import { CHANGED, COMMITTED, FIXER, REVIEWERS, STATE, agentType, fixAnswersFile, findingsFile, fixSummaryFile, reviewText, reviewerFile, type ReviewOutput, type Reviewer } from './reviews';
import { expect } from 'vitest';
import { objectHolds, readRecord, recordDir } from '../../src/shell/record';
import { State } from '../../src/state/schema';
import { runHook, type HookName, type HookResult, type RunHookOptions } from './run';
import { testdir, type TestDir } from './testdir';

/** A temp git repo with the fixture project committed and changed (see reviews.ts). */
export const projectTestdir = (): TestDir => testdir(COMMITTED, { uncommitted: CHANGED });

export type FixAnswer = { fingerprint: string; status: 'fixed' | 'declined' | 'could_not_fix' | 'escalate'; kind?: 'patch' | 'structural'; reason?: string };
export type ClassPattern = { class: string; pattern: string; sites: string[] };

export class Loop {
  constructor(
    readonly dir: TestDir,
    readonly session: string = SESSION,
    readonly options: RunHookOptions = {},
  ) {}

  get root(): string {
    return this.dir.root;
  }

  common(extra: Partial<Common> = {}): Common {
    return { cwd: this.dir.root, session_id: this.session, ...extra };
  }

  async hook(name: HookName, payload: Payload | string, options: RunHookOptions = {}): Promise<HookResult> {
    const result = await runHook(name, payload, { projectDir: this.dir.root, ...this.options, ...options });
    expectOwnStateSchemaFixed(this.dir.root);
    return result;
  }

  prompt(text: string): Promise<HookResult> {
    return this.hook('on-prompt-submit', userPromptSubmit(text, this.common()));
  }

  start(args = 'review the change to src/a.ts'): Promise<HookResult> {
    return this.prompt(`/minions:review ${args}`.trimEnd());
  }

  dispatch(subagentType: string, extra: { toolName?: 'Agent' | 'Task'; runInBackground?: boolean; model?: string } = {}): Promise<HookResult> {
    return this.hook('on-task-gate', agentDispatch(subagentType, { ...this.common(), ...extra }));
  }

  /** The five reviewer dispatches of one assistant message: the host runs their PreToolUse hooks concurrently. */
  dispatchReviewers(reviewers: readonly Reviewer[] = REVIEWERS): Promise<HookResult[]> {
    return Promise.all(reviewers.map((r) => this.dispatch(agentType(r))));
  }

  /** The edit gate for `agent` writing `file` (absolute, or relative to the hook's cwd). */
  gateWrite(file: string, agent: string | null, extra: Partial<Common> = {}): Promise<HookResult> {
    return this.hook('on-edit-gate', writeTool(file, { ...this.common(extra), ...(agent ? { agentType: agent } : {}) }));
  }

  gateBash(command: string, agent: string | null): Promise<HookResult> {
    return this.hook('on-bash-gate', bashTool(command, { ...this.common(), ...(agent ? { agentType: agent } : {}) }));
  }

  /** A reviewer writes its output (as its Write tool would: the file, whole). */
  writeReview(iteration: number, reviewer: Reviewer, review: ReviewOutput | string): void {
    this.dir.write(reviewerFile(iteration, reviewer), typeof review === 'string' ? review : reviewText(review));
  }

  reviewerStop(reviewer: Reviewer, extra: { message?: string | null; stopHookActive?: boolean; agentId?: string; backgroundTasks?: BackgroundTask[]; transcriptPath?: string } = {}): Promise<HookResult> {
    return this.hook(
      'on-subagent-stop',
      subagentStop(agentType(reviewer), {
        ...this.common(),
        lastAssistantMessage: extra.message,
        stopHookActive: extra.stopHookActive,
        agentId: extra.agentId,
        backgroundTasks: extra.backgroundTasks,
        transcriptPath: extra.transcriptPath,
      }),
    );
  }

  /** Every reviewer's SubagentStop at once (the host runs parallel subagents' hooks concurrently). */
  reviewersStop(reviewers: readonly Reviewer[] = REVIEWERS, transcriptPath?: (r: Reviewer) => string): Promise<HookResult[]> {
    return Promise.all(reviewers.map((r) => this.reviewerStop(r, transcriptPath ? { transcriptPath: transcriptPath(r) } : {})));
  }

  /** Dispatches the five, writes their reviews, stops them all at once. */
  async reviewRound(
    iteration: number,
    reviews: Partial<Record<Reviewer, ReviewOutput | string>>,
    transcriptPath?: (r: Reviewer) => string,
  ): Promise<{ dispatches: HookResult[]; stops: HookResult[] }> {
    const dispatches = await this.dispatchReviewers();
    for (const r of REVIEWERS) {
      const review = reviews[r];
      if (review !== undefined) this.writeReview(iteration, r, review);
    }
    const stops = await this.reviewersStop(REVIEWERS, transcriptPath);
    return { dispatches, stops };
  }

  /** The fingerprints the hooks sent to the fixer (r2-findings.json of this iteration). */
  openFingerprints(iteration: number): string[] {
    const file = findingsFile(iteration);
    if (!this.dir.exists(file)) return [];
    return (this.dir.readJson(file).findings as { fingerprint: string }[]).map((f) => f.fingerprint);
  }

  /** The finding classes the hooks gave the fixer (r2-findings.json "classes"). */
  briefClasses(iteration: number): { class: string; fingerprints: string[]; sites: string[]; instruction: string; attempts: unknown[] }[] {
    const file = findingsFile(iteration);
    return this.dir.exists(file) ? (this.dir.readJson(file).classes ?? []) : [];
  }

  /**
   * The fixer's two outputs: r2-fix-summary.md and r2-fix-summary.json answering every open
   * fingerprint (all "fixed", kind "patch", unless `answers` says otherwise) and reporting a pattern for
   * every audit-first class (unless `patterns` says otherwise). Each round's text differs, so the
   * no-progress rule (two near-identical summaries) is not triggered by accident.
   */
  writeFixSummary(iteration: number, options: { text?: string; answers?: FixAnswer[]; patterns?: ClassPattern[] } = {}): FixAnswer[] {
    const answers: FixAnswer[] = options.answers ?? this.openFingerprints(iteration).map((fingerprint) => ({ fingerprint, status: 'fixed', kind: 'patch' }));
    const patterns =
      options.patterns ??
      this.briefClasses(iteration)
        .filter((c) => c.instruction === 'audit_first')
        .map((c) => ({ class: c.class, pattern: `round ${iteration}: the same mistake at ${c.sites.join(', ')}`, sites: c.sites }));
    const text =
      options.text ??
      [
        `Fix round ${iteration} of the cart review.`,
        ...answers.map((a, i) => `- [${a.status === 'could_not_fix' ? 'could not fix' : a.status}] finding ${i + 1} of round ${iteration} (${a.fingerprint})${a.reason ? `: ${a.reason}` : ''}`),
        `Tests: ran npm test after round ${iteration}, ${answers.length * 7 + iteration} passed.`,
        '',
      ].join('\n');
    this.dir.write(fixSummaryFile(iteration), text);
    this.dir.write(fixAnswersFile(iteration), `${JSON.stringify({ fixes: answers, patterns }, null, 2)}\n`);
    return answers;
  }

  fixerStop(extra: { message?: string; stopHookActive?: boolean; transcriptPath?: string } = {}): Promise<HookResult> {
    return this.hook(
      'on-subagent-stop',
      subagentStop(FIXER, { ...this.common(), lastAssistantMessage: extra.message, stopHookActive: extra.stopHookActive, transcriptPath: extra.transcriptPath }),
    );
  }

  stop(extra: { backgroundTasks?: BackgroundTask[]; stopHookActive?: boolean } = {}): Promise<HookResult> {
    return this.hook('on-stop', stop({ ...this.common(), backgroundTasks: extra.backgroundTasks, stopHookActive: extra.stopHookActive }));
  }

  state(): any {
    return this.dir.readJson(STATE);
  }

  hasState(): boolean {
    return this.dir.exists(STATE);
  }

  /** Raw bytes of the state file (or null), to prove a hook changed nothing. */
  stateBytes(): string | null {
    const file = path.join(this.dir.root, STATE);
    return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null;
  }

  /** Every file under .agents/ with its content, to prove a hook changed nothing at all. */
  snapshot(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const rel of this.dir.list('.agents')) {
      if (rel.startsWith('tmp/state.lock')) continue;
      out[rel] = fs.readFileSync(path.join(this.dir.root, '.agents', rel), 'utf8');
    }
    return out;
  }
}

/**
 * The hooks read their own copy of the state without the schema (shell/store.ts, ownState): that holds
 * only while every state they save is one the schema leaves as it is. Checked after every hook a Loop
 * runs, so every flow of the hook tests checks it.
 */
export function expectOwnStateSchemaFixed(root: string): void {
  const dir = recordDir(root, {});
  const file = path.join(root, STATE);
  // Only a regular file: a test may leave a FIFO there, which a read would wait on forever.
  if (!dir || !fs.lstatSync(file, { throwIfNoEntry: false })?.isFile()) return;
  const text = fs.readFileSync(file, 'utf8');
  const digest = readRecord(dir)?.files[STATE];
  if (!digest || !objectHolds(dir, digest, text)) return;
  const data = JSON.parse(text);
  const parsed = State.safeParse(data);
  expect(parsed.success, 'a state the hooks saved fails their schema').toBe(true);
  expect(parsed.data, 'the schema changes a state the hooks saved').toStrictEqual(data);
}

/** The systemMessage lines of several hook results, in order. */
export const messages = (results: readonly HookResult[]): string[] =>
  results.flatMap((r) => (typeof r.stdout?.systemMessage === 'string' ? r.stdout.systemMessage.split('\n') : []));

export const additionalContext = (r: HookResult): string | undefined => r.stdout?.hookSpecificOutput?.additionalContext;
/** The reason of a SubagentStop `decision: "block"` (the agent carries on with it). */
export const blockReason = (r: HookResult): string | undefined => (r.stdout?.decision === 'block' ? r.stdout.reason : undefined);
export const denyReason = (r: HookResult): string | undefined =>
  r.stdout?.hookSpecificOutput?.permissionDecision === 'deny' ? r.stdout.hookSpecificOutput.permissionDecisionReason : undefined;
