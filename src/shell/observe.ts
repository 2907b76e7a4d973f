/** What the SubagentStop hook reads from disk for the pure core: reviews, the code they cite, earlier rounds. */
import path from 'node:path';
import { readText } from './files';
import type { FixRound } from '../review/classes';
import { FixEntryFields, Verdict } from '../protocol/verdict-schema';
import { fixSummaryFile, fixSummaryJsonFile, verdictFile, fixDeltaFile } from '../protocol/paths';

export { readSources } from './sources';

/** A schema's safeParse, as every reader of the hooks' JSON files uses it. */
export type SafeParser<T> = { safeParse(data: unknown): { success: true; data: T } | { success: false } };

/** The text as the schema reads it; null when there is no text, it is not JSON, or it does not validate. */
export function parseOrNull<T>(schema: SafeParser<T>, text: string | null): T | null {
  if (!text) return null;
  try {
    const parsed = schema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** A JSON file as the schema reads it, or null (see parseOrNull). */
export const readParsed = <T>(schema: SafeParser<T>, file: string): T | null => parseOrNull(schema, readText(file));

/** Earlier rounds' verdicts, oldest first; an unreadable one is left out. */
export function readHistory(root: string, iteration: number): Verdict[] {
  const history: Verdict[] = [];
  for (let n = 1; n < iteration; n++) {
    const verdict = readVerdict(root, n);
    if (verdict) history.push(verdict);
  }
  return history;
}

/** One round's verdict, or null when it is missing or unreadable. */
export function readVerdict(root: string, iteration: number): Verdict | null {
  return readParsed(Verdict, path.join(root, verdictFile(iteration)));
}

/** The fixer's answers of the rounds before this iteration, oldest first: every entry that reads, even in a file that does not validate as a whole. */
export function readFixRounds(root: string, iteration: number): FixRound[] {
  const rounds: FixRound[] = [];
  for (let n = 1; n < iteration; n++) {
    const text = readText(path.join(root, fixSummaryJsonFile(n)));
    if (!text) continue;
    try {
      const fixes = (JSON.parse(text) as { fixes?: unknown }).fixes;
      if (!Array.isArray(fixes)) continue;
      rounds.push({ iteration: n, fixes: fixes.flatMap((entry) => { const r = FixEntryFields.safeParse(entry); return r.success ? [r.data] : []; }) });
    } catch {
      // skipped
    }
  }
  return rounds;
}

/** In how many rounds before this iteration the fixer declined each fingerprint (once per round, however often it is listed). */
export function readDeclines(root: string, iteration: number): Record<string, number> {
  const declines: Record<string, number> = {};
  for (const round of readFixRounds(root, iteration)) {
    const declined = new Set(round.fixes.filter((f) => f.status === 'declined' && (f.reason ?? '').trim()).map((f) => f.fingerprint));
    for (const fingerprint of declined) declines[fingerprint] = (declines[fingerprint] ?? 0) + 1;
  }
  return declines;
}

export function fixerObservations(root: string, iteration: number) {
  return {
    summary: readText(path.join(root, fixSummaryFile(iteration))),
    summaryJson: readText(path.join(root, fixSummaryJsonFile(iteration))),
    previousSummary: iteration > 1 ? readText(path.join(root, fixSummaryFile(iteration - 1))) : null,
    // What the fixer changed in the round before (written by the hooks when this round began).
    previousFixDelta: iteration > 1 ? readText(path.join(root, fixDeltaFile(iteration))) : null,
  };
}

