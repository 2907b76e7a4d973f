/**
 * The effort axis of the simulator: each cost profile (src/protocol/effort.ts) run through the same
 * simulated loops, with the reviewers it runs and the models it asks for. Writes the per-profile table of
 * docs/convergence.md and src/report/typical-cost.ts (the typical tokens REPORT.md compares a loop with).
 *
 * What a model changes, relative to the session's model (`inherit`), on which the noise profiles' figures
 * were measured (sim/params.ts: [CHEDDAR], [MARTIAN] and [FIELD] are Claude Code runs on its default,
 * sonnet-class model, so `sonnet` is taken to be `inherit`). No published benchmark of the sources in
 * sim/params.ts gives recall or tokens per model for code review; every factor below is an assumption,
 * stated as one:
 * - haiku: recall × 0.7, false positives × 1.3 (a smaller model misses more and guesses more), tokens per
 *   run × 0.8 (fewer files read, shorter answers);
 * - opus: recall × 1.15, false positives × 0.8, tokens per run × 1.25 (more files read, longer reasoning);
 * - the fixer: its fix rate × the same recall factor (capped so fix + partial + decline ≤ 1), its tokens × the
 *   same token factor.
 */
import { EFFORTS, EFFORT_PROFILES, resolveEffort, type Effort, type EffortChoice, type Model } from '../src/protocol/effort';
import { FIXER, type Reviewer } from '../src/protocol/agents';
import { simulateLoop, type LoopResult } from './loop';
import { DEFAULT_POLICY, PROFILES, type Profile } from './params';
import { seedOf } from './rng';

export interface ModelFactor {
  recall: number;
  falsePositives: number;
  tokens: number;
}

/** Assumed (see the header): relative to the session's model. */
export const MODEL_FACTORS: Record<Model, ModelFactor> = {
  inherit: { recall: 1, falsePositives: 1, tokens: 1 },
  sonnet: { recall: 1, falsePositives: 1, tokens: 1 },
  haiku: { recall: 0.7, falsePositives: 1.3, tokens: 0.8 },
  opus: { recall: 1.15, falsePositives: 0.8, tokens: 1.25 },
};

/** The noise profile whose loops give the typical cost REPORT.md names: Claude Code's own figures. */
export const TYPICAL_PROFILE = 'claude-code';
/** The budget the "best budget" column is looked for under. */
export const OPEN_BUDGET = 20;
/**
 * What each profile promises to cost: the mean tokens of a typical loop (TYPICAL_PROFILE, the default
 * policy). The caps are the choice; a profile's default budget is measured from them: the most rounds
 * whose loops stay within the cap (a loop still going at the budget costs what it had spent by then).
 */
export const TOKEN_CAP: Record<Effort, number> = { quick: 2_500_000, standard: 6_000_000, deep: 8_000_000 };

/** The mean tokens of these loops had their budget been `b` rounds. */
export const meanTokensAt = (open: readonly LoopResult[], b: number): number => open.reduce((s, r) => s + (r.rounds <= b ? r.tokens : r.spentBy[b - 1]!), 0) / Math.max(1, open.length);

/** The most rounds (at least one) whose loops' mean tokens stay within `cap`. */
export function budgetWithin(open: readonly LoopResult[], cap: number): number {
  let best = 1;
  for (let b = 2; b <= OPEN_BUDGET; b++) if (meanTokensAt(open, b) <= cap) best = b;
  return best;
}

/** The noise profile as run under an effort profile: each reviewer's recall, the false positives and the tokens scaled by the models asked. */
export function withModels(profile: Profile, effort: EffortChoice): Profile {
  const factor = (agent: Reviewer | typeof FIXER): ModelFactor => MODEL_FACTORS[effort.models[agent]];
  const reviewers = Object.fromEntries(
    Object.entries(profile.reviewers).map(([r, m]) => {
      const f = factor(r as Reviewer);
      return [r, { ...m, focusRecall: Math.min(1, m.focusRecall * f.recall), otherRecall: Math.min(1, m.otherRecall * f.recall) }];
    }),
  ) as Profile['reviewers'];
  const mean = (pick: (f: ModelFactor) => number) => effort.reviewers.reduce((s, r) => s + pick(factor(r)), 0) / effort.reviewers.length;
  const fixer = factor(FIXER);
  const fix = Math.min(1 - profile.fixer.partial - profile.fixer.decline, profile.fixer.fix * fixer.recall);
  return {
    ...profile,
    reviewers,
    falsePositives: profile.falsePositives * mean((f) => f.falsePositives),
    fixer: { ...profile.fixer, fix },
    tokens: { ...profile.tokens, reviewer: Math.round(profile.tokens.reviewer * mean((f) => f.tokens)), fixer: Math.round(profile.tokens.fixer * fixer.tokens), fixerPerFinding: Math.round(profile.tokens.fixerPerFinding * fixer.tokens) },
  };
}

export interface EffortCell {
  effort: Effort;
  profile: string;
  loops: number;
  done: number;
  rounds: number;
  tokens: number;
  /** Median tokens of a loop. */
  medianTokens: number;
  plantedFixed: number;
  /** The most rounds whose loops' mean tokens stay within the profile's TOKEN_CAP (budgetWithin). */
  roundsNeeded: number;
}

const quantile = (xs: number[], q: number): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
};

export function runEffortCell(effort: Effort, noise: Profile, seed: number, loops: number): EffortCell {
  const choice = resolveEffort(effort);
  const profile = withModels(noise, choice);
  const budget = EFFORT_PROFILES[effort].maxIterations;
  const results: LoopResult[] = [];
  const open: LoopResult[] = [];
  for (let i = 0; i < loops; i++) {
    // The same worlds for every effort profile of a noise profile: the profiles are compared on the same loops.
    const loopSeed = seedOf(seed, `effort:${noise.name}`, i);
    results.push(simulateLoop(profile, DEFAULT_POLICY, loopSeed, { effort: choice, maxIterations: budget }));
    open.push(simulateLoop(profile, DEFAULT_POLICY, loopSeed, { effort: choice, maxIterations: OPEN_BUDGET }));
  }
  const mean = (f: (r: LoopResult) => number) => results.reduce((s, r) => s + f(r), 0) / loops;
  return {
    effort,
    profile: noise.name,
    loops,
    done: results.filter((r) => r.outcome === 'DONE').length / loops,
    rounds: mean((r) => r.rounds),
    tokens: mean((r) => r.tokens),
    medianTokens: quantile(results.map((r) => r.tokens), 0.5),
    plantedFixed: mean((r) => r.plantedFixed),
    roundsNeeded: budgetWithin(open, TOKEN_CAP[effort]),
  };
}

export function runEfforts(seed: number, loops: number): EffortCell[] {
  return PROFILES.filter((p) => p.name !== 'scripted').flatMap((p) => EFFORTS.map((e) => runEffortCell(e, p, seed, loops)));
}

/** Each profile's default budget against what the simulator measured: the problems, none when the defaults follow. */
export function budgetProblems(cells: readonly EffortCell[]): string[] {
  return EFFORTS.flatMap((e) => {
    const cell = cells.find((c) => c.effort === e && c.profile === TYPICAL_PROFILE);
    if (!cell) return [`effort ${e}: no simulated loops of the ${TYPICAL_PROFILE} profile to set its budget from`];
    const budget = EFFORT_PROFILES[e].maxIterations;
    return cell.roundsNeeded !== budget
      ? [`effort ${e}: its default budget is ${budget} rounds, but ${cell.roundsNeeded} rounds is the most whose simulated ${TYPICAL_PROFILE} loops stay within its ${(TOKEN_CAP[e] / 1e6).toFixed(1)} M tokens`]
      : [];
  });
}

const m = (tokens: number) => (tokens / 1e6).toFixed(2);

export function renderEffortTable(cells: readonly EffortCell[]): string {
  return [
    '## Cost profiles (`--effort`)',
    '',
    `Each profile (src/protocol/effort.ts) on the same simulated loops (the default policy, \`${DEFAULT_POLICY}\`), with only its reviewers and its`,
    "models' assumed recall, false positives and tokens per run (sim/effort.ts states each factor). \"budget within cap\": the",
    `most rounds whose loops' mean tokens stay within the profile's cost cap (${EFFORTS.map((e) => `${e} ${(TOKEN_CAP[e] / 1e6).toFixed(1)} M`).join(', ')}; sim/effort.ts);`,
    `each profile's default budget is its ${TYPICAL_PROFILE} row's (\`npm run simulate\` fails otherwise). REPORT.md`,
    `compares a loop's tokens with the mean of its profile's row for ${TYPICAL_PROFILE}.`,
    '',
    '| effort | reviewers | models | default budget | profile | P(DONE) | rounds | tokens (M), mean | tokens (M), median | planted fixed (of 6) | budget within cap |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...cells.map((c) => {
      const p = EFFORT_PROFILES[c.effort];
      const models = [...new Set(Object.values(p.models))].join(', ');
      return `| ${c.effort} | ${p.reviewers.length} | ${models} | ${p.maxIterations} | ${c.profile} | ${Math.round(c.done * 100)}% | ${c.rounds.toFixed(1)} | ${m(c.tokens)} | ${m(c.medianTokens)} | ${c.plantedFixed.toFixed(1)} | ${c.roundsNeeded} |`;
    }),
    '',
  ].join('\n');
}

/** The text of src/report/typical-cost.ts. */
export function renderTypicalCost(cells: readonly EffortCell[], seed: number, loops: number): string {
  const typical = Object.fromEntries(EFFORTS.map((e) => [e, Math.round(cells.find((c) => c.effort === e && c.profile === TYPICAL_PROFILE)!.tokens)]));
  return [
    `/** Generated by \`npm run simulate\` (sim/effort.ts, seed ${seed}, ${loops} loops); \`npm run simulate -- --check\` fails when it differs. Do not edit. */`,
    `/** The mean tokens of a simulated loop under each effort profile, noise profile ${TYPICAL_PROFILE} (docs/convergence.md). */`,
    `export const TYPICAL_TOKENS = ${JSON.stringify(typical)} as const;`,
    '',
  ].join('\n');
}
