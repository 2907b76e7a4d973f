/**
 * Random interleavings of hook events (prompt, dispatch, reviewer stops with valid, invalid or missing
 * output, fixer rounds, Stop) and outside writes to the hooks' files (garbled, deleted, forged DONE,
 * reviews and verdicts rewritten). Whatever the order:
 *   - the loop never reports DONE for a round in which a review the hooks recorded had a finding;
 *   - the state always loads: what the hooks wrote, or "tampered" with the last state they wrote, or
 *     nothing once it is archived; after the owner's Stop it is never left tampered;
 *   - while the owner's loop runs, a garbled or deleted state.json does not switch its gates off.
 * Many runs in-process (the core and the real store, lock and record in a temp repo, driven as the hook
 * entrypoints drive them), a few through the built hooks.
 */
import fs from 'node:fs';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { FIXER_TYPE, REVIEWERS, type Reviewer } from '../../src/protocol/agents';
import { parseCommand } from '../../src/core/args';
import { editGate } from '../../src/core/gates';
import { isActive, stateOf } from '../../src/core/loop-state';
import type { Effect, Event, Loaded } from '../../src/core/events';
import { fixerObservations } from '../../src/shell/observe';
import { reviewerStopObservation } from '../../src/shell/observe-round';
import { transact } from '../../src/shell/transact';
import { load } from '../../src/shell/store';
import { stateProblems } from '../../src/state/invariants';
import { Loop, messages, projectTestdir } from '../helpers/loop';
import { SESSION } from '../helpers/payloads';
import { STATE, agentType, cleanReview, issue, reviewText, reviewWithIssues, reviewerFile, verdictFile } from '../helpers/reviews';
import { hookEnv } from '../helpers/run';
import { cloneTestdir, removeTestdirs, type TestDir } from '../helpers/testdir';
import { paced } from '../helpers/pace';

afterAll(removeTestdirs);

type Content = 'clean' | 'issue' | 'invalid' | 'none';
type Outside = 'garble' | 'delete' | 'forge-done' | 'rewrite-review' | 'delete-verdict' | 'forge-verdict';
type Action =
  | { kind: 'dispatch-reviewers' }
  | { kind: 'review'; reviewer: Reviewer; content: Content }
  | { kind: 'fix' }
  | { kind: 'stop' }
  | { kind: 'prompt' }
  | { kind: 'outside'; what: Outside; reviewer: Reviewer };

const reviewerArb = fc.constantFrom(...REVIEWERS);
const contentArb = fc.constantFrom<Content>('clean', 'clean', 'clean', 'clean', 'clean', 'issue', 'issue', 'invalid', 'none');
const outsideArb: fc.Arbitrary<Action> = fc.record({
  kind: fc.constant('outside' as const),
  what: fc.constantFrom<Outside>('garble', 'delete', 'forge-done', 'rewrite-review', 'delete-verdict', 'forge-verdict'),
  reviewer: reviewerArb,
});
const noiseArb: fc.Arbitrary<Action> = fc.oneof(
  { weight: 4, arbitrary: outsideArb },
  { weight: 2, arbitrary: fc.constant<Action>({ kind: 'stop' }) },
  { weight: 1, arbitrary: fc.constant<Action>({ kind: 'prompt' }) },
  { weight: 1, arbitrary: fc.constant<Action>({ kind: 'dispatch-reviewers' }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('review' as const), reviewer: reviewerArb, content: contentArb }) },
  { weight: 1, arbitrary: fc.constant<Action>({ kind: 'fix' }) },
);

/**
 * A loop's rounds as the orchestrator runs them (five reviews in some order, output sometimes invalid
 * and then given again, then a fix round), with noise spliced in anywhere: outside writes, stops,
 * prompts, repeated dispatches and stops. A purely random sequence would almost never reach a verdict.
 */
const scenarioArb = (maxRounds: number, maxNoise: number): fc.Arbitrary<Action[]> =>
  fc
    .record({
      rounds: fc.array(fc.record({ order: fc.shuffledSubarray([...REVIEWERS], { minLength: 5, maxLength: 5 }), contents: fc.array(fc.tuple(contentArb, contentArb), { minLength: 5, maxLength: 5 }) }), { minLength: 1, maxLength: maxRounds }),
      noise: fc.array(fc.tuple(fc.nat(), noiseArb), { maxLength: maxNoise }),
    })
    .map(({ rounds, noise }) => {
      const actions: Action[] = [];
      for (const round of rounds) {
        actions.push({ kind: 'dispatch-reviewers' });
        round.order.forEach((reviewer, i) => {
          const [first, again] = round.contents[i]!;
          actions.push({ kind: 'review', reviewer, content: first });
          if (first === 'invalid' || first === 'none') actions.push({ kind: 'review', reviewer, content: again });
        });
        actions.push({ kind: 'fix' });
      }
      for (const [at, action] of noise) actions.splice(at % (actions.length + 1), 0, action);
      return actions;
    });

/** What one hook call answered: the user-facing lines. */
interface Driver {
  root: string;
  start(): Promise<string[]>;
  dispatch(type: string): Promise<string[]>;
  reviewerStop(r: Reviewer): Promise<string[]>;
  fixerStop(): Promise<string[]>;
  stop(): Promise<string[]>;
  prompt(text: string): Promise<string[]>;
}

const notes = (effects: Effect[]): string[] => effects.flatMap((e) => (e.type === 'notify' ? e.text.split('\n') : []));

/** The hook entrypoints' logic, in-process: the same pre-checks, observations and transact. */
function inProcess(dir: TestDir): Driver {
  const root = dir.root;
  const env = hookEnv(root);
  const now = () => new Date().toISOString();
  const run = async (makeEvent: (l: Loaded) => Event | null) => notes(await transact(root, now(), makeEvent, env));
  const owned = () => {
    const state = stateOf(load(root, env));
    return state && state.sessionId === SESSION && isActive(state) ? state : null;
  };
  return {
    root,
    start: async () => {
      const parsed = parseCommand('/minions:review --max-iterations 3 the cart');
      if (!parsed.ok || !parsed.command || parsed.command.kind !== 'review') throw new Error('bad start');
      const command = parsed.command;
      return run(() => ({ kind: 'command', command, sessionId: SESSION, now: now(), head: null, changedFiles: [], root, tree: null }));
    },
    dispatch: async (subagentType) => (owned() ? run(() => ({ kind: 'dispatch', sessionId: SESSION, now: now(), subagentType })) : []),
    reviewerStop: async (reviewer) =>
      owned()
        ? run((l) => {
            const s = stateOf(l);
            return s ? { kind: 'reviewer-stop', sessionId: SESSION, now: now(), reviewer, ...reviewerStopObservation(root, s, reviewer, 'Done.') } : null;
          })
        : [],
    fixerStop: async () =>
      owned()
        ? run((l) => {
            const s = stateOf(l);
            return s ? { kind: 'fixer-stop', sessionId: SESSION, now: now(), ...fixerObservations(root, s.iteration), tree: null } : null;
          })
        : [],
    stop: async () => {
      const loaded = load(root, env);
      const state = stateOf(loaded);
      if (loaded.kind === 'none' || (state && state.sessionId !== SESSION)) return [];
      return run(() => ({ kind: 'stop', sessionId: SESSION, now: now(), running: [] }));
    },
    prompt: async () => {
      const loaded = load(root, env);
      const state = stateOf(loaded);
      const foreign = loaded.kind === 'tampered' && !state;
      if (!foreign && (!state || state.sessionId !== SESSION || !isActive(state))) return [];
      return run(() => ({ kind: 'prompt', sessionId: SESSION, now: now() }));
    },
  };
}

/** The same through the built hooks. */
function spawned(dir: TestDir): Driver {
  const loop = new Loop(dir);
  return {
    root: dir.root,
    start: async () => messages([await loop.start('--max-iterations 3 the cart')]),
    dispatch: async (type) => messages([await loop.dispatch(type)]),
    reviewerStop: async (r) => messages([await loop.reviewerStop(r, { message: 'Done.' })]),
    fixerStop: async () => messages([await loop.fixerStop()]),
    stop: async () => messages([await loop.stop()]),
    prompt: async (text) => messages([await loop.prompt(text)]),
  };
}

function writeReview(dir: TestDir, iteration: number, reviewer: Reviewer, content: Content): void {
  const file = reviewerFile(iteration, reviewer);
  if (content === 'none') fs.rmSync(dir.abs(file), { force: true });
  else if (content === 'invalid') dir.write(file, '{"issues": [{"severity": "severe"}]');
  else dir.write(file, reviewText(content === 'clean' ? cleanReview(reviewer) : reviewWithIssues(reviewer, [issue()])));
}

function outside(dir: TestDir, what: Outside, iteration: number, reviewer: Reviewer): void {
  const state = dir.abs(STATE);
  switch (what) {
    case 'garble':
      if (fs.existsSync(state)) fs.writeFileSync(state, '0\n');
      return;
    case 'delete':
      fs.rmSync(state, { force: true });
      return;
    case 'forge-done': {
      let data: any;
      try {
        data = JSON.parse(fs.readFileSync(state, 'utf8'));
      } catch {
        return;
      }
      const last = data.iterations?.[data.iterations.length - 1];
      if (last) {
        last.r1.status = 'complete';
        last.verdict = { overall: 'clean', total: 0, critical: 0, warning: 0, info: 0, open: [], contested: 0, score: 1, scale: 10, readiness: 'READY', pitfalls: [] };
      }
      fs.writeFileSync(state, JSON.stringify({ ...data, status: 'done', currentPhase: 'DONE', stopReason: null }, null, 2));
      return;
    }
    case 'rewrite-review':
      writeReview(dir, iteration, reviewer, 'clean');
      return;
    case 'delete-verdict':
      for (let n = 1; n <= iteration; n++) fs.rmSync(dir.abs(verdictFile(n)), { force: true });
      return;
    case 'forge-verdict':
      for (let n = 1; n <= iteration; n++) {
        if (fs.existsSync(dir.abs(verdictFile(n)))) {
          const v = JSON.parse(fs.readFileSync(dir.abs(verdictFile(n)), 'utf8'));
          fs.writeFileSync(dir.abs(verdictFile(n)), JSON.stringify({ ...v, findings: [], total_issues: 0, next: 'DONE', overall_verdict: 'clean' }));
        }
      }
      return;
  }
}

/** How often the runs got somewhere, so a property that held only because nothing happened shows. */
const seen = { verdicts: 0, done: 0, tampered: 0, r2: 0 };

/** Runs one interleaving and checks the properties after every step. */
async function play(driver: Driver, dir: TestDir, actions: Action[]): Promise<void> {
  const env = hookEnv(dir.root);
  // What the hooks recorded for each reviewer, per round: the content of its file when its stop was recorded.
  const recorded = new Map<number, Map<Reviewer, Content>>();
  let iteration = 1;
  let tamperedSince = false;

  const check = (lines: string[], label: string) => {
    for (const line of lines) {
      if (/^minions: review \d+\/\d+: /.test(line)) seen.verdicts += 1;
      if (/ → DONE$/.test(line)) seen.done += 1;
      if (/ → R2: fixing$/.test(line)) seen.r2 += 1;
      if (/^minions: STOPPED \(the loop's files were changed outside the hooks\)/.test(line)) seen.tampered += 1;
      const verdictDone = /^minions: review (\d+)\/\d+: .* → DONE$/.exec(line);
      if (verdictDone) {
        const round = recorded.get(Number(verdictDone[1])) ?? new Map();
        expect([...round.values()].filter((c) => c === 'issue'), `${label}: DONE for round ${verdictDone[1]} with a recorded finding (${line})`).toEqual([]);
        expect(round.size, `${label}: DONE for round ${verdictDone[1]} before five reviews were recorded`).toBe(REVIEWERS.length);
      }
      if (/^minions: DONE —/.test(line)) {
        const round = recorded.get(iteration) ?? new Map();
        expect([...round.values()].filter((c) => c === 'issue'), `${label}: DONE reported (${line})`).toEqual([]);
      }
    }
    const loaded = load(dir.root, env);
    expect(loaded.kind, `${label}: the state never loads broken while the hooks keep a record`).not.toBe('broken');
    if (loaded.kind === 'ok') expect(stateProblems(loaded.state), `${label}: the hooks wrote an unsound state`).toEqual([]);
    if (loaded.kind === 'tampered') {
      expect(tamperedSince, `${label}: tampered without an outside write (${JSON.stringify(loaded.problems)})`).toBe(true);
      const trusted = loaded.state;
      if (trusted && trusted.sessionId === SESSION && isActive(trusted)) {
        // The gates keep holding with the last state the hooks wrote.
        const decision = editGate(stateOf(loaded), SESSION, null, { inside: true, rel: 'src/cart.ts' });
        expect(decision.kind, `${label}: a garbled state switched the gate off`).toBe('deny');
      }
    }
    const state = stateOf(loaded);
    if (state) iteration = state.iteration;
  };

  check(await driver.start(), 'start');
  for (const [i, action] of actions.entries()) {
    const label = `step ${i} ${JSON.stringify(action)}`;
    const before = stateOf(load(dir.root, env));
    let lines: string[] = [];
    switch (action.kind) {
      case 'dispatch-reviewers':
        for (const r of REVIEWERS) lines.push(...(await driver.dispatch(agentType(r))));
        break;
      case 'review': {
        writeReview(dir, iteration, action.reviewer, action.content);
        lines = await driver.reviewerStop(action.reviewer);
        const after = stateOf(load(dir.root, env));
        const was = before?.iterations[iteration - 1]?.r1.reviewers[action.reviewer].status;
        const now = after?.iterations[iteration - 1]?.r1.reviewers[action.reviewer].status;
        if (after && before && after.runId === before.runId && (was === 'running' || was === 'pending') && (now === 'valid' || now === 'invalid')) {
          if (!recorded.has(iteration)) recorded.set(iteration, new Map());
          recorded.get(iteration)!.set(action.reviewer, now === 'invalid' ? 'invalid' : action.content);
        }
        break;
      }
      case 'fix': {
        lines.push(...(await driver.dispatch(FIXER_TYPE)));
        const fingerprints = fs.existsSync(dir.abs(`.agents/tmp/phases/review-${iteration}/r2-findings.json`))
          ? (JSON.parse(fs.readFileSync(dir.abs(`.agents/tmp/phases/review-${iteration}/r2-findings.json`), 'utf8')).findings as { fingerprint: string }[]).map((f) => f.fingerprint)
          : [];
        dir.write(`.agents/tmp/phases/review-${iteration}/r2-fix-summary.md`, `Round ${iteration}: fixed ${fingerprints.join(', ')} (${Math.random()}).\n`);
        dir.write(`.agents/tmp/phases/review-${iteration}/r2-fix-summary.json`, JSON.stringify({ fixes: fingerprints.map((fingerprint) => ({ fingerprint, status: 'fixed' })) }));
        lines.push(...(await driver.fixerStop()));
        break;
      }
      case 'stop':
        lines = await driver.stop();
        break;
      case 'prompt':
        lines = await driver.prompt('how is it going?');
        break;
      case 'outside':
        outside(dir, action.what, iteration, action.reviewer);
        tamperedSince = true;
        break;
    }
    check(lines, label);
    // An owner's transacting hook acts on what it found: the next load is clean again.
    if (action.kind === 'stop' || action.kind === 'prompt') tamperedSince = load(dir.root, env).kind === 'tampered';
  }
  // The owner's Stops end whatever is left: never left tampered, never DONE with a finding.
  check(await driver.stop(), 'final stop');
  check(await driver.stop(), 'second final stop');
  const final = load(dir.root, env);
  expect(['none', 'ok'], JSON.stringify(final)).toContain(final.kind);
  if (final.kind === 'ok') expect(isActive(final.state)).toBe(true);
}

describe('random interleavings of hook events and outside writes', () => {
  it('in-process: never DONE with a recorded finding, the state always loads, the gates hold', async () => {
    const base = projectTestdir();
    await fc.assert(
      fc.asyncProperty(scenarioArb(3, 8), async (actions) => {
        const dir = cloneTestdir(base);
        try {
          await play(inProcess(dir), dir, actions);
        } finally {
          fs.rmSync(dir.root, { recursive: true, force: true });
        }
      }),
      { numRuns: Number(process.env.RUNS ?? 60) },
    );
    console.log(`in-process interleavings: ${JSON.stringify(seen)}`);
    expect(seen.verdicts).toBeGreaterThan(0);
    expect(seen.done).toBeGreaterThan(0);
    expect(seen.r2).toBeGreaterThan(0);
    expect(seen.tampered).toBeGreaterThan(0);
  }, paced(1_200_000));

  it('through the built hooks: the same, on fewer runs', async () => {
    const base = projectTestdir();
    await fc.assert(
      fc.asyncProperty(scenarioArb(2, 4), async (actions) => {
        const dir = cloneTestdir(base);
        try {
          await play(spawned(dir), dir, actions);
        } finally {
          fs.rmSync(dir.root, { recursive: true, force: true });
        }
      }),
      { numRuns: 6 },
    );
  }, paced(1_800_000));
});
