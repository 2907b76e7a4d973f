/** Texts the reports and the outcome share: counts, stop reasons, the best attempt and the cost. */
import type { Reviewer } from '../protocol/agents';
import type { BaseReason } from '../protocol/base';
import type { Counts } from '../protocol/reviewer-output';
import type { CostTotal } from './cost';
import type { StopRules } from '../protocol/stop-rules';
import type { LoopFacts } from './facts';
import type { Gap } from './rank';
import { plural } from '../protocol/text';
import { FIXER } from '../protocol/agents';
import { MODEL_AGENTS, resolveEffort, type EffortChoice } from '../protocol/effort';

export const countsText = (c: Counts): string =>
  (['critical', 'warning', 'info'] as const)
    .filter((k) => c[k] > 0)
    .map((k) => `${c[k]} ${k}`)
    .join(', ') || 'none';

/**
 * The loop's cost profile in a line: `effort quick: critic, witness, security-reviewer (sonnet)`; all five
 * reviewers are "five reviewers"; the models asked, when any is not the session's (one model: once).
 */
export function effortText(effort: EffortChoice): string {
  const who = effort.reviewers.length === 5 ? 'five reviewers' : effort.reviewers.join(', ');
  const agents = [...effort.reviewers, FIXER] as const;
  const models = [...new Set(agents.map((a) => effort.models[a]))];
  const asked = models.length === 1 ? (models[0] === 'inherit' ? '' : ` (${models[0]})`) : ` (${agents.map((a) => `${a} ${effort.models[a] === 'inherit' ? "the session's model" : effort.models[a]}`).join(', ')})`;
  return `effort ${effort.profile}: ${who}${asked}`;
}

/** REPORT.md's comparison with the simulator: the loop's tokens against its profile's typical loop. */
export function typicalCostLine(effort: EffortChoice, used: number, typical: number): string {
  const own = resolveEffort(effort.profile);
  const overridden = MODEL_AGENTS.some((a) => own.models[a] !== effort.models[a]);
  return `Tokens used ${count(used)}, typical for ${effort.profile} ${count(typical)} (simulated, docs/convergence.md)${overridden ? "; this loop's models differ from the profile's (.minions.json models)" : ''}.`;
}

const signed = (n: number, word: string): string => `${Math.abs(n)} ${word} ${n > 0 ? 'more' : 'fewer'}`;

/** How the final tree falls short of the best round, plainly: findings, then checks, then the score. */
export function gapText(gap: Gap): string {
  const parts = (['critical', 'warning', 'info'] as const).filter((k) => gap.findings[k] !== 0).map((k) => signed(gap.findings[k], k));
  const findings = parts.length ? `${parts.join(', ')} open` : 'as many open findings';
  const checks = gap.checks
    ? `; checks passing ${gap.checks.round.passed} of ${gap.checks.round.passed + gap.checks.round.failed} against ${gap.checks.best.passed} of ${gap.checks.best.passed + gap.checks.best.failed}`
    : '';
  return `${findings}${checks}; score ${gap.score.round.toFixed(2)} against ${gap.score.best.toFixed(2)}`;
}

export const restoreHint = (round: number): string => `/minions:restore ${round} (or \`minions restore ${round}\`) puts its files back`;

/** The best round of a loop, for the outcome and status; null before any review finished. */
export function bestAttemptLine(facts: LoopFacts): string | null {
  if (facts.best === null) return null;
  const { gap, reviewedRound } = facts.final;
  if (gap) return `Best attempt: round ${facts.best}. The final tree (round ${gap.round}) ranks below it: ${gapText(gap)}. ${restoreHint(facts.best)}.`;
  if (reviewedRound === null) {
    return `Best reviewed round: ${facts.best}. The last fix round's change was never reviewed. ${restoreHint(facts.best)}.`;
  }
  return `Best attempt: round ${facts.best}, the final tree.`;
}

/** While the loop runs: the best round so far, and how the latest review compares. */
export function bestSoFarLine(facts: LoopFacts): string | null {
  if (facts.best === null) return null;
  const { gap } = facts.final;
  return `Best so far: round ${facts.best}${gap ? ` (round ${gap.round} ranks below it: ${gapText(gap)})` : ''}.`;
}

export const count = (n: number): string => Math.round(n).toLocaleString('en-US');

/** "123,456 tokens over 11 agent runs (1 unknown)" — unknown figures are named, never estimated. */
export function costLine(c: CostTotal): string {
  if (c.agents === 0) return 'no agent runs recorded';
  if (c.unknown === c.agents) return `unknown (no readable transcript for ${plural(c.agents, 'agent run')})`;
  return `${count(c.total)} tokens over ${plural(c.agents, 'agent run')}${c.unknown ? ` (${c.unknown} unknown: no readable transcript)` : ''}`;
}

export const tokenBreakdown = (c: CostTotal): string =>
  `input ${count(c.tokens.input)}, output ${count(c.tokens.output)}, cache write ${count(c.tokens.cacheCreation)}, cache read ${count(c.tokens.cacheRead)}`;

export function stopReasonText(reason: string | null): string {
  switch (reason) {
    case 'max_iterations':
      return 'the iteration budget is spent';
    case 'no_progress':
      return 'no progress';
    case 'stuck_issue':
      return 'a finding is stuck';
    case 'structural_rework_needed':
      return 'structural rework needed';
    case 'changed_during_review':
      return 'the project changed while it was being reviewed';
    case 'tampered':
      return "the loop's files were changed outside the hooks";
    case 'aggregation_failed':
      return 'the verdict could not be computed';
    case 'budget':
      return 'the token budget is spent';
    case 'git_dir_changed':
      return "the repository's git configuration or hooks changed during the loop";
    case 'check_changed':
      return 'a file the checks run changed where no review sees it';
    default:
      return reason ?? 'stopped';
  }
}

/** A verdict's readiness as people read it, the same everywhere: READY, ALMOST, NOT READY. */
export const readinessText = (readiness: string): string => readiness.replace(/_/g, ' ');

export const rewrittenNote = (): string => 'the review file changed after the hooks recorded it; this result is from the review as recorded';

export const replacedNote = (reviewer: Reviewer): string =>
  `the review file was changed by someone else after ${reviewer} wrote it and before its stop; this result is from the review ${reviewer} wrote (its transcript)`;

export const ago = (then: string, now: string): string => {
  const minutes = Math.max(0, Math.round((Date.parse(now) - Date.parse(then)) / 60000));
  return minutes < 1 ? 'just now' : minutes < 120 ? `${minutes} min ago` : `${Math.round(minutes / 60)} h ago`;
};

export const listed = (paths: readonly string[], max = 8): string => `${paths.slice(0, max).join(', ')}${paths.length > max ? `, … (${paths.length - max} more)` : ''}`;

/** The final report's offer to dismiss what the loop could not settle. */
export const dismissOffer = (n: number): string =>
  `If ${n === 1 ? 'this finding is' : 'a finding is'} wrong, dismiss it with a reason: the next loops keep it out of the fixer's list and the completion gate while its code stays as it is (it is recorded in .minions/dismissed.json, yours to commit).`;
export const dismissCommand = (fingerprint: string): string => `minions dismiss ${fingerprint} --reason "…"`;
export const dismissedIntro = (): string =>
  "You dismissed these (.minions/dismissed.json): they were not sent to the fixer and did not count against DONE. Each comes back once its code changes. `minions dismiss --remove <fingerprint>` takes one back.";

const BASE_WHY: Record<BaseReason, string> = {
  flag: 'as --base asked',
  config: "as .minions.json's base asked",
  uncommitted: 'the working tree has uncommitted changes',
  upstream: "the tree is clean: the branch's upstream",
  'default-branch': 'the tree is clean: the default branch',
  head: 'the tree is clean and there is no other branch to compare with',
  none: 'no commit yet',
};

/** Which base the change is measured from, and why: the first progress line says it. */
export function baseText(state: { base: string | null; baseChoice: { ref: string | null; why: BaseReason } | null }): string {
  const choice = state.baseChoice;
  if (!state.base) return 'the change: every file (no base commit)';
  const commit = state.base.slice(0, 12);
  if (!choice || choice.why === 'uncommitted') return `the change: uncommitted work against HEAD ${commit}`;
  if (choice.ref) return `the change: ${commit} (the merge base with ${choice.ref}; ${BASE_WHY[choice.why]}) to the working tree`;
  return `the change: HEAD ${commit} to the working tree (${BASE_WHY[choice.why]})`;
}

/** REPORT.md's line for the escalation question (seed 003): what the user answered after the critic's diagnosis. */
export function escalationChoiceLine(choice: string, at: string): string {
  const answers: Record<string, string> = {
    pending: 'asked when the session stops: type structural, patch or halt',
    offered: 'asked: type structural, patch or halt',
    structural: 'structural — one more fix round with the diagnosis as its task',
    patch: 'patch — one more fix round as usual',
    halt: 'halt — the loop stopped',
    none: 'no answer — the loop stopped',
  };
  return `Escalation choice after the critic's diagnosis: ${answers[choice] ?? choice} (${at}).`;
}

/** The completion policy in force, one line (REPORT.md, status). */
export function policyText(rules: Pick<StopRules, 'doneWhen' | 'minConfidence'>): string {
  const level = rules.doneWhen === 'info' ? 'every open finding blocks DONE' : `open ${rules.doneWhen === 'critical' ? 'critical' : 'critical and warning'} findings block DONE, lower ones are reported`;
  const confidence = rules.minConfidence > 0 ? `findings one reviewer scored below ${rules.minConfidence} are listed, not fixed` : 'no confidence threshold';
  return `${level} (--done-when ${rules.doneWhen}); ${confidence} (--min-confidence ${rules.minConfidence})`;
}
