/** PreToolUse on Agent: during R1 and R2 the owning session dispatches only the phase's minions agents. */
import { FIXER, isFixer, isPluginAgent, reviewerOf } from '../protocol/agents';
import type { ModelAgent } from '../protocol/effort';
import type { Event, Outcome } from './events';
import { currentIteration, isActive, missingReviewers, updateIteration } from './loop-state';
import * as refusals from './refusals';
import type { State } from '../state/schema';

export function onDispatch(state: State, event: Extract<Event, { kind: 'dispatch' }>): Outcome {
  if (!isActive(state)) return { state, effects: [] };
  const denyWith = (reason: string): Outcome => ({ state, effects: [{ type: 'deny', reason }] });
  // general-purpose, Explore, other plugins' agents, an untyped Agent call: none of them is gated by the
  // loop once running, so none may start while it runs.
  // Only the orchestrator dispatches: a reviewer starting another reviewer would write its prompt.
  if (event.fromAgent) return denyWith(refusals.deny.dispatchFromAgent(event.fromAgent, state));
  if (event.subagentType === null || !isPluginAgent(event.subagentType)) return denyWith(refusals.deny.agentNotInPhase(event.subagentType, state));
  const reviewer = reviewerOf(event.subagentType);
  const current = currentIteration(state);

  if (state.currentPhase === 'R1') {
    if (isFixer(event.subagentType)) return denyWith(refusals.deny.fixerInR1(state));
    if (!reviewer) return denyWith(refusals.deny.otherPluginAgent(event.subagentType, state));
    const run = current.r1.reviewers[reviewer];
    if (run.status === 'skipped') return denyWith(refusals.deny.reviewerNotInProfile(reviewer, state, missingReviewers(state).filter((r) => current.r1.reviewers[r].status === 'pending')));
    if (run.status !== 'pending') return denyWith(refusals.deny.reviewerAlready(reviewer, state, run.status));
    const wrongModel = modelRefusal(state, reviewer, event.model);
    if (wrongModel) return denyWith(wrongModel);
    return {
      state: updateIteration(state, event.now, (it) => ({
        ...it,
        r1: { ...it.r1, reviewers: { ...it.r1.reviewers, [reviewer]: { ...run, status: 'running', dispatches: run.dispatches + 1, failures: 0 } } },
      })),
      effects: [],
    };
  }
  // R2
  if (reviewer) return denyWith(refusals.deny.reviewerInR2(state));
  if (!isFixer(event.subagentType)) return denyWith(refusals.deny.otherPluginAgent(event.subagentType, state));
  if (current.r2.status !== 'pending' || !current.verdict || current.verdict.total === 0) return denyWith(refusals.deny.fixerAlready(state));
  const wrongModel = modelRefusal(state, FIXER, event.model);
  if (wrongModel) return denyWith(wrongModel);
  return {
    state: updateIteration(state, event.now, (it) => ({ ...it, r2: { ...it.r2, status: 'running', dispatches: it.r2.dispatches + 1, failures: 0 } })),
    effects: [],
  };
}

/**
 * The model the effort profile asks of the agent, held on Claude Code only (Copilot's and Codex's spawn
 * payloads carry no model). `inherit` leaves the Agent call's model to the orchestrator, as before profiles;
 * any other asked model must be named: an omitted one would run the agent (frontmatter `inherit`) on the
 * session's model. `model` undefined: the shell saw no Agent input to read it from (older callers).
 */
function modelRefusal(state: State, agent: ModelAgent, model: string | null | undefined): string | null {
  const asked = state.effort.models[agent];
  if (state.host !== 'claude-code' || asked === 'inherit' || model === undefined || model === asked) return null;
  return refusals.deny.wrongModel(agent, state, asked, model);
}
