/** Reads what a subagent cost from the transcript the host wrote for it. */
import fs from 'node:fs';
import type { CostReading } from '../core/events';
import { usageFromTranscript } from '../report/cost';

/** A transcript bigger than this is not read: its figures are then unknown. */
const MAX_TRANSCRIPT_BYTES = 64 * 1024 * 1024;

function readTranscript(file: string): string | null {
  try {
    // Only a regular file: a FIFO at that path would block the hook.
    const stat = fs.statSync(file);
    if (!stat.isFile() || stat.size > MAX_TRANSCRIPT_BYTES) return null;
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** The agent's usage so far; its figures are unknown (null) when the transcript is missing or unreadable. */
export function readAgentCost(payload: { agent_id?: string; agent_type?: string; agent_transcript_path?: string }): CostReading {
  const agent = (payload.agent_type ?? 'unknown').replace(/^minions:/, '');
  const agentId = payload.agent_id ?? payload.agent_transcript_path ?? `${agent}:unknown`;
  const text = payload.agent_transcript_path ? readTranscript(payload.agent_transcript_path) : null;
  const usage = text === null ? null : usageFromTranscript(text);
  return { agentId, cost: { agent, tokens: usage?.tokens ?? null, wallMs: usage?.wallMs ?? null } };
}
