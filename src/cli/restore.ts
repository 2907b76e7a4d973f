/**
 * `minions restore <round>|undo [--force]`, behind /minions:restore: puts the project files the loop
 * changed back as round N's review found them. The project as it is now is saved as a snapshot first,
 * and `undo` brings that back. Only those files are written: the index, HEAD, the stash and every other
 * file stay as they are. Refused while a loop runs, or when the user changed one of those files since the
 * loop ended (unless --force, which is safe because the snapshot is taken first).
 */
import path from 'node:path';
import { isActive } from '../core/loop-state';
import * as cliTexts from './texts';
import { finalTree, roundTree } from '../report/facts';
import type { CliCommand } from './parse-cli';
import { findLoop } from '../shell/find-run';
import { gatherFacts } from '../shell/run-files';
import { changedPaths, hasTree, restorePaths, snapshotTree } from '../shell/snapshot';
import { ownTmp, readText, writeInTmp } from '../shell/files';
import { withLock } from '../shell/store';
import { RestoreLog, type RestoreEntry } from '../state/restore-log';
import { restoresFile } from '../protocol/paths';
import type { State } from '../state/schema';

export interface CliResult {
  code: number;
  out: string;
}

/** Every project file that differs between any two consecutive trees the loop recorded. */
export function touchedPaths(root: string, state: State): Set<string> {
  const trees = [state.baseTree, ...state.iterations.flatMap((it) => [it.trees.reviewStart, it.trees.reviewEnd, it.trees.fixEnd])].filter(
    (t): t is string => t !== null,
  );
  const touched = new Set<string>();
  for (let i = 1; i < trees.length; i++) if (trees[i] !== trees[i - 1]) for (const p of changedPaths(root, trees[i - 1]!, trees[i]!)) touched.add(p);
  return touched;
}

function readLog(root: string, runId: string): RestoreLog {
  try {
    const parsed = RestoreLog.safeParse(JSON.parse(readText(path.join(root, restoresFile(runId))) ?? 'null'));
    if (parsed.success && parsed.data.runId === runId) return parsed.data;
  } catch {
    // none yet
  }
  return { runId, restores: [] };
}

function writeLog(root: string, log: RestoreLog): void {
  writeInTmp(root, restoresFile(log.runId), `${JSON.stringify(log, null, 2)}\n`);
}

export async function restoreCommand(root: string, { target, force }: Extract<CliCommand, { kind: 'restore' }>, now: string): Promise<CliResult> {
  const found = findLoop(root);
  if (found.kind === 'none') return { code: 1, out: cliTexts.restore.noRun(root) };
  if (found.kind === 'broken') return { code: 1, out: cliTexts.restore.broken(found.problem) };
  // Refused before anything is written when .agents leads out of the project.
  ownTmp(root, true);
  // Under the loop's lock: no loop can start while files are being put back.
  return withLock(root, async () => {
    const again = findLoop(root);
    if (again.kind !== 'live' && again.kind !== 'archived') return { code: 1, out: cliTexts.restore.noRun(root) };
    const { state } = again;
    if (isActive(state)) return { code: 1, out: cliTexts.restore.running(state) };
    if (target === null) return { code: 0, out: `${cliTexts.restore.rounds(gatherFacts(root, again))}\n${cliTexts.restore.usage()}` };

    const log = readLog(root, state.runId);
    let to: string;
    let name: string;
    if (target === 'undo') {
      const last = log.restores[log.restores.length - 1];
      if (!last) return { code: 1, out: cliTexts.restore.nothingToUndo() };
      to = last.from;
      name = cliTexts.restore.undoName();
    } else {
      const round = /^\d+$/.test(target) ? state.iterations[Number(target) - 1] : undefined;
      if (!round) return { code: 1, out: cliTexts.restore.noRound(target, state.iterations.length) };
      const tree = roundTree(round);
      if (!tree) return { code: 1, out: cliTexts.restore.noSnapshot(round.iteration) };
      to = tree;
      name = cliTexts.restore.roundName(round.iteration);
    }
    if (!hasTree(root, to)) return { code: 1, out: cliTexts.restore.gone(`the snapshot of ${name}`) };

    const touched = touchedPaths(root, state);
    const current = snapshotTree(root);
    if (!current) return { code: 1, out: cliTexts.restore.noSnapshotNow() };
    // What the files should look like if nobody touched them since: the loop's end, or the last restore.
    const expected = log.restores[log.restores.length - 1]?.to ?? finalTree(state);
    if (expected && !force) {
      if (!hasTree(root, expected)) return { code: 1, out: cliTexts.restore.gone('the snapshot of the loop’s final tree') };
      const edited = changedPaths(root, expected, current).filter((p) => touched.has(p));
      if (edited.length > 0) return { code: 1, out: cliTexts.restore.edited(edited) };
    }
    const paths = changedPaths(root, current, to).filter((p) => touched.has(p));
    if (paths.length === 0) return { code: 0, out: cliTexts.restore.already(name) };

    // Logged first: a log that cannot be written restores nothing, and a restore cut short can be undone.
    const entry: RestoreEntry = { at: now, target, from: current, to, paths };
    writeLog(root, { ...log, restores: [...log.restores, entry] });
    const result = restorePaths(root, to, paths);
    if (result.failed.length > 0) return { code: 1, out: cliTexts.restore.failed(result.failed) };
    return { code: 0, out: cliTexts.restore.done(name, result.written, result.deleted, current) };
  });
}
