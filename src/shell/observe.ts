/** What the SubagentStop hook reads from disk for the pure core: reviews, the code they cite, earlier rounds. */
import fs from 'node:fs';
import path from 'node:path';
import { normaliseFile } from '../review/fingerprint';
import type { Source, Sources } from '../review/grounding';
import type { FixRound } from '../review/classes';
import { FixEntryFields, Verdict } from '../review/verdict-schema';
import { fixSummaryFile, fixSummaryJsonFile, verdictFile } from '../state/paths';
import { realpathLoose, relativeInside } from './project';

const MAX_SOURCES = 200;
const MAX_SOURCE_BYTES = 2 * 1024 * 1024;

export function readOrNull(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** The files the reviews name, read once each: the ground truth the findings are checked against. */
export function readSources(root: string, texts: readonly (string | null)[]): Sources {
  const names = new Set<string>();
  for (const text of texts) {
    if (!text) continue;
    try {
      const issues = (JSON.parse(text) as { issues?: unknown }).issues;
      if (Array.isArray(issues)) for (const issue of issues) if (typeof issue?.file === 'string' && issue.file.trim()) names.add(normaliseFile(issue.file));
    } catch {
      // an unreadable review names no files
    }
  }
  const sources: Sources = {};
  for (const name of [...names].slice(0, MAX_SOURCES)) sources[name] = readSource(root, name);
  return sources;
}

function readSource(root: string, name: string): Source {
  const rel = relativeInside(root, realpathLoose(path.resolve(root, name)));
  if (rel === null) return { kind: 'outside' };
  const file = path.join(root, rel);
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile()) return { kind: 'not-a-file' };
    const fd = fs.openSync(file, 'r');
    try {
      const buffer = Buffer.alloc(Math.min(stat.size, MAX_SOURCE_BYTES));
      fs.readSync(fd, buffer, 0, buffer.length, 0);
      return { kind: 'file', text: buffer.toString('utf8'), rel };
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return { kind: 'missing' };
  }
}

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
  const text = readOrNull(path.join(root, verdictFile(iteration)));
  if (!text) return null;
  try {
    const parsed = Verdict.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** The fixer's answers of the rounds before this iteration, oldest first: every entry that reads, even in a file that does not validate as a whole. */
export function readFixRounds(root: string, iteration: number): FixRound[] {
  const rounds: FixRound[] = [];
  for (let n = 1; n < iteration; n++) {
    const text = readOrNull(path.join(root, fixSummaryJsonFile(n)));
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

/** How often the fixer declined each fingerprint before this iteration. */
export function readDeclines(root: string, iteration: number): Record<string, number> {
  const declines: Record<string, number> = {};
  for (const round of readFixRounds(root, iteration)) {
    for (const f of round.fixes) if (f.status === 'declined' && (f.reason ?? '').trim()) declines[f.fingerprint] = (declines[f.fingerprint] ?? 0) + 1;
  }
  return declines;
}

export function fixerObservations(root: string, iteration: number) {
  return {
    summary: readOrNull(path.join(root, fixSummaryFile(iteration))),
    summaryJson: readOrNull(path.join(root, fixSummaryJsonFile(iteration))),
    previousSummary: iteration > 1 ? readOrNull(path.join(root, fixSummaryFile(iteration - 1))) : null,
  };
}

