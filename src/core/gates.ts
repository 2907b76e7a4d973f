/** The edit and Bash gates' policies. Pure: paths arrive already resolved by the shell. */
import { isFixer, reviewerOf } from './agents';
import { isActive } from './loop-state';
import * as msg from '../messages';
import type { State } from '../state/schema';
import { ARCHIVE_DIR, HOOK_ROUND_FILES, LOCK_FILE, PHASES_DIR, STATE_FILE, absolute, fixSummaryFile, fixSummaryJsonFile, reviewerFile } from '../state/paths';

export type GateDecision = { allow: true } | { allow: false; reason: string };
const ALLOW: GateDecision = { allow: true };
const denyWith = (reason: string): GateDecision => ({ allow: false, reason });

/** A write target, resolved for real: `rel` is POSIX and relative to the real project root. */
export type Target = { inside: false } | { inside: true; rel: string };

/** Files only the hooks write, whoever asks. */
export function isHookOwned(rel: string): boolean {
  return (
    rel === STATE_FILE ||
    rel.startsWith(`${STATE_FILE}.`) ||
    rel === LOCK_FILE ||
    rel.startsWith(`${LOCK_FILE}/`) ||
    rel.startsWith(`${ARCHIVE_DIR}/`) ||
    rel === `${PHASES_DIR}/run.json` ||
    (rel.startsWith(`${PHASES_DIR}/`) && HOOK_ROUND_FILES.some((name) => rel.endsWith(`/${name}`)))
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
  if (!target.inside) return PASS; // outside the project: not this gate's business
  if (isHookOwned(target.rel)) return refuse(msg.deny.stateFile());
  if (!state || state.sessionId !== sessionId || !isActive(state)) return PASS;

  const phase = state.currentPhase;
  const reviewer = reviewerOf(agentType);
  if (reviewer) {
    const own = reviewerFile(state.iteration, reviewer);
    return phase === 'R1' && target.rel === own ? { kind: 'allow', reason: msg.allow.ownReview(reviewer, own) } : refuse(msg.deny.reviewerWrite(reviewer, absolute(state.root, own), phase));
  }
  if (isFixer(agentType)) {
    const summary = fixSummaryFile(state.iteration);
    const shown = absolute(state.root, summary);
    if (phase !== 'R2') return refuse(msg.deny.fixerWrite(phase, shown));
    if (target.rel === summary || target.rel === fixSummaryJsonFile(state.iteration)) return { kind: 'allow', reason: msg.allow.fixSummary(target.rel) };
    const underAgents = target.rel === '.agents' || target.rel.startsWith('.agents/');
    return underAgents ? refuse(msg.deny.fixerWrite(phase, shown)) : PASS;
  }
  return refuse(msg.deny.orchestratorWrite(state));
}

// ── Bash ────────────────────────────────────────────────────────────────────────

const GIT_MUTATIONS = [
  'commit', 'push', 'pull', 'reset', 'checkout', 'switch', 'restore', 'rebase', 'merge', 'cherry-pick', 'revert',
  'stash', 'add', 'rm', 'mv', 'am', 'clean', 'tag', 'update-ref', 'update-index', 'symbolic-ref', 'read-tree',
  'write-tree', 'commit-tree', 'filter-branch', 'filter-repo', 'replace', 'notes', 'gc', 'prune', 'worktree', 'submodule',
  'init', 'clone', 'fetch', 'bisect',
];
// `git [-C dir] [-c k=v] [--flag[=v]] <subcommand>`
const GIT_SUBCOMMAND = /(?:^|[\s;&|(`]|\$\()(?:\S*\/)?git((?:\s+(?:-C\s+\S+|-c\s+\S+|--[\w-]+(?:=\S+)?|-[A-Za-z]+))*)\s+([a-z][\w-]*)/g;

/** The first history-, index- or checkout-changing git subcommand in a shell command, if any. */
export function gitMutation(command: string): string | null {
  for (const match of command.matchAll(GIT_SUBCOMMAND)) {
    const sub = match[2]!;
    if (GIT_MUTATIONS.includes(sub)) return sub;
    if (sub === 'branch' && /\bgit(?:\s+\S+)*?\s+branch\s+(?:-[dDmMcCf]\b|--(?:delete|move|copy|force)\b|[^-\s])/.test(command)) return 'branch';
    if (sub === 'apply' && /\s--(?:index|cached)\b/.test(command)) return 'apply --index';
  }
  return null;
}

const SHELL_WRITERS = /(?:^|[;&|(]\s*)(?:sudo\s+)?(rm|mv|cp|tee|touch|truncate|dd|chmod|chown|ln|install|patch|mkdir|rmdir)\b/;
const IN_PLACE = /\b(?:sed|perl|ruby)\s+(?:-\S+\s+)*(?:-[A-Za-z]*i|--in-place\b)/;
const REDIRECT = /(?:^|[^0-9&<>])>>?\s*(?!&|\/dev\/|\/tmp\/)(["']?)[^\s;&|]+/;

/** True when a shell command visibly writes or deletes files (redirections to /tmp and /dev are fine). */
export function shellWrites(command: string): boolean {
  const unquoted = command.replace(/'[^']*'|"(?:[^"\\]|\\.)*"/g, "''");
  return SHELL_WRITERS.test(unquoted) || IN_PLACE.test(unquoted) || REDIRECT.test(unquoted);
}

/** A reviewer may write its own output with the shell (`cat > <its path>`): that redirection is not a project write. */
function withoutOwnOutput(command: string, own: string): string {
  const escaped = own.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return command.replace(new RegExp(`>>?\\s*(["']?)(?:\\S*/)?${escaped}\\1`, 'g'), '');
}

export function bashGate(state: State | null, sessionId: string, agentType: string | null, command: string): GateDecision {
  if (!state || state.sessionId !== sessionId || !isActive(state)) return ALLOW;
  const reviewer = reviewerOf(agentType);
  const orchestrator = !agentType;
  if (!reviewer && !isFixer(agentType) && !orchestrator) return ALLOW; // other plugins' agents
  const who = agentType ?? 'the orchestrator';
  const sub = gitMutation(command);
  if (sub) return denyWith(msg.deny.gitMutation(who, sub));
  if (reviewer && shellWrites(withoutOwnOutput(command, reviewerFile(state.iteration, reviewer)))) return denyWith(msg.deny.reviewerShellWrite(who));
  // The orchestrator may not change the project during the loop, by the shell either (as by Edit/Write).
  if (orchestrator && shellWrites(command)) return denyWith(msg.deny.orchestratorWrite(state));
  return ALLOW;
}
