import type { Reviewer } from './agents';

/** Project-relative paths, POSIX separators: the layout of seed 001. */
/** The plugin's folder in the project (ignored by git through its own .gitignore when the plugin made it). */
export const AGENTS_DIR = '.agents';
export const TMP_DIR = `${AGENTS_DIR}/tmp`;
export const STATE_FILE = `${TMP_DIR}/state.json`;
export const LOCK_FILE = `${TMP_DIR}/state.lock`;
export const PHASES_DIR = `${TMP_DIR}/phases`;
export const ARCHIVE_DIR = `${TMP_DIR}/archive`;

/**
 * Every file of a review round (`review-N/<name>`) and who writes it. The prompts, the command, the skill
 * and the agents are tested against this list; the hooks' own files are refused to every agent.
 */
export const ROUND_FILES = {
  'r1-<reviewer>.json': 'reviewer',
  'r1-verdict.json': 'hooks',
  'r1-changed-during-review.patch': 'hooks',
  'diff.patch': 'hooks',
  'fix-delta.patch': 'hooks',
  'escalation.json': 'hooks',
  'r2-findings.json': 'hooks',
  'r2-fix-summary.md': 'fixer',
  'r2-fix-summary.json': 'fixer',
  'checks.json': 'hooks',
  'layer0.json': 'hooks',
} as const satisfies Record<string, 'hooks' | 'reviewer' | 'fixer'>;
export type RoundFile = keyof typeof ROUND_FILES;
export const HOOK_ROUND_FILES = (Object.keys(ROUND_FILES) as RoundFile[]).filter((name) => ROUND_FILES[name] === 'hooks');

export const reviewDir = (iteration: number): string => `${PHASES_DIR}/review-${iteration}`;
/** A reviewer's copy of the project's review rules, written by the hooks when the loop starts. */
export const RULES_DIR = `${PHASES_DIR}/rules`;
export const rulesFile = (reviewer: Reviewer): string => `${RULES_DIR}/${reviewer}.md`;
export const reviewerFile = (iteration: number, reviewer: Reviewer): string => `${reviewDir(iteration)}/r1-${reviewer}.json`;
export const verdictFile = (iteration: number): string => `${reviewDir(iteration)}/r1-verdict.json`;
export const fixSummaryFile = (iteration: number): string => `${reviewDir(iteration)}/r2-fix-summary.md`;
export const fixSummaryJsonFile = (iteration: number): string => `${reviewDir(iteration)}/r2-fix-summary.json`;
/** The merged, grounded findings the fixer receives (hooks only). */
export const findingsFile = (iteration: number): string => `${reviewDir(iteration)}/r2-findings.json`;
/** The project changes made while round N was being reviewed, whoever made them (hooks only). */
export const changedDuringReviewFile = (iteration: number): string => `${reviewDir(iteration)}/r1-changed-during-review.patch`;
/**
 * Stands for the whole project in a round's changedDuringReview when the round began with a snapshot and
 * git could not take one at its end (a broken config, an unreadable file): a change cannot be ruled out.
 */
export const UNSNAPSHOTTED = '(the project: no snapshot at the end of the review)';
/** The change under review in round N: the loop's base commit → the tree round N starts from (hooks only). */
export const diffFile = (iteration: number): string => `${reviewDir(iteration)}/diff.patch`;
/** What the fixer changed in round N−1: that round's reviewEnd tree → its fixEnd tree (hooks only). */
export const fixDeltaFile = (iteration: number): string => `${reviewDir(iteration)}/fix-delta.patch`;
/** The history of the finding classes round N's critic is asked to diagnose (hooks only). */
export const escalationFile = (iteration: number): string => `${reviewDir(iteration)}/escalation.json`;
export const archiveDir = (runId: string): string => `${ARCHIVE_DIR}/${runId}`;
/** The project's checks when the loop started (hooks only): the report and each check's full output. */
export const BASELINE_DIR = `${PHASES_DIR}/baseline`;
export const baselineChecksFile = `${BASELINE_DIR}/checks.json`;
export const baselineLogFile = (check: number): string => `${BASELINE_DIR}/check-${check}.log`;
/** The project's checks after fix round N (hooks only), and each check's full output. */
export const checksFile = (iteration: number): string => `${reviewDir(iteration)}/checks.json`;
export const checkLogFile = (iteration: number, check: number): string => `${reviewDir(iteration)}/check-${check}.log`;
/** A check's full output: hooks only, like the round files, whatever its number. */
export const isCheckLog = (rel: string): boolean => rel.startsWith(`${PHASES_DIR}/`) && /\/check-\d+\.log$/.test(rel);
/** Layer-0 on the files fix round N changed (hooks only). */
export const layer0File = (iteration: number): string => `${reviewDir(iteration)}/layer0.json`;

/** The files only the hooks write whose content their record vouches for (src/shell/record.ts). */
export function isRecorded(rel: string): boolean {
  return (
    rel === STATE_FILE ||
    rel === `${PHASES_DIR}/run.json` ||
    (rel.startsWith(`${PHASES_DIR}/`) && (rel.endsWith('/r1-verdict.json') || rel.endsWith('/r2-findings.json'))) ||
    // The hooks' own checks: what the next verdict's findings are read from.
    (rel.startsWith(`${PHASES_DIR}/`) && (rel.endsWith('/checks.json') || rel.endsWith('/layer0.json')))
  );
}

/** A project-relative path as agents are given it: absolute when the project root is known (the Write tool wants that). */
export const absolute = (root: string | null, rel: string): string => (root ? `${root.replace(/\/+$/, '')}/${rel}` : rel);
/** Human-readable reports (hooks only): one per round, and one for the whole loop when it ends. */
export const reviewReportFile = (iteration: number): string => `${reviewDir(iteration)}/REVIEW.md`;
export const REPORT_NAME = 'REPORT.md';
export const REPORT_FILE = `${PHASES_DIR}/${REPORT_NAME}`;
/** What `minions restore` did for a run, so that a restore can be undone. */
export const RESTORES_DIR = `${TMP_DIR}/restores`;
export const restoresFile = (runId: string): string => `${RESTORES_DIR}/${runId.replace(/[^\w.-]/g, '_')}.json`;
