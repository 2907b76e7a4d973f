/** Texts of the minions CLI: usage, status, restore and report. */
import { fixSummaryFile, verdictFile } from '../protocol/paths';
import { DISMISSED_FILE } from '../protocol/dismissed';
import type { State } from '../state/schema';
import type { LoopFacts } from '../report/facts';
import { PREFIX, plural, truncate } from '../protocol/text';
import { ago, baseText, bestAttemptLine, bestSoFarLine, costLine, count, countsText, effortText, listed, policyText, stopReasonText } from '../report/texts';
import { iterationText } from '../core/prompts';

export const cli = {
  usage: (): string =>
    [
      'usage: minions <command> [options]',
      '',
      '  minions status [--json] [--fail-on critical|warning|info]',
      '                            the review loop in this project: phase, iteration, reviewers, open issues, best round, cost, files;',
      '                            --fail-on exits 1 while open findings of that severity or above remain (or no verdict exists)',
      '  minions cancel [--force]  end this session\'s loop; --force also ends another session\'s',
      '  minions restore [<round>|undo] [--force]',
      '                            after a loop: put the files it changed back as round N found them, or undo the last restore;',
      '                            alone, list the rounds; --force restores over your own edits (saved first)',
      '  minions report [--sarif [--out FILE] [--all-rounds]]',
      '                            write the last loop\'s REPORT.md again, or its findings as SARIF 2.1.0',
      '  minions dismiss [<fingerprint> --reason "…" | --list | --remove <fingerprint>]',
      '                            record a finding you judge wrong in .minions/dismissed.json (commit it): later loops keep it',
      '                            out of the fixer\'s list and the completion gate until its code changes; alone or --list, list them; --remove takes one back',
      '  minions --help, -h        this help',
      '  minions --version         the version',
    ].join('\n'),
  /** A refused command line: what was wrong, then the usage. */
  refused: (problem: string): string => `minions: ${problem}\n${cli.usage()}`,
  noCommand: (): string => 'no command given',
  unknownCommand: (command: string): string => `unknown command "${command}"`,
  unknownOption: (option: string, command: string | null): string => `unknown option "${option}"${command ? ` for ${command}` : ''}`,
  unexpectedArgument: (arg: string, command: string): string => `${command} takes no argument "${arg}"`,
  needsValue: (option: string, command: string): string => `${option} of ${command} needs a value`,
  sarifOnly: (): string => 'report takes --out and --all-rounds only with --sarif',
  badSeverity: (word: string): string => `--fail-on takes critical, warning or info, not "${truncate(word, 40)}"`,
  badRound: (word: string): string => `restore takes a round number (1, 2 …) or "undo", not "${truncate(word, 40)}"`,
  version: (version: string): string => `minions ${version}`,
  dismissListAlone: (): string => 'dismiss --list takes no fingerprint, --reason or --remove',
  dismissRemoveAlone: (): string => 'dismiss --remove <fingerprint> takes no other fingerprint or --reason',
  dismissWhat: (): string => 'dismiss needs the fingerprint of a finding (REVIEW.md and REPORT.md show them), or --list, or --remove <fingerprint>',
  dismissWhy: (fingerprint: string): string => `dismiss ${fingerprint} needs --reason "why the finding is wrong"`,
  badFingerprint: (word: string): string => `a fingerprint is 12 lower-case hex digits (as the reports show it), not "${truncate(word, 40)}"`,
  reasonTooLong: (max: number): string => `the reason is longer than ${max} characters`,
};

export const dismiss = {
  none: (): string => `${PREFIX} no finding is dismissed in this project (${DISMISSED_FILE} does not exist).`,
  empty: (): string => `${PREFIX} no finding is dismissed in this project (${DISMISSED_FILE} lists none).`,
  list: (rows: readonly { fingerprint: string; file: string; category: string; reason: string; dismissedAt: string }[]): string =>
    [`${PREFIX} ${plural(rows.length, 'dismissed finding')} (${DISMISSED_FILE}):`, ...rows.map((d) => `  ${d.fingerprint}  ${truncate(d.file, 120)} (${truncate(d.category, 40)}), ${truncate(d.dismissedAt.slice(0, 10), 10)}: ${truncate(d.reason, 300)}`)].join('\n'),
  broken: (problem: string): string => `${PREFIX} ${truncate(problem, 600)}. Nothing was written: fix the file (or move it aside) and run the command again.`,
  noRun: (root: string): string => `${PREFIX} no review loop has run in this project (${root}): there is no finding to dismiss.`,
  notFound: (fingerprint: string): string => `${PREFIX} the last loop's verdicts have no finding ${fingerprint}; REVIEW.md and REPORT.md show each finding's fingerprint.`,
  notDismissable: (fingerprint: string, why: string): string => `${PREFIX} ${fingerprint} cannot be dismissed: ${why}. Nothing was written.`,
  ungrounded: (): string => 'its evidence does not match the code, so there is no code to hold the dismissal to',
  machine: (reporter: string): string => `it is a finding of the hooks' own ${reporter}, a fact about the tree, not a reviewer's opinion`,
  added: (fingerprint: string, where: string, category: string, again: boolean): string =>
    `${PREFIX} ${again ? 'reason updated for' : 'dismissed'} ${fingerprint} (${truncate(where, 160)}, ${truncate(category, 40)}) in ${DISMISSED_FILE}: later rounds keep it out of the fixer's list and the completion gate while its code stays as it is. Commit the file to keep it.`,
  removed: (fingerprint: string): string => `${PREFIX} ${fingerprint} is no longer dismissed (${DISMISSED_FILE}).`,
  notDismissed: (fingerprint: string): string => `${PREFIX} ${fingerprint} is not dismissed (${DISMISSED_FILE}); \`minions dismiss --list\` shows what is.`,
};

export function statusReport(state: State, now: string, sessionId: string | null, where: string, facts?: LoopFacts): string {
  const live = state.status === 'in_progress';
  const it = state.iterations[state.iterations.length - 1]!;
  const owner = sessionId && state.sessionId === sessionId ? 'this session' : `session ${state.sessionId.slice(0, 8)}`;
  const lines = [
    `minions review loop — ${state.currentPhase}, ${iterationText(state)} (${live ? 'in progress' : state.status}${state.stopReason && state.stopReason !== 'cancelled' ? `: ${stopReasonText(state.stopReason)}` : ''})`,
    `Task: ${truncate(state.task, 200)}`,
    `Started ${ago(state.startedAt, now)} by ${owner}; last update ${ago(state.updatedAt, now)}.`,
    `Profile: ${effortText(state.effort)}.`,
  ];
  if (state.currentPhase === 'R1') {
    const parts = state.effort.reviewers.map((r) => {
      const run = it.r1.reviewers[r];
      if (run.status === 'valid') return `${r} ✓ ${run.counts && run.counts.critical + run.counts.warning + run.counts.info > 0 ? countsText(run.counts) : 'clean'}`;
      if (run.status === 'invalid') return `${r} ✗ invalid output`;
      return `${r} ${run.status === 'running' ? '… running' : 'pending'}`;
    });
    lines.push(`Reviewers (iteration ${state.iteration}): ${parts.join(', ')}`);
  }
  for (const past of state.iterations) {
    if (!past.verdict) continue;
    const v = past.verdict;
    lines.push(`Review ${past.iteration}: ${v.total === 0 ? (v.overall === 'clean' ? 'clean' : 'invalid output, no findings') : `${plural(v.total, 'issue')} (${countsText(v)})`} — ${verdictFile(past.iteration)}` +
      (past.r2.status === 'complete' ? `; fixed, see ${fixSummaryFile(past.iteration)}` : past.r2.status === 'running' ? '; fixer running' : ''));
    const round = facts?.rounds.find((r) => r.round === past.iteration);
    if (round) lines.push(`  ${roundLine(round)}`);
  }
  if (state.reviewOnly) lines.push(`Review only (--no-fix): nothing is fixed${state.currentPhase === 'REVIEWED' ? '; the loop ended REVIEWED with the verdict' : ''}.`);
  if ((state.currentPhase === 'STOPPED' || state.currentPhase === 'REVIEWED') && state.openIssues.length) {
    lines.push('Open issues:', ...state.openIssues.slice(0, 10).map((i) => `  ${i.severity} ${truncate(i.file, 200)}${i.line ? `:${i.line}` : ''} — ${truncate(i.description, 100)}`));
  }
  if (facts) {
    const best = live ? bestSoFarLine(facts) : bestAttemptLine(facts);
    if (best) lines.push(best);
    lines.push(`${live ? 'Cost so far' : 'Cost'}: ${costLine(facts.cost)}${facts.cost.budget !== null ? ` of a ${count(facts.cost.budget)}-token budget` : ''}.`);
    if (!live) lines.push(`Report: ${facts.files.report}`);
  }
  if (state.baseChoice) lines.push(`Reviewing ${baseText(state)}.`);
  lines.push(`Completion policy: ${policyText(state.rules)}.`);
  lines.push(`Files: ${where}`);
  if (live) lines.push('End it with /minions:cancel.');
  return lines.join('\n');
}

/** One round's standing, for status: score, checks, cost and whether it is the best so far. */
function roundLine(r: LoopFacts['rounds'][number]): string {
  const parts = [
    r.score === null ? null : `score ${r.score.toFixed(2)}`,
    r.checks ? `checks ${r.checks.passed}/${r.checks.passed + r.checks.failed} passing` : null,
    r.cost.agents === 0 ? null : r.cost.unknown === r.cost.agents ? 'tokens unknown' : `${count(r.cost.total)} tokens${r.cost.unknown ? ` (+${r.cost.unknown} unknown)` : ''}`,
    r.best ? 'best' : null,
  ];
  return parts.filter(Boolean).join(', ');
}

export const statusNone = (root: string): string => `minions: no review loop has run in this project (${root}). Start one with /minions:review <what to review>.`;

export const statusBroken = (path: string, problem: string): string =>
  `minions: the loop state ${path} is unreadable (${problem}). Run /minions:cancel to archive it, or /minions:review to start afresh.`;

const NOTHING = 'Nothing was restored.';

export const restore = {
  usage: (): string => `Restore one with /minions:restore <round> (or \`minions restore <round>\`); /minions:restore undo puts back the files as they were before the last restore.`,
  rounds: (facts: LoopFacts): string =>
    [
      `${PREFIX} the rounds of the last loop (${facts.phase}); /minions:restore <round> puts the files the loop changed back as that round's review found them:`,
      ...facts.rounds.map((r) =>
        `  ${r.round}: ${r.reviewed ? `${plural(r.open.total, 'open finding')} (${countsText(r.open)}), score ${r.score?.toFixed(2)}` : 'not reviewed'}` +
          `${r.checks ? `, checks ${r.checks.passed}/${r.checks.passed + r.checks.failed}` : ''}${r.best ? ' — best' : ''}${r.tree ? '' : ' — no snapshot'}`,
      ),
    ].join('\n'),
  noRun: (root: string): string => `${PREFIX} no review loop has run in this project (${root}), so there is nothing to restore.`,
  broken: (problem: string): string => `${PREFIX} the loop state is unreadable (${problem}); run /minions:cancel to archive it first. ${NOTHING}`,
  running: (state: State): string =>
    `${PREFIX} a review loop is running in this project (${state.currentPhase}, ${iterationText(state)}); restore when it has ended, or end it with /minions:cancel. ${NOTHING}`,
  noRound: (round: string, rounds: number): string => `${PREFIX} the last loop had ${rounds === 1 ? 'round 1 only' : `rounds 1 to ${rounds}`}; there is no round ${round}. ${NOTHING}`,
  noSnapshot: (round: number): string =>
    `${PREFIX} round ${round} has no snapshot: the project was not a git repository (or git failed) when the loop ran. ${NOTHING}`,
  gone: (what: string): string =>
    `${PREFIX} ${what} is no longer in the repository (git gc prunes unreferenced snapshots, by default after two weeks). ${NOTHING}`,
  noSnapshotNow: (): string => `${PREFIX} could not take a snapshot of the project as it is now (is git working here?), so a restore could not be undone. ${NOTHING}`,
  nothingToUndo: (): string => `${PREFIX} there is no restore of the last loop to undo. ${NOTHING}`,
  edited: (paths: readonly string[]): string =>
    `${PREFIX} you changed ${plural(paths.length, 'file')} the loop also changed since it ended (${listed(paths)}); a restore would overwrite ${paths.length === 1 ? 'it' : 'them'}. ` +
    `Keep your edits elsewhere first, or run it again with --force: the project as it is now is saved first, and /minions:restore undo brings it back. ${NOTHING}`,
  already: (target: string): string => `${PREFIX} the files the loop changed are already as in ${target}; nothing to do.`,
  done: (target: string, written: readonly string[], deleted: readonly string[], saved: string): string =>
    `${PREFIX} restored ${target}: ${[written.length ? `${plural(written.length, 'file')} written (${listed(written)})` : '', deleted.length ? `${plural(deleted.length, 'file')} deleted (${listed(deleted)})` : ''].filter(Boolean).join(', ')}. ` +
    `The project as it was is saved as snapshot ${saved.slice(0, 12)}: /minions:restore undo (or \`minions restore undo\`) puts it back. ` +
    'Nothing else was touched: other files, the index, HEAD and the stash are as they were.',
  failed: (failed: readonly string[]): string => `${PREFIX} could not write ${plural(failed.length, 'file')} (${listed(failed)}); the others were restored. /minions:restore undo puts everything back as it was.`,
  roundName: (round: number): string => `round ${round}'s files`,
  undoName: (): string => 'the files as they were before the last restore',
};

export const report = {
  noRun: (root: string): string => `${PREFIX} no review loop has run in this project (${root}), so there is nothing to report.`,
  broken: (problem: string): string => `${PREFIX} the loop state is unreadable (${problem}); run /minions:cancel to archive it first.`,
  written: (path: string): string => `${PREFIX} report written to ${path}`,
  sarifWritten: (path: string, results: number): string => `${PREFIX} SARIF 2.1.0 with ${plural(results, 'result')} written to ${path}`,
};

/** The last line of `minions status --fail-on`: why it exits as it does. */
export const failOn = {
  none: (severity: string): string => `${PREFIX} --fail-on ${severity}: no review verdict to judge (no loop ran here, or it ended before its first verdict) → exit 1`,
  open: (severity: string, count: number, counts: string): string => `${PREFIX} --fail-on ${severity}: ${plural(count, 'open finding')} at ${severity} or above (${counts}) → exit 1`,
  pass: (severity: string): string => `${PREFIX} --fail-on ${severity}: no open finding at ${severity} or above → exit 0`,
};
