/** UserPromptSubmit: starts the loop in code (the project's config, the baseline checks), and reminds an owning session where it stands. */
import path from 'node:path';
import { DEFAULT_SCOPE, isReviewPrompt, parseCommand } from '../core/args';
import { chooseBase } from '../shell/base';
import { isFolder, readProjectRules } from '../shell/project-rules';
import { currentIteration, isActive, stateOf } from '../core/loop-state';
import { transition } from '../core/transition';
import { mayStart } from '../core/start';
import { awaitingChoice } from '../core/escalation-choice';
import { CONFIG_FILE, DEFAULT_SETTINGS, settingsFromConfig, validateConfig } from '../config/project-config';
import * as refusals from '../core/refusals';
import { readText } from '../shell/files';
import { startObservation } from '../shell/observe-tree';
import { startPins } from '../shell/pins';
import { runChecks } from '../shell/run-checks';
import { UserPromptSubmitPayload } from '../shell/payloads';
import { runHook } from '../shell/run-hook';
import { transact } from '../shell/transact';

void runHook({
  name: 'on-prompt-submit',
  event: 'UserPromptSubmit',
  payload: UserPromptSubmitPayload,
  transact,
  async handle(payload, ctx) {
    // A background agent's completion wakes the session with a <task-notification> prompt: not the user's.
    if (payload.prompt.trimStart().startsWith('<task-notification>')) return [];
    // The project's .minions.json gives the defaults of /minions:review; a bad one refuses the command.
    let defaults = DEFAULT_SETTINGS;
    if (isReviewPrompt(payload.prompt)) {
      const config = validateConfig(readText(path.join(ctx.root, CONFIG_FILE)));
      if (!config.ok) return [{ type: 'refuse', reason: refusals.refuse.badConfig(CONFIG_FILE, config.errors) }];
      defaults = settingsFromConfig(config.config);
    }
    const parsed = parseCommand(payload.prompt, defaults);
    if (!parsed.ok) return [{ type: 'refuse', reason: refusals.refuse.badArgs(parsed.error) }];
    const sessionId = payload.session_id;
    const command = parsed.command;
    if (command === null) {
      const loaded = ctx.load();
      const state = stateOf(loaded);
      const foreign = loaded.kind === 'tampered' && !state;
      if (!foreign && (!state || state.sessionId !== sessionId || !(isActive(state) || awaitingChoice(state)))) return [];
      const event = { kind: 'prompt', sessionId, now: ctx.now, text: payload.prompt } as const;
      // A prompt that changes nothing (the loop marked fresh minutes ago, its guard at rest) gets its reminder
      // from the state as the gates read it: no lock, no write, no full check of the loop's files (the next
      // hook that changes the state makes it). An aggregation to take up, or another host's loop, goes the locked way.
      if (loaded.kind === 'ok' && loaded.state.host === ctx.host && !currentIteration(loaded.state).r1.aggregation) {
        const outcome = transition(loaded, event);
        if (outcome.state === loaded.state) return outcome.effects;
      }
      return ctx.transact(() => event);
    }
    // /minions:status and /minions:cancel run dist/cli.mjs from their command files.
    if (command.kind !== 'review') return [];
    // What is reviewed: the base, chosen before anything runs; a bad ref, or nothing to review, starts nothing.
    const scope = command.scope ?? DEFAULT_SCOPE;
    const chosen = chooseBase(ctx.root, scope.base, scope.baseFrom);
    if (!chosen.ok) return [{ type: 'refuse', reason: refusals.refuse.badBase(chosen.problem) }];
    if (!chosen.choice.changed && !scope.taskGiven) return [{ type: 'refuse', reason: refusals.refuse.nothingToReview(chosen.choice.nothingBecause) }];
    const sarif = scope.sarif === null ? null : path.resolve(ctx.root, scope.sarif);
    if (sarif !== null && !isFolder(path.dirname(sarif))) return [{ type: 'refuse', reason: refusals.refuse.badSarif(scope.sarif!) }];
    const { commit, ref, why } = chosen.choice;
    // The baseline: the checks run once, before the lock and before the base snapshot (what they write is
    // part of the base), and only when the loop will start.
    const baseline =
      command.checks.commands.length > 0 && mayStart(ctx.load(), sessionId, command.force, ctx.now)
        ? await runChecks(ctx.root, command.checks.commands, { timeoutSeconds: command.checks.timeoutSeconds })
        : [];
    return ctx.transact(() => {
      const seen = startObservation(ctx.root, commit);
      // After the baseline, like the base snapshot: what the checks write as they run is part of the start.
      return { kind: 'command', command, sessionId, now: ctx.now, root: ctx.root, ...seen, baseline, pins: startPins(ctx.root, command.checks.commands, seen.tree), host: ctx.host, baseChoice: { ref, why }, sarif, projectRules: readProjectRules(ctx.root) };
    });
  },
});
