/** parseCli: the `minions` command line, read into what to do (the process runs are in test/hooks/cli.test.ts). */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCli } from '../../src/cli/parse-cli';
import pkg from '../../package.json';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

describe('parseCli', () => {
  it.each([
    [['status'], { kind: 'status', json: false, failOn: null }],
    [['status', '--json'], { kind: 'status', json: true, failOn: null }],
    [['status', '--json', '--json'], { kind: 'status', json: true, failOn: null }],
    [['status', '--fail-on', 'critical'], { kind: 'status', json: false, failOn: 'critical' }],
    [['status', '--fail-on=warning', '--json'], { kind: 'status', json: true, failOn: 'warning' }],
    [['status', '--fail-on', 'info'], { kind: 'status', json: false, failOn: 'info' }],
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
    [['dismiss', '0123456789ab', '--reason', ' intended: the API is 1-based '], { kind: 'dismiss', action: 'add', fingerprint: '0123456789ab', reason: 'intended: the API is 1-based' }],
    [['dismiss', '--reason=ok', 'abcdefabcdef'], { kind: 'dismiss', action: 'add', fingerprint: 'abcdefabcdef', reason: 'ok' }],
    [['dismiss', '--list'], { kind: 'dismiss', action: 'list' }],
    [['dismiss'], { kind: 'dismiss', action: 'list' }],
    [['dismiss', '--remove', '0123456789ab'], { kind: 'dismiss', action: 'remove', fingerprint: '0123456789ab' }],
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
    [['restore', 'abc'], 'restore takes a round number (1, 2 …) or "undo", not "abc"'],
    [['restore', '0'], 'restore takes a round number (1, 2 …) or "undo", not "0"'],
    [['restore', '1.5', '--force'], 'restore takes a round number (1, 2 …) or "undo", not "1.5"'],
    [['restore', 'UNDO'], 'restore takes a round number (1, 2 …) or "undo", not "UNDO"'],
    [['status', '--fail-on'], '--fail-on of status needs a value'],
    [['status', '--fail-on', 'error'], '--fail-on takes critical, warning or info, not "error"'],
    [['status', '--fail-on', 'Critical'], '--fail-on takes critical, warning or info, not "Critical"'],
    [['status', '--fail-on', '--json'], '--fail-on of status needs a value'],
    [['--version', '--bogus'], 'unknown option "--bogus" for --version'],
    [['dismiss', '--reason', 'x'], 'dismiss needs the fingerprint of a finding (REVIEW.md and REPORT.md show them), or --list, or --remove <fingerprint>'],
    [['dismiss', '0123456789ab'], 'dismiss 0123456789ab needs --reason "why the finding is wrong"'],
    [['dismiss', '0123456789ab', '--reason', '  '], 'dismiss 0123456789ab needs --reason "why the finding is wrong"'],
    [['dismiss', '0123456789AB', '--reason', 'x'], 'a fingerprint is 12 lower-case hex digits (as the reports show it), not "0123456789AB"'],
    [['dismiss', '../../etc', '--reason', 'x'], 'a fingerprint is 12 lower-case hex digits (as the reports show it), not "../../etc"'],
    [['dismiss', '--list', '0123456789ab'], 'dismiss --list takes no fingerprint, --reason or --remove'],
    [['dismiss', '--remove', '0123456789ab', '--reason', 'x'], 'dismiss --remove <fingerprint> takes no other fingerprint or --reason'],
    [['dismiss', '0123456789ab', '--reason', 'x'.repeat(2001)], 'the reason is longer than 2000 characters'],
    [['--version', 'status'], '--version takes no argument "status"'],
  ] as const)('%j is refused: %s', (argv, problem) => {
    expect(parseCli(argv)).toEqual({ kind: 'refused', problem });
  });
});

describe('the `minions` command the texts name', () => {
  const TEXT_MODULES = ['src/core/prompts.ts', 'src/core/refusals.ts', 'src/core/progress.ts', 'src/cli/texts.ts', 'src/report/texts.ts', 'src/review/texts.ts', 'src/checks/texts.ts', 'src/shell/texts.ts', 'src/protocol/text.ts'];
  const texts = [...TEXT_MODULES, ...fs.readdirSync(path.join(ROOT, 'commands')).map((f) => `commands/${f}`)];
  // In code, a command in backticks inside a template literal (\`minions restore ${round}\`) or a usage line; in Markdown, in backticks.
  const pattern = (file: string): RegExp => (file.endsWith('.ts') ? /\\`minions ([^`\\]+)\\`|^\s*'\s+minions ([a-z][^\s']*)/gm : /`minions ([^`]+)`/g);
  const named = texts.flatMap((file) => [...fs.readFileSync(path.join(ROOT, file), 'utf8').matchAll(pattern(file))].map((m) => [file, (m[1] ?? m[2])!] as const));

  it('exists: package.json has the bin, and each named command line parses', () => {
    expect(pkg.bin).toEqual({ minions: 'dist/cli.mjs' });
    expect(named.map(([, line]) => line.split(' ')[0])).toEqual(expect.arrayContaining(['status', 'cancel', 'restore', 'report']));
    for (const [file, line] of named) {
      const words = line.split(/\s+/).map((w) => (w === '<round>' || w === 'N' || w.startsWith('${') ? '1' : w === '<fingerprint>' ? '0123456789ab' : w));
      expect(parseCli(words).kind, `${file}: minions ${line}`).not.toBe('refused');
    }
  });
});
