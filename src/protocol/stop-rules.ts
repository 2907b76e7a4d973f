import type { Severity } from './reviewer-output';

/** The rules that end a loop early, and their defaults (each can be set by a flag or .minions.json). */
export interface StopRules {
  /** structural_rework_needed: more than this many critical findings in one round. */
  maxCritical: number;
  /** stuck_issue: one finding NOT_FIXED or REGRESSED in this many consecutive rounds. */
  stuckRounds: number;
  /** no_progress: two consecutive fix summaries at least this similar (simhash). */
  similarity: number;
  /** budget: no new round starts once the agents have used this many tokens; null = no budget. */
  maxTokens: number | null;
  /** --done-when: the lowest severity an open finding still blocks DONE at; the ones below are listed, sent to the fixer as optional. */
  doneWhen: Severity;
  /** --min-confidence: a finding scored below this by its one reviewer is listed, neither sent to the fixer nor blocking DONE. */
  minConfidence: number;
}
/** The completion policy's defaults, chosen from docs/convergence.md (see the README). */
export const DEFAULT_DONE_WHEN: Severity = 'warning';
export const DEFAULT_MIN_CONFIDENCE = 80;
/** What a loop started before the completion policy existed runs by: every finding blocks DONE (migration on read). */
export const LEGACY_POLICY = { doneWhen: 'info', minConfidence: 0 } as const satisfies Pick<StopRules, 'doneWhen' | 'minConfidence'>;
export const DEFAULT_RULES: StopRules = { maxCritical: 5, stuckRounds: 3, similarity: 0.95, maxTokens: null, doneWhen: DEFAULT_DONE_WHEN, minConfidence: DEFAULT_MIN_CONFIDENCE };
