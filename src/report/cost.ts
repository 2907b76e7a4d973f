/**
 * What the loop cost: the token usage the host recorded in each agent's transcript (JSONL), summed
 * per round and for the loop. Pure: the shell reads the file, this reads the text.
 */
import type { AgentCost, IterationRecord, State, Tokens } from '../state/schema';

export const NO_TOKENS: Tokens = { input: 0, output: 0, cacheCreation: 0, cacheRead: 0 };

export interface TranscriptUsage {
  tokens: Tokens;
  /** From the first to the last timestamped entry; null when none has a timestamp. */
  wallMs: number | null;
  /** Distinct model responses counted. */
  messages: number;
  /**
   * Whether the last response ends the agent's turn. A response that asks for a tool is always followed
   * by another one: a stopping agent's transcript that ends with it is still being written.
   */
  ended: boolean;
}

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;

/**
 * The usage in a transcript. The host writes one line per content block of a response, each repeating the
 * response's usage, so a message id is counted once (its last line). null when any line is not JSON or an
 * assistant entry carries no readable usage: a partly read transcript would be a guess, and none is made.
 */
export function usageFromTranscript(text: string): TranscriptUsage | null {
  const byMessage = new Map<string, Tokens>();
  let first = Infinity;
  let last = -Infinity;
  let entries = 0;
  let ended = true;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      return null;
    }
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return null;
    const record = entry as { type?: unknown; timestamp?: unknown; uuid?: unknown; message?: { id?: unknown; stop_reason?: unknown; usage?: Record<string, unknown> } };
    if (typeof record.type !== 'string') return null;
    entries += 1;
    const at = typeof record.timestamp === 'string' ? Date.parse(record.timestamp) : NaN;
    if (Number.isFinite(at)) {
      first = Math.min(first, at);
      last = Math.max(last, at);
    }
    if (record.type !== 'assistant') continue;
    const usage = record.message?.usage;
    if (!usage || !isCount(usage.input_tokens) || !isCount(usage.output_tokens)) return null;
    const optional = (v: unknown): number | null => (v === undefined || v === null ? 0 : isCount(v) ? v : null);
    const cacheCreation = optional(usage.cache_creation_input_tokens);
    const cacheRead = optional(usage.cache_read_input_tokens);
    if (cacheCreation === null || cacheRead === null) return null;
    const id = typeof record.message?.id === 'string' ? record.message.id : typeof record.uuid === 'string' ? record.uuid : `line ${i}`;
    byMessage.set(id, { input: usage.input_tokens, output: usage.output_tokens, cacheCreation, cacheRead });
    ended = record.message?.stop_reason !== 'tool_use';
  }
  if (entries === 0) return null;
  return {
    tokens: [...byMessage.values()].reduce(addTokens, NO_TOKENS),
    wallMs: Number.isFinite(first) ? last - first : null,
    messages: byMessage.size,
    ended,
  };
}

export const addTokens = (a: Tokens, b: Tokens): Tokens => ({
  input: a.input + b.input,
  output: a.output + b.output,
  cacheCreation: a.cacheCreation + b.cacheCreation,
  cacheRead: a.cacheRead + b.cacheRead,
});

/** Every token the host counted for a call: input, output, and both kinds of cache tokens. */
export const tokenTotal = (t: Tokens): number => t.input + t.output + t.cacheCreation + t.cacheRead;

export interface CostTotal {
  /** The sum over agents whose figures are known. */
  tokens: Tokens;
  total: number;
  /** Agent runs counted, and those whose transcript could not be read (their figures are unknown). */
  agents: number;
  unknown: number;
  /** Summed agent time (agents of a round run side by side, so this is more than the clock time). */
  agentMs: number;
}

export function sumCosts(costs: readonly AgentCost[]): CostTotal {
  const known = costs.filter((c) => c.tokens !== null);
  const tokens = known.reduce((sum, c) => addTokens(sum, c.tokens!), NO_TOKENS);
  return {
    tokens,
    total: tokenTotal(tokens),
    agents: costs.length,
    unknown: costs.length - known.length,
    agentMs: costs.reduce((sum, c) => sum + (c.wallMs ?? 0), 0),
  };
}

export const roundCost = (it: IterationRecord): CostTotal => sumCosts(Object.values(it.cost));
export const loopCost = (state: State): CostTotal => sumCosts(state.iterations.flatMap((it) => Object.values(it.cost)));

/**
 * Records an agent's latest reading: a continued agent stops again with a longer transcript, so the new
 * reading replaces the old one, in the round where the agent was first seen (else the current round).
 */
export function recordCost(state: State, agentId: string, cost: AgentCost): State {
  const iterations = state.iterations.slice();
  const seen = iterations.findIndex((it) => Object.hasOwn(it.cost, agentId));
  const at = seen >= 0 ? seen : iterations.length - 1;
  iterations[at] = { ...iterations[at]!, cost: { ...iterations[at]!.cost, [agentId]: cost } };
  return { ...state, iterations };
}

/** The budget rule: the tokens spent so far, when they reach the budget; null while within it (or with none). */
export function overBudget(state: State): { spent: number; budget: number } | null {
  const budget = state.rules.maxTokens;
  if (budget === null) return null;
  const spent = loopCost(state).total;
  return spent >= budget ? { spent, budget } : null;
}
