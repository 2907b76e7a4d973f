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
    [['restore'], { kind: 'restore', target: null, force: false }],
    [['restore', '2'], { kind: 'restore', target: '2', force: false }],
    [['restore', '--force', 'undo'], { kind: 'restore', target: 'undo', force: true }],
    [['report'], { kind: 'report', sarif: false, allRounds: false, out: null }],
    [['report', '--sarif'], { kind: 'report', sarif: true, allRounds: false, out: null }],
    [['report', '--sarif', '--out', 'a b.sarif', '--all-rounds'], { kind: 'report', sarif: true, allRounds: true, out: 'a b.sarif' }],
    [['report', '--out=x.sarif', '--sarif'], { kind: 'report', sarif: true, allRounds: false, out: 'x.sarif' }],
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
    [['status', '--json=yes'], 'unknown option "--json=yes" for status'],
    [['restore', '1', 'undo'], 'restore takes no argument "undo"'],
    [['report', 'now'], 'report takes no argument "now"'],
    [['report', '--sarif', '--out', '--all-rounds'], '--out of report needs a value'],
    [['report', '--sarif', '--out='], '--out of report needs a value'],
    [['report', '--out', 'x'], 'report takes --out and --all-rounds only with --sarif'],
  ] as const)('%j is refused: %s', (argv, problem) => {
    expect(parseCli(argv)).toEqual({ kind: 'refused', problem });
  });
});
