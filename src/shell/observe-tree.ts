/** What the hooks observe of the project tree at phase boundaries, for the pure core. */
import type { RoundPatches } from '../core/events';
import { currentIteration } from '../core/loop-state';
import type { State } from '../state/schema';
import { EMPTY_TREE, commitTreeSpec, diffTrees, diffTreesOrNull, headCommit, snapshotTree, snapshotWithDiff } from './snapshot';

/** A patch of what changed during a review is cut at this size; the file list is always whole. */
const MAX_CHANGE_PATCH = 256 * 1024;
/** diff.patch and fix-delta.patch are cut at these sizes (their headers then list every file): the Read tool pages through them. */
export const MAX_DIFF_PATCH = 256 * 1024;
export const MAX_FIX_DELTA = 128 * 1024;

/**
 * The patches the next review round starts with: the change from the loop's base commit (the empty tree
 * before the first commit) to `tree`, and, when `fixedFrom` is given, the fixer's change from it to `tree`.
 */
export function roundPatches(root: string, base: string | null, tree: string | null, fixedFrom: string | null = null): RoundPatches {
  if (!tree) return { diff: null, fixDelta: null };
  // The base commit's tree is named to git as `<commit>:<prefix>` in the diff itself: no process to resolve it first.
  const from = base ? commitTreeSpec(root, base) : EMPTY_TREE;
  const diff = from ? diffTreesOrNull(root, from, tree, MAX_DIFF_PATCH) : null;
  return {
    diff: diff && { ...diff, limit: MAX_DIFF_PATCH },
    fixDelta: fixedFrom ? { ...diffTrees(root, fixedFrom, tree, MAX_FIX_DELTA), limit: MAX_FIX_DELTA } : null,
  };
}

/**
 * What a starting loop observes of the project: HEAD (the loop's base), the tree and diff.patch from the
 * base to it, and the files that patch changes (new paths of renames, without .agents/), which the R1
 * prompts name. One process: HEAD is read from the git dir, and one shell runs the snapshot and the diff.
 */
export function startObservation(root: string): { head: string | null; tree: string | null; patches: RoundPatches; changedFiles: string[] } {
  const head = headCommit(root);
  const from = head ? commitTreeSpec(root, head) : EMPTY_TREE;
  const { tree, diff } = snapshotWithDiff(root, from, MAX_DIFF_PATCH);
  const gone = new Set(diff?.renamedFrom ?? []);
  const changedFiles = (diff?.files ?? []).filter((f) => !gone.has(f) && !f.startsWith('.agents/')).sort();
  return { head, tree, patches: { diff: diff && { ...diff, limit: MAX_DIFF_PATCH }, fixDelta: null }, changedFiles };
}

/**
 * The tree at the end of a review, what changed in the project since the round's reviewStart tree, and the
 * diff.patch of a next round that starts right away (no fix round).
 */
export function reviewEndObservation(
  root: string,
  state: State,
): { tree: string | null; changedDuringReview: { files: string[]; patch: string } | null; patches: RoundPatches } {
  const tree = snapshotTree(root);
  const patches = roundPatches(root, state.base, tree);
  const start = currentIteration(state).trees.reviewStart;
  if (!tree || !start || tree === start) return { tree, changedDuringReview: null, patches };
  // One git process: the patch's own listing names every changed file, cut or not.
  const patch = diffTrees(root, start, tree, MAX_CHANGE_PATCH);
  const files = patch.files;
  if (files.length === 0) return { tree, changedDuringReview: null, patches };
  const note = patch.truncated ? `\n# cut at ${MAX_CHANGE_PATCH} bytes; every changed file:\n${files.map((f) => `#   ${f}`).join('\n')}\n` : '';
  return { tree, changedDuringReview: { files, patch: patch.text + note }, patches };
}

/** What the fixer stop observes of the tree: the tree the fixer left and the next round's patches. */
export function fixEndObservation(root: string, state: State): { tree: string | null; patches: RoundPatches } {
  const tree = snapshotTree(root);
  return { tree, patches: roundPatches(root, state.base, tree, currentIteration(state).trees.reviewEnd) };
}
