/** parseCli: the `minions` command line, read into what to do (the process runs are in test/hooks/cli.test.ts). */
import { describe, expect, it } from 'vitest';
import { parseCli } from '../../src/cli/parse-cli';

describe('parseCli', () => {
  it.each([
    [['status'], { kind: 'status', json: false }],
    [['status', '--json'], { kind: 'status', json: true }],
    [['status', '--json', '--json'], { kind: 'status', json: true }],
    [['cancel'], { kind: 'cancel', force: false }],
    [['cancel', '--force'], { kind: 'cancel', force: true }],
    [['--help'], { kind: 'help' }],
    [['-h'], { kind: 'help' }],
    [['cancel', '--force', '--help'], { kind: 'help' }],
    [['--version'], { kind: 'version' }],
  ] as const)('%j → %j', (argv, command) => {
    expect(parseCli(argv)).toEqual(command);
  });

  it.each([
    [[], 'no command given'],
    [['--verbose'], 'unknown option "--verbose"'],
    [['-v'], 'unknown option "-v"'],
    [['stats'], 'unknown command "stats"'],
    [['status', '--force'], 'unknown option "--force" for status'],
    [['cancel', '--json'], 'unknown option "--json" for cancel'],
    [['cancel', '--force', 'now'], 'cancel takes no argument "now"'],
    [['status', '--version'], 'unknown option "--version" for status'],
  ] as const)('%j is refused: %s', (argv, problem) => {
    expect(parseCli(argv)).toEqual({ kind: 'refused', problem });
  });
});
