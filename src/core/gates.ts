/** The edit and Bash gates' policies. Pure: paths arrive already resolved, commands already analysed, by the shell. */
import path from 'node:path';
import { FIXER_TYPE, agentType as agentTypeName, isFixer, reviewerOf, type Reviewer } from '../protocol/agents';
import { isActive } from './loop-state';
import type { ShellEffect } from '../bash/effects';
import { segmentsOf, touches, type Place } from '../bash/touches';
import * as refusals from './refusals';
import type { State } from '../state/schema';
import { RULES_DIR, ARCHIVE_DIR, BASELINE_DIR, HOOK_ROUND_FILES, LOCK_FILE, PHASES_DIR, REPORT_FILE, RESTORES_DIR, STATE_FILE, absolute, isCheckLog, findingsFile, fixSummaryFile, fixSummaryJsonFile, reviewerFile, verdictFile } from '../protocol/paths';

export type GateDecision = { allow: true } | { allow: false; reason: string };
const ALLOW: GateDecision = { allow: true };
const denyWith = (reason: string): GateDecision => ({ allow: false, reason });

/** A running loop that this session owns: the only case in which the gates have anything to say beyond the hooks' own files. */
export const gatesSession = (state: State | null, sessionId: string): state is State => !!state && state.sessionId === sessionId && isActive(state);

/**
 * A write target, resolved for real: `rel` is POSIX and relative to the real project root. `guarded`:
 * the target is (under) one of the hooks' records (`hooks`: nobody edits those) or another place no
 * agent of a running loop may write (`protected`: the git directories, git's configuration, the
 * plugin's own files); `abs` names it in the refusal. `linked`: the file has other hard links, so
 * writing it writes them too; never an agent's own output.
 */
export type Target = ({ inside: false } | { inside: true; rel: string }) & {
  guarded?: 'hooks' | 'protected' | null;
  abs?: string;
  linked?: boolean;
  /** The path leads through a descriptor, /proc or a stream the gate cannot resolve for the host's own process: why. */
  undecided?: string;
};

/** Files only the hooks write, whoever asks. */
export function isHookOwned(rel: string): boolean {
  return (
    rel === STATE_FILE ||
    rel.startsWith(`${STATE_FILE}.`) ||
    rel === LOCK_FILE ||
    rel.startsWith(`${LOCK_FILE}/`) ||
    rel.startsWith(`${ARCHIVE_DIR}/`) ||
    rel === ARCHIVE_DIR ||
    rel === `${PHASES_DIR}/run.json` ||
    // The reports and what a restore did: written by the hooks and the CLI only.
    rel === REPORT_FILE ||
    (rel.startsWith(`${PHASES_DIR}/`) && rel.endsWith('/REVIEW.md')) ||
    // The reviewers' copies of the project's review rules.
    rel === RULES_DIR ||
    rel.startsWith(`${RULES_DIR}/`) ||
    rel === RESTORES_DIR ||
    rel.startsWith(`${RESTORES_DIR}/`) ||
    (rel.startsWith(`${PHASES_DIR}/`) && HOOK_ROUND_FILES.some((name) => rel.endsWith(`/${name}`))) ||
    // The project's checks: the baseline, and each check's full output.
    rel === BASELINE_DIR ||
    rel.startsWith(`${BASELINE_DIR}/`) ||
    isCheckLog(rel)
  );
}

/**
 * The edit gate's answer. `pass`: no answer, the user's permission mode decides (project files, and
 * anything outside the loop). `allow`: one of the plugin's own bookkeeping files, written without
 * asking the user. `deny`: refused, with the reason the agent sees.
 */
export type EditDecision = { kind: 'pass' } | { kind: 'allow'; reason: string } | { kind: 'deny'; reason: string };
const PASS: EditDecision = { kind: 'pass' };
const refuse = (reason: string): EditDecision => ({ kind: 'deny', reason });

export function editGate(state: State | null, sessionId: string, agentType: string | null, target: Target): EditDecision {
  if (target.guarded === 'hooks') return refuse(refusals.deny.hooksRecord(target.abs ?? ''));
  if (target.inside && isHookOwned(target.rel)) return refuse(refusals.deny.stateFile());
  if (!state || state.sessionId !== sessionId || !isActive(state)) return PASS;
  if (target.undecided !== undefined) return refuse(refusals.deny.undecidedTarget(whoOf(roleOf(agentType)), target.abs ?? '', target.undecided, false));
  if (target.guarded === 'protected' || (target.abs && inGitDir({ segments: segmentsOf(target.abs), glob: false, recursive: false }))) {
    return refuse(refusals.deny.protectedWrite(whoOf(roleOf(agentType)), target.abs ?? ''));
  }
  if (!target.inside) return PASS; // elsewhere outside the project: not this gate's business

  const phase = state.currentPhase;
  const reviewer = reviewerOf(agentType);
  if (reviewer) {
    const own = reviewerFile(state.iteration, reviewer);
    return phase === 'R1' && target.rel === own && !target.linked ? { kind: 'allow', reason: refusals.allow.ownReview(reviewer, own) } : refuse(refusals.deny.reviewerWrite(reviewer, absolute(state.root, own), phase));
  }
  if (state.reviewOnly) return refuse(refusals.deny.reviewOnlyWrite(state, whoOf(roleOf(agentType))));
  if (isFixer(agentType)) {
    const summary = fixSummaryFile(state.iteration);
    const shown = absolute(state.root, summary);
    if (phase !== 'R2') return refuse(refusals.deny.fixerWrite(phase, shown));
    if (!target.linked && (target.rel === summary || target.rel === fixSummaryJsonFile(state.iteration))) return { kind: 'allow', reason: refusals.allow.fixSummary(target.rel) };
    const underAgents = target.rel === '.agents' || target.rel.startsWith('.agents/');
    // The git dir holds the hooks' record (.git/minions/) and the repository itself: never a project file.
    const underGit = target.rel === '.git' || target.rel.startsWith('.git/');
    return underAgents || underGit ? refuse(refusals.deny.fixerWrite(phase, shown)) : PASS;
  }
  return refuse(refusals.deny.orchestratorWrite(state));
}

// ── Bash ────────────────────────────────────────────────────────────────────────

/** A write target after the shell resolved it for real (symlinks followed): absolute, POSIX. */
export type WriteTarget =
  | { kind: 'path' | 'glob' | 'tree'; abs: string }
  | { kind: 'dynamic'; text: string }
  /** Through a descriptor, /proc or a link the gate cannot follow for the command's own process: why. */
  | { kind: 'undecided'; text: string; why: string };
export type BashEffect =
  | Exclude<ShellEffect, { kind: 'write' | 'git-cwd' }>
  | { kind: 'write'; command: string; target: WriteTarget; recursive: boolean }
  | { kind: 'git-cwd'; command: string; dir: WriteTarget };

export interface BashPlaces {
  /** The real project root. */
  root: string;
  /**
   * Places no agent of the loop may write, real paths: the repository's git directories (the worktree's
   * and the common one), git's user and system configuration (an alias or diff.external there would run
   * under a read-only git command), the plugin's own files (${CLAUDE_PLUGIN_ROOT}: the hooks' code) and
   * records (${CLAUDE_PLUGIN_DATA}).
   */
  protected: readonly string[];
}

type Role = { kind: 'reviewer'; reviewer: Reviewer } | { kind: 'fixer' } | { kind: 'orchestrator'; agentType: string | null };

function roleOf(agentType: string | null): Role {
  const reviewer = reviewerOf(agentType);
  if (reviewer) return { kind: 'reviewer', reviewer };
  if (isFixer(agentType)) return { kind: 'fixer' };
  // The main thread, or any other agent of the owning session (general-purpose, Explore, another plugin's):
  // all held to the orchestrator's rules.
  return { kind: 'orchestrator', agentType };
}

const whoOf = (role: Role): string =>
  role.kind === 'reviewer' ? agentTypeName(role.reviewer) : role.kind === 'fixer' ? FIXER_TYPE : role.agentType ? refusals.otherAgent(role.agentType) : 'the orchestrator';

/** The places the hooks own, as absolute paths: ancestors of these are protected from recursive writes too. */
function hookOwnedPlaces(state: State, root: string): string[] {
  const rounds = Math.max(state.maxIterations, state.iteration, ...state.iterations.map((it) => it.iteration));
  const rels = [STATE_FILE, LOCK_FILE, ARCHIVE_DIR, `${PHASES_DIR}/run.json`];
  for (let n = 1; n <= rounds; n++) rels.push(verdictFile(n), findingsFile(n));
  return rels.map((rel) => `${root}/${rel}`);
}

/**
 * A write into any repository's git directory (a `.git` segment): its config
 * can make a later read-only git command run a program (`core.fsmonitor`), in this repository or in
 * one the command made itself (`git -C /tmp/e status`).
 */
export const inGitDir = (place: Place): boolean => place.segments.some((seg) => seg.toLowerCase() === '.git');

const placeOf = (t: Extract<WriteTarget, { abs: string }>, recursive: boolean): Place => ({
  segments: segmentsOf(t.abs),
  glob: t.kind === 'glob',
  recursive: recursive || t.kind === 'tree',
});

/**
 * The Bash gate: what the command was found to do (BashEffect, from the shell analysis), judged by
 * who runs it. Only the owning session's agents are gated, and only while the loop runs.
 */
export function bashGate(state: State | null, sessionId: string, agentType: string | null, effects: readonly BashEffect[], places: BashPlaces): GateDecision {
  if (!gatesSession(state, sessionId)) return ALLOW;
  const role = roleOf(agentType);
  const who = whoOf(role);
  const phase = state.currentPhase;
  const editsCode = role.kind === 'fixer' && phase === 'R2';
  const root = segmentsOf(places.root);
  const hookOwned = hookOwnedPlaces(state, places.root).map(segmentsOf);
  const protectedPlaces = places.protected.map(segmentsOf);
  const agentsDir = segmentsOf(`${places.root}/.agents`);
  const own = role.kind === 'reviewer' && phase === 'R1' ? segmentsOf(`${places.root}/${reviewerFile(state.iteration, role.reviewer)}`) : null;
  const relOf = (abs: string): string | null => {
    const rel = path.posix.relative(places.root, abs);
    return rel === '' ? '.' : rel.startsWith('../') || rel === '..' || path.posix.isAbsolute(rel) ? null : rel;
  };

  // Most specific refusal first: git, the hooks' own files, then what the gate cannot read, then the role's rules.
  for (const e of effects) {
    if (e.kind === 'git') return denyWith(e.via ? refusals.deny.gitAlias(who, e.via, e.sub) : e.known ? refusals.deny.gitMutation(who, e.sub) : refusals.deny.gitUnknown(who, e.sub));
  }
  for (const e of effects) {
    if (e.kind !== 'write' || e.target.kind === 'dynamic' || e.target.kind === 'undecided') continue;
    const place = placeOf(e.target, e.recursive);
    const rel = relOf(e.target.abs);
    if ((e.target.kind === 'path' && rel !== null && isHookOwned(rel)) || hookOwned.some((area) => touches(place, area))) return denyWith(refusals.deny.stateFile());
    if (protectedPlaces.some((area) => touches(place, area)) || inGitDir(place)) return denyWith(refusals.deny.protectedWrite(who, e.target.abs));
  }
  for (const e of effects) {
    if (e.kind === 'unparseable') return denyWith(refusals.deny.unparseable(who, e.why, editsCode));
    if (e.kind === 'opaque') return denyWith(refusals.deny.opaque(who, e.command, e.why, editsCode));
    // Outside the project, the directory (or one above it) may be a repository of the command's making.
    if (e.kind === 'git-cwd' && (!('abs' in e.dir) || relOf(e.dir.abs) === null)) return denyWith(refusals.deny.gitOutside(who, e.command, 'abs' in e.dir ? e.dir.abs : e.dir.text));
  }
  for (const e of effects) {
    if (e.kind === 'write-unknown') {
      if (editsCode) continue; // what it writes is seen afterwards (digests, snapshots)
      return denyWith(refuseWrite(role, state, who));
    }
    if (e.kind !== 'write') continue;
    if (e.target.kind === 'dynamic') return denyWith(refusals.deny.dynamicTarget(who, e.target.text, editsCode));
    // Refused for every role: where it leads may be the git dir or .agents/, which no agent writes.
    if (e.target.kind === 'undecided') return denyWith(refusals.deny.undecidedTarget(who, e.target.text, e.target.why, editsCode));
    const place = placeOf(e.target, e.recursive);
    if (editsCode) {
      if (touches(place, agentsDir)) return denyWith(refusals.deny.fixerShellWrite(fixSummaryFile(state.iteration), e.target.abs));
      continue;
    }
    if (own && !place.glob && !place.recursive && place.segments.length === own.length && touches(place, own)) continue;
    if (touches(place, root)) return denyWith(refuseWrite(role, state, who));
  }
  return ALLOW;
}

function refuseWrite(role: Role, state: State, who: string): string {
  if (role.kind === 'reviewer') return refusals.deny.reviewerShellWrite(who);
  if (state.reviewOnly) return refusals.deny.reviewOnlyWrite(state, who);
  if (role.kind === 'fixer') return refusals.deny.fixerWrite(state.currentPhase, fixSummaryFile(state.iteration));
  return refusals.deny.orchestratorWrite(state);
}
