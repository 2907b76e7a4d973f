/**
 * Builders for the report tests: real verdicts from aggregateRound over a small shop project, and a loop
 * state whose rounds carry those verdicts, trees, fix statuses and costs, as the hooks would record them.
 */
import { REVIEWERS, type Reviewer } from '../../src/protocol/agents';
import { newIteration } from '../../src/core/loop-state';
import { verdictSummary } from '../../src/core/round';
import { DEFAULT_RULES, LEGACY_POLICY, type StopRules } from '../../src/protocol/stop-rules';
import { aggregateRound } from '../../src/review/aggregate';
import type { Sources } from '../../src/review/grounding';
import type { Finding } from '../../src/protocol/reviewer-output';
import type { FixSummary, MergedFinding, Verdict } from '../../src/protocol/verdict-schema';
import type { ChecksTally } from '../../src/report/rank';
import type { AgentCost, IterationRecord, State } from '../../src/state/schema';
import { NOW, reviewJson, stateBuilder } from './builders';

export const PRICE = [
  '/** Applies a percentage discount (0-100) to a price in cents. */',
  'export function discount(cents, percent) {',
  '  return Math.round(cents - (cents * percent) / 10);',
  '}',
  '',
  '/** Formats cents as "12.34". */',
  'export function formatPrice(cents) {',
  '  return (cents / 10).toFixed(2);',
  '}',
  '',
].join('\n');
export const CONFIG = ['export function loadConfig(path) {', '  try {', "    return JSON.parse(readFileSync(path, 'utf8'));", '  } catch (err) {', '    return {};', '  }', '}', ''].join('\n');
export const CART = ['export function total(cart) {', '  let sum = 0;', '  for (let i = 1; i < cart.length; i++) sum += cart[i].price * cart[i].qty;', '  return sum;', '}', ''].join('\n');

export const SHOP: Sources = {
  'src/price.js': { kind: 'file', text: PRICE },
  'src/config.js': { kind: 'file', text: CONFIG },
  'src/cart.js': { kind: 'file', text: CART },
  'docs/a file|with #odd `chars`.md': { kind: 'file', text: '# Notes\n\nTODO: write them\n' },
};

export const F = {
  discount: { severity: 'critical', category: 'unit-error', file: 'src/price.js', line: 3, description: 'discount() divides a percentage by 10: discount(1000, 10) returns 0', evidence: '  return Math.round(cents - (cents * percent) / 10);', suggestion: 'Divide by 100.' },
  format: { severity: 'warning', category: 'unit-error', file: 'src/price.js', line: 8, description: 'formatPrice(1234) returns "123.40"', evidence: '  return (cents / 10).toFixed(2);', suggestion: 'Divide by 100.' },
  swallowed: { severity: 'warning', category: 'swallowed-error', file: 'src/config.js', line: 4, description: 'every failure becomes an empty config', evidence: '  } catch (err) {\n    return {};', suggestion: 'Rethrow anything but ENOENT.' },
  offByOne: { severity: 'critical', category: 'off-by-one', file: 'src/cart.js', line: 3, description: 'total() skips the first line | and the <b>pipe</b> is quoted', evidence: '  for (let i = 1; i < cart.length; i++) sum += cart[i].price * cart[i].qty;', suggestion: 'Start at 0.' },
  docs: { severity: 'info', category: 'docs', file: 'docs/a file|with #odd `chars`.md', line: null, description: 'the notes are a placeholder', evidence: 'TODO: write them', suggestion: '' },
  ghost: { severity: 'info', category: 'injection', file: 'src/payments.js', line: 12, description: 'card lookup builds SQL from input', evidence: 'db.query("SELECT * FROM cards WHERE id=" + id)', suggestion: 'use a parameterised query' },
} satisfies Record<string, Finding>;

export type Reports = Partial<Record<Reviewer, Finding[]>>;

/** One round's verdict, aggregated from these reports as the hooks do. */
export function verdictOf(iteration: number, reports: Reports, history: Verdict[] = [], over: { maxIterations?: number; declines?: Record<string, number>; policy?: Pick<StopRules, 'doneWhen' | 'minConfidence'> } = {}): Verdict {
  const reviews = Object.fromEntries(REVIEWERS.map((r) => [r, { text: reviewJson(reports[r] ?? []), valid: true, error: null }])) as Parameters<typeof aggregateRound>[0]['reviews'];
  return aggregateRound({
    iteration,
    maxIterations: over.maxIterations ?? 3,
    task: 'Add the price helpers and the config loader',
    now: NOW,
    // Today's rule unless a test names a policy: the report tests are about rendering.
    rules: { ...DEFAULT_RULES, ...(over.policy ?? LEGACY_POLICY) },
    reviews,
    sources: SHOP,
    history,
    declines: over.declines ?? {},
  });
}

export interface RoundSpec {
  reports: Reports;
  /** The fix round that followed: its status, and the fixer's answers ('fixed' for every open finding by default). */
  fix?: IterationRecord['r2']['status'];
  answers?: (open: MergedFinding[]) => FixSummary;
  cost?: AgentCost[];
  checks?: ChecksTally | null;
  declines?: Record<string, number>;
}

export const agent = (name: string, tokens: AgentCost['tokens'], wallMs: number | null = 60_000): AgentCost => ({ agent: name, tokens, wallMs });
export const tokens = (input: number, output: number, cacheCreation = 0, cacheRead = 0) => ({ input, output, cacheCreation, cacheRead });

/**
 * A loop whose rounds are these specs: round N's tree is `tree-N`, a fix leaves `fix-N`, the next round
 * starts from it. The state ends as `end` says (the last round's verdict decides DONE or STOPPED).
 */
export function loopOf(specs: RoundSpec[], end: Partial<State> = {}) {
  const verdicts: Verdict[] = [];
  const answers: (FixSummary | null)[] = [];
  const iterations: IterationRecord[] = [];
  const minute = (n: number) => new Date(Date.parse(NOW) + n * 60_000).toISOString();
  let start: string | null = 'base';
  specs.forEach((spec, i) => {
    const n = i + 1;
    const verdict = verdictOf(n, spec.reports, verdicts.slice(), { maxIterations: end.maxIterations ?? specs.length, declines: spec.declines });
    verdicts.push(verdict);
    const fix = spec.fix ?? 'pending';
    const open = verdict.findings.filter((f) => f.toFixer);
    answers.push(fix === 'complete' ? (spec.answers?.(open) ?? { fixes: open.map((f) => ({ fingerprint: f.fingerprint, status: 'fixed' as const })), patterns: [] }) : null);
    const it = newIteration(n, minute(10 * i), start);
    const fixEnd = fix === 'complete' || fix === 'no_summary' ? `fix-${n}` : null;
    iterations.push({
      ...it,
      r1: { ...it.r1, status: 'complete' },
      r2: { status: fix, dispatches: fixEnd ? 1 : 0, failures: 0, checkBlocks: 0, layer0Blocks: 0 },
      verdict: verdictSummary(verdict),
      trees: { reviewStart: start, reviewEnd: `tree-${n}`, fixEnd },
      cost: Object.fromEntries((spec.cost ?? []).map((c, k) => [`agent-${n}-${k}`, c])),
    });
    start = fixEnd ?? `tree-${n}`;
  });
  const last = verdicts[verdicts.length - 1]!;
  const state: State = {
    ...stateBuilder().build(),
    task: 'Add the price helpers and the config loader',
    iteration: specs.length,
    maxIterations: specs.length,
    baseTree: 'base',
    status: last.next === 'DONE' ? 'done' : 'stopped',
    currentPhase: last.next === 'DONE' ? 'DONE' : 'STOPPED',
    stopReason: last.stopReason,
    stopDetail: last.stopDetail,
    updatedAt: minute(10 * specs.length - 3),
    iterations,
    ...end,
  };
  const checks = specs.map((s) => s.checks ?? null);
  return { state, verdicts, answers, checks };
}
