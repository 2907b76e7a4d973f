/** The `minions` command line, read into what to do. Pure. */
import * as cliTexts from './texts';
import { MAX_REASON } from '../protocol/dismissed';
import { SEVERITIES, type Severity } from '../core/status';

const isSeverity = (word: string): word is Severity => (SEVERITIES as readonly string[]).includes(word);

export type CliCommand =
  | { kind: 'help' }
  | { kind: 'version' }
  /** failOn: exit 1 while open findings of this severity or above remain (CI). */
  | { kind: 'status'; json: boolean; failOn: Severity | null }
  | { kind: 'cancel'; force: boolean }
  /** target: a round number or "undo" as typed; null lists the rounds. */
  | { kind: 'restore'; target: string | null; force: boolean }
  | { kind: 'report'; sarif: boolean; allRounds: boolean; out: string | null }
  /** Records a finding as dismissed, lists the dismissals, or takes one back. */
  | { kind: 'dismiss'; action: 'add'; fingerprint: string; reason: string }
  | { kind: 'dismiss'; action: 'list' }
  | { kind: 'dismiss'; action: 'remove'; fingerprint: string }
  /** Refused (exit 2): the problem, named. */
  | { kind: 'refused'; problem: string };

type Name = 'status' | 'cancel' | 'restore' | 'report' | 'dismiss';
/** Each command's flags; a flag that takes a value says so. */
const OPTIONS: Record<Name, Record<string, 'flag' | 'value'>> = {
  status: { '--json': 'flag', '--fail-on': 'value' },
  cancel: { '--force': 'flag' },
  restore: { '--force': 'flag' },
  report: { '--sarif': 'flag', '--all-rounds': 'flag', '--out': 'value' },
  dismiss: { '--reason': 'value', '--list': 'flag', '--remove': 'value' },
};
/** Commands that take one word besides their flags. */
const ARGUMENT: Partial<Record<Name, true>> = { restore: true, dismiss: true };
const FINGERPRINT = /^[0-9a-f]{12}$/;
const HELP = ['-h', '--help'];
const isName = (word: string): word is Name => Object.hasOwn(OPTIONS, word);

export function parseCli(argv: readonly string[]): CliCommand {
  const [command, ...rest] = argv;
  if (command === undefined) return { kind: 'refused', problem: cliTexts.cli.noCommand() };
  if (HELP.includes(command)) return { kind: 'help' };
  if (command === '--version') {
    const extra = rest[0];
    if (extra === undefined) return { kind: 'version' };
    return { kind: 'refused', problem: extra.startsWith('-') ? cliTexts.cli.unknownOption(extra, '--version') : cliTexts.cli.unexpectedArgument(extra, '--version') };
  }
  if (command.startsWith('-')) return { kind: 'refused', problem: cliTexts.cli.unknownOption(command, null) };
  if (!isName(command)) return { kind: 'refused', problem: cliTexts.cli.unknownCommand(command) };
  const flags = new Set<string>();
  const values: Record<string, string> = {};
  let word: string | null = null;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    if (HELP.includes(arg)) return { kind: 'help' };
    const [name, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const kind = OPTIONS[command][name];
    if (kind === 'flag' && inline === undefined) flags.add(name);
    else if (kind === 'value') {
      const value = inline ?? rest[++i];
      if (value === undefined || value === '' || value.startsWith('-')) return { kind: 'refused', problem: cliTexts.cli.needsValue(name, command) };
      values[name] = value;
    } else if (arg.startsWith('-')) return { kind: 'refused', problem: cliTexts.cli.unknownOption(arg, command) };
    else if (ARGUMENT[command] && word === null) word = arg;
    else return { kind: 'refused', problem: cliTexts.cli.unexpectedArgument(arg, command) };
  }
  switch (command) {
    case 'status': {
      const failOn = values['--fail-on'];
      if (failOn !== undefined && !isSeverity(failOn)) return { kind: 'refused', problem: cliTexts.cli.badSeverity(failOn) };
      return { kind: 'status', json: flags.has('--json'), failOn: failOn ?? null };
    }
    case 'cancel':
      return { kind: 'cancel', force: flags.has('--force') };
    case 'restore':
      if (word !== null && word !== 'undo' && !/^[1-9]\d{0,8}$/.test(word)) return { kind: 'refused', problem: cliTexts.cli.badRound(word) };
      return { kind: 'restore', target: word, force: flags.has('--force') };
    case 'report':
      if (!flags.has('--sarif') && (flags.has('--all-rounds') || values['--out'] !== undefined)) return { kind: 'refused', problem: cliTexts.cli.sarifOnly() };
      return { kind: 'report', sarif: flags.has('--sarif'), allRounds: flags.has('--all-rounds'), out: values['--out'] ?? null };
    case 'dismiss': {
      const reason = values['--reason'];
      const remove = values['--remove'];
      if (flags.has('--list')) {
        if (word !== null || reason !== undefined || remove !== undefined) return { kind: 'refused', problem: cliTexts.cli.dismissListAlone() };
        return { kind: 'dismiss', action: 'list' };
      }
      if (remove !== undefined) {
        if (word !== null || reason !== undefined) return { kind: 'refused', problem: cliTexts.cli.dismissRemoveAlone() };
        if (!FINGERPRINT.test(remove)) return { kind: 'refused', problem: cliTexts.cli.badFingerprint(remove) };
        return { kind: 'dismiss', action: 'remove', fingerprint: remove };
      }
      // Alone, it lists, like restore alone.
      if (word === null) return reason === undefined ? { kind: 'dismiss', action: 'list' } : { kind: 'refused', problem: cliTexts.cli.dismissWhat() };
      if (!FINGERPRINT.test(word)) return { kind: 'refused', problem: cliTexts.cli.badFingerprint(word) };
      if (reason === undefined || reason.trim() === '') return { kind: 'refused', problem: cliTexts.cli.dismissWhy(word) };
      if (reason.length > MAX_REASON) return { kind: 'refused', problem: cliTexts.cli.reasonTooLong(MAX_REASON) };
      return { kind: 'dismiss', action: 'add', fingerprint: word, reason: reason.trim() };
    }
  }
}
