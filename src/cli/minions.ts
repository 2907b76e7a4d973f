/**
 * The `minions` command behind /minions:status and /minions:cancel (no model bookkeeping). It prints
 * everything, refusals included, on stdout: a command's `!` line shows the model and the user only that.
 * Exit codes: 0 done, 2 the command line was refused, 1 an internal error.
 */
import fs from 'node:fs';
import path from 'node:path';
import fg from 'fast-glob';
import { version } from '../../package.json';
import type { Event } from '../core/transition';
import { statusData, type FoundLoop } from '../core/status';
import * as msg from '../messages';
import { ARCHIVE_DIR, PHASES_DIR, STATE_FILE } from '../state/paths';
import { projectRoot } from '../shell/project';
import { transact } from '../shell/run-hook';
import { load, migrate } from '../shell/store';
import { parseCli } from './parse-cli';

export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number; out: string }> {
  const command = parseCli(argv);
  switch (command.kind) {
    case 'refused':
      return { code: 2, out: msg.cli.refused(command.problem) };
    case 'help':
      return { code: 0, out: msg.cli.usage() };
    case 'version':
      return { code: 0, out: msg.cli.version(version) };
    default:
      break;
  }
  const root = projectRoot(undefined);
  const sessionId = env.CLAUDE_CODE_SESSION_ID || null;
  const now = new Date().toISOString();
  if (command.kind === 'status') {
    const found = findLoop(root);
    return { code: 0, out: command.json ? JSON.stringify(statusData(found, sessionId, root), null, 2) : statusText(found, now, sessionId) };
  }
  // No state file: nothing to cancel, and taking the lock would create .agents/tmp/ in the project.
  if (load(root).kind === 'none') return { code: 0, out: msg.refuse.noLoop() };
  const event: Event = { kind: 'command', command: { kind: 'cancel', force: command.force }, sessionId: sessionId ?? '', now, head: null, changedFiles: [] };
  const effects = await transact(root, now, () => event);
  const text = effects.flatMap((e) => (e.type === 'notify' || e.type === 'context' ? [e.text] : e.type === 'refuse' ? [e.reason] : []));
  return { code: 0, out: text.join('\n') || msg.refuse.noLoop() };
}

/** The live state, or else the newest archived run, and where its phase files are now. */
function findLoop(root: string): FoundLoop {
  const loaded = load(root);
  if (loaded.kind === 'broken') return { kind: 'broken', stateFile: STATE_FILE, problem: loaded.problem };
  if (loaded.kind === 'ok') return { kind: 'live', state: loaded.state, stateFile: STATE_FILE, phasesDir: `${PHASES_DIR}/` };
  if (loaded.kind === 'tampered') {
    if (!loaded.state) return { kind: 'broken', stateFile: STATE_FILE, problem: msg.tamperDetail(loaded.problems) };
    return { kind: 'live', state: loaded.state, stateFile: STATE_FILE, phasesDir: `${PHASES_DIR}/`, tampered: msg.statusTampered(loaded.problems) };
  }
  const archived = fg
    .sync(`${ARCHIVE_DIR}/*/state.json`, { cwd: root, dot: true })
    .map((file) => ({ file, mtime: fs.statSync(path.join(root, file)).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime)[0];
  if (!archived) return { kind: 'none' };
  const last = migrate(JSON.parse(fs.readFileSync(path.join(root, archived.file), 'utf8')));
  if (last.kind !== 'ok') return { kind: 'none' };
  // A finished run's state is archived when it ends; its phases stay until the next loop starts.
  const run = path.join(root, PHASES_DIR, 'run.json');
  const phasesHere = fs.existsSync(run) && JSON.parse(fs.readFileSync(run, 'utf8')).runId === last.state.runId;
  return { kind: 'archived', state: last.state, stateFile: archived.file, phasesDir: phasesHere ? `${PHASES_DIR}/` : `${path.posix.dirname(archived.file)}/phases/` };
}

function statusText(found: FoundLoop, now: string, sessionId: string | null): string {
  switch (found.kind) {
    case 'none':
      return msg.statusNone();
    case 'broken':
      return msg.statusBroken(found.stateFile, found.problem);
    case 'live': {
      const report = msg.statusReport(found.state, now, sessionId, found.phasesDir);
      return found.tampered ? `${report}\n${found.tampered}` : report;
    }
    case 'archived':
      return `No review loop is running. The last one:\n${msg.statusReport(found.state, now, sessionId, found.phasesDir)}`;
  }
}

try {
  const { code, out } = await main(process.argv.slice(2));
  process.stdout.write(`${out}\n`);
  process.exitCode = code;
} catch (err) {
  process.stdout.write(`minions: ${(err as Error)?.message ?? String(err)}\n`);
  if (process.env.MINIONS_DEBUG) process.stderr.write(`${(err as Error)?.stack}\n`);
  process.exitCode = 1;
}
