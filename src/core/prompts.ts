/** Model-facing texts: the phase prompts, the send-backs to an agent, and the headers of the files the hooks write for a round. */
import { FIXER, FIXER_TYPE, REVIEWERS, agentType, type Reviewer } from '../protocol/agents';
import type { ModelAgent } from '../protocol/effort';
import { rulesFile, absolute, changedDuringReviewFile, diffFile, escalationFile, findingsFile, fixDeltaFile, fixSummaryFile, fixSummaryJsonFile, reviewerFile, verdictFile, checksFile, layer0File } from '../protocol/paths';
import type { IterationRecord, PatchNote, PitfallNote, State, VerdictSummary } from '../state/schema';
import type { EscalationReason, Verdict } from '../protocol/verdict-schema';
import type { MachineFinding } from '../protocol/machine-finding';
import type { CheckOutcome, CheckRun } from '../protocol/check-runs';
import { fileNames, plural, truncate } from '../protocol/text';
import { checkResultText } from '../checks/texts';
import { countsText, readinessText } from '../report/texts';

const MAX_LISTED_FILES = 40;

/** The task in a phase prompt (its full text stays in the state). */
export const MAX_TASK_IN_PROMPT = 2000;

export const iterationText = (s: Pick<State, 'iteration' | 'maxIterations'>): string => `Iteration ${s.iteration}/${s.maxIterations}`;

function changedFilesText(files: readonly string[], base: string | null): string {
  const against = base ? `against ${base.slice(0, 12)}` : 'in the working tree';
  if (files.length === 0) return `Changed files (${against}): none detected; review what the task names.`;
  const listed = files.slice(0, MAX_LISTED_FILES).map((f) => truncate(f, 200)).join(', ');
  const more = files.length > MAX_LISTED_FILES ? ` … and ${files.length - MAX_LISTED_FILES} more (git status shows them)` : '';
  return `Changed files (${against}): ${listed}${more}`;
}

const COUNT_WORDS = ['no', 'one', 'two', 'three', 'four', 'five'];
/** "the five reviewers", "three reviewers": the loop's effort profile's. */
export const reviewersWord = (state: Pick<State, 'effort'>): string => `${COUNT_WORDS[state.effort.reviewers.length] ?? state.effort.reviewers.length} reviewer${state.effort.reviewers.length === 1 ? '' : 's'}`;

/** ` (model: "sonnet")` after an agent's name, when the effort profile asks a model of it (inherit: none is named). */
export function modelAsked(state: Pick<State, 'effort'>, agent: ModelAgent): string {
  const model = state.effort.models[agent];
  return model === 'inherit' ? '' : ` (model: "${model}")`;
}

export function r1Prompt(state: State, changedFiles: readonly string[], missing: readonly Reviewer[] = state.effort.reviewers): string {
  const n = state.iteration;
  const current = state.iterations[state.iterations.length - 1]!;
  const previous = n > 1 ? state.iterations[state.iterations.length - 2] : undefined;
  const lines = [`[PHASE R1] minions review — ${iterationText(state)}`, `Task: ${truncate(state.task, MAX_TASK_IN_PROMPT)}`, ...rootLine(state), changedFilesText(changedFiles, state.base), changeLine(state, current)];
  if (previous) lines.push(...reReviewLines(state, previous, current));
  lines.push(...pitfallLines(previous?.verdict?.pitfalls ?? []));
  lines.push(...escalationLines(state, current));
  lines.push('');
  const profile = state.effort.reviewers;
  const withModels = profile.some((r) => state.effort.models[r] !== 'inherit');
  lines.push(
    missing.length === profile.length
      ? `Dispatch all ${reviewersWord(state)}${profile.length < REVIEWERS.length ? ` of the effort profile ${state.effort.profile}` : ''} now in ONE message: one Agent call each, subagent_type as named${withModels ? ', model as named' : ''}, run_in_background: false.`
      : `Still missing ${missing.length} of ${profile.length} reviews. Dispatch only these now, in ONE message${withModels ? ', model as named' : ''}, run_in_background: false:`,
  );
  for (const r of missing) lines.push(`- ${agentType(r)}${modelAsked(state, r)} → ${at(state, reviewerFile(n, r))}`);
  if (state.projectRules) {
    // Each reviewer's own copy: a section of the rules headed with another reviewer's name is not in it.
    lines.push(
      `Give each reviewer its own copy of the project's review rules (from ${truncate(state.projectRules, 100)}) and no other one's, as "Read the project's review rules at <its rules path> and apply them": ` +
        missing.map((r) => `${agentType(r)}: ${at(state, rulesFile(r))}`).join('; '),
    );
  }
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
    `Merged from the ${COUNT_WORDS[state.effort.reviewers.length] ?? state.effort.reviewers.length} reviews (the fixer is given only the findings file, not these): ${state.effort.reviewers.map((r) => at(state, reviewerFile(n, r))).join(', ')}`,
    ...pitfallLines(verdict.pitfalls),
    '',
    `Dispatch the fixer now, once: one Agent call${modelAsked(state, FIXER) ? ', model as named' : ''}, run_in_background: false.`,
    `- ${FIXER_TYPE}${modelAsked(state, FIXER)} → ${at(state, fixSummaryFile(n))}`,
    `Give it: the task, "Fix every finding, at every severity, in ${at(state, findingsFile(n))} (merged and checked against the code; each has a fingerprint and a class; one marked unverified did not match the code as quoted: check it first, then fix it or decline it with a reason; one marked optional is below the loop's completion level: fix it when that is small and safe, else decline it with a reason).",` +
      (classLines.length > 0 ? ' the class lines below,' : ''),
    `"Write your fix summary to ${at(state, fixSummaryFile(n))} and your answer per finding to ${at(state, fixSummaryJsonFile(n))}: ` +
      `${FIX_ANSWER_EXAMPLE}" (${FIX_ANSWER_RULES}).`,
    ...classLines,
    ...choiceLines(state),
    'Then end your turn. Do not fix or edit files yourself.',
  ].join('\n');
}

/** After the escalation question: the round the user chose, and for a structural one, the diagnosis as the fixer's task. */
function choiceLines(state: State): string[] {
  const choice = state.escalationChoice?.choice;
  if (choice === 'structural') {
    return [`The user chose the structural fix after the critic's diagnosis: give the fixer, as its task, "Apply the root-level fix of the diagnosis, not another local patch: ${truncate(state.escalationChoice!.diagnosis, 2000)}".`];
  }
  if (choice === 'patch') return ['The user chose one more patch round after the critic\'s diagnosis: the fixer fixes the findings as usual.'];
  return [];
}

/** One class's diagnosis, as the structural round's task. */
export const diagnosisTask = (id: string, rootCause: string, fix: string): string => `Class ${id}: root cause: ${truncate(rootCause, 600)}; fix: ${truncate(fix, 600)}.`;

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

/** The review's shape, as every send-back to a reviewer shows it. */
export const REVIEW_SKELETON =
  '{"issues":[{"severity":"critical","category":"logic-error","file":"src/a.ts","line":12,"description":"what is wrong","evidence":"the code, copied exactly","suggestion":"the fix"}],"summary":{"critical":1,"warning":0,"info":0,"verdict":"issues_found"}}';

export const reviewerInvalid = (path: string, error: string): string =>
  `Your review at ${path} cannot be read as written: ${truncate(error, 500)}. Fix exactly that and write the whole JSON object again to ${path} with the Write tool ` +
  `(the file is the review: your final message does not replace it). Each severity is one of "critical", "warning" or "info"; the shape: ${REVIEW_SKELETON}`;

export const reviewerMissing = (path: string): string =>
  `No review found: ${path} is missing or empty, and your final message holds no JSON review. Write your JSON findings to ${path} with the Write tool. ` +
  `Use {"issues":[]} if you found nothing. The shape: ${REVIEW_SKELETON}`;

/** One finding the files do not bear out, as the send-back names it. */
export const ungroundedLine = (i: number, f: { severity: string; file: string; line: number | null; description: string }, reason: string | null): string =>
  `issues[${i}] (${f.severity}, ${f.file}${f.line ? `:${f.line}` : ''}: ${truncate(f.description, 80)}): ${reason ?? 'not found in the code'}`;

export const reviewerUngrounded = (path: string, problems: readonly string[]): string =>
  `${plural(problems.length, 'finding')} in ${path} ${problems.length === 1 ? 'does' : 'do'} not match the files (ungrounded):\n${problems.slice(0, 30).map((p) => `- ${truncate(p, 300)}`).join('\n')}${problems.length > 30 ? `\n- … and ${problems.length - 30} more` : ''}\n` +
  'An ungrounded finding is not fixed and not counted; a critical or warning one goes to the fixer marked unverified, who checks it and may decline it. ' +
  `Check each against the code: give the file's path from the project root, the line, and evidence copied exactly from the file (no line numbers, no diff markers), or remove the finding, and write ${path} again. ` +
  'If one is right as written, keep it as it is and end your turn.';

export const fixerSummaryProblems = (md: string, json: string, problems: readonly string[]): string =>
  `Your fix summary is not complete: ${problems.slice(0, 20).map((p) => truncate(p, 300)).join('; ')}. Write ${md} (one line per finding: [fixed], [could not fix], [declined] or [escalate] with the reason, then the tests you ran) ` +
  `and ${json}: {"fixes":[{"fingerprint":"<from r2-findings.json>","status":"fixed|declined|could_not_fix|escalate","kind":"patch|structural","reason":"…"}],` +
  `"patterns":[{"class":"<an audit-first class>","pattern":"…","sites":["file:line"]}]}, one entry per finding (${FIX_ANSWER_RULES}).`;

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
export function afterFixText(it: { checks: CheckOutcome[] | null; layer0: { files: number; findings: number } | null } | undefined): string {
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
/** Layer-0's findings on the fixer's change: it is sent back before any reviewer runs. */
export function layer0Found(findings: readonly MachineFinding[], report: string, attempt: number, max: number): string {
  const shown = findings.slice(0, 10).map((f) => `- ${truncate(f.file, 200)}${f.line ? `:${f.line}` : ''} (${f.category}): ${truncate(f.description, 300)}\n  ${truncate(f.evidence, 200)}`);
  const more = findings.length > shown.length ? `\n… and ${findings.length - shown.length} more in ${report}` : '';
  return (
    `The hooks' Layer-0 checks found this in your change (sent back ${attempt} of ${max}):\n${shown.join('\n')}${more}\n\n` +
    'Finish the work instead: no placeholder (TODO, FIXME, ??? …), no skipped or removed test, no suppression, no empty catch. ' +
    `Update your two summaries if what you did changed, then end your turn; the hooks check again.${attempt >= max ? ' What is still there becomes a finding of the next review.' : ''} Report: ${report}`
  );
}

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
