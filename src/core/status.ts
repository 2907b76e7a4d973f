/** `minions status --json`: the loop as one typed, machine-readable object. Pure; the CLI finds the state. */
import { REVIEWERS, type Reviewer } from '../protocol/agents';
import { fixSummaryFile, verdictFile } from '../protocol/paths';
import type { LoopFacts, LoopHeader } from '../report/facts';
import type { Counts } from '../protocol/reviewer-output';
import type { ReviewerRun, State } from '../state/schema';

/** Where the CLI found the loop's state. Paths are relative to the project root, POSIX. */
export type FoundLoop =
  | { kind: 'none' }
  | { kind: 'broken'; stateFile: string; problem: string }
  /** phasesDir ends with `/`: `.agents/tmp/phases/`, or an archive folder once the phases moved there. */
  | { kind: 'live' | 'archived'; state: State; stateFile: string; phasesDir: string; /** A warning: the state file was changed by someone other than the hooks. */ tampered?: string };

export interface ReviewStatus {
  iteration: number;
  overall: 'clean' | 'issues_found';
  total: number;
  critical: number;
  warning: number;
  info: number;
  /** Findings sent to the fixer. */
  open: number;
  fixer: State['iterations'][number]['r2']['status'];
  verdict: string;
  fixSummary: string | null;
}

export interface LoopStatus extends LoopHeader {
  /** running: in progress; finished: DONE, STOPPED or CANCELLED (the last loop run here). */
  loop: 'running' | 'finished';
  session: { id: string; isThisSession: boolean };
  /** The cost profile: its reviewers and the model asked of each agent. */
  effort: State['effort'];
  /** The reviewers of the current iteration (skipped: not in the profile). */
  reviewers: { name: Reviewer; status: ReviewerRun['status']; dispatches: number; counts: Counts | null }[];
  reviews: ReviewStatus[];
  /** The latest verdict's findings for the fixer; `issues` lists them once the loop has STOPPED. */
  openFindings: { count: number; fingerprints: string[]; issues: State['openIssues'] };
  /** `root` is the project's absolute path; the others are relative to it. */
  paths: { root: string; state: string; phases: string; verdict: string | null };
  /** Set when the state file was changed by someone other than the hooks: what the hooks found. */
  tampered?: string;
  /** The completion policy in force (--done-when, --min-confidence). */
  policy: Pick<State['rules'], 'doneWhen' | 'minConfidence'>;
  /** The facts REPORT.md renders: each round's standing and cost, the best round, what is open, the total change. */
  outcome: LoopFacts | null;
}

export type StatusData = { loop: 'none' } | { loop: 'unreadable'; problem: string; paths: { state: string } } | LoopStatus;

export const SEVERITIES = ['critical', 'warning', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

/**
 * `minions status --fail-on <severity>`: the open findings of the latest verdict at that severity or
 * above; null when there is no verdict to judge (no loop, an unreadable one, or none reached a verdict),
 * which fails a CI gate as well.
 */
export function failingFindings(found: FoundLoop, severity: Severity): { count: number; counts: Counts } | null {
  if (found.kind !== 'live' && found.kind !== 'archived') return null;
  const latest = [...found.state.iterations].reverse().find((it) => it.verdict)?.verdict ?? null;
  if (!latest) return null;
  const counts: Counts = { critical: latest.critical, warning: severity === 'critical' ? 0 : latest.warning, info: severity === 'info' ? latest.info : 0 };
  return { count: counts.critical + counts.warning + counts.info, counts };
}

/** The one builder of `status --json`; new fields join here. */
export function statusData(found: FoundLoop, sessionId: string | null, root: string, outcome: LoopFacts | null = null): StatusData {
  if (found.kind === 'none') return { loop: 'none' };
  if (found.kind === 'broken') return { loop: 'unreadable', problem: found.problem, paths: { state: found.stateFile } };
  const { state, phasesDir } = found;
  const inPhases = (path: string): string => `${phasesDir}${path.slice(path.indexOf('/review-') + 1)}`;
  const current = state.iterations[state.iterations.length - 1]!;
  const reviews = state.iterations.flatMap((it): ReviewStatus[] =>
    it.verdict
      ? [
          {
            iteration: it.iteration,
            overall: it.verdict.overall,
            total: it.verdict.total,
            critical: it.verdict.critical,
            warning: it.verdict.warning,
            info: it.verdict.info,
            open: it.verdict.open.length,
            fixer: it.r2.status,
            verdict: inPhases(verdictFile(it.iteration)),
            fixSummary: it.r2.status === 'complete' ? inPhases(fixSummaryFile(it.iteration)) : null,
          },
        ]
      : [],
  );
  const latest = [...state.iterations].reverse().find((it) => it.verdict)?.verdict ?? null;
  return {
    loop: state.status === 'in_progress' ? 'running' : 'finished',
    runId: state.runId,
    task: state.task,
    phase: state.currentPhase,
    status: state.status,
    iteration: state.iteration,
    maxIterations: state.maxIterations,
    stopReason: state.stopReason,
    stopDetail: state.stopDetail,
    startedAt: state.startedAt,
    updatedAt: state.updatedAt,
    effort: state.effort,
    session: { id: state.sessionId, isThisSession: sessionId !== null && sessionId === state.sessionId },
    reviewers: REVIEWERS.map((name) => {
      const run = current.r1.reviewers[name];
      return { name, status: run.status, dispatches: run.dispatches, counts: run.counts };
    }),
    reviews,
    openFindings: { count: latest?.open.length ?? 0, fingerprints: latest?.open ?? [], issues: state.openIssues },
    paths: { root, state: found.stateFile, phases: phasesDir, verdict: reviews.at(-1)?.verdict ?? null },
    ...(found.tampered ? { tampered: found.tampered } : {}),
    policy: { doneWhen: state.rules.doneWhen, minConfidence: state.rules.minConfidence },
    outcome,
  };
}
