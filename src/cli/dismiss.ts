/**
 * `minions dismiss <fingerprint> --reason "…"` records a finding of the last loop as dismissed in the
 * project's `.minions/dismissed.json`, with the code its evidence grounded to; `--list` shows the file,
 * `--remove` takes one back. A broken file is never written over: the command says what is wrong.
 */
import { REVIEWERS } from '../protocol/agents';
import type { Dismissal } from '../protocol/dismissed';
import type { MergedFinding } from '../protocol/verdict-schema';
import * as cliTexts from './texts';
import { readDismissed, writeDismissed } from '../shell/dismissed';
import { findLoop } from '../shell/find-run';
import { readVerdicts } from '../shell/run-files';
import type { CliCommand } from './parse-cli';
import type { CliResult } from './restore';

export function dismissCommand(root: string, command: Extract<CliCommand, { kind: 'dismiss' }>, now: string): CliResult {
  const current = readDismissed(root);
  if (current.kind === 'broken') return { code: 1, out: cliTexts.dismiss.broken(current.problem) };
  const dismissed = current.kind === 'ok' ? current.dismissed : [];
  if (command.action === 'list') {
    if (current.kind === 'none') return { code: 0, out: cliTexts.dismiss.none() };
    return { code: 0, out: dismissed.length === 0 ? cliTexts.dismiss.empty() : cliTexts.dismiss.list(dismissed) };
  }
  if (command.action === 'remove') {
    if (!dismissed.some((d) => d.fingerprint === command.fingerprint)) return { code: 1, out: cliTexts.dismiss.notDismissed(command.fingerprint) };
    writeDismissed(root, dismissed.filter((d) => d.fingerprint !== command.fingerprint));
    return { code: 0, out: cliTexts.dismiss.removed(command.fingerprint) };
  }
  const found = findLoop(root);
  if (found.kind === 'none') return { code: 1, out: cliTexts.dismiss.noRun(root) };
  if (found.kind === 'broken') return { code: 1, out: cliTexts.report.broken(found.problem) };
  const finding = lastFinding(readVerdicts(root, found), command.fingerprint);
  if (!finding) return { code: 1, out: cliTexts.dismiss.notFound(command.fingerprint) };
  const machine = finding.reporters.find((r) => !(REVIEWERS as readonly string[]).includes(r));
  if (machine) return { code: 1, out: cliTexts.dismiss.notDismissable(command.fingerprint, cliTexts.dismiss.machine(machine)) };
  if (finding.grounding.status === 'ungrounded' || finding.grounding.status === 'unchecked') {
    return { code: 1, out: cliTexts.dismiss.notDismissable(command.fingerprint, cliTexts.dismiss.ungrounded()) };
  }
  const entry: Dismissal = {
    fingerprint: finding.fingerprint,
    reason: command.reason,
    file: finding.file,
    category: finding.category,
    identity: finding.identity,
    description: finding.description.slice(0, 4_000),
    dismissedAt: now,
  };
  const again = dismissed.some((d) => d.fingerprint === entry.fingerprint);
  writeDismissed(root, [...dismissed.filter((d) => d.fingerprint !== entry.fingerprint), entry]);
  return { code: 0, out: cliTexts.dismiss.added(entry.fingerprint, finding.line ? `${finding.file}:${finding.line}` : finding.file, finding.category, again) };
}

/** The finding with this fingerprint in the latest verdict that has it. */
function lastFinding(verdicts: readonly ({ findings: MergedFinding[] } | null)[], fingerprint: string): MergedFinding | null {
  for (let i = verdicts.length - 1; i >= 0; i--) {
    const f = verdicts[i]?.findings.find((x) => x.fingerprint === fingerprint);
    if (f) return f;
  }
  return null;
}
