/** Reads what a subagent cost from the transcript the host wrote for it. */
import fs from 'node:fs';
import type { CostReading } from '../core/events';
import { usageFromTranscript, type TranscriptUsage } from '../report/cost';

/** A transcript bigger than this is not read: its figures are then unknown. */
const MAX_TRANSCRIPT_BYTES = 64 * 1024 * 1024;
/**
 * The host may still be writing a stopping agent's last response when its SubagentStop hook runs (seen
 * in the real CLI: a reviewer's second response missing, half its tokens uncounted). The stop reads the
 * transcript again, this often, until its last response ends the turn, for at most TRANSCRIPT_WAIT_MS;
 * then it takes what is there.
 */
export const TRANSCRIPT_POLL_MS = 20;
export const TRANSCRIPT_WAIT_MS = 2000;

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

const sleep = (ms: number): void => void Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

export interface Waiting {
  read: () => string | null;
  sleep: (ms: number) => void;
  now: () => number;
}

/**
 * The usage of a finished agent's transcript, read again while it looks unfinished: a last line cut off
 * (not JSON yet) or a last response that asks for a tool. null when there is no transcript.
 */
export function finishedUsage({ read, sleep, now }: Waiting, waitMs = TRANSCRIPT_WAIT_MS): TranscriptUsage | null {
  const deadline = now() + waitMs;
  for (;;) {
    const text = read();
    if (text === null) return null;
    const usage = usageFromTranscript(text);
    if ((usage !== null && usage.ended) || now() >= deadline) return usage;
    sleep(TRANSCRIPT_POLL_MS);
  }
}

/** The agent's usage at its stop; its figures are unknown (null) when the transcript is missing or unreadable. */
export function readAgentCost(payload: { agent_id?: string; agent_type?: string; agent_transcript_path?: string }): CostReading {
  return readAgentTranscript(payload).cost;
}

/** As readAgentCost, with the transcript's text as it was last read (null: none). */
export function readAgentTranscript(payload: { agent_id?: string; agent_type?: string; agent_transcript_path?: string }): { cost: CostReading; text: string | null } {
  const agent = (payload.agent_type ?? 'unknown').replace(/^minions:/, '');
  const agentId = payload.agent_id ?? payload.agent_transcript_path ?? `${agent}:unknown`;
  const file = payload.agent_transcript_path;
  let text: string | null = null;
  const usage = file
    ? finishedUsage({
        read: () => (text = readTranscript(file)),
        sleep,
        now: Date.now,
      })
    : null;
  return { cost: { agentId, cost: { agent, tokens: usage?.tokens ?? null, wallMs: usage?.wallMs ?? null } }, text };
}
