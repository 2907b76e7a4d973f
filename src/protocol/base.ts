/** Why the loop's base is the commit it is (shell/base.ts chooses it; the state keeps the reason). */
export const BASE_REASONS = [
  /** --base <ref>: the merge base of the ref and HEAD. */
  'flag',
  /** .minions.json's base: the merge base of the ref and HEAD. */
  'config',
  /** The working tree has uncommitted work: HEAD. */
  'uncommitted',
  /** A clean tree on a branch: the merge base with the branch's upstream. */
  'upstream',
  /** A clean tree on a branch: the merge base with the default branch (origin/HEAD, main, master). */
  'default-branch',
  /** A clean tree and nothing to compare it with (detached HEAD, no upstream, no default branch, or on it): HEAD. */
  'head',
  /** Outside git, or before the first commit: no base commit. */
  'none',
] as const;
export type BaseReason = (typeof BASE_REASONS)[number];

/** Why a clean tree has nothing to compare with: said when a review with no task is refused. */
export const NOTHING_BECAUSE = ['detached', 'no-default', 'on-base'] as const;
export type NothingBecause = (typeof NOTHING_BECAUSE)[number];

/** Why no base could be found: the start is refused, naming the ref. */
export type BaseProblem =
  /** The ref names no commit. */
  | { kind: 'bad-ref'; ref: string }
  /** A ref was given outside a git repository. */
  | { kind: 'not-git'; ref: string }
  /** A ref was given, but HEAD has no commit yet. */
  | { kind: 'unborn'; ref: string }
  /** The ref and HEAD share no commit in this shallow clone's history. */
  | { kind: 'shallow'; ref: string }
  /** The ref and HEAD share no history at all. */
  | { kind: 'unrelated'; ref: string };
