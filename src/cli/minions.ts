/** The `minions` command behind /minions:status and /minions:cancel (no model bookkeeping). */
import fs from 'node:fs';
import path from 'node:path';
import fg from 'fast-glob';
import * as msg from '../messages';
import { ARCHIVE_DIR, PHASES_DIR, STATE_FILE } from '../state/paths';
import { projectRoot } from '../shell/project';
import { transact } from '../shell/run-hook';
import { load, migrate } from '../shell/store';

const USAGE = 'usage: minions status | minions cancel [--force]';

export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number; out: string }> {
  const [command, ...rest] = argv;
  const root = projectRoot(undefined);
  const sessionId = env.CLAUDE_CODE_SESSION_ID || null;
  const now = new Date().toISOString();
  if (command === 'status') return { code: 0, out: status(root, sessionId, now) };
  if (command === 'cancel') {
    const force = rest.includes('--force');
    const effects = await transact(root, now, () => ({ kind: 'command', command: { kind: 'cancel', force }, sessionId: sessionId ?? '', now, head: null, changedFiles: [] }));
    const text = effects.flatMap((e) => (e.type === 'notify' || e.type === 'context' ? [e.text] : e.type === 'refuse' ? [e.reason] : []));
    return { code: 0, out: text.join('\n') || msg.refuse.noLoop() };
  }
  return { code: 2, out: USAGE };
}

function status(root: string, sessionId: string | null, now: string): string {
  const loaded = load(root);
  if (loaded.kind === 'broken') return msg.statusBroken(STATE_FILE, loaded.problem);
  if (loaded.kind === 'ok') return msg.statusReport(loaded.state, now, sessionId, `${PHASES_DIR}/`);
  if (loaded.kind === 'tampered') {
    const report = loaded.state ? msg.statusReport(loaded.state, now, sessionId, `${PHASES_DIR}/`) : msg.statusBroken(STATE_FILE, msg.tamperDetail(loaded.problems));
    return `${report}\n${msg.statusTampered(loaded.problems)}`;
  }
  // No live state: the newest archived run, if any.
  const archived = fg
    .sync(`${ARCHIVE_DIR}/*/state.json`, { cwd: root, dot: true })
    .map((file) => ({ file, mtime: fs.statSync(path.join(root, file)).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime)[0];
  if (!archived) return msg.statusNone();
  const last = migrate(JSON.parse(fs.readFileSync(path.join(root, archived.file), 'utf8')));
  if (last.kind !== 'ok') return msg.statusNone();
  const phasesHere = fs.existsSync(path.join(root, PHASES_DIR, 'run.json')) && JSON.parse(fs.readFileSync(path.join(root, PHASES_DIR, 'run.json'), 'utf8')).runId === last.state.runId;
  return `No review loop is running. The last one:\n${msg.statusReport(last.state, now, sessionId, phasesHere ? `${PHASES_DIR}/` : `${path.posix.dirname(archived.file)}/`)}`;
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
