/** Every model-facing and user-facing text of the plugin. */
import { FIXER_TYPE, REVIEWERS, agentType, type Reviewer } from './protocol/agents';
import {
  absolute,
  changedDuringReviewFile,
  UNSNAPSHOTTED,
  diffFile,
  escalationFile,
  findingsFile,
  fixDeltaFile,
  fixSummaryFile,
  fixSummaryJsonFile,
  reviewDir,
  reviewerFile,
  verdictFile,
  checksFile,
  layer0File,
  STATE_FILE,
} from './protocol/paths';
import type { IterationRecord, PatchNote, PitfallNote, State, VerdictSummary } from './state/schema';
import type { Counts } from './protocol/reviewer-output';
import type { Severity } from './protocol/reviewer-output';
import type { EscalationOutcome, EscalationReason, Verdict } from './protocol/verdict-schema';
import type { OpaqueReason } from './bash/effects';
import { sanitize } from './protocol/sanitize';
import type { Tamper } from './core/events';
import type { PinChange } from './checks/pins';
import type { CheckOutcome, CheckRun } from './protocol/check-runs';
import type { Layer0Check, Layer0Hit } from './checks/layer0';
import type { CostTotal } from './report/cost';
import type { LoopFacts } from './report/facts';
import type { Gap } from './report/rank';

const PREFIX = 'minions:';
const MAX_LISTED_FILES = 40;
/** The task in a phase prompt (its full text stays in the state). */
export const MAX_TASK_IN_PROMPT = 2000;

export const USAGE =
  'Usage: /minions:review [--max-iterations N] [--max-critical N] [--stuck-rounds N] [--fixpoint-similarity X] [--max-tokens N] [--check "<command>"]… [--check-timeout S] [--force] [--] <what to review>';

const plural = (n: number, word: string, many = `${word}s`): string => `${n} ${n === 1 ? word : many}`;
export const countsText = (c: Counts): string =>
  (['critical', 'warning', 'info'] as const)
    .filter((k) => c[k] > 0)
    .map((k) => `${c[k]} ${k}`)
    .join(', ') || 'none';
const iterationText = (s: Pick<State, 'iteration' | 'maxIterations'>): string => `Iteration ${s.iteration}/${s.maxIterations}`;

function changedFilesText(files: readonly string[], base: string | null): string {
  const against = base ? `against ${base.slice(0, 12)}` : 'in the working tree';
  if (files.length === 0) return `Changed files (${against}): none detected; review what the task names.`;
  const listed = files.slice(0, MAX_LISTED_FILES).map((f) => truncate(f, 200)).join(', ');
  const more = files.length > MAX_LISTED_FILES ? ` … and ${files.length - MAX_LISTED_FILES} more (git status shows them)` : '';
  return `Changed files (${against}): ${listed}${more}`;
}

// ── Model-facing: the phase prompts ────────────────────────────────────────────

export function r1Prompt(state: State, changedFiles: readonly string[], missing: readonly Reviewer[] = REVIEWERS): string {
  const n = state.iteration;
  const current = state.iterations[state.iterations.length - 1]!;
  const previous = n > 1 ? state.iterations[state.iterations.length - 2] : undefined;
  const lines = [`[PHASE R1] minions review — ${iterationText(state)}`, `Task: ${truncate(state.task, MAX_TASK_IN_PROMPT)}`, ...rootLine(state), changedFilesText(changedFiles, state.base), changeLine(state, current)];
  if (previous) lines.push(...reReviewLines(state, previous, current));
  lines.push(...pitfallLines(previous?.verdict?.pitfalls ?? []));
  lines.push(...escalationLines(state, current));
  lines.push('');
  lines.push(
    missing.length === REVIEWERS.length
      ? 'Dispatch all five reviewers now in ONE message: one Agent call each, subagent_type as named, run_in_background: false.'
      : `Still missing ${missing.length} of ${REVIEWERS.length} reviews. Dispatch only these now, in ONE message, run_in_background: false:`,
  );
  for (const r of missing) lines.push(`- ${agentType(r)} → ${at(state, reviewerFile(n, r))}`);
  lines.push(
    'Give each reviewer the lines above from "Task:" on, with every path exactly as written (reviewers read them with the Read tool), ' +
      `and "Write your JSON findings to <its path>".${current.escalated.length > 0 ? ` The escalation file goes to ${agentType('critic')} only.` : ''}`,
    'Then end your turn. The hooks validate the reviews, write the verdict and give you the next step. Do not review, fix or edit files yourself.',
  );
  return lines.join('\n');
}

/** Where the reviewers see the change: diff.patch, or why there is none. */
function changeLine(state: State, current: IterationRecord): string {
  const diff = current.patches.diff;
  if (!diff) return 'No diff is available (no git snapshot of the project): review the changed files listed above.';
  const from = state.base ? `the loop's base ${state.base.slice(0, 12)}` : 'an empty repository';
  return `The change under review, from ${from} to the tree this review starts from (untracked files included): ${at(state, diffFile(state.iteration))} (${patchSize(diff)}).`;
}

/** What changed while a round was reviewed, for a line: the files, or that the project could not be snapshotted. */
export function changedDuringText(changed: readonly string[]): string {
  if (changed[0] === UNSNAPSHOTTED) return 'git could not snapshot the project when the review ended, so a change during it cannot be ruled out';
  return `${plural(changed.length, 'project file')} changed during the review (${changed.slice(0, 3).map((f) => truncate(f, 200)).join(', ')}${changed.length > 3 ? ', …' : ''})`;
}

/** A re-review checks the previous findings and the fixer's change first. */
function reReviewLines(state: State, previous: IterationRecord, current: IterationRecord): string[] {
  const n = state.iteration;
  const lines: string[] = [];
  if (previous.changedDuringReview.length > 0) lines.push(`The project changed while review ${n - 1} ran: ${at(state, changedDuringReviewFile(n - 1))}.`);
  if (previous.r2.status === 'skipped') return [...lines, `No fix round ran after review ${n - 1}: it sent no finding to the fixer.`];
  const delta = current.patches.fixDelta;
  const deltaText = delta
    ? `what the fixer changed in round ${n - 1}, ${at(state, fixDeltaFile(n))} (${patchSize(delta)}; fixes introduce regressions)`
    : `the fixer's summary (no snapshot of its change is available)`;
  return [
    ...lines,
    `Previous round — verify it first: ${deltaText}; the findings it was given, ${at(state, findingsFile(n - 1))} (each has a fingerprint); ` +
      `its answers ${at(state, fixSummaryJsonFile(n - 1))} (declines carry a reason) and ${at(state, fixSummaryFile(n - 1))}. ` +
      'A reviewer may answer for each earlier finding in its JSON: "previous":[{"fingerprint":"…","status":"FIXED|PARTIAL|NOT_FIXED"}].',
    ...hookChecksLines(state, previous),
  ];
}

/** The hooks ran the project's checks and Layer-0 on the previous fix: their findings join this verdict by themselves. */
function hookChecksLines(state: State, previous: IterationRecord): string[] {
  const n = state.iteration;
  const reports = [previous.checks ? `the project's checks: ${at(state, checksFile(n - 1))}` : '', previous.layer0 ? `Layer-0: ${at(state, layer0File(n - 1))}` : ''].filter(Boolean);
  if (reports.length === 0) return [];
  return [`The hooks checked that fix themselves (${reports.join('; ')}); their findings join this verdict on their own: do not report them again.`];
}

/** A file name as the prompts show it: project files are named by whoever made them (escapes, bidi, `[PHASE` in a name). */
const fileName = (name: string): string => truncate(name, 200);
const fileNames = (names: readonly string[]): string => names.map(fileName).join(', ');

const patchSize = (p: PatchNote): string =>
  p.count === 0 ? 'no changes' : `${plural(p.count, 'file')}: ${fileNames(p.files.slice(0, 8))}${p.count > 8 ? ', …' : ''}${p.truncated ? '; cut at the size limit, its header lists every file' : ''}`;

/** Seed 003, round 3 or an escalate answer: the critic is given the class's history and asked for a structural diagnosis. */
function escalationLines(state: State, current: IterationRecord): string[] {
  if (current.escalated.length === 0) return [];
  const why = (reason: EscalationReason): string => (reason === 'fixer_escalated' ? 'the fixer escalated' : 'two fix rounds did not remove');
  const classes = current.escalated.map((e) => `${e.class} (${why(e.reason)})`).join(', ');
  return [
    `Escalation — for ${agentType('critic')} only: ${at(state, escalationFile(state.iteration))} holds the full history of ${plural(current.escalated.length, 'finding class', 'finding classes')}: ${classes}. ` +
      'The critic reads it and adds to its JSON, for each class, "diagnosis":[{"class":"<id>","rootCause":"<what all the attempts share>","fix":"<the root-level fix>","recommend":"structural|patch"}]. ' +
      'The loop stops for the user with the diagnosis when a class is still there or the fixer escalated it.',
  ];
}

export function r2Prompt(state: State, verdict: VerdictSummary): string {
  const n = state.iteration;
  const grouped = verdict.classes.filter((c) => c.fingerprints.length > 1 && c.rung === 'new');
  const audited = verdict.classes.filter((c) => c.rung !== 'new');
  const classLines = [
    ...(grouped.length > 0
      ? [
          `Findings of one class (one defect pattern at several sites) are grouped under "classes" in the findings file: fix each class together, in one change that covers every site ` +
            `(${grouped.map((c) => `${c.id}: ${fileNames(c.sites)}`).join('; ')}).`,
        ]
      : []),
    ...audited.map(
      (c) =>
        `Audit first — class ${c.id} (${truncate(c.category, 80)}: ${fileNames(c.sites)}) is back after fix round${c.attempts.length === 1 ? '' : 's'} ${c.attempts.join(', ')}: ` +
        'scan every similar site in the project in one pass; report the pattern before patching ' +
        `("patterns" in the answers: {"class":"${c.id}","pattern":"…","sites":["file:line", …]}); read the earlier attempts and their outcomes first: ` +
        `${c.attempts.map((a) => [fixSummaryFile(a), fixSummaryJsonFile(a), fixDeltaFile(a + 1)].map((p) => at(state, p)).join(', ')).join('; ')}. ` +
        'Never repeat a fix already tried; with no new fix, answer "escalate" with the reason.',
    ),
  ];
  return [
    `[PHASE R2] minions review — ${iterationText(state)}`,
    `Task: ${truncate(state.task, MAX_TASK_IN_PROMPT)}`,
    ...rootLine(state),
    `The review found ${plural(verdict.total, 'finding')} to fix (${countsText(verdict)}); score ${verdict.score.toFixed(2)}, ${verdict.scale}/10 ${readinessText(verdict.readiness)}. Verdict: ${at(state, verdictFile(n))}`,
    `Merged from the five reviews (the fixer is given only the findings file, not these): ${REVIEWERS.map((r) => at(state, reviewerFile(n, r))).join(', ')}`,
    ...pitfallLines(verdict.pitfalls),
    '',
    'Dispatch the fixer now, once: one Agent call, run_in_background: false.',
    `- ${FIXER_TYPE} → ${at(state, fixSummaryFile(n))}`,
    `Give it: the task, "Fix every finding, at every severity, in ${at(state, findingsFile(n))} (merged and checked against the code; each has a fingerprint and a class).",` +
      (classLines.length > 0 ? ' the class lines below,' : ''),
    `"Write your fix summary to ${at(state, fixSummaryFile(n))} and your answer per finding to ${at(state, fixSummaryJsonFile(n))}: ` +
      `${FIX_ANSWER_EXAMPLE}" (${FIX_ANSWER_RULES}).`,
    ...classLines,
    'Then end your turn. Do not fix or edit files yourself.',
  ].join('\n');
}

const FIX_ANSWER_EXAMPLE = '{"fixes":[{"fingerprint":"…","status":"fixed|declined|could_not_fix|escalate","kind":"patch|structural","reason":"…"}]}';
const FIX_ANSWER_RULES =
  'every fixed entry says its kind: patch = a local change at that site, structural = removes the cause for the whole class; a reason for anything not fixed; ' +
  'escalate = the same root cause as an earlier attempt and no new fix';

/** The prompts name absolute paths: agents pass them to the Write tool, which wants them absolute. */
const rootLine = (state: State): string[] => (state.root ? [`Project root: ${state.root} (every path below is absolute: pass them on exactly as written)`] : []);
const at = (state: Pick<State, 'root'>, rel: string): string => absolute(state.root, rel);

/** Seed 000's pattern memory, as a prompt section. */
function pitfallLines(pitfalls: readonly PitfallNote[]): string[] {
  if (pitfalls.length === 0) return [];
  return [
    'Known pitfalls (findings that recurred in earlier rounds):',
    ...pitfalls.map((p) => `- [seen ${p.seen}x] ${truncate(p.file, 200)} ${truncate(p.category, 60)}: ${truncate(p.description, 120)} — rule: ${truncate(p.rule, 120)}`),
  ];
}

export const reviewerInvalid = (path: string, error: string): string =>
  `Your review output is invalid: ${truncate(error, 500)}. Fix exactly that and write the whole JSON object again to ${path} with the Write tool ` +
  '(or end your reply with it in one ```json block). Schema: {"issues":[{"severity":"critical|warning|info","category":"…","file":"…","line":12,"description":"…","evidence":"…","suggestion":"…"}],"summary":{"critical":0,"warning":0,"info":0,"verdict":"clean|issues_found"}}';

export const reviewerMissing = (path: string): string =>
  `No review output found: write your JSON findings to ${path} with the Write tool (or end your reply with them in one \`\`\`json block). ` +
  'Use {"issues":[],"summary":{"critical":0,"warning":0,"info":0,"verdict":"clean"}} if you found nothing.';

export const reviewerUngrounded = (path: string, problems: readonly string[]): string =>
  `Most of your findings do not match the files:\n${problems.slice(0, 30).map((p) => `- ${truncate(p, 300)}`).join('\n')}${problems.length > 30 ? `\n- … and ${problems.length - 30} more` : ''}\n` +
  `Check each against the code: correct the file, line or evidence (quote the code exactly as it stands), or remove the finding, and write ${path} again. ` +
  'If they are right as written, end your turn; they will be reported as ungrounded.';

export const fixerSummaryProblems = (md: string, json: string, problems: readonly string[]): string =>
  `Your fix summary is not complete: ${problems.slice(0, 20).map((p) => truncate(p, 300)).join('; ')}. Write ${md} (one line per finding: [fixed], [could not fix], [declined] or [escalate] with the reason, then the tests you ran) ` +
  `and ${json}: {"fixes":[{"fingerprint":"<from r2-findings.json>","status":"fixed|declined|could_not_fix|escalate","kind":"patch|structural","reason":"…"}],` +
  `"patterns":[{"class":"<an audit-first class>","pattern":"…","sites":["file:line"]}]}, one entry per finding (${FIX_ANSWER_RULES}).`;

// ── Model-facing: the files the hooks write for a round ─────────────────────────

/** The header of diff.patch and fix-delta.patch: what the patch is, how big, and every file when it was cut. */
export function patchHeader(kind: 'diff' | 'fix-delta', iteration: number, base: string | null, patch: { files: readonly string[]; truncated: boolean; limit: number; text: string }): string {
  const what =
    kind === 'diff'
      ? `the change under review in iteration ${iteration}: ${base ? `the loop's base ${base.slice(0, 12)}` : 'an empty repository'} → the tree this review starts from, untracked files included.`
      : `what the fixer changed in round ${iteration - 1}: the tree review ${iteration - 1} ended on → the tree the fixer left.`;
  const lines = patch.text === '' ? 0 : patch.text.split('\n').length - 1;
  const header = [`# minions: ${what}`, `# ${plural(patch.files.length, 'file')} changed, ${plural(lines, 'patch line')}. Binary files are named, not shown. Read a long patch in parts (Read with offset and limit).`];
  if (patch.truncated) header.push(`# Cut at ${Math.round(patch.limit / 1024)} KiB: the patch below stops early. Every changed file:`, ...patch.files.map((f) => `#   ${f}`));
  if (patch.files.length === 0) header.push('# No changes.');
  return `${header.join('\n')}\n`;
}

/** What became of each attempt in escalation.json: the last one is judged by the review the critic is part of. */
export const attemptOutcome = { open: 'still open at the next review', pending: 'this review decides' } as const;

/** The request in escalation.json: seed 003's structural diagnosis. */
export const escalationRequest = (): string =>
  'Each class below came back after the fix rounds listed (or the fixer escalated it: same root cause, no new fix). Read the attempts, their answers, the fix summaries and the fix deltas. ' +
  'What do all these failures share? Recommend a root-level fix or a patch. If a class is still present in the code, report its findings again as issues; ' +
  'then add to your JSON, for each class, "diagnosis":[{"class":"<id>","rootCause":"…","fix":"…","recommend":"structural|patch"}]. ' +
  'The loop stops for the user with your diagnosis when a class is still there or the fixer escalated it.';

/** stopDetail of a loop stopped by an escalated class (seed 003): the class, why, and the critic's diagnosis. */
export function stuckClasses(outcomes: readonly EscalationOutcome[]): string {
  return outcomes
    .map((o) => {
      const what = `finding class ${o.class} (${truncate(o.category || 'finding', 80)}: ${fileNames(o.sites.slice(0, 4))}${o.sites.length > 4 ? ', …' : ''})`;
      const rounds = `fix round${o.attempts.length === 1 ? '' : 's'} ${o.attempts.join(' and ') || '?'}`;
      const why =
        o.reason === 'fixer_escalated'
          ? `the fixer escalated ${what} in ${rounds}${o.fixerReason ? ` ("${truncate(o.fixerReason, 160)}")` : ''}${o.open ? '' : '; the review no longer reports it, but nothing fixed it'}`
          : `${what} is still open after ${rounds}`;
      const diagnosis = o.diagnosis
        ? `structural diagnosis (critic): ${truncate(o.diagnosis.rootCause, 300)} — recommended ${o.diagnosis.recommend} fix: ${truncate(o.diagnosis.fix, 300)}`
        : 'the critic gave no structural diagnosis';
      return `${why}; ${diagnosis}`;
    })
    .join(' | ');
}

// ── The project's checks and Layer-0 ───────────────────────────────────────────

const seconds = (ms: number): string => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;

/** How one check run ended, in a few words. */
export function checkResultText(run: Pick<CheckRun, 'exitCode' | 'signal' | 'timedOut' | 'durationMs' | 'error'>, timeoutSeconds?: number): string {
  if (run.error) return run.error;
  if (run.timedOut) return `timed out${timeoutSeconds ? ` after ${timeoutSeconds} s` : ''} and was killed`;
  if (run.exitCode === null) return `killed by ${run.signal ?? 'a signal'} after ${seconds(run.durationMs)}`;
  return `exit ${run.exitCode} after ${seconds(run.durationMs)}`;
}

/** The baseline in one line: which checks pass, which already fail (and so are not blamed on the fixer). */
export function baselineText(baseline: readonly CheckOutcome[]): string {
  if (baseline.length === 0) return 'none ran';
  const name = (c: CheckOutcome): string => `\`${truncate(c.command, 60)}\``;
  const passed = baseline.filter((c) => c.status === 'passed');
  const failed = baseline.filter((c) => c.status !== 'passed');
  return [
    passed.length ? `${passed.map(name).join(', ')} passed` : '',
    failed.length ? `${failed.map((c) => `${name(c)} ${c.status === 'timed_out' ? 'timed out' : `failed (exit ${c.exitCode ?? '?'})`}`).join(', ')}: pre-existing, not blamed on the fixer` : '',
  ]
    .filter(Boolean)
    .join('; ');
}

/** After a fix round: the checks and Layer-0, for the progress line ('' when neither ran). */
function afterFixText(it: { checks: CheckOutcome[] | null; layer0: { files: number; findings: number } | null } | undefined): string {
  if (!it) return '';
  const parts: string[] = [];
  if (it.checks && it.checks.length) {
    const failing = it.checks.filter((c) => c.status !== 'passed');
    parts.push(`checks ${it.checks.length - failing.length}/${it.checks.length} passing${failing.length ? ` (${failing.map((c) => `\`${truncate(c.command, 40)}\``).join(', ')} not)` : ''}`);
  }
  if (it.layer0 && it.layer0.findings > 0) parts.push(`Layer-0: ${plural(it.layer0.findings, 'finding')} for the next review`);
  return parts.length ? `; ${parts.join('; ')}` : '';
}

/** SubagentStop block for the fixer: checks that passed when the loop started fail after its change. */
export function checksBroken(failures: readonly { run: CheckRun; log: string; tail: string }[], attempt: number, max: number, timeoutSeconds: number): string {
  const each = failures.map(
    ({ run, log, tail }) => `\`${run.command}\` passed when the loop started and fails now (${checkResultText(run, timeoutSeconds)}). Last lines of its output:\n${tail || '(no output)'}\nFull output: ${log}`,
  );
  return (
    `The project's checks ran after your change (sent back ${attempt} of ${max}):\n${each.join('\n\n')}\n\n` +
    'Fix the cause in the code: do not skip, delete or weaken a test, and do not add suppressions. Run the command yourself to confirm, ' +
    `update your two summaries if what you did changed, then end your turn; the hooks run the checks again.${attempt >= max ? ' If it still fails, it becomes a critical finding in the next review.' : ''}`
  );
}

export const checkFailedDescription = (run: CheckRun, sentBack: number): string =>
  `\`${run.command}\` passed when the loop started and fails after the fix (${checkResultText(run)}), also after the fixer was sent back ${plural(sentBack, 'time')}.`;

export const checkFailedSuggestion = (command: string, log: string): string => `Run \`${command}\`, read ${log} and fix what the change broke; the check must pass again.`;

/** What a Layer-0 finding says, from the facts its check found. */
export function layer0Description(hit: Layer0Hit): string {
  switch (hit.check) {
    case 'no_placeholder':
      return `The fix added a placeholder (${hit.detail.marker}) instead of finished work.`;
    case 'balanced_delimiters':
      return `The fix left the brackets unbalanced: ${plural(hit.detail.problems, 'problem')} now (${hit.detail.before} before), the first an ${hit.detail.kind} "${hit.detail.char}".`;
    case 'json_valid':
      return `The file was valid JSON before the fix and is not now: ${truncate(hit.detail.error, 160)}.`;
    case 'no_duplicate_headings':
      return `The heading "${truncate(hit.detail.heading, 80)}" now appears ${hit.detail.count} times under the same parent (first at line ${hit.detail.firstLine}): a section written twice.`;
    case 'no_text_loop':
      return `The fix wrote a paragraph that repeats the one at line ${hit.detail.similarTo} (${hit.detail.percent}% similar).`;
    case 'file_size_delta':
      return `The file grew from ${hit.detail.before} to ${hit.detail.after} bytes (more than 2.5×) in one fix round.`;
    case 'test_skipped':
      return `The fix skipped a test (${hit.detail.marker}).`;
    case 'test_removed':
      return hit.detail.deleted
        ? `The fix deleted a test file with ${plural(hit.detail.before, 'test')}.`
        : `The fix removed a test: the file has ${hit.detail.after} test cases, ${hit.detail.before} before.`;
    case 'assertion_removed':
      return `The fix removed an assertion: the file has ${hit.detail.after}, ${hit.detail.before} before.`;
    case 'suppression_added':
      return `The fix added a suppression (${hit.detail.marker}) instead of fixing what the tool reports.`;
    case 'empty_catch':
      return 'The fix added an empty catch (or except: pass) that swallows errors.';
    case 'test_uncollected':
      return `The fix renamed the test file ${hit.detail.from} (${plural(hit.detail.tests, 'test')}) to a name its test runner does not collect: its tests no longer run.`;
    case 'config_weakened':
      return `The fix weakened the ${hit.detail.tool} configuration (${truncate(hit.detail.change, 120)}) instead of fixing what it reports.`;
  }
}

const LAYER0_SUGGESTIONS: Record<Layer0Check, string> = {
  no_placeholder: 'Finish the work the placeholder stands for, or remove it.',
  balanced_delimiters: 'Restore the missing or extra bracket; the file must parse.',
  json_valid: 'Make the file valid JSON again.',
  no_duplicate_headings: 'Merge the two sections into one.',
  no_text_loop: 'Remove the repetition; say it once.',
  file_size_delta: 'Check for text appended by mistake (a duplicated block, a log, generated output) and remove it.',
  test_skipped: 'Make the test pass by fixing the code, and run it again instead of skipping it.',
  test_removed: 'Restore the test; fix the code it tests.',
  assertion_removed: 'Restore the assertion; fix the code so that it holds.',
  suppression_added: 'Fix what the checker reports and remove the suppression.',
  empty_catch: 'Handle the error: narrow the catch to what is expected and rethrow or report the rest.',
  test_uncollected: "Give the file back a name its runner collects (or widen the runner's pattern to it); fix the code its tests test.",
  config_weakened: 'Restore the configuration; fix the code so that it passes the stricter setting and runs every test.',
};
export const layer0Suggestion = (check: Layer0Check): string => LAYER0_SUGGESTIONS[check];

// ── Gate refusals: each says the phase and what is expected ─────────────────────

/** Shown to the user (not the model) when the edit gate lets the plugin's own file through without a prompt. */
export const allow = {
  ownReview: (r: Reviewer, own: string): string => `minions R1: ${agentType(r)} writes its own review, ${own}`,
  fixSummary: (file: string): string => `minions R2: ${FIXER_TYPE} writes its fix summary, ${file}`,
};

export const deny = {
  reviewerAlready: (r: Reviewer, state: State, status: string): string =>
    `minions R1 (${iterationText(state)}): ${agentType(r)} ${status === 'running' ? 'is already running' : 'has already reviewed this iteration'}; ` +
    `each reviewer runs once per iteration. Wait for the others, then end your turn.`,
  fixerInR1: (state: State): string =>
    `minions R1 (${iterationText(state)}): the fixer runs in R2, after the reviewers' verdict. Dispatch the missing reviewers or end your turn.`,
  reviewerInR2: (state: State): string =>
    `minions R2 (${iterationText(state)}): reviews are done for this iteration; dispatch ${FIXER_TYPE} once, then end your turn.`,
  fixerAlready: (state: State): string =>
    `minions R2 (${iterationText(state)}): ${FIXER_TYPE} has already been dispatched this iteration. Wait for it, then end your turn.`,
  dispatchFromAgent: (agent: string, state: State): string =>
    `minions ${state.currentPhase} (${iterationText(state)}): ${truncate(agent, 100)} may not dispatch agents; while the review loop runs, only the orchestrator does. Do your own task and end.`,
  otherPluginAgent: (type: string, state: State): string =>
    `minions ${state.currentPhase} (${iterationText(state)}): ${truncate(type, 100)} is not part of this phase. ` +
    (state.currentPhase === 'R1' ? 'Dispatch the five reviewers named in the [PHASE R1] prompt.' : `Dispatch ${FIXER_TYPE}.`),
  stateFile: (): string =>
    `minions: ${STATE_FILE}, the verdicts, the findings brief, the patches, the escalation file and the lock belong to the hooks; they cannot be edited. Use /minions:status to read the loop, /minions:cancel to end it.`,
  reviewerWrite: (r: Reviewer, own: string, phase: string): string =>
    phase === 'R1'
      ? `minions R1: reviewers are read-only; ${agentType(r)} may write only its own output, ${own}. Report the problem as a finding instead.`
      : `minions R2: reviews are over for this iteration; ${agentType(r)} may not write files.`,
  fixerWrite: (phase: string, summary: string): string =>
    phase === 'R1'
      ? `minions R1: the fixer runs only in R2. End your turn.`
      : `minions R2: the fixer may edit project files outside .agents/ and .git/, and its summaries ${summary} and .json; nothing else under .agents/.`,
  orchestratorWrite: (state: State): string =>
    `minions ${state.currentPhase} (${iterationText(state)}): while the review loop runs, project files are changed only by ${FIXER_TYPE} in R2. ` +
    `Dispatch the agents the [PHASE ${state.currentPhase}] prompt names, then end your turn; /minions:cancel ends the loop.`,
  gitMutation: (who: string, sub: string): string =>
    `minions: ${who} may not run "git ${truncate(sub, 60)}": the review loop never changes git history, the index or the checkout. ` +
    'Read-only git (status, diff, log, show, blame) is fine; the user commits when the loop ends.',
  reviewerShellWrite: (who: string): string =>
    `minions R1: ${who} is read-only; shell commands that write or delete project files are refused. Run read-only commands and report what you find.`,
  gitAlias: (who: string, alias: string, target: string): string =>
    `minions: ${who} may not run "git ${truncate(alias, 60)}" (an alias for ${target.startsWith('!') ? `the shell command \`${truncate(target.slice(1), 80)}\`` : `"git ${truncate(target, 60)}"`}): ` +
    'while the review loop runs, git aliases are not followed. Spell read-only git out (status, diff, log, show, blame); the user commits when the loop ends.',
  gitOutside: (who: string, command: string, dir: string): string =>
    `minions: ${who} may not run \`${truncate(command, 80)}\` in ${truncate(dir, 120)}: outside the project, the gate cannot tell whose repository git finds there ` +
    '(any directory holding HEAD, objects/ and refs/ is one), and its configuration can run a program. Run git from the project, or with `git -C` naming a directory inside it.',
  gitUnknown: (who: string, sub: string): string =>
    `minions: ${who} may not run "git ${truncate(sub, 60)}": it is not a read-only git command this loop knows. ` +
    'Use status, diff, log, show, blame, grep, ls-files or rev-parse; the user commits when the loop ends.',
  lockBusy: (): string =>
    "minions: the loop's lock (.agents/tmp/state.lock) is held by another hook, so this dispatch cannot be recorded and is refused. Dispatch again in a moment; /minions:cancel ends the loop.",
  hooksRecord: (target: string): string =>
    `minions: ${truncate(target, 200)} is part of the hooks' record of the review loop (in the git directory or the plugin's data folder); nobody edits it. Use /minions:status to read the loop, /minions:cancel to end it.`,
  protectedWrite: (who: string, target: string): string =>
    `minions: ${who} may not write ${truncate(target, 200)}: the git directory and git's configuration, the plugin's own files and its records are not the loop's to change. Change project files only.`,
  fixerShellWrite: (summary: string, target: string): string =>
    `minions R2: the fixer's shell may not write under .agents/ (${truncate(target, 200)}). Write ${summary} and its .json with the Write tool; change project files with the shell or Edit.`,
  dynamicTarget: (who: string, word: string, editsCode: boolean): string =>
    `minions: ${who} — the gate cannot tell which file \`${truncate(word, 80)}\` is until the command runs, so the write is refused. ` +
    `Name the files literally${editsCode ? ', or make the change with Edit' : ''}.`,
  undecidedTarget: (who: string, word: string, why: string, editsCode: boolean): string =>
    `minions: ${who} — the gate cannot tell where \`${truncate(word, 80)}\` leads (${truncate(why, 160)}), so the write is refused. ` +
    `Name the file by its own path, not through /dev/fd, /dev/stdin, /proc/self or a descriptor the command does not open itself${editsCode ? ', or make the change with Edit' : ''}.`,
  unparseable: (who: string, why: string, editsCode: boolean): string =>
    `minions: ${who} — the Bash gate could not read this command (${truncate(why, 120)}), so it is refused while the review loop runs. ` +
    `Split it into simpler commands in plain bash${editsCode ? ', or make the change with Edit or Write' : ''}.`,
  opaque: (who: string, command: string, why: OpaqueReason, editsCode: boolean): string =>
    `minions: ${who} — \`${truncate(command, 80)}\` ${OPAQUE[why]}, so the gate cannot check it while the review loop runs. ` +
    `Run the commands themselves, spelled out${editsCode ? ', or make the change with Edit' : ''}` +
    (why === 'dynamic-command' && command.startsWith('git ')
      ? ': a revision may be written in place as `$(git merge-base main HEAD)` or `$(git rev-parse HEAD)`, not through a variable; a path, as the path itself.'
      : why === 'rebinds-command'
        ? ': call each program by its own name or path, with variables named literally, and leave the hash table, aliases and builtins as they are.'
        : '.'),
  gateUnavailable: (problem: string): string =>
    `minions: the Bash gate could not check this command (${truncate(problem, 160)}), so it is refused while the review loop runs. ` +
    'Use the Read, Grep and Glob tools, or /minions:cancel to end the loop.',
  agentNotInPhase: (type: string | null, state: State): string =>
    `minions ${state.currentPhase} (${iterationText(state)}): ${type ? `${truncate(type, 100)} is not part of the review loop` : 'an Agent call without a subagent_type starts a general-purpose agent, which is not part of the review loop'}; ` +
    `while it runs, only ${state.currentPhase === 'R1' ? 'the five reviewers named in the [PHASE R1] prompt' : FIXER_TYPE} may be dispatched. ` +
    'Dispatch those, then end your turn; /minions:cancel ends the loop if you need other agents now.',
};

const OPAQUE: Record<OpaqueReason, string> = {
  'dynamic-command': 'runs a command whose name or arguments are computed when it runs',
  'dynamic-code': 'runs shell code held in a variable, a substitution or a language the gate does not read',
  'stdin-code': 'feeds commands to a shell through a pipe or a file descriptor',
  alias: 'defines an alias that later commands could run',
  'program-option': 'names a program to run through an option or the environment',
  'other-repository': 'points git at a git directory, index or work tree of its own choosing, whose configuration can run a program',
  'hidden-environment': 'exports variables under names the gate cannot read (computed, or every one under set -a), which can make git or a shell run a program',
  'too-deep': 'nests code inside code too deeply',
  'rebinds-command':
    'changes what a command name runs (the hash table BASH_CMDS, BASH_ALIASES, a BASH_FUNC_…%% function in the environment, a builtin loaded with enable -f, or a variable whose name is computed)',
};

/** How a refusal names an agent of the owning session that is not one of the loop's. */
export const otherAgent = (type: string): string => `${truncate(type, 100)} (an agent of the session running the loop, held to the orchestrator's rules)`;

// ── User-facing: progress and outcomes (systemMessage) ─────────────────────────

export const notify = {
  started: (state: State, archived: string | null): string =>
    `${PREFIX} review loop started — R1, ${iterationText(state)}: five reviewers on "${truncate(state.task, 80)}"` +
    (archived ? ` (previous loop archived to ${archived})` : '') +
    (state.checks.commands.length ? `; checks at the start: ${baselineText(state.checks.baseline)}` : ''),
  // No running count: parallel reviewers' lines reach the user in process-exit order, not lock order.
  reviewerDone: (state: State, r: Reviewer, counts: Counts | null, source: string): string =>
    `${PREFIX} R1 ${iterationText(state)} — ${r} ${counts ? (counts.critical + counts.warning + counts.info === 0 ? 'clean' : countsText(counts)) : 'output invalid, counted as issues found'}${source}`,
  verdict: (state: State, v: Verdict, next: State): string => {
    const merged = v.findings.reduce((sum, f) => sum + f.reporters.length - 1, 0);
    const ungrounded = v.findings.filter((f) => f.grounding.status === 'ungrounded').length;
    const unchecked = v.findings.filter((f) => f.grounding.status === 'unchecked').length;
    const contested = v.findings.filter((f) => f.status === 'CONTESTED').length;
    const extras = [
      merged ? `${merged} duplicate report${merged === 1 ? '' : 's'} merged` : '',
      ungrounded ? `${ungrounded} ungrounded` : '',
      unchecked ? `${unchecked} not checked against the code` : '',
      contested ? `${contested} contested` : '',
    ]
      .filter(Boolean)
      .join(', ');
    const found = v.total_issues === 0 ? (v.overall_verdict === 'clean' ? 'no issues' : 'no findings to fix (a review was invalid)') : `${plural(v.total_issues, 'issue')} (${countsText(v)})`;
    const changed = v.changedDuringReview.length ? `; ${changedDuringText(v.changedDuringReview)}: see ${changedDuringReviewFile(state.iteration)}` : '';
    const to = { DONE: 'DONE', STOPPED: `STOPPED (${stopReasonText(v.stopReason)})`, R2: 'R2: fixing', R1: `R1: re-reviewing (iteration ${next.iteration})` }[v.next];
    return `${PREFIX} review ${state.iteration}/${state.maxIterations}: ${found}${extras ? ` [${extras}]` : ''}; score ${v.score.toFixed(2)} ${v.band.replace(/_/g, ' ')}, ${v.scale}/10 ${readinessText(v.readiness)}${changed} → ${to}`;
  },
  fixDone: (prev: number, state: State, summary: string): string =>
    `${PREFIX} fix round ${prev} done (${summary})${afterFixText(state.iterations[state.iterations.length - 2])} → R1, ${iterationText(state)}`,
  escalated: (state: State, escalated: readonly { class: string; reason: EscalationReason }[]): string =>
    `${PREFIX} ${escalated.map((e) => `finding class ${e.class} ${e.reason === 'fixer_escalated' ? 'escalated by the fixer' : 'back after two fix rounds'}`).join(', ')} → ` +
    `the critic of review ${state.iteration} gives a structural diagnosis; ` +
    (escalated.some((e) => e.reason === 'fixer_escalated') ? 'then the loop stops for you' : 'the loop stops for you if it is still there'),
  pinnedStopped: (prev: number, state: State): string => `${PREFIX} fix round ${prev} → STOPPED (${stopReasonText(state.stopReason)}): ${state.stopDetail}`,
  fixRepeated: (prev: number, state: State): string => `${PREFIX} fix round ${prev} repeated the previous one → STOPPED (${stopReasonText(state.stopReason)})`,
  budgetSpent: (prev: number, state: State): string => `${PREFIX} fix round ${prev} done → STOPPED (${stopReasonText(state.stopReason)}: ${state.stopDetail})`,
  fixNoSummary: (prev: number, state: State): string =>
    `${PREFIX} fix round ${prev} ended without a summary → R1, ${iterationText(state)} re-reviews the code as it is`,
  waiting: (state: State, agents: readonly string[]): string =>
    `${PREFIX} ${state.currentPhase} ${iterationText(state)} — waiting for ${agents.join(', ')} (running in the background)`,
  paused: (state: State, missing: string): string =>
    `${PREFIX} paused in ${state.currentPhase} (${iterationText(state)}${missing}): the orchestrator stopped twice without progress. ` +
    'Type "continue" to resume, /minions:status to inspect, /minions:cancel to end.',
  reinject: (state: State, what: string): string => `${PREFIX} ${state.currentPhase} ${iterationText(state)} — ${what}`,
  brokenState: (path: string, problem: string): string =>
    `${PREFIX} the loop state ${path} is unreadable (${problem}); the loop is suspended and nothing is gated. ` +
    'Run /minions:cancel (or delete the file) to clear it, or /minions:review to start a fresh loop.',
  brokenArchived: (): string => `${PREFIX} the unreadable loop state was archived; nothing is gated now.`,
  aggregationRetry: (state: State): string =>
    `${PREFIX} R1 ${iterationText(state)} — the hook computing the verdict was stopped before it finished; computing it again from the recorded reviews`,
  aggregationFailed: (state: State): string => `${PREFIX} R1 ${iterationText(state)} → STOPPED (${stopReasonText(state.stopReason)}): ${state.stopDetail}`,
  reviewReplaced: (state: State, reviewer: Reviewer): string =>
    `${PREFIX} R1 ${iterationText(state)} — ${reviewerFile(state.iteration, reviewer)} changed after ${reviewer} wrote it and before its stop; ` +
    `the review recorded is the one ${reviewer} wrote (its transcript), and the file is put back`,
  reviewsRewritten: (state: State, reviewers: readonly Reviewer[]): string =>
    `${PREFIX} R1 ${iterationText(state)} — ${reviewers.map((r) => reviewerFile(state.iteration, r)).join(', ')} changed after the hooks recorded ${reviewers.length === 1 ? 'it' : 'them'}; ` +
    'the verdict uses the reviews as they were recorded, and the change is ignored',
  tampered: (state: State): string =>
    `${PREFIX} STOPPED (${stopReasonText('tampered')}): ${state.stopDetail}. The loop cannot end DONE; the last state the hooks wrote is kept and goes to the archive.`,
  tamperedAfterEnd: (state: State, problems: readonly Tamper[]): string =>
    `${PREFIX} ${tamperDetail(problems)} after the loop ended (${state.currentPhase}); the hooks' own record of it is used.`,
  tamperedArchived: (problems: readonly Tamper[]): string =>
    `${PREFIX} ${tamperDetail(problems)}; no state the hooks wrote could be recovered, so the file was moved to the archive and nothing is gated now.`,
  cancelledTampered: (problems: readonly Tamper[]): string => `${PREFIX} note: ${tamperDetail(problems)}; the hooks' own record of the loop was cancelled.`,
  cancelled: (state: State, archived: string): string =>
    `${PREFIX} review loop cancelled in ${state.currentPhase} (${iterationText(state)}); files archived to ${archived}`,
};

export function outcome(state: State, facts: LoopFacts): string {
  const last = state.iterations[state.iterations.length - 1]!;
  const dir = reviewDir(state.iteration);
  const closing = `  ${facts.cost.agents > 0 ? `Cost: ${costLine(facts.cost)} · ` : ''}Report: ${facts.files.report}`;
  if (state.currentPhase === 'DONE') {
    const contested = last.verdict?.contested ?? 0;
    return (
      `${PREFIX} DONE — review ${state.iteration}/${state.maxIterations} found no issues${state.iteration > 1 ? ` after ${plural(state.iteration - 1, 'fix round')}` : ''}` +
      `${contested ? ` (${plural(contested, 'contested finding')} the fixer declined twice: see the verdict)` : ''}. Reviews: ${dir}/\n${closing}`
    );
  }
  if (state.currentPhase === 'CANCELLED') return `${PREFIX} the review loop was cancelled.`;
  const v = last.verdict;
  const openIssues = state.openIssues;
  const head =
    `${PREFIX} STOPPED — ${stopReasonText(state.stopReason)}${state.stopDetail ? `: ${truncate(state.stopDetail, 300)}` : ''}. ` +
    (v ? `${plural(v.total, 'issue')} open (${countsText(v)}). Verdict: ${verdictFile(last.iteration)}` : `No verdict for round ${state.iteration}. Files: ${dir}/`);
  const shown = openIssues.slice(0, 5).map((i) => `  ${i.severity} ${truncate(i.file, 200)}${i.line ? `:${i.line}` : ''} — ${truncate(i.description, 100)}`);
  const more = openIssues.length > shown.length ? [`  … and ${openIssues.length - shown.length} more in the verdict`] : [];
  const best = bestAttemptLine(facts);
  return [head, ...shown, ...more, ...(best ? [`  ${best}`] : []), closing].join('\n');
}

// ── The best attempt, the cost and the report ──────────────────────────────────

const signed = (n: number, word: string): string => `${Math.abs(n)} ${word} ${n > 0 ? 'more' : 'fewer'}`;

/** How the final tree falls short of the best round, plainly: findings, then checks, then the score. */
export function gapText(gap: Gap): string {
  const parts = (['critical', 'warning', 'info'] as const).filter((k) => gap.findings[k] !== 0).map((k) => signed(gap.findings[k], k));
  const findings = parts.length ? `${parts.join(', ')} open` : 'as many open findings';
  const checks = gap.checks
    ? `; checks passing ${gap.checks.round.passed} of ${gap.checks.round.passed + gap.checks.round.failed} against ${gap.checks.best.passed} of ${gap.checks.best.passed + gap.checks.best.failed}`
    : '';
  return `${findings}${checks}; score ${gap.score.round.toFixed(2)} against ${gap.score.best.toFixed(2)}`;
}

export const restoreHint = (round: number): string => `/minions:restore ${round} (or \`minions restore ${round}\`) puts its files back`;

/** The best round of a loop, for the outcome and status; null before any review finished. */
export function bestAttemptLine(facts: LoopFacts): string | null {
  if (facts.best === null) return null;
  const { gap, reviewedRound } = facts.final;
  if (gap) return `Best attempt: round ${facts.best}. The final tree (round ${gap.round}) ranks below it: ${gapText(gap)}. ${restoreHint(facts.best)}.`;
  if (reviewedRound === null) {
    return `Best reviewed round: ${facts.best}. The last fix round's change was never reviewed. ${restoreHint(facts.best)}.`;
  }
  return `Best attempt: round ${facts.best}, the final tree.`;
}

/** While the loop runs: the best round so far, and how the latest review compares. */
export function bestSoFarLine(facts: LoopFacts): string | null {
  if (facts.best === null) return null;
  const { gap } = facts.final;
  return `Best so far: round ${facts.best}${gap ? ` (round ${gap.round} ranks below it: ${gapText(gap)})` : ''}.`;
}

const count = (n: number): string => Math.round(n).toLocaleString('en-US');

/** "123,456 tokens over 11 agent runs (1 unknown)" — unknown figures are named, never estimated. */
export function costLine(c: CostTotal): string {
  if (c.agents === 0) return 'no agent runs recorded';
  if (c.unknown === c.agents) return `unknown (no readable transcript for ${plural(c.agents, 'agent run')})`;
  return `${count(c.total)} tokens over ${plural(c.agents, 'agent run')}${c.unknown ? ` (${c.unknown} unknown: no readable transcript)` : ''}`;
}

export const tokenBreakdown = (c: CostTotal): string =>
  `input ${count(c.tokens.input)}, output ${count(c.tokens.output)}, cache write ${count(c.tokens.cacheCreation)}, cache read ${count(c.tokens.cacheRead)}`;

export const budgetDetail = (spent: number, budget: number, next: string): string =>
  `${count(spent)} tokens used of the ${count(budget)} budget before ${next}`;

export function stopReasonText(reason: string | null): string {
  switch (reason) {
    case 'max_iterations':
      return 'the iteration budget is spent';
    case 'no_progress':
      return 'no progress';
    case 'stuck_issue':
      return 'a finding is stuck';
    case 'structural_rework_needed':
      return 'structural rework needed';
    case 'changed_during_review':
      return 'the project changed while it was being reviewed';
    case 'tampered':
      return "the loop's files were changed outside the hooks";
    case 'aggregation_failed':
      return 'the verdict could not be computed';
    case 'budget':
      return 'the token budget is spent';
    case 'git_dir_changed':
      return "the repository's git configuration or hooks changed during the loop";
    case 'check_changed':
      return 'a file the checks run changed where no review sees it';
    default:
      return reason ?? 'stopped';
  }
}

// ── Prompt-submit refusals and CLI ──────────────────────────────────────────────

export const refuse = {
  badArgs: (problem: string): string => `${PREFIX} ${truncate(problem, 200)}. ${USAGE}. Nothing was started; fix the command and send it again.`,
  badConfig: (file: string, problems: readonly string[]): string =>
    `${PREFIX} ${file} is not valid: ${problems.map((p) => truncate(p, 300)).join('; ')}. Nothing was started; fix ${file} (its JSON Schema: schema/minions-config.schema.json in the minions repository) and send the command again.`,
  busy: (state: State, minutesAgo: number): string =>
    `${PREFIX} another session's review loop is running in this project (${state.currentPhase}, ${iterationText(state)}, "${truncate(state.task, 60)}", updated ${minutesAgo} min ago). ` +
    'Wait for it to finish, run /minions:cancel in that session, or take over with /minions:review --force <task>.',
  notOwner: (): string =>
    `${PREFIX} the review loop in this project belongs to another session; run /minions:cancel there, or /minions:cancel --force here.`,
  noLoop: (): string => `${PREFIX} no review loop is running in this project.`,
};

/** One line of at most `max` characters, made safe to show (see protocol/sanitize.ts): every piece of model or user text goes through it. */
export const truncate = (text: string, max: number): string => sanitize(text, { max });
/** A verdict's readiness as people read it, the same everywhere: READY, ALMOST, NOT READY. */
export const readinessText = (readiness: string): string => readiness.replace(/_/g, ' ');

// ── The minions CLI (dist/cli.mjs, behind /minions:status and /minions:cancel) ──

export const cli = {
  usage: (): string =>
    [
      'usage: minions <command> [options]',
      '',
      '  minions status [--json]   the review loop in this project: phase, iteration, reviewers, open issues, best round, cost, files',
      '  minions cancel [--force]  end this session\'s loop; --force also ends another session\'s',
      '  minions restore [<round>|undo] [--force]',
      '                            after a loop: put the files it changed back as round N found them, or undo the last restore;',
      '                            alone, list the rounds; --force restores over your own edits (saved first)',
      '  minions report [--sarif [--out FILE] [--all-rounds]]',
      '                            write the last loop\'s REPORT.md again, or its findings as SARIF 2.1.0',
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
  badRound: (word: string): string => `restore takes a round number (1, 2 …) or "undo", not "${truncate(word, 40)}"`,
  version: (version: string): string => `minions ${version}`,
};

// ── The hooks' record ───────────────────────────────────────────────────────────

const TAMPER_TEXT: Record<Tamper['problem'], string> = {
  changed: 'was changed outside the hooks',
  deleted: 'was deleted',
  added: 'was not written by the hooks',
  invariant: 'is not a state the hooks write',
};

/** "<file> was changed outside the hooks; <file> was deleted", the file names first. */
export function tamperDetail(problems: readonly Tamper[]): string {
  return problems
    .slice(0, 5)
    .map((p) => `${p.file} ${TAMPER_TEXT[p.problem]}${p.detail ? ` (${p.detail})` : ''}`)
    .concat(problems.length > 5 ? [`and ${problems.length - 5} more`] : [])
    .join('; ');
}

// ── Pinned files outside the snapshot ──────────────────────────────────────────

const PIN_TEXT: Record<PinChange['problem'], string> = { changed: 'was changed', added: 'was added', deleted: 'was deleted' };

/** "<file> was changed; <file> was added", the first five, the file names first. */
export function pinList(changes: readonly PinChange[]): string {
  return changes
    .slice(0, 5)
    .map((c) => `${truncate(c.file, 200)} ${PIN_TEXT[c.problem]}`)
    .concat(changes.length > 5 ? [`and ${changes.length - 5} more`] : [])
    .join('; ');
}

export const gitDirChangedDetail = (changes: readonly PinChange[]): string =>
  `${pinList(changes)} since the loop started. git reads these files as configuration or runs them as programs, and no review sees them: ` +
  'look at the change (git config --list --show-origin; the hooks folder) and undo what you did not make before you run git in this repository again';

export const checkChangedDetail = (changes: readonly PinChange[]): string =>
  `${pinList(changes)} since the loop started. The checks run ${changes.length === 1 ? 'this file' : 'these files'}, which the snapshot and the reviews do not see: ` +
  'a check that passes now may pass because of that change. Put back what the loop did not need (e.g. reinstall the packages), then start the loop again';

export const rewrittenNote = (): string => 'the review file changed after the hooks recorded it; this result is from the review as recorded';
export const replacedNote = (reviewer: Reviewer): string =>
  `the review file was changed by someone else after ${reviewer} wrote it and before its stop; this result is from the review ${reviewer} wrote (its transcript)`;

export const aggregationFailedDetail = (iteration: number, attempts: number, timedOut: boolean): string =>
  `the verdict of round ${iteration} was not computed: the hook computing it was stopped ${timedOut ? 'after running longer than the hook time limit' : `${plural(attempts, 'time')}`}; ` +
  `the reviews are kept in ${reviewDir(iteration)}/. Start a new loop with a smaller scope`;

// ── /minions:status ─────────────────────────────────────────────────────────────

const ago = (then: string, now: string): string => {
  const minutes = Math.max(0, Math.round((Date.parse(now) - Date.parse(then)) / 60000));
  return minutes < 1 ? 'just now' : minutes < 120 ? `${minutes} min ago` : `${Math.round(minutes / 60)} h ago`;
};

export function statusReport(state: State, now: string, sessionId: string | null, where: string, facts?: LoopFacts): string {
  const live = state.status === 'in_progress';
  const it = state.iterations[state.iterations.length - 1]!;
  const owner = sessionId && state.sessionId === sessionId ? 'this session' : `session ${state.sessionId.slice(0, 8)}`;
  const lines = [
    `minions review loop — ${state.currentPhase}, ${iterationText(state)} (${live ? 'in progress' : state.status}${state.stopReason && state.stopReason !== 'cancelled' ? `: ${stopReasonText(state.stopReason)}` : ''})`,
    `Task: ${truncate(state.task, 200)}`,
    `Started ${ago(state.startedAt, now)} by ${owner}; last update ${ago(state.updatedAt, now)}.`,
  ];
  if (state.currentPhase === 'R1') {
    const parts = REVIEWERS.map((r) => {
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
  if (state.currentPhase === 'STOPPED' && state.openIssues.length) {
    lines.push('Open issues:', ...state.openIssues.slice(0, 10).map((i) => `  ${i.severity} ${truncate(i.file, 200)}${i.line ? `:${i.line}` : ''} — ${truncate(i.description, 100)}`));
  }
  if (facts) {
    const best = live ? bestSoFarLine(facts) : bestAttemptLine(facts);
    if (best) lines.push(best);
    lines.push(`${live ? 'Cost so far' : 'Cost'}: ${costLine(facts.cost)}${facts.cost.budget !== null ? ` of a ${count(facts.cost.budget)}-token budget` : ''}.`);
    if (!live) lines.push(`Report: ${facts.files.report}`);
  }
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
export const statusTampered = (problems: readonly Tamper[]): string =>
  `Warning: ${tamperDetail(problems)}. Shown is the last state the hooks wrote; the loop's next hook stops it (tampered).`;
export const statusBroken = (path: string, problem: string): string =>
  `minions: the loop state ${path} is unreadable (${problem}). Run /minions:cancel to archive it, or /minions:review to start afresh.`;

// ── minions restore / minions report ────────────────────────────────────────────

const listed = (paths: readonly string[], max = 8): string => `${paths.slice(0, max).join(', ')}${paths.length > max ? `, … (${paths.length - max} more)` : ''}`;
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

/** Writes refused because of what stands on the way (src/shell/files.ts); `where` is the path as the user knows it. */
export const files = {
  linkedOut: (dir: string, base: string): string => `${dir} leads out of ${base} (a symbolic link on the way); nothing was written there`,
  agentsLinked: (agents: string): string => `${agents} is a symbolic link; minions writes only in a folder of its own there. Remove the link (or move it) and run the command again`,
  missingFolder: (dir: string): string => `the folder ${dir} does not exist; create it first, or name a file in a folder that exists`,
  notAFolder: (dir: string): string => `${dir} is not a folder`,
  isAFolder: (file: string): string => `${file} is a folder; name a file to write`,
  /** An error of the file system, as a sentence: what failed, on which path, without node's errno text. */
  failed: (err: NodeJS.ErrnoException): string => {
    const what = FS_ERRORS[err.code ?? ''] ?? 'failed';
    return err.path ? `${err.path}: ${what}` : `a file could not be written or read (${what})`;
  },
};

const FS_ERRORS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'is a folder, not a file',
  ENOTDIR: 'a part of the path is not a folder',
  ENOENT: 'no such file or folder',
  EEXIST: 'something already stands there',
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is spent',
  EROFS: 'the file system is read-only',
  ELOOP: 'too many symbolic links on the way',
  ENAMETOOLONG: 'the name is too long',
  EMFILE: 'too many open files',
  EBUSY: 'busy',
  EXDEV: 'on another file system',
};

export const report = {
  noRun: (root: string): string => `${PREFIX} no review loop has run in this project (${root}), so there is nothing to report.`,
  broken: (problem: string): string => `${PREFIX} the loop state is unreadable (${problem}); run /minions:cancel to archive it first.`,
  written: (path: string): string => `${PREFIX} report written to ${path}`,
  sarifWritten: (path: string, results: number): string => `${PREFIX} SARIF 2.1.0 with ${plural(results, 'result')} written to ${path}`,
};
