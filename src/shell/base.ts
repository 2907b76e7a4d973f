/**
 * The loop's base: the commit the change under review is measured from (to the working tree). With a
 * ref (--base, .minions.json) it is the merge base of the ref and HEAD; without one, HEAD while there is
 * uncommitted work, else on a branch the merge base with its upstream or the default branch. Returns
 * plain data (the texts are the core's); never throws.
 */
import type { BaseProblem, BaseReason, NothingBecause } from '../protocol/base';
import { execFileSync } from './child-process';


export interface BaseChoice {
  /** The base commit; null outside git or before the first commit (the empty tree is the base). */
  commit: string | null;
  /** The ref it was found from (as given, or the upstream / default branch's short name); null for HEAD. */
  ref: string | null;
  why: BaseReason;
  /** False when the working tree holds nothing the base does not: nothing to review without a task. */
  changed: boolean;
  /** Why a clean tree was measured from HEAD itself. */
  nothingBecause?: NothingBecause;
}

export type BaseResult = { ok: true; choice: BaseChoice } | { ok: false; problem: BaseProblem };

const SHA = /^[0-9a-f]{40,64}$/;

type Git = (args: string[]) => string | null;

function gitIn(root: string): Git {
  return (args) => {
    try {
      // No fsmonitor: the config may name one an agent planted (the loop's pins name that change).
      return execFileSync('git', ['-c', 'core.fsmonitor=false', ...args], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 30_000, maxBuffer: 16 * 1024 * 1024 });
    } catch {
      return null;
    }
  };
}

/** The project's own paths, without the plugin's files. */
const PROJECT = ['--', '.', ':(exclude).agents'];

const commitOf = (git: Git, rev: string): string | null => {
  const out = git(['rev-parse', '--verify', '-q', '--end-of-options', `${rev}^{commit}`])?.trim() ?? '';
  return SHA.test(out) ? out : null;
};

/** Whether the working tree differs from the commit in the project's files (untracked ones included). */
function changedSince(git: Git, commit: string): boolean {
  const tracked = git(['diff', '--quiet', '--no-ext-diff', commit, ...PROJECT]);
  if (tracked === null) return true; // exit 1: differs (or git failed: better to review than to refuse)
  return (git(['ls-files', '--others', '--exclude-standard', ...PROJECT]) ?? '').trim() !== '';
}

/** The merge base of a ref's commit and HEAD, or why there is none. */
function mergeBase(git: Git, ref: string, commit: string, head: string): { ok: true; commit: string } | { ok: false; problem: BaseProblem } {
  const out = git(['merge-base', commit, head])?.trim() ?? '';
  if (SHA.test(out)) return { ok: true, commit: out };
  const shallow = git(['rev-parse', '--is-shallow-repository'])?.trim() === 'true';
  return { ok: false, problem: { kind: shallow ? 'shallow' : 'unrelated', ref } };
}

/** The default branch's candidates, in order: what origin/HEAD names, then main, then master. */
function defaultBranches(git: Git): string[] {
  const origin = git(['symbolic-ref', '-q', '--short', 'refs/remotes/origin/HEAD'])?.trim();
  return [...(origin ? [origin] : []), 'main', 'master'];
}

/**
 * `ref`: the ref to measure from (with `from` saying where it came from), or null to choose. Outside git
 * the choice is no base and a change to review (the loop then reviews what the task names, as before).
 */
export function chooseBase(root: string, ref: string | null, from: 'flag' | 'config' = 'flag'): BaseResult {
  const git = gitIn(root);
  const inside = git(['rev-parse', '--is-inside-work-tree'])?.trim() === 'true';
  const head = inside ? commitOf(git, 'HEAD') : null;
  if (ref !== null && !inside) return { ok: false, problem: { kind: 'not-git', ref } };
  if (ref !== null) {
    const commit = commitOf(git, ref);
    if (!commit) return { ok: false, problem: { kind: 'bad-ref', ref } };
    if (!head) return { ok: false, problem: { kind: 'unborn', ref } };
    const base = mergeBase(git, ref, commit, head);
    if (!base.ok) return base;
    return { ok: true, choice: { commit: base.commit, ref, why: from, changed: changedSince(git, base.commit) } };
  }
  if (!head) return { ok: true, choice: { commit: null, ref: null, why: 'none', changed: true } };
  if (changedSince(git, head)) return { ok: true, choice: { commit: head, ref: null, why: 'uncommitted', changed: true } };
  const clean = (nothingBecause: NothingBecause): BaseResult => ({ ok: true, choice: { commit: head, ref: null, why: 'head', changed: false, nothingBecause } });
  const branch = git(['symbolic-ref', '-q', '--short', 'HEAD'])?.trim();
  if (!branch) return clean('detached');
  const upstream = git(['rev-parse', '--abbrev-ref', '--symbolic-full-name', '@{upstream}'])?.trim();
  const candidates: { ref: string; why: BaseReason }[] = [
    ...(upstream ? [{ ref: upstream, why: 'upstream' as const }] : []),
    ...defaultBranches(git)
      .filter((b) => b !== branch)
      .map((b) => ({ ref: b, why: 'default-branch' as const })),
  ];
  let found = defaultBranches(git).includes(branch);
  for (const candidate of candidates) {
    const commit = commitOf(git, candidate.ref);
    if (!commit) continue;
    found = true;
    const base = mergeBase(git, candidate.ref, commit, head);
    if (!base.ok) {
      if (base.problem.kind === 'shallow') return base;
      continue;
    }
    // The upstream of a pushed branch is the branch itself: its merge base is HEAD, and the default branch is asked next.
    if (base.commit === head) continue;
    return { ok: true, choice: { commit: base.commit, ref: candidate.ref, why: candidate.why, changed: changedSince(git, base.commit) } };
  }
  return clean(found ? 'on-base' : 'no-default');
}
