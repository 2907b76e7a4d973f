/**
 * npm run simulate [-- --seed N --loops N --check --out FILE]
 *
 * Runs many simulated loops per noise profile and completion policy (sim/params.ts) through the
 * plugin's pure core and writes the table to docs/convergence.md. The same seed and loop count give
 * the same file; --check runs again and fails when the file differs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { simulateLoop, type LoopResult } from './loop';
import { POLICIES, POLICY_OPTIONS, PROFILES, PROJECT, type Policy, type Profile } from './params';
import { DEFAULT_RULES } from '../src/protocol/stop-rules';
import { seedOf } from './rng';
import { budgetProblems, renderEffortTable, renderTypicalCost, runEfforts } from './effort';

export const DEFAULT_SEED = 27;
export const DEFAULT_LOOPS = 100;
const REASONS = ['max_iterations', 'stuck_issue', 'structural_rework_needed', 'no_progress'] as const;

export interface Cell {
  profile: string;
  policy: Policy;
  loops: number;
  done: number;
  stopped: Record<string, number>;
  rounds: number;
  tokens: number;
  plantedFixed: number;
  churn: number;
  regressionsLeft: number;
  firstPrecision: number;
  firstRecall: number;
  laterFromFixes: number;
  /** Of the stuck_issue stops, those of the class rule (a finding class still open after two fix rounds). */
  stuckByClass: number;
}

export function runCell(profile: Profile, policy: Policy, seed: number, loops: number): Cell {
  const results: LoopResult[] = [];
  // The same worlds and draws for every policy of a profile: the policies are compared on the same loops.
  for (let i = 0; i < loops; i++) results.push(simulateLoop(profile, policy, seedOf(seed, profile.name, i)));
  const mean = (f: (r: LoopResult) => number) => results.reduce((s, r) => s + f(r), 0) / loops;
  const sum = (f: (r: LoopResult) => number) => results.reduce((s, r) => s + f(r), 0);
  const stopped: Record<string, number> = {};
  for (const r of results) if (r.outcome !== 'DONE') stopped[r.outcome] = (stopped[r.outcome] ?? 0) + 1;
  return {
    profile: profile.name,
    policy,
    loops,
    done: results.filter((r) => r.outcome === 'DONE').length / loops,
    stopped: Object.fromEntries(Object.entries(stopped).map(([k, v]) => [k, v / loops])),
    rounds: mean((r) => r.rounds),
    tokens: mean((r) => r.tokens),
    plantedFixed: mean((r) => r.plantedFixed),
    churn: mean((r) => r.churn),
    regressionsLeft: mean((r) => r.regressionsLeft),
    firstPrecision: sum((r) => r.first.real) / Math.max(1, sum((r) => r.first.reported)),
    firstRecall: sum((r) => r.first.found) / Math.max(1, sum((r) => r.first.defects)),
    laterFromFixes: sum((r) => r.laterRegressions) / Math.max(1, sum((r) => r.laterReal)),
    stuckByClass: sum((r) => (r.outcome === 'stuck_issue' && (r.detail ?? '').startsWith('finding class') ? 1 : 0)) / Math.max(1, sum((r) => (r.outcome === 'stuck_issue' ? 1 : 0))),
  };
}

export function runAll(seed: number, loops: number): Cell[] {
  return PROFILES.flatMap((p) => POLICIES.map((policy) => runCell(p, policy, seed, loops)));
}

const pct = (x: number) => `${Math.round(x * 100)}%`;
const num = (x: number) => x.toFixed(1);

export function renderTable(cells: Cell[], seed: number, loops: number): string {
  const lines = [
    '# Convergence with noisy models (simulated)',
    '',
    `Produced by \`npm run simulate -- --seed ${seed} --loops ${loops}\` (sim/); do not edit by hand: \`npm run simulate -- --check\` fails when this file`,
    'differs from a fresh run. Each row is that many loops of the plugin\'s real pure core (transition, grounding against the',
    'simulated files, aggregation, stop rules, the completion gate) with stochastic reviewers and fixer.',
    `The project: ${PROJECT.files} files of ${PROJECT.lines} lines, ${PROJECT.defects} planted defects, ${PROJECT.decoys} suspicious-but-correct spots; the default budget of iterations.`,
    '',
    'Profiles (sources and every parameter in `sim/params.ts`):',
    '',
    ...PROFILES.map((p) => `- **${p.name}**: ${p.source}.`),
    '',
    'Policies are the plugin\'s real options, given to the core as a loop started with them (`sim/params.ts`, POLICY_OPTIONS):',
    '`info` is `--done-when info --min-confidence 0`, the rule before the completion policy (a finding of any severity blocks',
    'DONE); `warning` and `critical` are `--done-when` (lower severities are listed, never block, and go to the fixer as',
    'optional when a fix round runs anyway); `confN` is `--min-confidence N` (a finding its one reviewer scored below N is',
    'listed, neither fixed nor blocking; two reviewers lift it; Claude Code\'s `/code-review` uses 80); `warning+confN` both.',
    'The reviews carry every finding with its confidence; the core holds back what the policy says.',
    `The plugin's defaults are \`--done-when ${DEFAULT_RULES.doneWhen} --min-confidence ${DEFAULT_RULES.minConfidence}\` (the row ${POLICIES.find((p) => POLICY_OPTIONS[p].doneWhen === DEFAULT_RULES.doneWhen && POLICY_OPTIONS[p].minConfidence === DEFAULT_RULES.minConfidence) ?? '(none)'}).`,
    '',
    '| profile | policy | P(DONE) | max_iterations | stuck_issue | structural_rework | no_progress | rounds | tokens (M) | planted fixed (of 6) | churn (noise "fixed") | regressions left |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...cells.map((c) => {
      const other = Object.entries(c.stopped).filter(([k]) => !(REASONS as readonly string[]).includes(k));
      if (other.length > 0) throw new Error(`simulator: a stop reason the table has no column for: ${other.map(([k]) => k).join(', ')}`);
      return `| ${c.profile} | ${c.policy} | ${pct(c.done)} | ${REASONS.map((r) => pct(c.stopped[r] ?? 0)).join(' | ')} | ${num(c.rounds)} | ${(c.tokens / 1e6).toFixed(2)} | ${num(c.plantedFixed)} | ${num(c.churn)} | ${num(c.regressionsLeft)} |`;
    }),
    '',
    '"planted fixed" counts all six planted defects whatever their severity: a policy that leaves warnings out never sends',
    'the warning-level ones to the fixer. "churn": false positives and nits the fixer changed code for. "regressions left":',
    'defects the loop\'s own fixes introduced that are still there at the end.',
    '',
    'What the simulated reviewers and fixer did, to compare with the published figures in `sim/params.ts` (round 1 is drawn',
    'before any policy, so its precision and recall are the same for every policy of a profile):',
    '',
    '| profile | policy | round-1 precision | round-1 recall | real findings after round 1 introduced by a fix | stuck_issue stops by the class rule |',
    '|---|---|---|---|---|---|',
    ...cells.map((c) => `| ${c.profile} | ${c.policy} | ${c.firstPrecision.toFixed(2)} | ${c.firstRecall.toFixed(2)} | ${pct(c.laterFromFixes)} | ${pct(c.stuckByClass)} |`),
    '',
    'The class rule: a finding class (one category family in the same files) still open after two fix rounds',
    'is escalated, and ends the loop. With noisy reviewers, new false positives and nits in a family keep its class open.',
    '',
  ];
  return lines.join('\n');
}

export function main(argv: string[]): number {
  const value = (flag: string): string | undefined => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const known = new Set(['--seed', '--loops', '--check', '--out']);
  const unknown = argv.filter((a, i) => a.startsWith('--') && !known.has(a) && !(i > 0 && ['--seed', '--loops', '--out'].includes(argv[i - 1]!)));
  if (unknown.length > 0) {
    console.error(`simulate: unknown option ${unknown.join(', ')} (known: --seed N, --loops N, --check, --out FILE)`);
    return 2;
  }
  const seed = Number(value('--seed') ?? DEFAULT_SEED);
  const loops = Number(value('--loops') ?? DEFAULT_LOOPS);
  if (!Number.isSafeInteger(seed) || !Number.isSafeInteger(loops) || loops < 1) {
    console.error('simulate: --seed and --loops take whole numbers (--loops at least 1)');
    return 2;
  }
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const out = path.resolve(root, value('--out') ?? 'docs/convergence.md');
  const started = Date.now();
  const efforts = runEfforts(seed, loops);
  const table = `${renderTable(runAll(seed, loops), seed, loops)}\n${renderEffortTable(efforts)}`;
  // The effort profiles' typical cost, for REPORT.md: written beside the table, checked with it.
  const typicalOut = path.resolve(root, 'src/report/typical-cost.ts');
  const typical = renderTypicalCost(efforts, seed, loops);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  // The defaults are held to the reference run: a few loops' quantiles are noise.
  const problems = loops >= DEFAULT_LOOPS ? budgetProblems(efforts) : [];
  if (problems.length > 0) {
    console.error(`simulate: the effort profiles' defaults do not follow from the measurements (src/protocol/effort.ts):\n- ${problems.join('\n- ')}`);
    return 1;
  }
  if (argv.includes('--check')) {
    const now = fs.existsSync(out) ? fs.readFileSync(out, 'utf8') : null;
    const typicalNow = fs.existsSync(typicalOut) ? fs.readFileSync(typicalOut, 'utf8') : null;
    if (now !== table || (seed === DEFAULT_SEED && loops === DEFAULT_LOOPS && typicalNow !== typical)) {
      console.error(`simulate: ${path.relative(root, out)} differs from a fresh run (seed ${seed}, ${loops} loops): run npm run simulate${seed !== DEFAULT_SEED || loops !== DEFAULT_LOOPS ? ` -- --seed ${seed} --loops ${loops}` : ''}`);
      return 1;
    }
    console.log(`simulate: ${path.relative(root, out)} matches a fresh run (${seconds} s)`);
    return 0;
  }
  fs.writeFileSync(out, table);
  // Only the default run is the reference REPORT.md quotes.
  if (seed === DEFAULT_SEED && loops === DEFAULT_LOOPS && !value('--out')) fs.writeFileSync(typicalOut, typical);
  console.log(`simulate: ${PROFILES.length * POLICIES.length * loops + efforts.length * loops * 2} loops in ${seconds} s, written to ${path.relative(root, out)}`);
  return 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) process.exitCode = main(process.argv.slice(2));
