/**
 * `minions report` writes REPORT.md for the last loop again (beside its phases); `minions report --sarif
 * [--out FILE] [--all-rounds]` prints its findings as SARIF 2.1.0, or writes them to FILE. Neither write
 * follows a link (src/shell/files.ts): REPORT.md stays in the project's .agents/tmp, FILE's folder must exist.
 */
import path from 'node:path';
import { version } from '../../package.json';
import * as cliTexts from './texts';
import { renderLoopReport } from '../report/report-md';
import { toSarif } from '../report/sarif';
import { writeBeside, writeInTmp } from '../shell/files';
import { findLoop } from '../shell/find-run';
import { gatherFacts, readAnswers, readVerdicts } from '../shell/run-files';
import { repoPrefix } from '../shell/snapshot';
import type { CliCommand } from './parse-cli';
import type { CliResult } from './restore';

export function reportCommand(root: string, { sarif, allRounds, out }: Extract<CliCommand, { kind: 'report' }>, cwd: string = process.cwd()): CliResult {
  const found = findLoop(root);
  if (found.kind === 'none') return { code: 1, out: cliTexts.report.noRun(root) };
  if (found.kind === 'broken') return { code: 1, out: cliTexts.report.broken(found.problem) };
  const run = found;

  if (!sarif) {
    const facts = gatherFacts(root, run);
    writeInTmp(root, facts.files.report, renderLoopReport(facts));
    return { code: 0, out: cliTexts.report.written(facts.files.report) };
  }
  const log = toSarif({ verdicts: readVerdicts(root, run), answers: readAnswers(root, run), allRounds, version, uriPrefix: repoPrefix(root) ?? '' });
  const text = `${JSON.stringify(log, null, 2)}\n`;
  if (out === null) return { code: 0, out: text.trimEnd() };
  writeBeside(path.resolve(cwd, out), text, out);
  return { code: 0, out: cliTexts.report.sarifWritten(out, log.runs[0]?.results?.length ?? 0) };
}
