/**
 * Finding classes (seed 003): one defect pattern at several sites, followed across rounds, so that a fix
 * that misses another copy counts as the same class coming back, not as a new finding. Pure.
 */
import { MIN_CONTAINED } from './fingerprint';
import type { Diagnosis } from '../protocol/reviewer-output';
import type { ClassAttempt, ClassRung, EscalationOutcome, EscalationReason, FindingClass, FixEntry, MergedFinding, Verdict } from '../protocol/verdict-schema';

/** The fixer's answers of one earlier round (its r2-fix-summary.json). */
export interface FixRound {
  iteration: number;
  fixes: FixEntry[];
}

type Classifiable = Pick<MergedFinding, 'category' | 'identity'>;

/** The pattern of a finding's identity: quoted literals and numbers masked, so one mistake repeated with other values has one shape. */
export const classShape = (identity: string): string => (identity.includes("'") ? identity.replace(/'[^']*'/g, "''") : identity).replace(/\d+/g, '#');

/** One class: the same category family and the same pattern, long enough not to be generic ("return x;"). */
export function sameClass(a: Classifiable, b: Classifiable): boolean {
  if (a.category !== b.category) return false;
  const shape = classShape(a.identity);
  return shape.length >= MIN_CONTAINED && shape === classShape(b.identity);
}

export const classOf = (f: Pick<MergedFinding, 'class' | 'fingerprint'>): string => f.class || f.fingerprint;
const site = (f: Pick<MergedFinding, 'file' | 'line'>): string => (f.line ? `${f.file}:${f.line}` : f.file);
const isOpen = (f: MergedFinding): boolean => f.toFixer;

export function rungOf(attempts: number): ClassRung {
  if (attempts === 0) return 'new';
  return attempts === 1 ? 'audit' : 'escalate';
}

/**
 * Groups this round's open findings into classes. A finding keeps the class of the previous round's open
 * finding it continues (same fingerprint, or same pattern); findings of one pattern in this round are one
 * class. Each class carries the consecutive earlier fix rounds that were given it and left it open.
 * Fills in each finding's `class` in place (the aggregation's own fresh findings) and returns them.
 */
export function classify(findings: MergedFinding[], history: readonly Verdict[], fixes: readonly FixRound[], iteration: number): { findings: MergedFinding[]; classes: FindingClass[] } {
  const open = findings.filter(isOpen);
  const previousOpen = (history.find((v) => v.iteration === iteration - 1)?.findings ?? []).filter(isOpen);
  // sameClass is an equality of (family, pattern): findings are looked up by it, not compared in pairs.
  const byFingerprint = new Map<string, MergedFinding>();
  const byPattern = new Map<string, MergedFinding>();
  for (const p of previousOpen) {
    if (!byFingerprint.has(p.fingerprint)) byFingerprint.set(p.fingerprint, p);
    const key = patternKey(p);
    if (key !== null && !byPattern.has(key)) byPattern.set(key, p);
  }
  const patterns = open.map(patternKey);
  const inherited = open.map((f, i) => {
    const before = byFingerprint.get(f.fingerprint) ?? (patterns[i] === null ? undefined : byPattern.get(patterns[i]!));
    return before ? classOf(before) : null;
  });

  const parent = open.map((_, i) => i);
  const root = (i: number): number => (parent[i] === i ? i : (parent[i] = root(parent[i]!)));
  // The first finding of each inherited class and of each pattern (two tables: no key is built per finding).
  const firstOfClass = new Map<string, number>();
  const firstOfPattern = new Map<string, number>();
  const join = (firstOf: Map<string, number>, key: string, i: number) => {
    const first = firstOf.get(key);
    if (first === undefined) firstOf.set(key, i);
    else parent[root(i)] = root(first);
  };
  for (let i = 0; i < open.length; i++) {
    if (inherited[i] !== null) join(firstOfClass, inherited[i]!, i);
    if (patterns[i] !== null) join(firstOfPattern, patterns[i]!, i);
  }
  const groups = new Map<number, number[]>();
  open.forEach((_, i) => {
    const members = groups.get(root(i));
    if (members) members.push(i);
    else groups.set(root(i), [i]);
  });

  const openIn = openByClass(history);
  const classes: FindingClass[] = [];
  const classByFingerprint = new Map<string, string>();
  for (const members of groups.values()) {
    // The class with the longest history wins when this round joins two; a class of new findings is named after its first.
    // A round's new findings (all of a first round's) inherit nothing: no candidates to weigh.
    const ids = members.some((i) => inherited[i]) ? [...new Set(members.flatMap((i) => (inherited[i] ? [inherited[i]!] : [])))] : [];
    const candidates = ids.map((id) => ({ id, attempts: attemptsOf(id, history, fixes, iteration, openIn) }));
    const best = candidates.reduce<(typeof candidates)[number] | null>((a, b) => (a && a.attempts.length >= b.attempts.length ? a : b), null);
    const id = best?.id ?? open[members[0]!]!.fingerprint;
    const attempts = best?.attempts ?? [];
    const mine = members.map((i) => open[i]!);
    for (const f of mine) classByFingerprint.set(f.fingerprint, id);
    classes.push({ id, category: mine[0]!.category, fingerprints: mine.map((f) => f.fingerprint), sites: mine.map(site), rung: rungOf(attempts.length), attempts });
  }
  for (const f of findings) f.class = classByFingerprint.get(f.fingerprint) ?? '';
  return { findings, classes };
}

/** The key sameClass compares: the family and the pattern, or null for a pattern too short to be a class. */
function patternKey(f: Classifiable): string | null {
  const shape = classShape(f.identity);
  return shape.length >= MIN_CONTAINED ? `${f.category}\0${shape}` : null;
}

/** Each earlier verdict's open findings by class, worked out once. */
function openByClass(history: readonly Verdict[]): (verdict: Verdict) => Map<string, MergedFinding[]> {
  const cache = new Map<Verdict, Map<string, MergedFinding[]>>();
  return (verdict) => {
    let byClass = cache.get(verdict);
    if (!byClass) {
      byClass = new Map();
      for (const f of verdict.findings) {
        if (!isOpen(f)) continue;
        const members = byClass.get(classOf(f));
        if (members) members.push(f);
        else byClass.set(classOf(f), [f]);
      }
      cache.set(verdict, byClass);
    }
    return byClass;
  };
}

/** The consecutive earlier rounds, ending with the previous one, in which the class was open and went to the fixer. */
function attemptsOf(id: string, history: readonly Verdict[], fixes: readonly FixRound[], iteration: number, openIn: (verdict: Verdict) => Map<string, MergedFinding[]>): ClassAttempt[] {
  const attempts: ClassAttempt[] = [];
  for (let n = iteration - 1; n >= 1; n--) {
    const verdict = history.find((v) => v.iteration === n);
    const members = verdict ? (openIn(verdict).get(id) ?? []) : [];
    if (!verdict || members.length === 0) break;
    if (verdict.next !== 'R2') continue; // no fix round ran after that review
    const fingerprints = members.map((f) => f.fingerprint);
    const asked = new Set(fingerprints);
    const answers = (fixes.find((r) => r.iteration === n)?.fixes ?? [])
      .filter((a) => asked.has(a.fingerprint))
      .map((a) => ({ fingerprint: a.fingerprint, status: a.status, kind: a.kind ?? null, reason: a.reason ?? null }));
    // A round in which the fixer declined every member tried no fix: the declines lead to CONTESTED, not up the ladder.
    if (answers.length > 0 && answers.every((a) => a.status === 'declined')) continue;
    attempts.unshift({ iteration: n, fingerprints, sites: members.map(site), answers });
  }
  return attempts;
}

/**
 * What became of the classes this round's critic was asked to diagnose. A class the fixer escalated
 * stops the loop whatever the review says (it was not fixed); a class escalated for repeating stops it
 * while it is still open. A class that reached its third round without being escalated stops it too.
 */
export function escalationOutcomes(
  escalated: readonly { class: string; reason: EscalationReason }[],
  classes: readonly FindingClass[],
  diagnoses: readonly Diagnosis[],
  previous: Verdict | undefined,
  fixes: readonly FixRound[],
): EscalationOutcome[] {
  const byClass = (id: string): Diagnosis | null => diagnoses.find((d) => d.class === id) ?? (escalated.length === 1 && diagnoses.length === 1 ? diagnoses[0]! : null);
  const outcomes: EscalationOutcome[] = escalated.map(({ class: id, reason }) => {
    const now = classes.find((c) => c.id === id);
    const before = (previous?.findings ?? []).filter((f) => isOpen(f) && classOf(f) === id);
    const lastFix = previous ? fixes.find((r) => r.iteration === previous.iteration) : undefined;
    const fixerReason = lastFix?.fixes.find((a) => a.status === 'escalate' && before.some((f) => f.fingerprint === a.fingerprint))?.reason ?? null;
    const attempts = now ? now.attempts.map((a) => a.iteration) : previous ? [...(previous.classes.find((c) => c.id === id)?.attempts.map((a) => a.iteration) ?? []), previous.iteration] : [];
    return {
      class: id,
      reason,
      category: now?.category ?? before[0]?.category ?? '',
      sites: now?.sites ?? before.map(site),
      attempts,
      fixerReason,
      open: now !== undefined,
      diagnosis: byClass(id),
    };
  });
  for (const c of classes) {
    if (c.rung !== 'escalate' || outcomes.some((o) => o.class === c.id)) continue;
    outcomes.push({ class: c.id, reason: 'repeated', category: c.category, sites: c.sites, attempts: c.attempts.map((a) => a.iteration), fixerReason: null, open: true, diagnosis: null });
  }
  return outcomes;
}

/** The escalations that end the loop as stuck_issue. */
export const stuckEscalations = (outcomes: readonly EscalationOutcome[]): EscalationOutcome[] => outcomes.filter((o) => o.reason === 'fixer_escalated' || o.open);
