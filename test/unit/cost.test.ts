/** What the loop cost: usage read from transcripts the real CLI wrote, and from missing and garbled ones. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loopCost, overBudget, recordCost, sumCosts, tokenTotal, usageFromTranscript } from '../../src/report/cost';
import { TRANSCRIPT_POLL_MS, TRANSCRIPT_WAIT_MS, finishedUsage, readAgentCost } from '../../src/shell/transcript';
import { stateBuilder } from './builders';
import { agent, tokens } from './report-builders';

const DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'transcripts');
const read = (name: string): string => fs.readFileSync(path.join(DIR, name), 'utf8');
const EXPECTED = JSON.parse(read('expected.json')) as Record<string, { input: number; output: number; cacheCreation: number; cacheRead: number; requests: number }>;

describe('usage from a transcript the real CLI wrote', () => {
  it.each(Object.keys(EXPECTED))('%s: the usage the model server reported, each response once', (name) => {
    const { requests, ...want } = EXPECTED[name]!;
    const usage = usageFromTranscript(read(name));
    expect(usage?.tokens).toEqual(want);
    expect(usage?.messages).toBe(requests);
    expect(usage?.wallMs).toBeGreaterThan(0);
  });

  it('the orchestrator’s transcript repeats a response’s usage on every content block: counted once', () => {
    const lines = read('orchestrator.jsonl').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { type: string; message?: { id: string } });
    const assistant = lines.filter((l) => l.type === 'assistant');
    expect(assistant.length).toBeGreaterThan(new Set(assistant.map((l) => l.message!.id)).size);
    expect(usageFromTranscript(read('orchestrator.jsonl'))?.messages).toBe(new Set(assistant.map((l) => l.message!.id)).size);
  });

  it('cache tokens are read and kept apart', () => {
    const withCache = read('critic.jsonl')
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const entry = JSON.parse(l);
        if (entry.type === 'assistant') entry.message.usage = { ...entry.message.usage, cache_creation_input_tokens: 1200, cache_read_input_tokens: 30_000 };
        return JSON.stringify(entry);
      })
      .join('\n');
    const { requests, ...base } = EXPECTED['critic.jsonl']!;
    expect(usageFromTranscript(withCache)?.tokens).toEqual({ ...base, cacheCreation: 2 * 1200, cacheRead: 2 * 30_000 });
    expect(requests).toBe(2);
  });

  it('the wall time runs from the first to the last timestamped entry', () => {
    const text = read('review-fixer.jsonl');
    const stamps = text.split('\n').filter(Boolean).flatMap((l) => {
      const t = (JSON.parse(l) as { timestamp?: string }).timestamp;
      return t ? [Date.parse(t)] : [];
    });
    expect(usageFromTranscript(text)?.wallMs).toBe(Math.max(...stamps) - Math.min(...stamps));
  });
});

describe('a transcript that cannot be read costs nothing and is marked unknown', () => {
  const critic = read('critic.jsonl');
  it.each([
    ['empty', ''],
    ['not JSON at all', 'garbage\x00\x01'],
    ['one garbled line in the middle', critic.replace(/\n/, '\n{"type":"assistant","message":{"id":"x","usage":{"input_tokens":5\n')],
    ['cut off in its last line', critic.slice(0, critic.lastIndexOf('"type"'))],
    ['an assistant entry without usage', '{"type":"assistant","message":{"id":"m1"},"timestamp":"2026-12-01T00:00:00Z"}\n'],
    ['negative or fractional tokens', '{"type":"assistant","message":{"id":"m1","usage":{"input_tokens":-1,"output_tokens":2.5}}}\n'],
    ['JSON that is not an entry', '[1,2,3]\n'],
  ])('%s', (_, text) => {
    expect(usageFromTranscript(text)).toBeNull();
  });

  it('readAgentCost: a missing file, a directory, no path at all: tokens and time unknown, never guessed', () => {
    const base = { agent_id: 'a1', agent_type: 'minions:critic' };
    for (const p of [path.join(DIR, 'no-such.jsonl'), DIR, undefined]) {
      expect(readAgentCost({ ...base, agent_transcript_path: p })).toEqual({ agentId: 'a1', cost: { agent: 'critic', tokens: null, wallMs: null } });
    }
    const real = readAgentCost({ ...base, agent_transcript_path: path.join(DIR, 'critic.jsonl') });
    const { requests: _, ...want } = EXPECTED['critic.jsonl']!;
    expect(real.cost.tokens).toEqual(want);
  });
});

describe('a transcript the host is still writing at the stop', () => {
  const whole = read('critic.jsonl');
  const lines = whole.split('\n');
  const lastResponse = lines.map((l) => l.includes('"type":"assistant"')).lastIndexOf(true);
  /** Up to the agent's last response: its tool call is there, the answer after it not yet. */
  const beforeAnswer = `${lines.slice(0, lastResponse).join('\n')}\n`;
  /** The last response's line half written. */
  const cutOff = `${beforeAnswer}${lines[lastResponse]!.slice(0, 200)}`;
  /** A fake clock: sleeping moves it, nothing waits. */
  function reader(texts: (string | null)[]) {
    let t = 0;
    let reads = 0;
    return { read: () => texts[Math.min(reads++, texts.length - 1)]!, sleep: (ms: number) => void (t += ms), now: () => t, reads: () => reads, slept: () => t };
  }

  it('a transcript whose last response asks for a tool is read again until the answer is there', () => {
    expect(usageFromTranscript(beforeAnswer)?.ended).toBe(false);
    expect(usageFromTranscript(whole)?.ended).toBe(true);
    for (const first of [beforeAnswer, cutOff]) {
      const r = reader([first, first, whole]);
      expect(finishedUsage(r)?.tokens).toEqual(usageFromTranscript(whole)!.tokens);
      expect(r.reads()).toBe(3);
      expect(r.slept()).toBe(2 * TRANSCRIPT_POLL_MS);
    }
  });

  it('a finished transcript is read once, with no wait', () => {
    const r = reader([whole]);
    expect(finishedUsage(r)?.messages).toBe(2);
    expect(r.reads()).toBe(1);
    expect(r.slept()).toBe(0);
  });

  it(`one that never finishes is taken as it is after ${TRANSCRIPT_WAIT_MS} ms; a cut-off one is then unknown, and a missing one is unknown at once`, () => {
    const stuck = reader([beforeAnswer]);
    expect(finishedUsage(stuck)).toEqual(usageFromTranscript(beforeAnswer));
    expect(stuck.slept()).toBe(TRANSCRIPT_WAIT_MS);
    const garbled = reader([cutOff]);
    expect(finishedUsage(garbled)).toBeNull();
    expect(garbled.slept()).toBe(TRANSCRIPT_WAIT_MS);
    const missing = reader([null]);
    expect(finishedUsage(missing)).toBeNull();
    expect(missing.slept()).toBe(0);
  });
});

describe('totals and the budget', () => {
  it('sums known figures and counts the unknown ones apart', () => {
    const total = sumCosts([agent('critic', tokens(100, 10, 5, 50), 1000), agent('pedant', null, null), agent('review-fixer', tokens(200, 20), 3000)]);
    expect(total).toEqual({ tokens: tokens(300, 30, 5, 50), total: 385, agents: 3, unknown: 1, agentMs: 4000 });
    expect(tokenTotal(tokens(1, 2, 3, 4))).toBe(10);
  });

  it('a continued agent’s later reading replaces its earlier one, in the round it was first seen', () => {
    let state = stateBuilder().build();
    state = recordCost(state, 'a1', agent('critic', tokens(100, 1)));
    state = { ...state, iterations: [...state.iterations, { ...state.iterations[0]!, iteration: 2, cost: {} }] };
    state = recordCost(state, 'a1', agent('critic', tokens(300, 3)));
    state = recordCost(state, 'a2', agent('pedant', tokens(50, 5)));
    expect(state.iterations.map((it) => it.cost)).toEqual([{ a1: agent('critic', tokens(300, 3)) }, { a2: agent('pedant', tokens(50, 5)) }]);
    expect(loopCost(state).total).toBe(358);
  });

  it('over budget once the tokens reach it; never without a budget', () => {
    const spent = recordCost(stateBuilder().build(), 'a1', agent('critic', tokens(900, 100)));
    expect(overBudget(spent)).toBeNull();
    expect(overBudget({ ...spent, rules: { ...spent.rules, maxTokens: 1001 } })).toBeNull();
    expect(overBudget({ ...spent, rules: { ...spent.rules, maxTokens: 1000 } })).toEqual({ spent: 1000, budget: 1000 });
    const unknownOnly = recordCost(stateBuilder().build(), 'a1', agent('critic', null));
    expect(overBudget({ ...unknownOnly, rules: { ...unknownOnly.rules, maxTokens: 1 } })).toBeNull();
  });
});
