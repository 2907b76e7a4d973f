/**
 * `review-N/REVIEW.md`: one round for a person (seed 000's CRITIQUE.md) — the verdict, score and readiness,
 * the findings table, the statuses of the previous round's findings, the checks, the reviewers and the
 * fixer's answers. A pure renderer of the verdict; the hooks write it when the verdict is written, and
 * again when the fixer has answered.
 */
import { REVIEWERS } from '../protocol/agents';
import { countsText, readinessText, replacedNote, rewrittenNote, stopReasonText } from './texts';
import type { FixSummary, MergedFinding, Verdict } from '../protocol/verdict-schema';
import { UNSNAPSHOTTED, changedDuringReviewFile, findingsFile, fixSummaryFile, fixSummaryJsonFile, verdictFile } from '../protocol/paths';
import type { ChecksReport, Layer0Report } from '../checks/reports';
import { MAX_LISTED, code, duration, inline, listed, plural, table, where } from './markdown';

export interface ReviewReportInput {
  verdict: Verdict;
  /** The fixer's answers, once it has given them. */
  answers: FixSummary | null;
  /** What was read in the fixer's answers other than as written. */
  answerNotes?: readonly string[];
  /** The fix round: not yet run (pending, running), done, ended without a summary, or skipped. */
  fix: 'pending' | 'running' | 'complete' | 'no_summary' | 'skipped';
  /** The project's checks on the tree this round reviewed (the baseline, or after the previous fix). */
  checks: ChecksReport | null;
  /** The checks after this round's fix, and Layer-0 on it: known once the fixer has stopped. */
  afterFix?: ChecksReport | null;
  layer0?: Layer0Report | null;
}

const SEVERITY_ORDER = { critical: 0, warning: 1, info: 2 } as const;
/** Paths in code-point order: the same on every machine, whatever its locale (and cheaper than localeCompare). */
const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const GROUP = (f: MergedFinding): number => (f.toFixer ? 0 : f.status === 'CONTESTED' ? 1 : 2);

/**
 * The first `count` findings in the table's order: open ones first, then contested, the most severe
 * first, then by file and line, in the verdict's order where all of these are equal. A round may hold
 * thousands of findings, and a sort of them all calls its comparison some 50,000 times (about 10 ms in a
 * hook's cold code); here they are put in buckets of group, severity and file, and only the buckets the
 * table reaches are sorted, by line (a stable sort, as the whole one was).
 */
export function firstInTableOrder(findings: readonly MergedFinding[], count: number): MergedFinding[] {
  const files = [...new Set(findings.map((f) => f.file))].sort(byCodePoint);
  const rank = new Map(files.map((file, i) => [file, i]));
  const buckets = new Map<number, MergedFinding[]>();
  for (const f of findings) {
    const key = (GROUP(f) * 3 + SEVERITY_ORDER[f.severity]) * files.length + rank.get(f.file)!;
    const bucket = buckets.get(key);
    if (bucket) bucket.push(f);
    else buckets.set(key, [f]);
  }
  const out: MergedFinding[] = [];
  for (const key of [...buckets.keys()].sort((a, b) => a - b)) {
    for (const f of buckets.get(key)!.sort((a, b) => (a.line ?? 0) - (b.line ?? 0))) {
      if (out.length === count) return out;
      out.push(f);
    }
  }
  return out;
}

function statusCell(f: MergedFinding): string {
  if (f.dismissed !== null) return `DISMISSED: ${inline(f.dismissed, 120)}`;
  if (f.unverified && f.toFixer) return `UNVERIFIED (sent to the fixer to check)${f.grounding.reason ? `: ${inline(f.grounding.reason, 80)}` : ''}`;
  if (f.unverified) return `UNVERIFIED, declined by the fixer${f.grounding.reason ? `: ${inline(f.grounding.reason, 80)}` : ''}`;
  if (f.grounding.status === 'ungrounded') return `UNGROUNDED${f.grounding.reason ? `: ${inline(f.grounding.reason, 80)}` : ''}`;
  if (f.held === 'level') return `BELOW --done-when: not blocking${f.status === 'NEW' ? '' : ` (${f.status})`}`;
  if (f.grounding.status === 'unquoted') return f.toFixer ? `${f.status} (unquoted)` : `UNQUOTED${f.grounding.reason ? `: ${inline(f.grounding.reason, 80)}` : ''}`;
  return f.grounding.status === 'relocated' ? `${f.status} (line relocated)` : f.status;
}

const NEXT = {
  DONE: 'DONE',
  R2: 'R2: the fixer gets the open findings',
  R1: 'R1: the next review',
  STOPPED: 'STOPPED',
  REVIEWED: 'REVIEWED: a review-only pass (--no-fix); nothing is fixed',
} as const;

export function renderReviewReport({ verdict: v, answers, answerNotes = [], fix, checks, afterFix = null, layer0 = null }: ReviewReportInput): string {
  const n = v.iteration;
  const out: string[] = [];
  out.push(`# Review ${n} of ${v.maxIterations}: ${v.overall_verdict === 'clean' ? 'clean' : 'issues found'}`, '');
  out.push(`**Task:** ${inline(v.task, 400)}`, '');
  const next = v.next === 'STOPPED' ? `STOPPED (${stopReasonText(v.stopReason)})` : NEXT[v.next];
  out.push(
    `**Verdict:** ${v.total_issues === 0 ? 'no open findings' : `${plural(v.total_issues, 'open finding')} (${countsText(v)})`} · ` +
      `score ${v.score.toFixed(2)} (${v.band.replace(/_/g, ' ')}) · ${v.scale}/10 ${readinessText(v.readiness)} · next: ${next}`,
  );
  if (v.stopDetail) out.push('', `> ${inline(v.stopDetail, 400)}`);
  if (v.changedDuringReview.length > 0) {
    const what = v.changedDuringReview[0] === UNSNAPSHOTTED ? 'unknown: git could not snapshot the project when the review ended' : `${v.changedDuringReview.slice(0, 20).map((f) => code(f)).join(', ')}${v.changedDuringReview.length > 20 ? ', …' : ''}`;
    out.push('', `**Changed while this round was reviewed:** ${what} (patch: ${code(changedDuringReviewFile(n))}).`);
  }
  if (v.testArtefacts.length > 0) {
    out.push('', `**Left by test runs during the review (not counted as changes):** ${v.testArtefacts.slice(0, 20).map((f) => code(f)).join(', ')}${v.testArtefacts.length > 20 ? ', …' : ''}.`);
  }

  out.push('', '## Findings', '');
  // Below the confidence threshold: a heading of their own, after the table.
  const doubtful = v.findings.filter((f) => f.held === 'confidence');
  const counted = doubtful.length ? v.findings.filter((f) => f.held !== 'confidence') : v.findings;
  if (v.findings.length === 0) out.push('None: every reviewer found the change clean.');
  else if (counted.length === 0) out.push('None at or above the confidence threshold (--min-confidence).');
  else {
    const { shown, rest } = listed(firstInTableOrder(counted, MAX_LISTED), 'findings (open ones first, the most severe first)', code(verdictFile(n)), counted.length);
    out.push(
      table(
        ['#', 'Where', 'Severity', 'Category', 'Reporters', 'Status', 'Finding'],
        shown.map((f, i) => [String(i + 1), where(f.file, f.line), f.severity, inline(f.category, 40), f.reporters.join(', '), statusCell(f), inline(f.description)]),
      ),
    );
    if (rest) out.push('', rest);
    const ungrounded = v.findings.filter((f) => f.grounding.status === 'ungrounded' && !f.unverified).length;
    const unquoted = v.findings.filter((f) => f.grounding.status === 'unquoted').length;
    const unverified = v.findings.filter((f) => f.unverified).length;
    const contested = v.findings.filter((f) => f.status === 'CONTESTED').length;
    const dismissed = v.findings.filter((f) => f.dismissed !== null).length;
    const below = v.findings.filter((f) => f.held === 'level' && f.grounding.status !== 'ungrounded').length;
    const merged = v.findings.reduce((sum, f) => sum + f.reporters.length - 1, 0);
    const notes = [
      merged ? `${plural(merged, 'duplicate report')} merged` : '',
      ungrounded ? `${plural(ungrounded, 'info finding')} ungrounded: not found in the code as quoted, so not sent to the fixer` : '',
      unquoted ? `${plural(unquoted, 'finding')} unquoted: no code quoted to check, so sent to the fixer only when a second reviewer reports it or its cited line exists (else as unverified, or not at all at info)` : '',
      unverified ? `${plural(unverified, 'critical or warning finding')} unverified: not found in the code as quoted, so sent to the fixer to check and fix or decline` : '',
      dismissed ? `${plural(dismissed, 'finding')} dismissed by you (.minions/dismissed.json): not sent to the fixer, not counted against DONE` : '',
      contested ? `${plural(contested, 'finding')} contested: declined by the fixer twice, so no longer sent to it` : '',
      below ? `${plural(below, 'finding')} below the completion level (--done-when): reported, not counted against DONE, sent to the fixer as optional when a fix round runs` : '',
    ].filter(Boolean);
    if (notes.length) out.push('', `${notes.join('; ')}.`);
    interpretationsSection(out, v);
  }
  if (doubtful.length > 0) {
    out.push('', '## Below the confidence threshold', '', 'Scored below --min-confidence by the one reviewer who reported each: not sent to the fixer, not counted against DONE. A second reviewer reporting one lifts it.', '');
    const { shown, rest } = listed(firstInTableOrder(doubtful, MAX_LISTED), 'findings below the threshold', code(verdictFile(n)), doubtful.length);
    out.push(table(['Where', 'Severity', 'Confidence', 'Category', 'Reporter', 'Finding'], shown.map((f) => [where(f.file, f.line), f.severity, String(f.confidence ?? ''), inline(f.category, 40), f.reporters.join(', '), inline(f.description)])));
    if (rest) out.push('', rest);
  }

  if (v.statuses.length > 0) {
    out.push('', `## Since round ${n - 1}`, '');
    const { shown, rest } = listed(v.statuses, `findings of round ${n - 1} and new ones`, code(verdictFile(n)));
    out.push(table(['Where', 'Severity', 'Status', 'Finding'], shown.map((s) => [code(s.file), s.severity, s.status, inline(s.description)])));
    if (rest) out.push('', rest);
  }

  if (v.pitfalls.length > 0) {
    out.push('', '## Known pitfalls', '');
    for (const p of v.pitfalls) out.push(`- seen in ${p.seen} rounds: ${code(p.file)} ${inline(p.category, 40)}: ${inline(p.description, 160)} (rule: ${inline(p.rule, 160)})`);
  }

  if (checks) checksSection(out, 'Checks on the reviewed tree', checks);
  if (afterFix) checksSection(out, 'Checks after the fix', afterFix);
  if (layer0) {
    out.push('', '## Layer-0 on the fix', '');
    out.push(`${plural(layer0.files.length, 'changed file')} checked${layer0.skipped.length ? `, ${layer0.skipped.length} not read (${layer0.skipped.slice(0, 5).map((x) => `${code(x.path)}: ${x.reason}`).join(', ')})` : ''}: ${layer0.findings.length === 0 ? 'nothing found.' : `${plural(layer0.findings.length, 'finding')} for the next review.`}`);
    if (layer0.findings.length > 0) out.push('', table(['Where', 'Severity', 'Check', 'Finding'], layer0.findings.map((f) => [where(f.file, f.line), f.severity, inline(f.category, 40), inline(f.description)])));
  }

  out.push('', '## Reviewers', '');
  out.push(
    table(
      ['Reviewer', 'Output', 'Grounded findings', 'Ungrounded', 'Score'],
      REVIEWERS.map((r) => {
        const rv = v.reviewers[r];
        // The hooks' own notes (round.ts), not the reviewer's: its file changed before or after the stop recorded it.
        const changed = rv.notes.includes(replacedNote(r))
          ? `; its file was changed by someone else before its stop: recorded as ${r} wrote it`
          : rv.notes.includes(rewrittenNote())
            ? '; its file changed after it was recorded: the change is ignored'
            : '';
        if (rv.status === 'not_run') return [r, 'not run (not in the effort profile)', '—', '—', '—'];
        const output = (rv.status === 'valid' ? 'valid' : `invalid${rv.error ? `: ${inline(rv.error, 120)}` : ''}${rv.scoring === 'heuristic' ? ' (partly read)' : ''}`) + changed;
        return [r, output, countsText(rv), String(rv.ungrounded), rv.score.toFixed(2)];
      }),
    ),
  );

  out.push('', "## The fixer's answers", '');
  if (answers && answers.fixes.length > 0) {
    const byFingerprint = new Map(v.findings.map((f) => [f.fingerprint, f]));
    const { shown, rest } = listed(answers.fixes, 'answers', code(fixSummaryJsonFile(n)));
    out.push(
      table(
        ['Where', 'Finding', 'Answer', 'Reason'],
        shown.map((a) => {
          const f = byFingerprint.get(a.fingerprint);
          return [f ? where(f.file, f.line) : code(a.fingerprint), f ? inline(f.description, 160) : 'not a finding of this round', a.status.replace(/_/g, ' '), a.reason ? inline(a.reason, 240) : '–'];
        }),
      ),
    );
    if (rest) out.push('', rest);
    if (answerNotes.length > 0) out.push('', `Read as meant: ${answerNotes.slice(0, 12).map((n) => inline(n, 120)).join('; ')}.`);
  } else if (v.next === 'R2' && (fix === 'pending' || fix === 'running')) {
    out.push('Not yet: the fixer works on the open findings next.');
  } else if (fix === 'no_summary') {
    out.push('The fixer ended without answering; the next review judges the code as it is.');
  } else if (fix === 'complete') {
    out.push('The fixer wrote a summary but no answers per finding.');
  } else {
    out.push(v.next === 'REVIEWED' ? 'No fix round: this is a review-only pass (--no-fix).' : v.total_issues === 0 ? 'No fix round: there was nothing to fix.' : 'No fix round: the loop stopped before the fixer was given these findings.');
  }

  out.push('', '## Files', '');
  out.push(`- Verdict: ${code(verdictFile(n))}`);
  if (v.next === 'R2') out.push(`- Sent to the fixer: ${code(findingsFile(n))}`);
  if (fix === 'complete' || fix === 'no_summary') out.push(`- Fix summary: ${code(fixSummaryFile(n))} and ${code(fixSummaryJsonFile(n))}`);
  return `${out.join('\n')}\n`;
}

const CHECK_RESULT = { passed: 'passed', failed: 'failed', timed_out: 'timed out' } as const;

function checksSection(out: string[], title: string, report: ChecksReport): void {
  out.push('', `## ${title}`, '');
  if (report.checks.length === 0) {
    out.push('No checks are configured.');
    return;
  }
  out.push(
    table(
      ['Command', 'Result', 'Exit code', 'Time', 'Output'],
      report.checks.map((c) => [
        code(c.command),
        `${c.error ? `could not run: ${inline(c.error, 80)}` : CHECK_RESULT[c.status]}${c.regressed ? ' (passed when the loop started)' : c.baseline && c.baseline !== 'passed' ? ' (failing before the loop)' : ''}`,
        c.exitCode === null ? '–' : String(c.exitCode),
        duration(c.durationMs),
        code(c.log),
      ]),
    ),
  );
}

/** What the hooks read other than as written, per finding and per review: nothing changes meaning unseen. */
function interpretationsSection(out: string[], v: Verdict): void {
  const byFinding = v.findings.filter((f) => f.interpretations.length > 0 || (f.grounding.reading.file !== null && f.grounding.reading.file !== 'as-written') || (f.grounding.reading.evidence?.length ?? 0) > 0);
  const byReview = REVIEWERS.flatMap((r) => v.reviewers[r].notes.filter((n) => n !== replacedNote(r) && n !== rewrittenNote()).map((n) => `${r}: ${inline(n, 200)}`));
  if (byFinding.length === 0 && byReview.length === 0) return;
  out.push('', '## Read as meant', '', 'What the hooks read other than exactly as written (see `interpretations` and `grounding.reading` in the verdict):', '');
  for (const note of byReview.slice(0, 20)) out.push(`- ${note}`);
  for (const f of byFinding.slice(0, 50)) {
    const readings = [
      ...f.interpretations,
      ...(f.grounding.reading.file && f.grounding.reading.file !== 'as-written' ? [`file found ${f.grounding.reading.file.replace(/-/g, ' ')}`] : []),
      ...(f.grounding.reading.evidence?.length ? [`quote matched ${f.grounding.reading.evidence.join(' + ').replace(/-/g, ' ')}`] : []),
    ];
    out.push(`- ${where(f.file, f.line)} (${f.severity}): ${inline(readings.join('; '), 400)}`);
  }
  if (byFinding.length > 50) out.push(`- … and ${byFinding.length - 50} more in ${code(verdictFile(v.iteration))}`);
}
