/**
 * One simulated loop: the plugin's pure core (transition, grounding, aggregation, stop rules, the
 * completion gate) driven as the hooks drive it, with stochastic reviewers and fixer in place of models.
 * The shell's part (files on disk, the frozen reviews, earlier verdicts) is kept in memory here.
 */
import { REVIEWERS, FIXER_TYPE, agentType, type Reviewer } from '../src/protocol/agents';
import { currentIteration, initialState, transition, type Effect, type Event, type Loaded } from '../src/core/transition';
import { DEFAULT_MAX_ITERATIONS } from '../src/core/args';
import { findingsFile, verdictFile } from '../src/protocol/paths';
import type { FixRound } from '../src/review/classes';
import type { FixEntry, Verdict } from '../src/protocol/verdict-schema';
import type { State } from '../src/state/schema';
import { POLICY_OPTIONS, type Policy, type Profile } from './params';
import { DEFAULT_RULES } from '../src/protocol/stop-rules';
import type { EffortChoice } from '../src/protocol/effort';
import { Rng } from './rng';
import { World, type Spot } from './world';

export interface LoopResult {
  outcome: string;
  /** The core's own words for a STOPPED loop. */
  detail: string | null;
  rounds: number;
  tokens: number;
  /** The tokens spent when round k's review was in (index k − 1): what the loop had cost had its budget been k rounds. */
  spentBy: number[];
  plantedFixed: number;
  planted: number;
  /** False positives and nits the fixer changed code for. */
  churn: number;
  /** Defects the fixer introduced that are still in the code at the end. */
  regressionsLeft: number;
  /** Of the real defects found after round 1, how many the loop's own fixes introduced. */
  laterRegressions: number;
  laterReal: number;
  /** Findings the core held back by the policy (--done-when, --min-confidence), over all rounds' verdicts. */
  held: { level: number; confidence: number };
  /** Round 1, before the policy: findings that are real, all findings, real defects there were, found. */
  first: { real: number; reported: number; defects: number; found: number };
}

interface SimFinding {
  severity: Spot['severity'];
  category: string;
  file: string;
  line: number;
  description: string;
  evidence: string;
  suggestion: string;
  confidence: number;
  /** The spot it is about (not written into the review). */
  spot: string;
}

const SESSION = 'sim-session';

/** `run`: the effort profile's reviewers and models (sim/effort.ts) and the iteration budget; default standard, the default budget. */
export function simulateLoop(profile: Profile, policy: Policy, seed: number, run: { effort?: EffortChoice; maxIterations?: number } = {}): LoopResult {
  const rng = new Rng(seed);
  const world = new World(rng);
  const planted = world.live('planted').length;
  let clock = Date.parse('2026-12-01T00:00:00.000Z');
  const now = () => new Date((clock += 60_000)).toISOString();
  let state: State = { ...initialState(SESSION, 'simulated review', run.maxIterations ?? DEFAULT_MAX_ITERATIONS, 'base', now(), { ...DEFAULT_RULES, ...POLICY_OPTIONS[policy] }, null, run.effort), root: null };
  const reviewers = state.effort.reviewers;
  const verdicts: Verdict[] = [];
  const fixRounds: FixRound[] = [];
  let previousSummary: string | null = null;
  let tokens = 0;
  const spentBy: number[] = [];
  let churn = 0;
  let laterRegressions = 0;
  let laterReal = 0;
  const first = { real: 0, reported: 0, defects: planted, found: 0 };
  const held = { level: 0, confidence: 0 };

  const step = (event: Event): Effect[] => {
    const out = transition({ kind: 'ok', state } as Loaded, event);
    if (out.state) state = out.state;
    return out.effects;
  };
  const written = (effects: Effect[], path: string): string | null => {
    const w = effects.find((e): e is Extract<Effect, { type: 'write' }> => e.type === 'write' && e.path === path);
    return w ? w.content : null;
  };
  const cost = (agentId: string, agent: string, total: number) => ({ agentId, cost: { agent, tokens: { input: Math.round(total * 0.1), output: Math.round(total * 0.05), cacheCreation: 0, cacheRead: total - Math.round(total * 0.1) - Math.round(total * 0.05) }, wallMs: null } });

  while (state.currentPhase === 'R1') {
    const n = state.iteration;
    const sources = world.sources();
    const reviews = Object.fromEntries(REVIEWERS.map((r) => [r, null])) as Record<Reviewer, string | null>;
    const foundThisRound = new Set<string>();
    for (const r of reviewers) step({ kind: 'dispatch', sessionId: SESSION, now: now(), subagentType: agentType(r) });
    const drawn = Object.fromEntries(reviewers.map((r) => [r, review(world, profile, r)])) as Record<Reviewer, SimFinding[]>;
    for (const r of reviewers) {
      const all = drawn[r];
      for (const f of all) {
        const spot = spotOf(world, f.description);
        if (spot?.live) foundThisRound.add(spot.id);
        if (n === 1) {
          first.reported++;
          if (spot?.live) first.real++;
        }
        if (n > 1 && spot?.live) {
          laterReal++;
          if (spot.kind === 'regression') laterRegressions++;
        }
      }
      // The whole review, confidences included: the core applies the policy (state.rules) as the plugin does.
      const text = JSON.stringify({ issues: all.map(({ spot: _s, ...f }) => f), summary: { ...countOf(all), verdict: all.length ? 'issues_found' : 'clean' } });
      reviews[r] = text;
      let spent = profile.tokens.reviewer === 0 ? 0 : rng.around(profile.tokens.reviewer, profile.tokens.sigma);
      const stopEvent = (): Event => ({ kind: 'reviewer-stop', sessionId: SESSION, now: now(), reviewer: r, file: text, message: null, sources, cost: cost(`${r}-${n}`, r, spent) });
      let effects = step(stopEvent());
      // Sent back (a quote not found in the file): the reviewer looks again, and writes the same review.
      if (effects.some((e) => e.type === 'block')) {
        spent += Math.round(spent * 0.15);
        effects = step(stopEvent());
      }
      tokens += spent;
    }
    if (n === 1) first.found = foundThisRound.size;
    spentBy.push(tokens);
    if ((state.currentPhase as State['currentPhase']) !== 'R1' || !currentIteration(state).r1.aggregation) throw new Error(`simulator: round ${n} did not reach its verdict (${state.currentPhase})`);
    const effects = step({
      kind: 'aggregate',
      sessionId: SESSION,
      now: now(),
      reviews,
      rewritten: [],
      sources,
      history: verdicts.slice(),
      declines: declinesOf(fixRounds),
      fixes: fixRounds.slice(),
    });
    const verdictText = written(effects, verdictFile(n));
    if (verdictText === null) throw new Error(`simulator: round ${n} wrote no verdict`);
    const verdict = JSON.parse(verdictText) as Verdict;
    verdicts.push(verdict);
    for (const f of verdict.findings) if (f.held) held[f.held]++;
    // The core moved on (the step may have changed it; TypeScript cannot see that through the closure).
    if ((state.currentPhase as State['currentPhase']) !== 'R2') continue;

    // The fix round.
    step({ kind: 'dispatch', sessionId: SESSION, now: now(), subagentType: FIXER_TYPE });
    const brief = JSON.parse(written(effects, findingsFile(n))!) as { findings: { fingerprint: string; description: string }[]; classes: { class: string; sites: string[]; instruction: string }[] };
    const answers = brief.findings.map((f) => {
      const spot = spotOf(world, f.description);
      const answer = fix(world, profile, spot);
      if (answer.churn) churn++;
      return { fingerprint: f.fingerprint, ...answer.entry };
    });
    const patterns = brief.classes.filter((c) => c.instruction === 'audit_first').map((c) => ({ class: c.class, pattern: `round ${n}: the same mistake at ${c.sites.join(', ')}`, sites: c.sites }));
    const summaryJson = JSON.stringify({ fixes: answers, patterns });
    const summary = [`Fix round ${n}.`, ...answers.map((a) => `- [${a.status}] ${a.fingerprint}${a.reason ? `: ${a.reason}` : ''}`), ''].join('\n');
    const fixerTokens = rng.around(profile.tokens.fixer + profile.tokens.fixerPerFinding * brief.findings.length, profile.tokens.sigma);
    tokens += fixerTokens;
    fixRounds.push({ iteration: n, fixes: answers });
    step({ kind: 'fixer-stop', sessionId: SESSION, now: now(), summary, summaryJson, previousSummary, verdict, cost: cost(`fixer-${n}`, 'review-fixer', fixerTokens) });
    previousSummary = summary;
  }
  return {
    outcome: state.currentPhase === 'DONE' ? 'DONE' : (state.stopReason ?? state.currentPhase),
    detail: state.stopDetail,
    rounds: state.iteration,
    tokens,
    spentBy,
    plantedFixed: planted - world.live('planted').length,
    planted,
    churn,
    regressionsLeft: world.live('regression').length,
    laterRegressions,
    laterReal,
    held,
    first,
  };
}

const countOf = (fs: SimFinding[]) => ({
  critical: fs.filter((f) => f.severity === 'critical').length,
  warning: fs.filter((f) => f.severity === 'warning').length,
  info: fs.filter((f) => f.severity === 'info').length,
});

/** The spot a finding is about: its description carries the spot's id (the merged finding keeps one reporter's description). */
function spotOf(world: World, description: string): Spot | undefined {
  const id = /\[sim:([\w-]+)\]/.exec(description)?.[1];
  return world.spots.find((s) => s.id === id);
}

/** One reviewer's findings this round. */
function review(world: World, profile: Profile, reviewer: Reviewer): SimFinding[] {
  const { rng } = world;
  const model = profile.reviewers[reviewer];
  const out: SimFinding[] = [];
  for (const spot of world.live()) {
    const recall = model.focus.includes(spot.category as never) ? model.focusRecall : model.otherRecall;
    if (rng.chance(recall)) out.push(finding(world, profile, spot, profile.confidence.real));
  }
  const decoys = world.spots.filter((s) => s.kind === 'decoy');
  for (let i = rng.poisson(profile.falsePositives); i > 0; i--) {
    const spot = decoys.length > 0 && rng.chance(profile.decoyShare) ? rng.pick(decoys) : world.add('false-positive', rng.pick(model.focus), rng.chance(0.25) ? 'critical' : 'warning');
    out.push(finding(world, profile, spot, profile.confidence.falsePositive));
  }
  for (let i = rng.poisson(profile.nits); i > 0; i--) out.push(finding(world, profile, world.add('nit', 'style', 'info'), profile.confidence.nit));
  return out;
}

function finding(world: World, profile: Profile, spot: Spot, confidenceMean: number): SimFinding {
  const { rng } = world;
  const text = world.text(spot.file, spot.line).trim();
  const q = profile.quoting;
  const roll = rng.next() * (q.exact + q.whitespace + q.wrongLine + q.paraphrase);
  let line = spot.line;
  let evidence = text;
  if (roll >= q.exact && roll < q.exact + q.whitespace) evidence = text.replace(/ /g, '  ');
  else if (roll >= q.exact + q.whitespace && roll < q.exact + q.whitespace + q.wrongLine) line = Math.max(1, spot.line + (rng.chance(0.5) ? 3 : -3));
  else if (roll >= q.exact + q.whitespace + q.wrongLine) evidence = `the value of step ${spot.line} is used without a check`;
  const confidence = Math.max(0, Math.min(100, Math.round(rng.normal(confidenceMean, profile.confidence.sd))));
  return {
    severity: spot.severity,
    category: spot.category,
    file: spot.file,
    line,
    description: `${spot.category} problem in ${spot.file} around line ${spot.line} [sim:${spot.id}]`,
    evidence,
    suggestion: 'change this line',
    confidence,
    spot: spot.id,
  };
}

/** The fixer's answer to one finding, and what it does to the code. */
function fix(world: World, profile: Profile, spot: Spot | undefined): { entry: Omit<FixEntry, 'fingerprint'>; churn: boolean } {
  const { rng } = world;
  const p = profile.fixer;
  const change = (s: Spot) => {
    world.rewrite(s.file, s.line);
    if (rng.chance(p.regression)) world.add('regression', rng.pick(['logic', 'error-handling', 'api-misuse'] as const), world.realSeverity(), s);
  };
  if (spot?.live) {
    const roll = rng.next();
    if (roll < p.fix) {
      spot.live = false;
      change(spot);
      return { entry: { status: 'fixed', kind: 'patch' }, churn: false };
    }
    if (roll < p.fix + p.partial) {
      // Believed fixed; the line changed, the defect is still there.
      change(spot);
      return { entry: { status: 'fixed', kind: 'patch' }, churn: false };
    }
    if (roll < p.fix + p.partial + p.decline) return { entry: { status: 'declined', reason: 'the code is correct as written' }, churn: false };
    return { entry: { status: 'could_not_fix', reason: 'no safe change found' }, churn: false };
  }
  if (!spot || rng.chance(p.declineNoise)) return { entry: { status: 'declined', reason: 'not a defect: the code is correct as written' }, churn: false };
  change(spot);
  return { entry: { status: 'fixed', kind: 'patch' }, churn: true };
}

function declinesOf(rounds: FixRound[]): Record<string, number> {
  const declines: Record<string, number> = {};
  for (const round of rounds) for (const fp of new Set(round.fixes.filter((f) => f.status === 'declined').map((f) => f.fingerprint))) declines[fp] = (declines[fp] ?? 0) + 1;
  return declines;
}
