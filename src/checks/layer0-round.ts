/**
 * Layer-0 for one fix round: the files the fixer changed, each against the review's end, and the files
 * of the round's open Layer-0 findings against the loop's start (a finding the fixer left in place is
 * still there, even though it was no longer new this round). Pure.
 */
import type { MergedFinding } from '../protocol/verdict-schema';
import { normaliseCode } from '../review/fingerprint';
import { runLayer0, type FileChange, type Layer0Check, type Layer0Hit } from './layer0';
import { layer0Finding } from './machine-finding';
import type { Layer0Report } from './reports';

export interface Layer0RoundInput {
  iteration: number;
  from: string | null;
  to: string | null;
  changes: readonly FileChange[];
  recheck: readonly FileChange[];
  /** The round's merged findings: those with reporter layer0 that were sent to the fixer are rechecked. */
  findings: readonly MergedFinding[];
  disabled: readonly Layer0Check[];
  /** The test runners' config files now, by path (absent: none read). */
  runnerConfigs?: Readonly<Record<string, string>>;
}

export function layer0Round(input: Layer0RoundInput): Layer0Report {
  const configs = new Map(Object.entries(input.runnerConfigs ?? {}));
  const hits = runLayer0(input.changes, input.disabled, configs);
  const open = input.findings.filter((f) => f.toFixer && f.reporters.includes('layer0'));
  const same = (h: Layer0Hit) => (f: MergedFinding) => f.file === h.path && f.categories.includes(h.check) && normaliseCode(f.evidence) === normaliseCode(h.evidence);
  const still = open.length === 0 ? [] : runLayer0(input.recheck, input.disabled, configs).filter((h) => open.some(same(h)));
  const seen = new Set<string>();
  const unique = [...hits, ...still].filter((h) => {
    const key = `${h.check}\0${h.path}\0${normaliseCode(h.evidence)}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return {
    iteration: input.iteration,
    from: input.from,
    to: input.to,
    files: input.changes.filter((c) => c.after.kind !== 'opaque').map((c) => c.path),
    skipped: input.changes.flatMap((c) => (c.after.kind === 'opaque' ? [{ path: c.path, reason: c.after.reason }] : [])),
    rechecked: input.recheck.map((c) => c.path),
    findings: unique.map(layer0Finding),
  };
}
