/**
 * The `minions` command behind /minions:status, /minions:cancel, /minions:restore, /minions:report and /minions:dismiss (no
 * model bookkeeping), and the `minions` bin. What was asked for goes to stdout, a refusal or a failure to
 * stderr: for a command's `!` line that exits non-zero, the host shows the user its stderr and does not
 * call the model (test/e2e/outcome.test.ts). Exit codes:
 * 0 done, 2 the command line was refused, 1 an internal error, a refused restore or write, or no loop to report.
 */
import { version } from '../../package.json';
import type { Event } from '../core/transition';
import { failingFindings, statusData, type FoundLoop } from '../core/status';
import { countsText } from '../report/texts';
import * as cliTexts from './texts';
import * as refusals from '../core/refusals';
import * as shellTexts from '../shell/texts';
import { ownTmp, WriteRefused } from '../shell/files';
import { findLoop } from '../shell/find-run';
import { cliProjectRoot } from '../shell/project';
import { transact } from '../shell/transact';
import { gatherFacts } from '../shell/run-files';
import { load } from '../shell/store';
import { parseCli } from './parse-cli';
import { reportCommand } from './report';
import { restoreCommand } from './restore';
import { dismissCommand } from './dismiss';

export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number; out: string }> {
  const command = parseCli(argv);
  switch (command.kind) {
    case 'refused':
      return { code: 2, out: cliTexts.cli.refused(command.problem) };
    case 'help':
      return { code: 0, out: cliTexts.cli.usage() };
    case 'version':
      return { code: 0, out: cliTexts.cli.version(version) };
    default:
      break;
  }
  const root = cliProjectRoot(process.cwd(), env);
  const sessionId = env.CLAUDE_CODE_SESSION_ID || null;
  const now = new Date().toISOString();
  if (command.kind === 'status') {
    const found = findLoop(root);
    const facts = found.kind === 'live' || found.kind === 'archived' ? gatherFacts(root, found) : null;
    const out = command.json ? JSON.stringify(statusData(found, sessionId, root, facts), null, 2) : statusText(root, found, now, sessionId);
    if (command.failOn === null) return { code: 0, out };
    const failing = failingFindings(found, command.failOn);
    // With --json the output stays one JSON document; the exit code gives the gate.
    const line = failing === null ? cliTexts.failOn.none(command.failOn) : failing.count > 0 ? cliTexts.failOn.open(command.failOn, failing.count, countsText(failing.counts)) : cliTexts.failOn.pass(command.failOn);
    return { code: failing === null || failing.count > 0 ? 1 : 0, out: command.json ? out : `${out}\n${line}` };
  }
  if (command.kind === 'restore') return restoreCommand(root, command, now);
  if (command.kind === 'report') return reportCommand(root, command);
  if (command.kind === 'dismiss') return dismissCommand(root, command, now);
  // No state file: nothing to cancel, and taking the lock would create .agents/tmp/ in the project.
  if (load(root).kind === 'none') return { code: 0, out: refusals.refuse.noLoop() };
  ownTmp(root, true);
  const event: Event = { kind: 'command', command: { kind: 'cancel', force: command.force }, sessionId: sessionId ?? '', now, head: null, changedFiles: [] };
  // The cancel always ends the loop: a lock held past the wait is taken over (see LockOptions.takeOver).
  const effects = await transact(root, now, () => event, env, true);
  const text = effects.flatMap((e) => (e.type === 'notify' || e.type === 'context' ? [e.text] : e.type === 'refuse' ? [e.reason] : []));
  return { code: 0, out: text.join('\n') || refusals.refuse.noLoop() };
}

function statusText(root: string, found: FoundLoop, now: string, sessionId: string | null): string {
  switch (found.kind) {
    case 'none':
      return cliTexts.statusNone(root);
    case 'broken':
      return cliTexts.statusBroken(found.stateFile, found.problem);
    case 'live': {
      const report = cliTexts.statusReport(found.state, now, sessionId, found.phasesDir, gatherFacts(root, found));
      return found.tampered ? `${report}\n${found.tampered}` : report;
    }
    case 'archived':
      return `No review loop is running. The last one:\n${cliTexts.statusReport(found.state, now, sessionId, found.phasesDir, gatherFacts(root, found))}`;
  }
}

/** What the user is told of a failure: a refused write as it is, a file system error as a sentence (no errno text), else its message. */
function failureText(err: unknown): string {
  if (err instanceof WriteRefused) return err.message;
  const code = (err as NodeJS.ErrnoException)?.code;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return shellTexts.files.failed(err as NodeJS.ErrnoException);
  return (err as Error)?.message ?? String(err);
}

try {
  const { code, out } = await main(process.argv.slice(2));
  // What was asked for on stdout; a refusal or a failure on stderr.
  (code === 0 ? process.stdout : process.stderr).write(`${out}\n`);
  process.exitCode = code;
} catch (err) {
  process.stderr.write(`minions: ${failureText(err)}\n`);
  if (process.env.MINIONS_DEBUG) process.stderr.write(`${(err as Error)?.stack}\n`);
  process.exitCode = 1;
}
