/** The `minions` command line, read into what to do. Pure. */
import * as msg from '../messages';

export type CliCommand =
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'status'; json: boolean }
  | { kind: 'cancel'; force: boolean }
  /** Refused (exit 2): the problem, named. */
  | { kind: 'refused'; problem: string };

const OPTIONS = { status: ['--json'], cancel: ['--force'] } as const;
const HELP = ['-h', '--help'];

export function parseCli(argv: readonly string[]): CliCommand {
  const [command, ...rest] = argv;
  if (command === undefined) return { kind: 'refused', problem: msg.cli.noCommand() };
  if (HELP.includes(command)) return { kind: 'help' };
  if (command === '--version') return { kind: 'version' };
  if (command.startsWith('-')) return { kind: 'refused', problem: msg.cli.unknownOption(command, null) };
  if (command !== 'status' && command !== 'cancel') return { kind: 'refused', problem: msg.cli.unknownCommand(command) };
  const allowed: readonly string[] = OPTIONS[command];
  for (const arg of rest) {
    if (HELP.includes(arg)) return { kind: 'help' };
    if (allowed.includes(arg)) continue;
    return { kind: 'refused', problem: arg.startsWith('-') ? msg.cli.unknownOption(arg, command) : msg.cli.unexpectedArgument(arg, command) };
  }
  return command === 'status' ? { kind: 'status', json: rest.includes('--json') } : { kind: 'cancel', force: rest.includes('--force') };
}
