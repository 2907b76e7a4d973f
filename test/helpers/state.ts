/**
 * Changes a loop's state the way the hooks would write it (through the store, so their record agrees),
 * for tests that need a state no hook sequence reaches quickly, such as a loop idle for hours.
 */
import type { State } from '../../src/state/schema';
import { recordDir } from '../../src/shell/record';
import { commit, loadFrom, openStore } from '../../src/shell/store';
import { hookEnv } from './run';

export function rewriteState(root: string, change: (state: State) => State): State {
  const store = openStore(root, hookEnv(root));
  const loaded = loadFrom(store, true);
  if (loaded.kind !== 'ok') throw new Error(`rewriteState: the state is ${loaded.kind}`);
  const next = change(structuredClone(loaded.state));
  commit(store, loaded, { state: next, effects: [] }, new Date().toISOString());
  return next;
}

/** The hooks' record folder of a project (inside its git dir). */
export function recordDirOf(root: string): string {
  const dir = recordDir(root, hookEnv(root));
  if (!dir) throw new Error(`no record folder for ${root}`);
  return dir;
}
