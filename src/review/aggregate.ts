/**
 * One round's verdict from five reviews: merged findings with one identity across reviewers and rounds,
 * grounding, scores, re-review statuses, pattern memory and the stop rules. Pure.
 */
import { REVIEWERS, type Reviewer } from '../core/agents';
import * as msg from '../messages';
import { classify, escalationOutcomes, stuckEscalations, type FixRound } from './classes';
import { fingerprintOf, normaliseCategory, normaliseCode, normaliseFile, sameDefect, type IdentityKey } from './fingerprint';
import { codeAround, ground, isCommandEvidence, type Sources } from './grounding';
import { Finding, countBySeverity, parseReview, type Diagnosis, type Severity } from './reviewer-output';
import { heuristicScore, scoreFindings, scoreOf } from './scoring';
import type { EscalationReason, MergedFinding, Pitfall, StatusRow, StopReason, Verdict } from './verdict-schema';

export interface StopRules {
  /** structural_rework_needed: more than this many critical findings in one round. */
  maxCritical: number;
  /** stuck_issue: one finding NOT_FIXED or REGRESSED in this many consecutive rounds. */
  stuckRounds: number;
  /** no_progress: two consecutive fix summaries at least this similar (simhash). */
  similarity: number;
}
export const DEFAULT_RULES: StopRules = { maxCritical: 5, stuckRounds: 3, similarity: 0.95 };

export interface RoundInput {
  iteration: number;
  maxIterations: number;
  task: string;
  now: string;
  rules: StopRules;
  /** Each reviewer's final text, and whether it was accepted. */
  reviews: Record<Reviewer, { text: string | null; valid: boolean; error: string | null }>;
  sources: Sources;
  /** Earlier rounds' verdicts, oldest first (unreadable ones left out). */
  history: Verdict[];
  /** How often the fixer declined each fingerprint, over all earlier rounds. */
  declines: Record<string, number>;
  /** Project files that changed while this round was being reviewed: the reviews may not describe the tree. */
  changedDuringReview?: string[];
  /** The fixer's answers of earlier rounds, for the finding classes' history. */
  fixes?: FixRound[];
  /** The finding classes this round's critic was asked to diagnose (escalation.json). */
  escalated?: { class: string; reason: EscalationReason }[];
}

/** A finding declined this many times and raised again is contested. */
export const CONTESTED_AFTER = 2;
const SEVERITY_RANK: Record<Severity, number> = { critical: 3, warning: 2, info: 1 };

interface Reported {
  reviewer: Reviewer;
  finding: Finding;
  key: IdentityKey;
  grounding: ReturnType<typeof ground>;
}

export function identityOf(finding: Finding, sources: Sources): IdentityKey {
  const named = normaliseFile(finding.file);
  const source = sources[named];
  const file = source?.kind === 'file' && source.rel ? source.rel : named;
  const family = normaliseCategory(finding.category);
  let text = isCommandEvidence(finding.evidence) ? normaliseCode(finding.evidence.split('\n').slice(0, 2).join('\n').replace(/\d+/g, '#')) : normaliseCode(finding.evidence);
  if (!text) text = codeAround(sources, named, finding.line) || normaliseCode(finding.description);
  return { file, family, text };
}

/** Findings of a review that could only be partly read: each issue that validates on its own. */
export function salvage(text: string | null): { data: unknown; findings: Finding[] } {
  if (text === null) return { data: null, findings: [] };
  try {
    const data = JSON.parse(text) as { issues?: unknown };
    const issues = Array.isArray(data?.issues) ? data.issues : [];
    return { data, findings: issues.flatMap((i) => { const r = Finding.safeParse(i); return r.success ? [r.data] : []; }) };
  } catch {
    return { data: null, findings: [] };
  }
}

/** Marks reviewers gave earlier findings: fingerprint → PARTIAL. */
function partialMarks(reviews: RoundInput['reviews']): Set<string> {
  const marks = new Set<string>();
  for (const r of REVIEWERS) {
    const text = reviews[r].text;
    if (!reviews[r].valid || text === null) continue;
    const parsed = parseReview(text);
    if (parsed.ok) for (const p of parsed.previous) if (p.status === 'PARTIAL') marks.add(p.fingerprint);
  }
  return marks;
}

export function aggregateRound(input: RoundInput): Verdict {
  const reported: Reported[] = [];
  const reviewers = {} as Verdict['reviewers'];
  let diagnoses: Diagnosis[] = [];
  for (const r of REVIEWERS) {
    const review = input.reviews[r];
    const parsed = review.valid && review.text !== null ? parseReview(review.text) : null;
    if (r === 'critic' && parsed?.ok) diagnoses = parsed.diagnosis;
    const partly = parsed?.ok ? null : salvage(review.text);
    const findings = parsed?.ok ? parsed.issues : partly!.findings;
    const mine = findings.map((finding) => ({ reviewer: r, finding, key: identityOf(finding, input.sources), grounding: ground(finding, input.sources) }));
    reported.push(...mine);
    const grounded = mine.filter((m) => m.grounding.status !== 'ungrounded').map((m) => m.finding);
    const score = parsed?.ok ? scoreFindings(grounded) : partly!.data ? heuristicScore(partly!.data, grounded) : 0;
    reviewers[r] = {
      status: parsed?.ok ? 'valid' : 'invalid',
      scoring: parsed?.ok ? 'findings' : partly!.data ? 'heuristic' : 'none',
      ...countBySeverity(grounded),
      ungrounded: mine.length - grounded.length,
      ...scoreOf(score),
      error: parsed?.ok ? null : (review.error ?? (parsed && !parsed.ok ? parsed.error : 'no valid output')),
      notes: parsed?.ok ? parsed.notes : [],
    };
  }

  const clusters = cluster(reported);
  const previous = input.history[input.history.length - 1];
  const wasOpen = (v: Verdict) => v.findings.filter((f) => f.toFixer || f.status === 'CONTESTED');
  const prevOpen = previous ? wasOpen(previous) : [];
  const earlierOpen = input.history.slice(0, -1).flatMap(wasOpen).reverse(); // latest first
  const partial = partialMarks(input.reviews);
  const keyOf = (f: Pick<MergedFinding, 'file' | 'category' | 'identity'>): IdentityKey => ({ file: f.file, family: f.category, text: f.identity });

  const merged: MergedFinding[] = clusters.map((members) => {
    const merged = mergeCluster(members);
    const grounded = merged.grounding.status !== 'ungrounded';
    // Identity across rounds: a finding that matches an earlier one keeps the earlier fingerprint.
    const before = prevOpen.find((p) => sameDefect(keyOf(p), keyOf(merged))) ?? earlierOpen.find((p) => sameDefect(keyOf(p), keyOf(merged)));
    const fingerprint = before?.fingerprint ?? merged.fingerprint;
    let status: MergedFinding['status'] = 'NEW';
    if (before && prevOpen.includes(before)) status = partial.has(fingerprint) ? 'PARTIAL' : 'NOT_FIXED';
    else if (before) status = 'REGRESSED';
    if ((input.declines[fingerprint] ?? 0) >= CONTESTED_AFTER) status = 'CONTESTED';
    return { ...merged, fingerprint, status, toFixer: grounded && status !== 'CONTESTED' };
  });
  const { findings, classes } = classify(merged, input.history, input.fixes ?? [], input.iteration);
  const escalations = escalationOutcomes(input.escalated ?? [], classes, diagnoses, input.history.find((v) => v.iteration === input.iteration - 1), input.fixes ?? []);

  const statuses: StatusRow[] = [];
  if (previous) {
    for (const p of prevOpen) {
      const now = findings.find((f) => f.fingerprint === p.fingerprint);
      const status = now ? now.status : partial.has(p.fingerprint) ? 'PARTIAL' : 'FIXED';
      statuses.push(row(p, status));
    }
    for (const f of findings) if (f.grounding.status !== 'ungrounded' && !prevOpen.some((p) => p.fingerprint === f.fingerprint)) statuses.push(row(f, f.status));
  }

  const open = findings.filter((f) => f.toFixer);
  const counts = countBySeverity(open);
  const anyInvalid = REVIEWERS.some((r) => reviewers[r].status === 'invalid');
  const overall = open.length > 0 || anyInvalid ? 'issues_found' : 'clean';
  const pitfalls = patternMemory(open, input.history);
  const { next, stopReason, stopDetail } = decide(input, overall, open, counts.critical);
  return {
    iteration: input.iteration,
    maxIterations: input.maxIterations,
    task: input.task,
    overall_verdict: overall,
    total_issues: open.length,
    ...counts,
    ...scoreOf(scoreFindings(open)),
    reviewers,
    findings,
    statuses,
    pitfalls,
    changedDuringReview: input.changedDuringReview ?? [],
    classes,
    escalations,
    next,
    stopReason,
    stopDetail,
    createdAt: input.now,
  };

  function decide(input: RoundInput, overall: string, open: MergedFinding[], critical: number): Pick<Verdict, 'next' | 'stopReason' | 'stopDetail'> {
    const stop = (stopReason: StopReason, stopDetail: string) => ({ next: 'STOPPED' as const, stopReason, stopDetail });
    const changed = input.changedDuringReview ?? [];
    // Seed 003: an escalated class ends the loop with the critic's diagnosis, even after a clean review.
    const stuckClasses = stuckEscalations(escalations);
    if (stuckClasses.length > 0) return stop('stuck_issue', msg.stuckClasses(stuckClasses));
    if (overall === 'clean' && changed.length > 0) {
      // Clean, but about a tree that is no longer there: review the tree as it is now, never DONE on this one.
      if (input.iteration >= input.maxIterations) {
        return stop('changed_during_review', `${changed.length} project file(s) changed while the last review ran (${changed.slice(0, 5).join(', ')}): the clean review does not cover them`);
      }
      return { next: 'R1', stopReason: null, stopDetail: null };
    }
    if (overall === 'clean') return { next: 'DONE', stopReason: null, stopDetail: null };
    if (critical > input.rules.maxCritical) {
      return stop('structural_rework_needed', `${critical} critical findings in one round (more than ${input.rules.maxCritical}): the change needs structural rework, not patching`);
    }
    const stuck = open.find((f) => streak(f, input.history) >= input.rules.stuckRounds);
    if (stuck) {
      return stop('stuck_issue', `${stuck.file}${stuck.line ? `:${stuck.line}` : ''} (${stuck.category}) has not been fixed in ${input.rules.stuckRounds} consecutive round${input.rules.stuckRounds === 1 ? '' : 's'}: it needs structural work`);
    }
    if (input.iteration >= input.maxIterations) return stop('max_iterations', `${open.length} finding(s) still open after ${input.maxIterations} iteration(s)`);
    return { next: open.length > 0 ? 'R2' : 'R1', stopReason: null, stopDetail: null };
  }
}

/** Consecutive rounds, ending with this one, in which the finding was NOT_FIXED or REGRESSED. */
function streak(finding: MergedFinding, history: Verdict[]): number {
  if (finding.status !== 'NOT_FIXED' && finding.status !== 'REGRESSED') return 0;
  let n = 1;
  for (let i = history.length - 1; i >= 0; i--) {
    const then = history[i]!.findings.find((f) => f.fingerprint === finding.fingerprint);
    if (!then || (then.status !== 'NOT_FIXED' && then.status !== 'REGRESSED')) break;
    n += 1;
  }
  return n;
}

/** Seed 000's pattern memory, keyed by finding identity: what stayed open in two or more rounds. */
function patternMemory(open: MergedFinding[], history: Verdict[]): Pitfall[] {
  return open
    .map((f) => ({ f, seen: 1 + history.filter((v) => v.findings.some((p) => p.fingerprint === f.fingerprint && (p.toFixer || p.status === 'CONTESTED'))).length }))
    .filter(({ seen }) => seen >= 2)
    .sort((a, b) => b.seen - a.seen || a.f.fingerprint.localeCompare(b.f.fingerprint))
    .slice(0, 5)
    .map(({ f, seen }) => ({ fingerprint: f.fingerprint, seen, file: f.file, category: f.category, description: f.description, rule: f.suggestion || f.description }));
}

const row = (f: MergedFinding, status: StatusRow['status']): StatusRow => ({
  fingerprint: f.fingerprint,
  status,
  severity: f.severity,
  file: f.file,
  category: f.category,
  description: f.description,
});

/** Groups reports of the same defect (union-find over sameDefect), in reporting order. */
function cluster(reported: Reported[]): Reported[][] {
  const parent = reported.map((_, i) => i);
  const findRoot = (i: number): number => (parent[i] === i ? i : (parent[i] = findRoot(parent[i]!)));
  for (let i = 0; i < reported.length; i++) {
    for (let j = i + 1; j < reported.length; j++) {
      if (sameDefect(reported[i]!.key, reported[j]!.key)) parent[findRoot(j)] = findRoot(i);
    }
  }
  const groups = new Map<number, Reported[]>();
  reported.forEach((r, i) => {
    const root = findRoot(i);
    groups.set(root, [...(groups.get(root) ?? []), r]);
  });
  return [...groups.values()];
}

const longest = (texts: string[]): string => texts.reduce((a, b) => (b.trim().length > a.trim().length ? b : a), '');

function mergeCluster(members: Reported[]): Omit<MergedFinding, 'status' | 'toFixer'> {
  // The representative: the most specific (shortest) identity, preferring a grounded report.
  const ranked = [...members].sort(
    (a, b) =>
      Number(a.grounding.status === 'ungrounded') - Number(b.grounding.status === 'ungrounded') ||
      a.key.text.length - b.key.text.length ||
      fingerprintOf(a.key).localeCompare(fingerprintOf(b.key)),
  );
  const rep = ranked[0]!;
  const severity = members.reduce<Severity>((s, m) => (SEVERITY_RANK[m.finding.severity] > SEVERITY_RANK[s] ? m.finding.severity : s), 'info');
  return {
    fingerprint: fingerprintOf(rep.key),
    severity,
    category: rep.key.family,
    categories: [...new Set(members.map((m) => m.finding.category))],
    file: rep.key.file,
    line: rep.grounding.line,
    description: longest(members.map((m) => m.finding.description)),
    evidence: rep.finding.evidence,
    suggestion: longest(members.map((m) => m.finding.suggestion)),
    reporters: REVIEWERS.filter((r) => members.some((m) => m.reviewer === r)),
    identity: rep.key.text,
    grounding: { status: rep.grounding.status, reason: rep.grounding.reason },
    class: '',
  };
}
