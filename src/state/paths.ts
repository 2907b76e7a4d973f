import type { Reviewer } from '../core/agents';

/** Project-relative paths, POSIX separators: the layout of seed 001. */
export const TMP_DIR = '.agents/tmp';
export const STATE_FILE = `${TMP_DIR}/state.json`;
export const LOCK_FILE = `${TMP_DIR}/state.lock`;
export const PHASES_DIR = `${TMP_DIR}/phases`;
export const ARCHIVE_DIR = `${TMP_DIR}/archive`;

export const reviewDir = (iteration: number): string => `${PHASES_DIR}/review-${iteration}`;
export const reviewerFile = (iteration: number, reviewer: Reviewer): string => `${reviewDir(iteration)}/r1-${reviewer}.json`;
export const verdictFile = (iteration: number): string => `${reviewDir(iteration)}/r1-verdict.json`;
export const fixSummaryFile = (iteration: number): string => `${reviewDir(iteration)}/r2-fix-summary.md`;
export const fixSummaryJsonFile = (iteration: number): string => `${reviewDir(iteration)}/r2-fix-summary.json`;
/** The merged, grounded findings the fixer receives (hooks only). */
export const findingsFile = (iteration: number): string => `${reviewDir(iteration)}/r2-findings.json`;
/** The project changes made while round N was being reviewed, whoever made them (hooks only). */
export const changedDuringReviewFile = (iteration: number): string => `${reviewDir(iteration)}/r1-changed-during-review.patch`;
export const archiveDir = (runId: string): string => `${ARCHIVE_DIR}/${runId}`;

/** The files only the hooks write whose content their record vouches for (src/shell/record.ts). */
export function isRecorded(rel: string): boolean {
  return (
    rel === STATE_FILE ||
    rel === `${PHASES_DIR}/run.json` ||
    (rel.startsWith(`${PHASES_DIR}/`) && (rel.endsWith('/r1-verdict.json') || rel.endsWith('/r2-findings.json')))
  );
}
