/** What the hooks observe of the project tree at phase boundaries, for the pure core. */
import type { RoundPatches } from '../core/events';
import { currentIteration } from '../core/loop-state';
import { UNSNAPSHOTTED } from '../protocol/paths';
import type { State } from '../state/schema';
import { EMPTY_TREE, commitTreeSpec, diffTrees, headCommit, pathsIn, snapshotWithDiff, type Patch } from './snapshot';
import { isTestArtefact } from '../checks/test-artefacts';

/** A patch of what changed during a review is cut at this size; the file list is always whole. */
const MAX_CHANGE_PATCH = 256 * 1024;
/** diff.patch and fix-delta.patch are cut at these sizes (their headers then list every file): the Read tool pages through them. */
export const MAX_DIFF_PATCH = 256 * 1024;
export const MAX_FIX_DELTA = 128 * 1024;

/**
 * The project's tree now and the patches the next review round starts with: the change from the loop's
 * base commit (the empty tree before the first commit) to the tree, and, when `fixedFrom` is given, the
 * fixer's change from it. The snapshot and the first patch come from one process (snapshotWithDiff).
 */
function snapshotAndPatches(
  root: string,
  base: string | null,
  fixedFrom: string | null = null,
  loopStart = false,
): { tree: string | null; patches: RoundPatches; diff: Patch | null } {
  // The base commit's tree is named to git as `<commit>:<prefix>` in the diff itself: no process to resolve it first.
  const { tree, diff } = snapshotWithDiff(root, base ? commitTreeSpec(root, base) : EMPTY_TREE, MAX_DIFF_PATCH, undefined, { loopStart });
  return {
    tree,
    diff,
    patches: {
      diff: diff && { ...diff, limit: MAX_DIFF_PATCH },
      fixDelta: fixedFrom && tree ? { ...diffTrees(root, fixedFrom, tree, MAX_FIX_DELTA), limit: MAX_FIX_DELTA } : null,
    },
  };
}

/**
 * What a starting loop observes of the project: the loop's base (HEAD unless given), the tree and diff.patch from the
 * base to it, and the files that patch changes (new paths of renames, without .agents/), which the R1
 * prompts name. One process: HEAD is read from the git dir, and one shell runs the snapshot and the diff.
 */
export function startObservation(root: string, base?: string | null): { head: string | null; tree: string | null; patches: RoundPatches; changedFiles: string[] } {
  // The base chosen by shell/base.ts (a merge base, or HEAD); without one, HEAD as read from the git dir.
  const head = base === undefined ? headCommit(root) : base;
  // The loop's start saves the repository's excludes and filter drivers for the loop's later snapshots.
  const { tree, patches, diff } = snapshotAndPatches(root, head, null, true);
  const gone = new Set(diff?.renamedFrom ?? []);
  const changedFiles = (diff?.files ?? []).filter((f) => !gone.has(f) && !f.startsWith('.agents/')).sort();
  return { head, tree, patches, changedFiles };
}

/**
 * The tree at the end of a review, what changed in the project since the round's reviewStart tree, and the
 * diff.patch of a next round that starts right away (no fix round).
 */
export function reviewEndObservation(
  root: string,
  state: State,
): { tree: string | null; changedDuringReview: { files: string[]; patch: string } | null; testArtefacts?: string[]; patches: RoundPatches } {
  const { tree, patches } = snapshotAndPatches(root, state.base);
  const start = currentIteration(state).trees.reviewStart;
  if (!tree && start) {
    const patch = `# git could not snapshot the project when review ${state.iteration} ended, though it did when the review began:\n# a change made during the review cannot be ruled out, so this round cannot end DONE.\n`;
    return { tree, changedDuringReview: { files: [UNSNAPSHOTTED], patch }, patches };
  }
  if (!tree || !start || tree === start) return { tree, changedDuringReview: null, patches };
  // One git process: the patch's own listing names every changed file, cut or not.
  const patch = diffTrees(root, start, tree, MAX_CHANGE_PATCH);
  // What the witness's test runs left (caches, bytecode, coverage, new snapshots) is named apart, not counted as a change.
  const artefacts = testArtefactsOf(root, state.base, patch);
  const files = patch.files.filter((f) => !artefacts.includes(f));
  const kept = artefacts.length ? { testArtefacts: artefacts } : {};
  if (files.length === 0) return { tree, changedDuringReview: null, patches, ...kept };
  const note = patch.truncated ? `\n# cut at ${MAX_CHANGE_PATCH} bytes; every changed file:\n${files.map((f) => `#   ${f}`).join('\n')}\n` : '';
  return { tree, changedDuringReview: { files, patch: patch.text + note }, patches, ...kept };
}

/** The paths of a review's changes that are test-run artefacts; one git process only when a candidate may be tracked. */
function testArtefactsOf(root: string, base: string | null, patch: Patch): string[] {
  const added = new Set(patch.added ?? []);
  const candidates = patch.files.filter((f) => isTestArtefact(f, added.has(f), false));
  if (candidates.length === 0) return [];
  // A cache someone committed is the project's: the base commit's tree is asked about the candidates.
  const spec = base ? commitTreeSpec(root, base) : null;
  const tracked = spec ? pathsIn(root, spec, candidates) : new Set<string>();
  if (tracked === null) return [];
  return candidates.filter((f) => isTestArtefact(f, added.has(f), tracked.has(f)));
}

/** What the fixer stop observes of the tree: the tree the fixer left and the next round's patches. */
export function fixEndObservation(root: string, state: State): { tree: string | null; patches: RoundPatches } {
  const { tree, patches } = snapshotAndPatches(root, state.base, currentIteration(state).trees.reviewEnd);
  return { tree, patches };
}
