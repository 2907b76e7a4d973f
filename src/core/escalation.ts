/**
 * Seed 003's escalation, decided when the fixer stops: a class that this fix round attacked for the second
 * time, or that the fixer answered `escalate`, goes to the next round's critic with its whole history.
 */
import type { EscalationStart } from './round-start';
import { classOf } from '../review/classes';
import type { ClassAttempt, EscalationReason, FixSummary, Verdict } from '../protocol/verdict-schema';
import * as prompts from './prompts';
import type { State } from '../state/schema';
import { absolute, escalationFile, fixDeltaFile, fixSummaryFile, fixSummaryJsonFile } from '../protocol/paths';

/** `state` is the round the fixer just finished; `verdict` its review. */
export function escalationAfterFix(state: State, verdict: Verdict | null, answers: FixSummary | null): EscalationStart | null {
  const n = state.iteration;
  const current = state.iterations[state.iterations.length - 1]!;
  const notes = current.verdict?.classes ?? [];
  const classOfFingerprint = (fp: string): string => {
    const finding = verdict?.findings.find((f) => f.fingerprint === fp);
    return finding ? classOf(finding) : (notes.find((c) => c.fingerprints.includes(fp))?.id ?? fp);
  };
  const reasons = new Map<string, EscalationReason>();
  for (const c of notes) if (c.rung === 'audit') reasons.set(c.id, 'repeated');
  for (const a of answers?.fixes ?? []) if (a.status === 'escalate') reasons.set(classOfFingerprint(a.fingerprint), 'fixer_escalated');
  if (reasons.size === 0) return null;

  const at = (rel: string): string => absolute(state.root, rel);
  const attemptFiles = (iteration: number) => ({ summary: at(fixSummaryFile(iteration)), answers: at(fixSummaryJsonFile(iteration)), delta: at(fixDeltaFile(iteration + 1)) });
  const escalated = [...reasons].map(([id, reason]) => ({ class: id, reason }));
  const classes = escalated.map(({ class: id, reason }) => {
    const members = (verdict?.findings ?? []).filter((f) => f.toFixer && classOf(f) === id);
    const note = notes.find((c) => c.id === id);
    const fingerprints = members.length > 0 ? members.map((f) => f.fingerprint) : (note?.fingerprints ?? [id]);
    const earlier: ClassAttempt[] = verdict?.classes.find((c) => c.id === id)?.attempts ?? [];
    const thisRound: ClassAttempt = {
      iteration: n,
      fingerprints,
      sites: members.length > 0 ? members.map((f) => (f.line ? `${f.file}:${f.line}` : f.file)) : (note?.sites ?? []),
      answers: (answers?.fixes ?? [])
        .filter((a) => fingerprints.includes(a.fingerprint))
        .map((a) => ({ fingerprint: a.fingerprint, status: a.status, kind: a.kind ?? null, reason: a.reason ?? null })),
    };
    return {
      class: id,
      reason,
      category: members[0]?.category ?? note?.category ?? '',
      findings: members.map(({ fingerprint, severity, file, line, description, evidence, suggestion, reporters }) => ({ fingerprint, severity, file, line, description, evidence, suggestion, reporters })),
      attempts: [...earlier, thisRound].map((a, i, all) => ({ ...a, files: attemptFiles(a.iteration), outcome: i < all.length - 1 ? prompts.attemptOutcome.open : prompts.attemptOutcome.pending })),
      pattern: answers?.patterns.find((p) => p.class === id) ?? null,
    };
  });
  const content = {
    iteration: n + 1,
    file: at(escalationFile(n + 1)),
    request: prompts.escalationRequest(),
    classes,
    answerFormat: { diagnosis: [{ class: '<id>', rootCause: '…', fix: '…', recommend: 'structural|patch' }] },
  };
  return { escalated, content: `${JSON.stringify(content, null, 2)}\n` };
}
