/**
 * The loop's settings, one row per numeric option: its `/minions:review` flag, its `.minions.json` key,
 * its range and its default. The argument parser and the config schema are both built from this table,
 * so a new option is one row here.
 */

/** The checks of one hook run together get at most this long; hooks/hooks.json gives the hook this plus a margin. */
export const CHECKS_BUDGET_SECONDS = 600;
/** What a hook that runs the checks needs besides them: snapshots, Layer-0, aggregation, the lock. */
export const HOOK_MARGIN_SECONDS = 60;

export interface NumericOption {
  /** The `.minions.json` key and the settings field. */
  key: string;
  /** The flag, without the leading `--`. */
  flag: string;
  min: number;
  max: number;
  whole: boolean;
  default: number;
  description: string;
}

import { DEFAULT_DONE_WHEN, DEFAULT_MIN_CONFIDENCE } from '../protocol/stop-rules';

export const NUMERIC_OPTIONS = [
  { key: 'maxIterations', flag: 'max-iterations', min: 1, max: 20, whole: true, default: 5, description: 'review rounds at most; the last one that still finds issues ends STOPPED' },
  { key: 'maxCritical', flag: 'max-critical', min: 0, max: 1000, whole: true, default: 5, description: 'more than this many critical findings in one round stops the loop (structural_rework_needed)' },
  { key: 'stuckRounds', flag: 'stuck-rounds', min: 1, max: 20, whole: true, default: 3, description: 'one finding NOT_FIXED or REGRESSED in this many consecutive rounds stops the loop (stuck_issue)' },
  { key: 'fixpointSimilarity', flag: 'fixpoint-similarity', min: 0.5, max: 1, whole: false, default: 0.95, description: 'two consecutive fix summaries about the same findings at least this similar stop the loop (no_progress)' },
  { key: 'minConfidence', flag: 'min-confidence', min: 0, max: 100, whole: true, default: DEFAULT_MIN_CONFIDENCE, description: 'a finding its one reviewer scored below this confidence is listed in REVIEW.md, neither sent to the fixer nor blocking DONE (two reviewers lift it)' },
  {
    key: 'checkTimeoutSeconds',
    flag: 'check-timeout',
    min: 1,
    max: CHECKS_BUDGET_SECONDS,
    whole: true,
    default: 300,
    description: `seconds each check may run; all checks of one run share ${CHECKS_BUDGET_SECONDS} s`,
  },
] as const satisfies readonly NumericOption[];

export type NumericKey = (typeof NUMERIC_OPTIONS)[number]['key'];
export type NumericSettings = Record<NumericKey, number>;

export const NUMERIC_DEFAULTS = Object.fromEntries(NUMERIC_OPTIONS.map((o) => [o.key, o.default])) as NumericSettings;

export const optionByFlag = (flag: string): (typeof NUMERIC_OPTIONS)[number] | undefined => NUMERIC_OPTIONS.find((o) => o.flag === flag);

/** --done-when / doneWhen: the lowest severity an open finding still blocks DONE at. */
export const DONE_WHEN_LEVELS = ['critical', 'warning', 'info'] as const;
export const DONE_WHEN_DESCRIPTION = `the lowest severity that still blocks DONE: open findings below it are reported, never block, and go to the fixer only as optional when a fix round runs anyway (default ${DEFAULT_DONE_WHEN}; info: every finding blocks)`;

/** The largest token budget --max-tokens and .minions.json's maxTokens take. */
export const MAX_TOKENS = 1_000_000_000_000;

/** Commands at most, and a command's length at most. */
export const MAX_CHECKS = 20;
export const MAX_CHECK_LENGTH = 2000;
