/** The files a review round starts with, written by the hooks for the reviewers: diff.patch, fix-delta.patch, escalation.json. */
import type { Effect, PatchText, RoundPatches } from './events';
import { updateIteration } from './loop-state';
import * as prompts from './prompts';
import type { IterationRecord, PatchNote, State } from '../state/schema';
import { diffFile, escalationFile, fixDeltaFile } from '../protocol/paths';

/** How many changed files the state keeps by name (the patch's header lists them all). */
const NOTED_FILES = 20;

const noteOf = (p: PatchText | null | undefined): PatchNote | null => (p ? { count: p.files.length, files: p.files.slice(0, NOTED_FILES), truncated: p.truncated } : null);

export interface EscalationStart {
  escalated: IterationRecord['escalated'];
  /** The text of escalation.json. */
  content: string;
}

/** Records the new round's patches (and escalation) in its iteration and writes them; the R1 prompt names what was written. */
export function startRound(state: State, patches: RoundPatches | undefined, escalation: EscalationStart | null): { state: State; effects: Effect[] } {
  const n = state.iteration;
  const diff = patches?.diff ?? null;
  const fixDelta = n > 1 ? (patches?.fixDelta ?? null) : null;
  const effects: Effect[] = [];
  if (diff) effects.push({ type: 'write', path: diffFile(n), content: prompts.patchHeader('diff', n, state.base, diff) + diff.text });
  if (fixDelta) effects.push({ type: 'write', path: fixDeltaFile(n), content: prompts.patchHeader('fix-delta', n, state.base, fixDelta) + fixDelta.text });
  if (escalation) effects.push({ type: 'write', path: escalationFile(n), content: escalation.content });
  const next = updateIteration(state, state.updatedAt, (it) => ({
    ...it,
    patches: { diff: noteOf(diff), fixDelta: noteOf(fixDelta) },
    escalated: escalation?.escalated ?? [],
  }));
  return { state: next, effects };
}
