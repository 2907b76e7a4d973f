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
}
export const DEFAULT_RULES: StopRules = { maxCritical: 5, stuckRounds: 3, similarity: 0.95, maxTokens: null };
