/**
 * One round's verdict from five reviews: merged findings with one identity across reviewers and rounds,
 * grounding, scores, re-review statuses, pattern memory and the stop rules. Pure.
 */
import { REPORTERS, REVIEWERS, type Reporter, type Reviewer } from '../protocol/agents';
import type { MachineFinding } from '../protocol/machine-finding';
import * as reviewTexts from './texts';
import { classify, escalationOutcomes, stuckEscalations, type FixRound } from './classes';
import { IdentityIndex, clusterKeys } from './clusters';
import { fingerprintOf, normaliseCategory, normaliseCode, normaliseFile, type IdentityKey } from './fingerprint';
import { grounderFor, isCommandEvidence, type Grounding, type Sources } from './grounding';
import { Finding, countBySeverity, parseReview, type Diagnosis, type ParsedReview, type Severity } from '../protocol/reviewer-output';
import { coversReview, type ReviewReading } from './reading';
import { heuristicScore, scoreFindings, scoreOf } from './scoring';
import type { StopRules } from '../protocol/stop-rules';
import type { Dismissal } from '../protocol/dismissed';
import type { EscalationReason, MergedFinding, Pitfall, StatusRow, StopReason, Verdict } from '../protocol/verdict-schema';

export interface RoundInput {
  iteration: number;
  maxIterations: number;
  task: string;
  now: string;
  rules: StopRules;
  /** Each reviewer's final text, and whether it was accepted; `notRun`: outside the loop's effort profile. */
  reviews: Record<Reviewer, { text: string | null; valid: boolean; error: string | null; notRun?: boolean }>;
  sources: Sources;
  /** Earlier rounds' verdicts, oldest first (unreadable ones left out). */
  history: Verdict[];
  /** In how many earlier rounds the fixer declined each fingerprint. */
  declines: Record<string, number>;
  /** Project files that changed while this round was being reviewed: the reviews may not describe the tree. */
  changedDuringReview?: string[];
  /** Files the review's test runs left: named in the verdict, not counted as changes. */
  testArtefacts?: string[];
  /** The fixer's answers of earlier rounds, for the finding classes' history. */
  fixes?: FixRound[];
  /** The finding classes this round's critic was asked to diagnose (escalation.json). */
  escalated?: { class: string; reason: EscalationReason }[];
  /** The hooks' own findings on the fix before this round: Layer-0 hits and checks it broke. */
  machine?: MachineFinding[];
  /** How each reviewer's stop read its review (the validated review, grounding and identity of each finding), where kept: its text is then not needed. */
  readings?: Partial<Record<Reviewer, ReviewReading>>;
  /** The user's dismissals (.minions/dismissed.json). */
  dismissed?: readonly Dismissal[];
}

/** A finding declined in this many rounds and raised again is contested. */
export const CONTESTED_AFTER = 2;
const SEVERITY_RANK: Record<Severity, number> = { critical: 3, warning: 2, info: 1 };

export interface Reported {
  reviewer: Reporter;
  finding: Finding;
  key: IdentityKey;
  grounding: Grounding;
  /** What was read other than as written (review-reader.ts). */
  interpreted?: readonly string[];
}

/**
 * Whether a merged finding goes to the fixer. An ungrounded one does only at critical or warning
 * severity, marked unverified (its reviewer was shown it and kept it): the fixer checks it against the
 * code, and one decline closes it. Never silently dropped: it stays in the verdict either way.
 */
function routed(f: MergedFinding, declines: Record<string, number>, anyDeclines: boolean): void {
  // Held by the completion policy: it can neither block DONE nor keep the loop going (classes, streaks, CONTESTED, the fixpoint).
  if (f.held) {
    f.toFixer = f.unverified = false;
    return;
  }
  const declined = anyDeclines ? (declines[f.fingerprint] ?? 0) : 0;
  const unsupported = f.grounding.status === 'ungrounded' || (f.grounding.status === 'unquoted' && !supported(f));
  f.unverified = unsupported && f.severity !== 'info';
  if (f.unverified && declined >= 1 && f.status !== 'CONTESTED') f.status = 'CONTESTED';
  f.toFixer = (!unsupported || f.unverified) && f.status !== 'CONTESTED';
}

/**
 * What the completion policy holds a finding for (--min-confidence, then --done-when), or null when it
 * counts. Two reviewers or more lift a low confidence; the hooks' own findings are facts and always count.
 */
export function heldBy(f: Pick<MergedFinding, 'reporters' | 'severity' | 'confidence'>, rules: Pick<StopRules, 'doneWhen' | 'minConfidence'>): MergedFinding['held'] {
  const reviewers = f.reporters.filter((r) => (REVIEWERS as readonly string[]).includes(r)).length;
  if (reviewers < f.reporters.length) return null;
  if (f.confidence !== null && f.confidence < rules.minConfidence && reviewers < 2) return 'confidence';
  return SEVERITY_RANK[f.severity] < SEVERITY_RANK[rules.doneWhen] ? 'level' : null;
}

/**
 * An unquoted finding (no code quoted: nothing to check) stands as found when another signal supports
 * it: a cited line that exists in the file, or a second reviewer reporting the same finding. Without
 * one it is routed like an ungrounded finding.
 */
export function supported(f: Pick<MergedFinding, 'line' | 'reporters'>): boolean {
  return f.line !== null || f.reporters.filter((r) => (REVIEWERS as readonly string[]).includes(r)).length >= 2;
}

/**
 * A finding's identity: its real file, category family and the flat text its evidence matched (the
 * reading that matched, so two readings of one quote are one finding); the quote as written when it
 * matched nothing; the code around the line when it quotes nothing.
 */
export function identityOf(finding: Finding, sources: Sources, grounding: Grounding = grounderFor(sources).ground(finding)): IdentityKey {
  const named = normaliseFile(finding.file);
  const source = sources[named];
  const file = source?.kind === 'file' && source.rel ? source.rel : named;
  const family = normaliseCategory(finding.category);
  let text = isCommandEvidence(finding.evidence)
    ? normaliseCode(finding.evidence.split('\n').slice(0, 2).join('\n').replace(/\d+/g, '#'))
    : (grounding.matched ?? normaliseCode(finding.evidence));
  if (!text) text = grounderFor(sources).codeAround(named, finding.line) || normaliseCode(finding.description);
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

/**
 * Marks the valid reviews gave earlier findings (`parsed` in REVIEWERS order): fingerprint → the gravest
 * one (NOT_FIXED before PARTIAL) and the reviewers who gave a mark that is not FIXED.
 */
function previousMarks(parsed: readonly (ParsedReview | null)[]): Map<string, { status: 'PARTIAL' | 'NOT_FIXED'; by: Reviewer[] }> {
  const marks = new Map<string, { status: 'PARTIAL' | 'NOT_FIXED'; by: Reviewer[] }>();
  parsed.forEach((p, i) => {
    if (!p?.ok) return;
    for (const mark of p.previous) {
      if (mark.status !== 'PARTIAL' && mark.status !== 'NOT_FIXED') continue;
      const had = marks.get(mark.fingerprint);
      const by = [...new Set([...(had?.by ?? []), REVIEWERS[i]!])];
      marks.set(mark.fingerprint, { status: had?.status === 'NOT_FIXED' || mark.status === 'NOT_FIXED' ? 'NOT_FIXED' : 'PARTIAL', by });
    }
  });
  return marks;
}

export function aggregateRound(input: RoundInput): Verdict {
  const reported: Reported[] = [];
  const reviewers = {} as Verdict['reviewers'];
  let diagnoses: Diagnosis[] = [];
  const grounder = grounderFor(input.sources);
  // Reviewers often report the same finding: one identity per matched code and category.
  const identities = new Map<Grounding, Map<string, IdentityKey>>();
  const identity = (finding: Finding, grounding: Grounding): IdentityKey => {
    if (grounding.matched === null || isCommandEvidence(finding.evidence)) return identityOf(finding, input.sources, grounding);
    let byCategory = identities.get(grounding);
    if (!byCategory) identities.set(grounding, (byCategory = new Map()));
    let key = byCategory.get(finding.category);
    if (!key) byCategory.set(finding.category, (key = identityOf(finding, input.sources, grounding)));
    return key;
  };
  const parsedReviews: (ParsedReview | null)[] = [];
  for (const r of REVIEWERS) {
    const review = input.reviews[r];
    if (review.notRun) {
      // Not in the loop's effort profile: no findings, no score of its own, neither valid nor invalid.
      parsedReviews.push(null);
      reviewers[r] = { status: 'not_run', scoring: 'none', critical: 0, warning: 0, info: 0, ungrounded: 0, unquoted: 0, unchecked: 0, ...scoreOf(1), error: null, notes: [] };
      continue;
    }
    // Read at the reviewer's stop: the review as validated then, and its findings grounded against the
    // files as they were then (a project file changed since is named in the verdict, which then never ends DONE).
    const reading = review.valid ? input.readings?.[r] : undefined;
    const kept = reading && coversReview(reading) ? reading : null;
    const parsed = kept ? kept.review : review.valid && review.text !== null ? parseReview(review.text) : null;
    parsedReviews.push(parsed);
    if (r === 'critic' && parsed?.ok) diagnoses = parsed.diagnosis;
    const partly = parsed?.ok ? null : salvage(review.text);
    const findings = parsed?.ok ? parsed.issues : partly!.findings;
    const read = kept?.rows ?? null;
    const interpreted = parsed?.ok ? parsed.interpreted : undefined;
    // One pass over the review's findings (a round holds thousands): each report, and the counts of its grounding.
    const grounded: Finding[] = [];
    let ungrounded = 0;
    let unquoted = 0;
    let unchecked = 0;
    for (let i = 0; i < findings.length; i++) {
      const finding = findings[i]!;
      const grounding = read ? read[i]!.grounding : grounder.ground(finding);
      const key = read ? read[i]!.key : identity(finding, grounding);
      // Read other than as written: the reader's notes, and a line taken from where the quote was found.
      const notes = interpreted?.[i];
      const fromQuote = finding.line === null && grounding.line !== null;
      const report: Reported = { reviewer: r, finding, key, grounding };
      if (fromQuote) report.interpreted = [...(notes ?? []), reviewTexts.lineFromQuote(grounding.line!)];
      else if (notes?.length) report.interpreted = notes;
      reported.push(report);
      // Unquoted findings are not grounded: they do not count in the reviewer's score either way.
      if (grounding.status === 'ungrounded') ungrounded++;
      else if (grounding.status === 'unquoted') unquoted++;
      else {
        if (grounding.status === 'unchecked') unchecked++;
        grounded.push(finding);
      }
    }
    const score = parsed?.ok ? scoreFindings(grounded) : partly!.data ? heuristicScore(partly!.data, grounded) : 0;
    reviewers[r] = {
      status: parsed?.ok ? 'valid' : 'invalid',
      scoring: parsed?.ok ? 'findings' : partly!.data ? 'heuristic' : 'none',
      ...countBySeverity(grounded),
      ungrounded,
      unquoted,
      unchecked,
      ...scoreOf(score),
      error: parsed?.ok ? null : (review.error ?? (parsed && !parsed.ok ? parsed.error : 'no valid output')),
      notes: parsed?.ok ? parsed.notes : [],
    };
  }

  // The hooks' findings are facts about the tree, not opinions: grounded as they are, identified like the rest.
  for (const m of input.machine ?? []) {
    const finding: Finding = { severity: m.severity, category: m.category, file: m.file, line: m.line, description: m.description, evidence: m.evidence, suggestion: m.suggestion };
    const key: IdentityKey = { file: m.file, family: normaliseCategory(m.category), text: normaliseCode(m.evidence) || normaliseCode(m.description) };
    const grounding: Grounding = { status: 'grounded', reason: null, line: m.line, reading: { file: null, evidence: null }, matched: key.text };
    reported.push({ reviewer: m.reporter, finding, key, grounding });
  }

  const clusters = clusterKeys(reported.map((r) => r.key)).map((group) => group.map((i) => reported[i]!));
  const previous = input.history[input.history.length - 1];
  const wasOpen = (v: Verdict) => v.findings.filter((f) => f.toFixer || f.status === 'CONTESTED');
  const prevOpen = previous ? wasOpen(previous) : [];
  const marks = previousMarks(parsedReviews);
  const partial = { has: (fingerprint: string): boolean => marks.get(fingerprint)?.status === 'PARTIAL' };
  const keyOf = (f: Pick<MergedFinding, 'file' | 'category' | 'identity'>): IdentityKey => ({ file: f.file, family: f.category, text: f.identity });
  // Identity across rounds: a finding that matches an earlier one keeps the earlier fingerprint; the
  // previous round first, then the rounds before it, latest first.
  const earlier = new IdentityIndex<{ finding: MergedFinding; open: boolean }>();
  for (const f of prevOpen) earlier.add(keyOf(f), { finding: f, open: true });
  for (const v of input.history.slice(0, -1).reverse()) for (const f of wasOpen(v)) earlier.add(keyOf(f), { finding: f, open: false });

  // A first round has no earlier findings and no declines: nothing to look up for each of its findings.
  const anyEarlier = earlier.size > 0;
  const anyDeclines = Object.keys(input.declines).length > 0;
  const merged: MergedFinding[] = clusters.map((members) => {
    const merged = mergeCluster(members);
    const before = anyEarlier ? earlier.first(keyOf(merged)) : undefined;
    if (before) merged.fingerprint = before.finding.fingerprint;
    if (before?.open) merged.status = partial.has(merged.fingerprint) ? 'PARTIAL' : 'NOT_FIXED';
    else if (before) merged.status = 'REGRESSED';
    merged.held = heldBy(merged, input.rules);
    // A finding of the hooks' own checks is never contested away: declining it does not make it untrue.
    const contested = !merged.held && anyDeclines && (input.declines[merged.fingerprint] ?? 0) >= CONTESTED_AFTER;
    if (contested && merged.reporters.every((r) => (REVIEWERS as readonly string[]).includes(r))) merged.status = 'CONTESTED';
    routed(merged, input.declines, anyDeclines);
    return merged;
  });
  // An earlier finding a reviewer marks NOT_FIXED or PARTIAL stays open whether or not a review reports it
  // again: a round whose reviewer says it is not fixed does not end DONE.
  if (marks.size > 0) {
    const present = new Set(merged.map((f) => f.fingerprint));
    for (const p of prevOpen) {
      const mark = marks.get(p.fingerprint);
      if (!mark || present.has(p.fingerprint)) continue;
      const carried: MergedFinding = { ...p, status: mark.status, reporters: mark.by };
      carried.held = heldBy(carried, input.rules);
      if (!carried.held && anyDeclines && (input.declines[carried.fingerprint] ?? 0) >= CONTESTED_AFTER) carried.status = 'CONTESTED';
      routed(carried, input.declines, anyDeclines);
      merged.push(carried);
      present.add(p.fingerprint);
    }
  }
  if (input.dismissed?.length) applyDismissals(merged, input.dismissed);
  const { findings, classes } = classify(merged, input.history, input.fixes ?? [], input.iteration);
  const escalations = escalationOutcomes(input.escalated ?? [], classes, diagnoses, input.history.find((v) => v.iteration === input.iteration - 1), input.fixes ?? []);

  const statuses: StatusRow[] = [];
  if (previous) {
    const now = new Map<string, MergedFinding>();
    for (const f of findings) if (!now.has(f.fingerprint)) now.set(f.fingerprint, f);
    const wasOpenBefore = new Set(prevOpen.map((p) => p.fingerprint));
    for (const p of prevOpen) {
      const found = now.get(p.fingerprint);
      const status = found ? found.status : partial.has(p.fingerprint) ? 'PARTIAL' : 'FIXED';
      statuses.push(row(p, status));
    }
    for (const f of findings) if (f.dismissed === null && !f.held && ((f.grounding.status !== 'ungrounded' && f.grounding.status !== 'unquoted') || f.toFixer) && !wasOpenBefore.has(f.fingerprint)) statuses.push(row(f, f.status));
  }

  const open = findings.filter((f) => f.toFixer);
  const counts = countBySeverity(open);
  const anyInvalid = REVIEWERS.some((r) => reviewers[r].status === 'invalid');
  const by = (reporter: Reporter) => open.some((f) => f.reporters.includes(reporter));
  // The completion gate: a clean review, every check that passed at the start still passing, no Layer-0 finding.
  const gate = {
    reviewClean: !anyInvalid && !open.some((f) => f.reporters.some((r) => (REVIEWERS as readonly string[]).includes(r))),
    checksPassing: !by('checks'),
    layer0Clean: !by('layer0'),
  };
  const overall = gate.reviewClean && gate.checksPassing && gate.layer0Clean ? 'clean' : 'issues_found';
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
    testArtefacts: input.testArtefacts ?? [],
    classes,
    escalations,
    gate,
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
    if (stuckClasses.length > 0) return stop('stuck_issue', reviewTexts.stuckClasses(stuckClasses));
    if (overall === 'clean' && changed.length > 0) {
      // Clean, but about a tree that is no longer there: review the tree as it is now, never DONE on this one.
      if (input.iteration >= input.maxIterations) {
        return stop('changed_during_review', `${reviewTexts.changedDuringText(changed)}: the clean review may not cover the project as it is`);
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

/**
 * A reviewer's finding the user dismissed stays dismissed while it has the dismissed fingerprint and
 * still grounds to the same code (its identity): once that code changes, or the quote no longer matches
 * it, it is a finding again. The hooks' own findings (Layer-0, broken checks) are facts: never dismissed.
 */
function applyDismissals(merged: MergedFinding[], dismissed: readonly Dismissal[]): void {
  const by = new Map(dismissed.map((d) => [d.fingerprint, d]));
  for (const f of merged) {
    const d = by.get(f.fingerprint);
    if (!d || d.identity !== f.identity || d.file !== f.file) continue;
    if (f.grounding.status === 'ungrounded' || f.grounding.status === 'unchecked') continue;
    if (!f.reporters.every((r) => (REVIEWERS as readonly string[]).includes(r))) continue;
    f.dismissed = d.reason;
    f.toFixer = false;
    f.unverified = false;
  }
}

/** Each verdict's findings by fingerprint (the first of each). */
const byFingerprint = new WeakMap<Verdict, Map<string, MergedFinding>>();
function findingsOf(v: Verdict): Map<string, MergedFinding> {
  let map = byFingerprint.get(v);
  if (!map) {
    map = new Map();
    for (const f of v.findings) if (!map.has(f.fingerprint)) map.set(f.fingerprint, f);
    byFingerprint.set(v, map);
  }
  return map;
}

/** Consecutive rounds, ending with this one, in which the finding was NOT_FIXED or REGRESSED. */
function streak(finding: MergedFinding, history: Verdict[]): number {
  if (finding.status !== 'NOT_FIXED' && finding.status !== 'REGRESSED') return 0;
  let n = 1;
  for (let i = history.length - 1; i >= 0; i--) {
    const then = findingsOf(history[i]!).get(finding.fingerprint);
    if (!then || then.held || (then.status !== 'NOT_FIXED' && then.status !== 'REGRESSED')) break;
    n += 1;
  }
  return n;
}

/** Seed 000's pattern memory, keyed by finding identity: what stayed open in two or more rounds. */
function patternMemory(open: MergedFinding[], history: Verdict[]): Pitfall[] {
  const openIn = history.map((v) => new Set(v.findings.filter((p) => p.toFixer || p.status === 'CONTESTED').map((p) => p.fingerprint)));
  return open
    .map((f) => ({ f, seen: 1 + openIn.filter((fps) => fps.has(f.fingerprint)).length }))
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

const REPORTER_BIT = Object.fromEntries(REPORTERS.map((r, i) => [r, 1 << i])) as Record<Reporter, number>;

/** One finding from a cluster's reports: NEW and not yet sent to the fixer until the caller decides. */
export function mergeCluster(members: Reported[]): MergedFinding {
  // The representative: the most specific (shortest) identity, preferring a grounded report.
  // Members share file and family: the fingerprint depends on the text alone.
  // One pass (it runs for every finding of the round): the most severe report, each text's longest
  // wording (the first of equal length, ignoring surrounding spaces), the categories and reporters as first seen.
  let rep = members[0]!;
  let fingerprint: string | null = null;
  let severity: Severity = 'info';
  let description = '';
  let descriptionLength = 0;
  let suggestion = '';
  let suggestionLength = 0;
  const categories: string[] = [];
  const interpretations: string[] = [];
  let reporters = 0;
  let confidence: number | null = null;
  for (const m of members) {
    const order =
      Number(m.grounding.status === 'ungrounded') - Number(rep.grounding.status === 'ungrounded') ||
      Number(m.grounding.status === 'unquoted') - Number(rep.grounding.status === 'unquoted') ||
      m.key.text.length - rep.key.text.length ||
      (m.key.text === rep.key.text ? 0 : fingerprintOf(m.key) < (fingerprint ??= fingerprintOf(rep.key)) ? -1 : 1);
    if (order < 0) {
      rep = m;
      fingerprint = null;
    }
    const { finding } = m;
    if (SEVERITY_RANK[finding.severity] > SEVERITY_RANK[severity]) severity = finding.severity;
    const d = finding.description.trim().length;
    // Assigned one by one: a destructuring assignment iterates an array, in a hook's cold code.
    if (d > descriptionLength) {
      description = finding.description;
      descriptionLength = d;
    }
    const g = finding.suggestion.trim().length;
    if (g > suggestionLength) {
      suggestion = finding.suggestion;
      suggestionLength = g;
    }
    if (!categories.includes(finding.category)) categories.push(finding.category);
    if (m.interpreted) for (const note of m.interpreted) if (!interpretations.includes(note)) interpretations.push(note);
    reporters |= REPORTER_BIT[m.reviewer];
    if (finding.confidence !== undefined && (confidence === null || finding.confidence > confidence)) confidence = finding.confidence;
  }
  fingerprint ??= fingerprintOf(rep.key);
  return {
    fingerprint,
    severity,
    category: rep.key.family,
    categories,
    file: rep.key.file,
    line: rep.grounding.line,
    description,
    evidence: rep.finding.evidence,
    suggestion,
    reporters: REPORTERS.filter((_, i) => reporters & (1 << i)),
    identity: rep.key.text,
    grounding: { status: rep.grounding.status, reason: rep.grounding.reason, reading: rep.grounding.reading },
    class: '',
    status: 'NEW',
    toFixer: false,
    unverified: false,
    interpretations,
    dismissed: null,
    confidence,
    held: null,
  };
}
