/**
 * Where a loop's files are (live, or archived once it ended) and what the reports need from them: the
 * verdicts, the fixer's answers, the checks and the total change. Reads only; plain data out.
 */
import path from 'node:path';
import { roundChecks } from '../report/checks';
import { finalTree, loopFacts, type LoopFacts } from '../report/facts';
import { renderLoopReport } from '../report/report-md';
import { FixSummary, Verdict } from '../protocol/verdict-schema';
import type { Effect } from '../core/events';
import type { State } from '../state/schema';
import { PHASES_DIR, REPORT_FILE, fixSummaryJsonFile, verdictFile } from '../protocol/paths';
import { readText } from './files';
import { parseOrNull, type SafeParser } from './observe';
import { diffStat, repoPrefix } from './snapshot';
import { toSarif } from '../report/sarif';
import { version } from '../../package.json';

export interface RunFiles {
  state: State;
  /** The run's phases folder, project-relative, ending in '/': phases/ while it is there, else its archive. */
  phasesDir: string;
}

export const PHASES = `${PHASES_DIR}/`;

/** A phase file's path for this run: `.agents/tmp/phases/x` becomes `<phasesDir>x`. */
export const inPhases = (phasesDir: string, rel: string): string => `${phasesDir}${rel.slice(PHASES.length)}`;

/** Files about to be written by the same transition, by project-relative path: read before the disk. */
export type Pending = ReadonlyMap<string, string>;
const NONE: Pending = new Map();

function readJson<T>(root: string, rel: string, schema: SafeParser<T>, pending: Pending): T | null {
  return parseOrNull(schema, pending.get(rel) ?? readText(path.join(root, rel)));
}

const rounds = (state: State): number[] => state.iterations.map((it) => it.iteration);

/** Each round's verdict; `known`, when given, is one the caller holds (the round just aggregated), used as it is. */
export const readVerdicts = (root: string, run: RunFiles, pending: Pending = NONE, known?: Verdict): (Verdict | null)[] =>
  rounds(run.state).map((n) => (known?.iteration === n ? known : readJson(root, inPhases(run.phasesDir, verdictFile(n)), Verdict, pending)));

export const readAnswers = (root: string, run: RunFiles, pending: Pending = NONE): (FixSummary | null)[] =>
  rounds(run.state).map((n) => readJson(root, inPhases(run.phasesDir, fixSummaryJsonFile(n)), FixSummary, pending));


export function totalChange(root: string, state: State): string | null {
  const to = finalTree(state);
  if (!state.baseTree || !to) return null;
  return diffStat(root, state.baseTree, to);
}

export function gatherFacts(root: string, run: RunFiles, pending: Pending = NONE, known?: Verdict): LoopFacts {
  return loopFacts({
    state: run.state,
    verdicts: readVerdicts(root, run, pending, known),
    checks: roundChecks(run.state),
    totalChange: totalChange(root, run.state),
    phasesDir: run.phasesDir,
  });
}

/** The loop's findings as SARIF 2.1.0 for --sarif, once the loop has ended: the file the user named. */
export function sarifExport(root: string, state: State, pending: Pending, verdict?: Verdict): Extract<Effect, { type: 'export' }> | null {
  if (!state.sarif || state.status === 'in_progress') return null;
  const run = { state, phasesDir: PHASES };
  const log = toSarif({ verdicts: readVerdicts(root, run, pending, verdict), answers: readAnswers(root, run, pending), allRounds: false, version, uriPrefix: repoPrefix(root) ?? '' });
  return { type: 'export', file: state.sarif, content: `${JSON.stringify(log, null, 2)}\n` };
}

/**
 * The write a 'write-report' effect stands for: REPORT.md of `state` as it is about to be saved, beside
 * the live phases; `verdict` is the round's verdict when the same outcome writes it.
 */
export function reportWrite(root: string, state: State, pending: Pending, verdict?: Verdict): Extract<Effect, { type: 'write' }> {
  return { type: 'write', path: REPORT_FILE, content: renderLoopReport(gatherFacts(root, { state, phasesDir: PHASES }, pending, verdict)) };
}
