/** The latest loop of a project: the live state, or else the newest archived run, and where its phase files are now. */
import fs from 'node:fs';
import path from 'node:path';
import fg from 'fast-glob';
import type { FoundLoop } from '../core/status';
import * as progress from '../core/progress';
import { ARCHIVE_DIR, PHASES_DIR, STATE_FILE } from '../protocol/paths';
import { readText } from './files';
import { load, migrate } from './store';

export function findLoop(root: string): FoundLoop {
  const loaded = load(root);
  if (loaded.kind === 'broken') return { kind: 'broken', stateFile: STATE_FILE, problem: loaded.problem };
  if (loaded.kind === 'ok') return { kind: 'live', state: loaded.state, stateFile: STATE_FILE, phasesDir: `${PHASES_DIR}/` };
  if (loaded.kind === 'tampered') {
    if (!loaded.state) return { kind: 'broken', stateFile: STATE_FILE, problem: progress.tamperDetail(loaded.problems) };
    return { kind: 'live', state: loaded.state, stateFile: STATE_FILE, phasesDir: `${PHASES_DIR}/`, tampered: progress.statusTampered(loaded.problems) };
  }
  const archived = fg
    .sync(`${ARCHIVE_DIR}/*/state.json`, { cwd: root, dot: true })
    .map((file) => ({ file, mtime: fs.statSync(path.join(root, file)).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime)[0];
  if (!archived) return { kind: 'none' };
  let data: unknown;
  try {
    data = JSON.parse(readText(path.join(root, archived.file)) ?? '');
  } catch {
    return { kind: 'none' };
  }
  const last = migrate(data);
  if (last.kind !== 'ok') return { kind: 'none' };
  // A finished run's state is archived when it ends; its phases stay until the next loop starts.
  const run = path.join(root, PHASES_DIR, 'run.json');
  let phasesHere = false;
  try {
    phasesHere = JSON.parse(readText(run) ?? 'null')?.runId === last.state.runId;
  } catch {
    // no phases here: they moved to the archive with the state
  }
  return { kind: 'archived', state: last.state, stateFile: archived.file, phasesDir: phasesHere ? `${PHASES_DIR}/` : `${path.posix.dirname(archived.file)}/phases/` };
}
