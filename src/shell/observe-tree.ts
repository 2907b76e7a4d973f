/** What the hooks observe of the project tree at phase boundaries, for the pure core. */
import { currentIteration } from '../core/loop-state';
import type { State } from '../state/schema';
import { changedPaths, diffTrees, snapshotTree } from './snapshot';

/** A patch of what changed during a review is cut at this size; the file list is always whole. */
const MAX_CHANGE_PATCH = 256 * 1024;

/** The tree at the end of a review, and what changed in the project since the round's reviewStart tree. */
export function reviewEndObservation(root: string, state: State): { tree: string | null; changedDuringReview: { files: string[]; patch: string } | null } {
  const tree = snapshotTree(root);
  const start = currentIteration(state).trees.reviewStart;
  if (!tree || !start || tree === start) return { tree, changedDuringReview: null };
  const files = changedPaths(root, start, tree);
  if (files.length === 0) return { tree, changedDuringReview: null };
  const patch = diffTrees(root, start, tree, MAX_CHANGE_PATCH);
  const note = patch.truncated ? `\n# cut at ${MAX_CHANGE_PATCH} bytes; every changed file:\n${files.map((f) => `#   ${f}`).join('\n')}\n` : '';
  return { tree, changedDuringReview: { files, patch: patch.text + note } };
}
