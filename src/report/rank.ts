/**
 * The best attempt: every reviewed round's tree gets a standing, and the rounds are ranked by
 * the project's checks that pass, then the open findings weighted by severity, then the score. Pure.
 */
import type { Counts } from '../protocol/reviewer-output';

export interface ChecksTally {
  passed: number;
  failed: number;
}

export interface Standing {
  round: number;
  /** Open findings (grounded, not contested) by severity. */
  open: Counts;
  score: number;
  /** null: no check results for this round's tree; checks are then left out of its comparisons. */
  checks: ChecksTally | null;
}

/**
 * This project's own weights per open finding (45, 10, 2: the score's penalties as whole numbers), a
 * choice of its own and not taken from the designs it grew from.
 */
export const SEVERITY_WEIGHT: Record<keyof Counts, number> = { critical: 45, warning: 10, info: 2 };

export const weightOf = (open: Counts): number =>
  open.critical * SEVERITY_WEIGHT.critical + open.warning * SEVERITY_WEIGHT.warning + open.info * SEVERITY_WEIGHT.info;

/**
 * Positive when a ranks above b. Checks count only when both rounds have results (neutral otherwise), so
 * a round without check results is neither rewarded nor punished for it.
 */
export function compareStandings(a: Standing, b: Standing): number {
  if (a.checks && b.checks && a.checks.passed !== b.checks.passed) return a.checks.passed - b.checks.passed;
  const byFindings = weightOf(b.open) - weightOf(a.open);
  if (byFindings !== 0) return byFindings;
  return Math.sign(Math.round((a.score - b.score) * 100));
}

/** The best round; on a tie the later one (the loop's own result is not second-guessed for nothing). */
export function bestStanding(standings: readonly Standing[]): Standing | null {
  let best: Standing | null = null;
  for (const s of standings) if (!best || compareStandings(s, best) >= 0) best = s;
  return best;
}

/** How a round compares with the best one, for saying so plainly. */
export interface Gap {
  round: number;
  best: number;
  /** This round's open findings minus the best round's, by severity. */
  findings: Counts;
  /** null: no checks on one of the trees, or the same results on both. */
  checks: { round: ChecksTally; best: ChecksTally } | null;
  score: { round: number; best: number };
}

/** The gap when `round` ranks strictly below `best`; null when it does not. */
export function gapBelow(round: Standing, best: Standing): Gap | null {
  if (round.round === best.round || compareStandings(round, best) >= 0) return null;
  return {
    round: round.round,
    best: best.round,
    findings: {
      critical: round.open.critical - best.open.critical,
      warning: round.open.warning - best.open.warning,
      info: round.open.info - best.open.info,
    },
    // Named only where they differ: "1 of 2 against 1 of 2" says nothing.
    checks: round.checks && best.checks && (round.checks.passed !== best.checks.passed || round.checks.failed !== best.checks.failed) ? { round: round.checks, best: best.checks } : null,
    score: { round: round.score, best: best.score },
  };
}
