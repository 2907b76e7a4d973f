/**
 * The pinned files outside the snapshot (checks/pins.ts) at a phase end. A change in the git dir ends the
 * loop STOPPED, wherever it is: git would run or read what was planted there, and no review saw it. A
 * change in what the checks run ends the loop at the fixer's stop and turns a DONE verdict into STOPPED:
 * a check that passes by running other code than at the start proves nothing.
 */
import type { PinnedChanges } from './events';
import type { PinChange } from '../checks/pins';
import * as progress from './progress';
import type { StopReason, Verdict } from '../protocol/verdict-schema';

/** The stop the pinned changes call for at this point: null when none. `verdict`: the round would otherwise go there (DONE only matters for the checks). */
export function pinnedStop(pinned: PinnedChanges | null | undefined, next: Verdict['next'] | 'fix-end'): { stopReason: StopReason; stopDetail: string } | null {
  if (!pinned) return null;
  if (pinned.gitDir.length > 0) return { stopReason: 'git_dir_changed', stopDetail: progress.gitDirChangedDetail(pinned.gitDir) };
  if (pinned.checks.length > 0 && (next === 'DONE' || next === 'fix-end')) return { stopReason: 'check_changed', stopDetail: progress.checkChangedDetail(pinned.checks) };
  return null;
}

/** A verdict overruled by the pinned changes (STOPPED with their reason), or as it is. */
export function withPinned(verdict: Verdict, pinned: PinnedChanges | null | undefined): Verdict {
  const stop = pinnedStop(pinned, verdict.next);
  return stop ? { ...verdict, next: 'STOPPED', ...stop } : verdict;
}

/** All the pinned changes, for a note that names them. */
export const allChanges = (pinned: PinnedChanges | null | undefined): PinChange[] => (pinned ? [...pinned.gitDir, ...pinned.checks] : []);
