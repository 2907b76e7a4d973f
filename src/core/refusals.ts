/** Refusals: what the gates and the prompt hook say when they refuse, each naming the phase and what to do instead. */
import { FIXER_TYPE, agentType, type Reviewer } from '../protocol/agents';
import { STATE_FILE } from '../protocol/paths';
import type { State } from '../state/schema';
import type { OpaqueReason } from '../bash/effects';
import { PREFIX, truncate } from '../protocol/text';
import { ago } from '../report/texts';
import { HOST_NAMES, type Host } from '../protocol/hosts';
import { iterationText, reviewersWord } from './prompts';
import type { ModelAgent } from '../protocol/effort';
import type { BaseProblem, NothingBecause } from '../protocol/base';

export const USAGE =
  'Usage: /minions:review [--base <ref>] [--no-fix] [--sarif FILE] [--max-iterations N] [--max-critical N] [--stuck-rounds N] [--fixpoint-similarity X] [--done-when LEVEL] [--min-confidence N] [--max-tokens N] [--check "<command>"]… [--check-timeout S] [--effort quick|standard|deep] [--force] [--] <what to review>';

/** Shown to the user (not the model) when the edit gate lets the plugin's own file through without a prompt. */
export const allow = {
  ownReview: (r: Reviewer, own: string): string => `minions R1: ${agentType(r)} writes its own review, ${own}`,
  fixSummary: (file: string): string => `minions R2: ${FIXER_TYPE} writes its fix summary, ${file}`,
};

export const deny = {
  reviewerAlready: (r: Reviewer, state: State, status: string): string =>
    `minions R1 (${iterationText(state)}): ${agentType(r)} ${status === 'running' ? 'is already running' : 'has already reviewed this iteration'}; ` +
    `each reviewer runs once per iteration. Wait for the others, then end your turn.`,
  reviewerNotInProfile: (r: Reviewer, state: State, missing: readonly Reviewer[]): string =>
    `minions R1 (${iterationText(state)}): ${agentType(r)} is not part of this loop's effort profile (${state.effort.profile}: ${state.effort.reviewers.join(', ')}). ` +
    (missing.length > 0 ? `Dispatch ${missing.map(agentType).join(', ')} instead, then end your turn.` : 'Every reviewer of the profile has been dispatched: wait for them, then end your turn.'),
  wrongModel: (agent: ModelAgent, state: State, asked: string, given: string | null): string =>
    `minions ${state.currentPhase} (${iterationText(state)}): the effort profile ${state.effort.profile} asks for ${agentType(agent)} on model "${asked}", ` +
    `but this Agent call ${given === null ? 'names no model (it would run on the session\'s model)' : `names model "${truncate(given, 40)}"`}. Dispatch it again with model: "${asked}".`,
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
    (state.currentPhase === 'R1' ? `Dispatch the ${reviewersWord(state)} named in the [PHASE R1] prompt.` : `Dispatch ${FIXER_TYPE}.`),
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
  reviewOnlyWrite: (state: State, who: string): string =>
    `minions ${state.currentPhase} (${iterationText(state)}): this is a review-only pass (--no-fix): nobody, ${who} included, changes project files while it runs. ` +
    'Dispatch the reviewers the [PHASE R1] prompt names, then end your turn; the loop ends REVIEWED with the verdict. /minions:cancel ends it now.',
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
    `while it runs, only ${state.currentPhase === 'R1' ? `the ${reviewersWord(state)} named in the [PHASE R1] prompt` : FIXER_TYPE} may be dispatched. ` +
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

export const refuse = {
  badBase: (problem: BaseProblem): string => {
    const ref = `"${truncate(problem.ref, 120)}"`;
    const why = {
      'bad-ref': `the base ${ref} names no commit in this repository (a branch, tag or commit, e.g. origin/main; git fetch it first if it is a remote branch)`,
      'not-git': `the base ${ref} needs a git repository, and this project is not in one: review without --base (and without .minions.json's base)`,
      unborn: `HEAD has no commit yet, so there is nothing to measure from the base ${ref}: commit first, or review without --base`,
      shallow: `this clone is shallow and holds no commit that HEAD shares with the base ${ref}: fetch the history first (git fetch --unshallow, or fetch-depth: 0 in actions/checkout)`,
      unrelated: `HEAD and the base ${ref} share no history: name the branch this work was started from`,
    }[problem.kind];
    return `${PREFIX} ${why}. Nothing was started.`;
  },
  nothingToReview: (because: NothingBecause | undefined): string => {
    const why = {
      detached: 'HEAD is detached, so there is no branch to compare it with',
      'no-default': 'the branch has no upstream, and there is no default branch (origin/HEAD, main or master) to compare it with',
      'on-base': 'the branch holds no commit its upstream or the default branch does not',
    }[because ?? 'on-base'];
    return (
      `${PREFIX} nothing to review: the working tree has no uncommitted changes and ${why}. Nothing was started. ` +
      'Name the base to review against (/minions:review --base origin/main), or say what to review (/minions:review <what to review>).'
    );
  },
  badSarif: (file: string): string => `${PREFIX} --sarif ${truncate(file, 200)}: its folder does not exist. Nothing was started; name a file in an existing folder.`,
  badArgs: (problem: string): string => `${PREFIX} ${truncate(problem, 200)}. ${USAGE}. Nothing was started; fix the command and send it again.`,
  badConfig: (file: string, problems: readonly string[]): string =>
    `${PREFIX} ${file} is not valid: ${problems.map((p) => truncate(p, 300)).join('; ')}. Nothing was started; fix ${file} (its JSON Schema: schema/minions-config.schema.json in the minions repository) and send the command again.`,
  busy: (state: State, minutesAgo: number): string =>
    `${PREFIX} another session's review loop is running in this project (${state.currentPhase}, ${iterationText(state)}, "${truncate(state.task, 60)}", updated ${minutesAgo} min ago). ` +
    'Wait for it to finish, run /minions:cancel in that session, or take over with /minions:review --force <task>.',
  notOwner: (): string =>
    `${PREFIX} the review loop in this project belongs to another session; run /minions:cancel there, or /minions:cancel --force here.`,
  noLoop: (): string => `${PREFIX} no review loop is running in this project.`,
  /** A session of another host than the one that started the running loop: its hooks leave that loop alone. */
  otherHost: (state: State, started: Host, current: Host): string =>
    `${PREFIX} the review loop in this project was started under ${HOST_NAMES[started]} (${state.currentPhase}, ${iterationText(state)}, "${truncate(state.task, 60)}"); ` +
    `the hooks of this ${HOST_NAMES[current]} session neither advance nor gate it. Carry it on in ${HOST_NAMES[started]}, ` +
    'or take over here with /minions:review --force <task> (the running loop is archived), or end it with /minions:cancel --force.',
};
