/**
 * The facts of one loop, running or finished: per round the open findings, checks, score and cost; the
 * best round; what remains open, contested and escalated; the total change. REPORT.md, the outcome line,
 * /minions:status and `minions status --json` all render these same facts. Pure.
 */
import { REPORT_NAME } from '../protocol/paths';
import type { EscalationOutcome, MergedFinding, Verdict } from '../protocol/verdict-schema';
import type { Counts } from '../protocol/reviewer-output';
import type { IterationRecord, State } from '../state/schema';
import { loopCost, roundCost, type CostTotal } from './cost';
import { bestStanding, gapBelow, type ChecksTally, type Gap, type Standing } from './rank';

export interface FindingFact {
  round: number;
  fingerprint: string;
  severity: MergedFinding['severity'];
  category: string;
  file: string;
  line: number | null;
  description: string;
  reporters: string[];
  status: MergedFinding['status'];
  /** Not found in the code as quoted: sent to the fixer to check (critical or warning). */
  unverified?: true;
  /** No code quoted (no evidence, or a command): nothing to check the finding against. */
  unquoted?: true;
  /** The reason the user dismissed it (.minions/dismissed.json). */
  dismissed?: string;
}

export interface RoundFacts {
  round: number;
  /** The round's review finished with a verdict. */
  reviewed: boolean;
  open: Counts & { total: number };
  contested: number;
  ungrounded: number;
  score: number | null;
  scale: number | null;
  readiness: string | null;
  checks: ChecksTally | null;
  /** The fix round's status: complete, no_summary, skipped, pending or running. */
  fix: IterationRecord['r2']['status'];
  cost: CostTotal;
  /** From the round's start to the next round's start (or the loop's last update). */
  elapsedMs: number | null;
  /** The tree the review judged (its end, or its start when it never ended). */
  tree: string | null;
  best: boolean;
  /** Project-relative paths of the round's files. */
  files: { review: string; verdict: string };
}

/** Which loop, where it stands and why it stopped: what the reports and the status both begin with. */
export type LoopHeader = Pick<State, 'runId' | 'task' | 'status' | 'iteration' | 'maxIterations' | 'stopReason' | 'stopDetail' | 'startedAt' | 'updatedAt'> & {
  phase: State['currentPhase'];
};

export interface LoopFacts extends LoopHeader {
  rounds: RoundFacts[];
  /** The best reviewed round, or null before any review finished. */
  best: number | null;
  final: {
    tree: string | null;
    /** The round whose review judged the final tree; null when the last fix was never reviewed. */
    reviewedRound: number | null;
    /** Set when the final tree ranks below the best round. */
    gap: Gap | null;
  };
  /** The last reviewed round's open and contested findings. */
  open: FindingFact[];
  contested: FindingFact[];
  /** The last reviewed round's findings the user dismissed, with the reasons. */
  dismissed: FindingFact[];
  /** Finding classes escalated to the critic (seed 003), each as its latest round had it, with the diagnosis. */
  escalated: (EscalationOutcome & { round: number })[];
  /** The user's answer to the escalation question (null: never asked). */
  escalationChoice: State['escalationChoice'];
  ungrounded: number;
  /** `git diff --stat` from the loop's base tree to its final tree; null outside git. */
  totalChange: string | null;
  cost: CostTotal & { budget: number | null };
  files: { phases: string; report: string };
  /** What the loop reviewed: its base commit and why (baseChoice null: a loop from before --base), and whether it was review-only. */
  scope: Pick<State, 'base' | 'baseChoice' | 'reviewOnly'>;
  /** The completion policy the loop ran by (--done-when, --min-confidence). */
  policy: Pick<State['rules'], 'doneWhen' | 'minConfidence'>;
  /** The loop's cost profile: its reviewers and the models asked. */
  effort: State['effort'];
}

export interface FactsInput {
  state: State;
  /** Each round's verdict (index 0 = round 1); null where the file is missing or unreadable. */
  verdicts: readonly (Verdict | null)[];
  checks: readonly (ChecksTally | null)[];
  totalChange: string | null;
  /** Where this run's phases are, relative to the project, ending in '/'. */
  phasesDir: string;
}

export const roundTree = (it: IterationRecord): string | null => it.trees.reviewEnd ?? it.trees.reviewStart;
export const finalTree = (state: State): string | null => {
  const t = state.iterations[state.iterations.length - 1]!.trees;
  return t.fixEnd ?? t.reviewEnd ?? t.reviewStart ?? state.baseTree;
};

const factOf = (round: number, f: MergedFinding): FindingFact => ({
  round,
  fingerprint: f.fingerprint,
  severity: f.severity,
  category: f.category,
  file: f.file,
  line: f.line,
  description: f.description,
  reporters: [...f.reporters],
  status: f.status,
  ...(f.unverified ? { unverified: true as const } : {}),
  ...(f.grounding.status === 'unquoted' ? { unquoted: true as const } : {}),
  ...(f.dismissed !== null ? { dismissed: f.dismissed } : {}),
});

export function loopFacts(input: FactsInput): LoopFacts {
  const { state } = input;
  const standings: Standing[] = state.iterations.flatMap((it) =>
    it.verdict
      ? [{ round: it.iteration, open: { critical: it.verdict.critical, warning: it.verdict.warning, info: it.verdict.info }, score: it.verdict.score, checks: input.checks[it.iteration - 1] ?? null }]
      : [],
  );
  const best = bestStanding(standings);
  const last = state.iterations[state.iterations.length - 1]!;
  const lastReviewedTree = roundTree(last);
  const finalReviewed = last.verdict !== null && (last.trees.fixEnd === null || last.trees.fixEnd === lastReviewedTree) ? last.iteration : null;
  const finalStanding = standings.find((s) => s.round === finalReviewed) ?? null;

  const rounds: RoundFacts[] = state.iterations.map((it, i) => {
    const verdict = input.verdicts[it.iteration - 1] ?? null;
    const next = state.iterations[i + 1];
    const end = next ? next.startedAt : state.updatedAt;
    const elapsed = Date.parse(end) - Date.parse(it.startedAt);
    return {
      round: it.iteration,
      reviewed: it.verdict !== null,
      open: { critical: it.verdict?.critical ?? 0, warning: it.verdict?.warning ?? 0, info: it.verdict?.info ?? 0, total: it.verdict?.total ?? 0 },
      contested: it.verdict?.contested ?? 0,
      ungrounded: verdict ? verdict.findings.filter((f) => f.grounding.status === 'ungrounded').length : 0,
      score: it.verdict?.score ?? null,
      scale: it.verdict?.scale ?? null,
      readiness: it.verdict?.readiness ?? null,
      checks: input.checks[it.iteration - 1] ?? null,
      fix: it.r2.status,
      cost: roundCost(it),
      elapsedMs: Number.isFinite(elapsed) && elapsed >= 0 ? elapsed : null,
      tree: roundTree(it),
      best: best?.round === it.iteration,
      files: { review: `${input.phasesDir}review-${it.iteration}/REVIEW.md`, verdict: `${input.phasesDir}review-${it.iteration}/r1-verdict.json` },
    };
  });

  const lastVerdictRound = [...state.iterations].reverse().find((it) => it.verdict !== null)?.iteration ?? null;
  const lastVerdict = lastVerdictRound ? (input.verdicts[lastVerdictRound - 1] ?? null) : null;
  const escalated = new Map<string, EscalationOutcome & { round: number }>();
  for (const v of input.verdicts) for (const e of v?.escalations ?? []) escalated.set(e.class, { ...e, round: v!.iteration });
  return {
    runId: state.runId,
    task: state.task,
    status: state.status,
    phase: state.currentPhase,
    iteration: state.iteration,
    maxIterations: state.maxIterations,
    stopReason: state.stopReason,
    stopDetail: state.stopDetail,
    startedAt: state.startedAt,
    updatedAt: state.updatedAt,
    rounds,
    best: best?.round ?? null,
    final: {
      tree: finalTree(state),
      reviewedRound: finalReviewed,
      gap: finalStanding && best ? gapBelow(finalStanding, best) : null,
    },
    open: lastVerdict ? lastVerdict.findings.filter((f) => f.toFixer).map((f) => factOf(lastVerdictRound!, f)) : [],
    contested: lastVerdict ? lastVerdict.findings.filter((f) => f.status === 'CONTESTED' && f.dismissed === null).map((f) => factOf(lastVerdictRound!, f)) : [],
    dismissed: lastVerdict ? lastVerdict.findings.filter((f) => f.dismissed !== null).map((f) => factOf(lastVerdictRound!, f)) : [],
    escalated: [...escalated.values()],
    escalationChoice: state.escalationChoice,
    ungrounded: lastVerdict ? lastVerdict.findings.filter((f) => f.grounding.status === 'ungrounded' && !f.unverified).length : 0,
    totalChange: input.totalChange,
    cost: { ...loopCost(state), budget: state.rules.maxTokens },
    files: { phases: input.phasesDir, report: `${input.phasesDir}${REPORT_NAME}` },
    scope: { base: state.base, baseChoice: state.baseChoice, reviewOnly: state.reviewOnly },
    policy: { doneWhen: state.rules.doneWhen, minConfidence: state.rules.minConfidence },
    effort: state.effort,
  };
}
