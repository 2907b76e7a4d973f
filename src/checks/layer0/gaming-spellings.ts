/**
 * How each ecosystem spells a skipped test and a suppressed warning: a table to extend. A row is one
 * spelling: its regex (flags gm), its needles (literal text on the line where each match starts, at or
 * after its start: see `pattern`), an example line it finds, and `tests` when it only counts in a test
 * file (elsewhere the same words mean something else). A code file gets the rows of the ecosystems of its
 * extension; a code file of an ecosystem not listed gets every row.
 */
import { isTestFile, pattern, type NeedleSpec, type Pattern } from './text';

export interface Spelling {
  re: string;
  needles: readonly NeedleSpec[];
  example: string;
  tests?: true;
}

export interface Ecosystem {
  name: string;
  extensions: readonly string[];
  skips: readonly Spelling[];
  suppressions: readonly Spelling[];
}

const r = String.raw;
/** A needle's cheap test for the rows anchored at a line's start: only blanks before it on its line. */
const lineStart = (text: string, at: number): boolean => {
  for (let j = at - 1; j >= 0; j--) {
    const c = text.charCodeAt(j);
    if (c === 0x0a) return true;
    if (c !== 0x20 && c !== 0x09) return false;
  }
  return true;
};
/** Needles of a row anchored at a line's start (its match starts there, however far before the needle). */
const first = (...words: string[]): NeedleSpec[] => words.map((w) => [w, Infinity, lineStart] as const);
/** A falsy literal (runIf(false) and the like never run). */
const FALSY = r`(?:false|0|null|undefined|''|""|\x60\x60|!\s*(?:1|true))`;

export const ECOSYSTEMS: readonly Ecosystem[] = [
  {
    name: 'JavaScript/TypeScript (vitest, jest, mocha, node:test, jasmine, playwright)',
    extensions: ['js', 'jsx', 'mjs', 'cjs', 'ts', 'tsx', 'mts', 'cts'],
    skips: [
      { re: r`\b(?:it|test|describe|context|suite|specify|bench)(?:\.(?:concurrent|sequential|shuffle|serial|parallel))*\.(?:skip|todo|only|fixme|fails|fail|failing)\b`, needles: ['.skip', '.todo', '.only', '.fixme', '.fail'], example: "it.concurrent.skip('adds', () => {" },
      { re: r`\b(?:it|test|describe|suite|bench)(?:\.\w+)*\.skipIf\s*\(`, needles: ['.skipIf'], example: "test.skipIf(true)('adds', () => {" },
      { re: r`\b(?:it|test|describe|suite|bench)(?:\.\w+)*\.runIf\s*\(\s*${FALSY}\s*\)`, needles: ['.runIf'], example: "test.runIf(false)('adds', () => {" },
      { re: r`\bx(?:it|describe|test|context|specify)\s*\(`, needles: ['xit', 'xdescribe', 'xtest', 'xcontext', 'xspecify'], example: "xit('adds', () => {" },
      { re: r`(?<![\w$.])f(?:it|describe)\s*\(\s*['"\x60]`, needles: ['fit', 'fdescribe'], example: "fdescribe('cart', () => {" },
      { re: r`\b(?:t|this|ctx)\.(?:skip|todo)\s*\(`, needles: ['.skip', '.todo'], example: "  t.skip('later');", tests: true },
      { re: r`^[ \t]*(?:it|test|describe|suite)\s*\([^\n]*?,\s*\{[^}\n]*?\b(?:skip|todo|only)\s*:\s*(?!(?:false|undefined|null|0)\b)[^\s,})]`, needles: ['skip', 'todo', 'only'], example: "test('adds', { skip: true }, () => {", tests: true },
      { re: r`^[ \t]*pending\s*\(`, needles: first('pending'), example: "  pending('later');", tests: true },
    ],
    suppressions: [
      { re: r`eslint-disable\b`, needles: ['eslint-disable'], example: '// eslint-disable-next-line no-explicit-any' },
      { re: r`\/\*\s*eslint\s+[^*\n]*?:\s*(?:0|1|["']?(?:off|warn)\b)`, needles: ['eslint'], example: '/* eslint no-console: "off" */' },
      { re: r`@ts-(?:ignore|expect-error|nocheck)\b`, needles: ['@ts-'], example: '// @ts-ignore' },
      { re: r`\btslint:disable\b`, needles: ['tslint:'], example: '/* tslint:disable */' },
      { re: r`\bbiome-ignore\b`, needles: ['biome-ignore'], example: '// biome-ignore lint/suspicious/noExplicitAny: later' },
      { re: r`\bdeno-lint-ignore\b`, needles: ['deno-lint-ignore'], example: '// deno-lint-ignore no-explicit-any' },
      { re: r`\boxlint-disable\b`, needles: ['oxlint-disable'], example: '// oxlint-disable-next-line no-unused-vars' },
      { re: r`\bjshint\s+ignore\b`, needles: ['jshint'], example: '/* jshint ignore:start */' },
      { re: r`\$Flow(?:FixMe|Ignore|ExpectedError|Issue)\b`, needles: ['$Flow'], example: '// $FlowFixMe' },
      { re: r`\b(?:istanbul|c8|v8)\s+ignore\b`, needles: ['istanbul', 'c8', 'v8'], example: '/* istanbul ignore next */' },
    ],
  },
  {
    name: 'Python (pytest, unittest)',
    extensions: ['py', 'pyi'],
    skips: [
      { re: r`@?\bpytest\.mark\.(?:skip|skipif|xfail)\b`, needles: ['pytest.mark.'], example: 'pytestmark = pytest.mark.skip(reason="later")' },
      { re: r`@mark\.(?:skip|skipif|xfail)\b`, needles: ['@mark.'], example: '@mark.xfail' },
      { re: r`\bpytest\.(?:skip|xfail|importorskip)\s*\(`, needles: ['pytest.'], example: '    pytest.skip("later")' },
      { re: r`@(?:unittest\.)?(?:skip|skipIf|skipUnless|expectedFailure)\b`, needles: ['@unittest.', '@skip', '@expectedFailure'], example: '@unittest.skipIf(True, "later")' },
      { re: r`\bskipTest\s*\(`, needles: ['skipTest'], example: '        self.skipTest("later")' },
      { re: r`\braise\s+(?:unittest\.(?:case\.)?)?SkipTest\b`, needles: ['raise'], example: '    raise unittest.SkipTest("later")' },
      { re: r`^[ \t]*__test__\s*=\s*False\b`, needles: first('__test__'), example: '__test__ = False' },
      { re: r`^[ \t]*collect_ignore(?:_glob)?\s*(?:\+?=|\.(?:append|extend)\s*\()`, needles: first('collect_ignore'), example: 'collect_ignore = ["test_cart.py"]' },
    ],
    suppressions: [
      { re: r`#[ \t]*(?:(?:flake8|ruff):[ \t]*)?[Nn][Oo][Qq][Aa]\b`, needles: ['#'], example: 'import os  # NOQA' },
      { re: r`#[ \t]*type:[ \t]*ignore\b`, needles: ['#'], example: 'x: int = f()  # type: ignore' },
      { re: r`#[ \t]*pyright:[ \t]*(?:ignore\b|basic\b|\w+[ \t]*=[ \t]*(?:false|none|warning|information)\b)`, needles: ['pyright:'], example: 'x: int = f()  # pyright: ignore[reportAssignmentType]' },
      { re: r`#[ \t]*pylint:[ \t]*(?:disable|skip-file)\b`, needles: ['pylint:'], example: 'def f():  # pylint: disable=too-many-branches' },
      { re: r`#[ \t]*mypy:[ \t]*(?:ignore-errors|disable-error-code)\b`, needles: ['mypy:'], example: '# mypy: ignore-errors' },
      { re: r`#[ \t]*pytype:[ \t]*disable\b`, needles: ['pytype:'], example: '# pytype: disable=attribute-error' },
      { re: r`#[ \t]*nosec\b`, needles: ['nosec'], example: 'subprocess.call(cmd, shell=True)  # nosec' },
      { re: r`#[ \t]*pragma:?[ \t]*no[ \t_-]?cover\b`, needles: ['pragma'], example: 'def f():  # pragma: no cover' },
    ],
  },
  {
    name: 'Go',
    extensions: ['go'],
    skips: [
      { re: r`(?:\b(?:t|b|f|tb|tt)|\.T\(\))\.Skip(?:Now|f)?\s*\(`, needles: ['.Skip'], example: '\tt.Skip("later")' },
      { re: r`^\/\/go:build\b|^\/\/[ \t]*\+build\b`, needles: ['//go:build', '+build'], example: '//go:build ignore', tests: true },
    ],
    suppressions: [
      { re: r`\/\/[ \t]*nolint\b`, needles: ['nolint'], example: 'x := f() //nolint:errcheck' },
      { re: r`\/\/[ \t]*lint:(?:file-)?ignore\b`, needles: ['lint:'], example: '//lint:ignore SA1019 later' },
      { re: r`#nosec\b`, needles: ['#nosec'], example: 'cmd := exec.Command(name) // #nosec G204' },
    ],
  },
  {
    name: 'Rust',
    extensions: ['rs'],
    skips: [
      { re: r`#\[ignore\b`, needles: ['#[ignore'], example: '#[ignore = "later"]' },
      { re: r`#\[cfg\(\s*(?:any\(\s*\)|false)\s*\)\]`, needles: ['#[cfg'], example: '#[cfg(any())]' },
    ],
    suppressions: [
      { re: r`#!?\[(?:allow|expect)\(`, needles: ['allow(', 'expect('], example: '#![allow(dead_code)]' },
      { re: r`#!?\[cfg_attr\([^\n]*?\ballow\(`, needles: ['cfg_attr'], example: '#[cfg_attr(test, allow(unused))]' },
    ],
  },
  {
    name: 'Java/Kotlin/Scala/Groovy (JUnit, TestNG, Kotest, Spock)',
    extensions: ['java', 'kt', 'kts', 'scala', 'groovy'],
    skips: [
      { re: r`@(?:Disabled\w*|Ignore(?:If|Rest)?|PendingFeature)\b`, needles: ['@Disabled', '@Ignore', '@PendingFeature'], example: '    @Disabled("later")' },
      { re: r`\bassume(?:True|That)\s*\(\s*false\s*\)|\bassumeFalse\s*\(\s*true\s*\)`, needles: ['assume'], example: '        assumeTrue(false);' },
      { re: r`@Test\s*\([^)\n]*\benabled\s*=\s*false\b`, needles: ['@Test'], example: '    @Test(enabled = false)' },
      { re: r`\.config\s*\([^)\n]*\benabled\s*=\s*false\b`, needles: ['.config'], example: '    test("adds").config(enabled = false) {' },
      { re: r`\bx(?:test|it|describe|context|should|given|feature|scenario)\s*\(\s*"`, needles: ['xtest', 'xit', 'xdescribe', 'xcontext', 'xshould', 'xgiven', 'xfeature', 'xscenario'], example: '    xtest("adds") {' },
    ],
    suppressions: [
      { re: r`@(?:file:)?Suppress\w*\b`, needles: ['Suppress'], example: '@SuppressWarnings("unchecked")' },
      { re: r`\bNOSONAR\b`, needles: ['NOSONAR'], example: 'int x = f(); // NOSONAR' },
      { re: r`\/\/[ \t]*noinspection\b`, needles: ['noinspection'], example: '//noinspection unchecked' },
      { re: r`\bCHECKSTYLE[:.]?OFF\b`, needles: ['CHECKSTYLE'], example: '// CHECKSTYLE:OFF' },
      { re: r`\bNOPMD\b`, needles: ['NOPMD'], example: 'catch (Exception e) { log(e); } // NOPMD' },
      { re: r`@nowarn\b`, needles: ['@nowarn'], example: '@nowarn("cat=deprecation")' },
    ],
  },
  {
    name: 'Ruby (RSpec, minitest)',
    extensions: ['rb'],
    skips: [
      { re: r`^[ \t]*x(?:it|describe|context|specify|example|scenario|feature)\b`, needles: first('xit', 'xdescribe', 'xcontext', 'xspecify', 'xexample', 'xscenario', 'xfeature'), example: "  xit 'adds' do" },
      { re: r`^[ \t]*f(?:it|describe|context|specify|example)\b(?![?!]|[ \t]*=[^=])`, needles: first('fit', 'fdescribe', 'fcontext', 'fspecify', 'fexample'), example: "  fit 'adds' do", tests: true },
      { re: r`^[ \t]*(?:skip|pending)\b(?![?!]|[ \t]*=[^=])`, needles: first('skip', 'pending'), example: "    skip 'later'", tests: true },
      { re: r`^[ \t]*(?:it|specify|example|scenario|describe|context|feature)\b[^\n]*?(?:\b(?:skip|pending|focus)\s*:(?!:)|:(?:skip|pending|focus)\b)`, needles: ['skip', 'pending', 'focus'], example: "  it 'adds', skip: 'later' do", tests: true },
    ],
    suppressions: [
      { re: r`#[ \t]*rubocop:[ \t]*(?:disable|todo)\b`, needles: ['rubocop:'], example: 'def f # rubocop:disable Metrics/AbcSize' },
      { re: r`#[ \t]*:nocov:`, needles: [':nocov:'], example: '# :nocov:' },
      { re: r`#[ \t]*typed:[ \t]*(?:ignore|false)\b`, needles: ['typed:'], example: '# typed: false' },
      { re: r`#[ \t]*steep:ignore\b`, needles: ['steep:'], example: 'x = f # steep:ignore' },
    ],
  },
  {
    name: 'C/C++/C#',
    extensions: ['c', 'h', 'cc', 'cpp', 'cxx', 'hpp', 'hh', 'cs'],
    skips: [{ re: r`\[(?:Ignore|Explicit)\b|\[(?:Fact|Theory)\s*\([^)\n]*\bSkip\s*=`, needles: ['[Ignore', '[Explicit', '[Fact', '[Theory'], example: '[Fact(Skip = "later")]' }],
    suppressions: [
      { re: r`\bNOLINT(?:NEXTLINE|BEGIN)?\b`, needles: ['NOLINT'], example: 'int x = f(); // NOLINT' },
      { re: r`\bcppcheck-suppress\b`, needles: ['cppcheck-suppress'], example: '// cppcheck-suppress nullPointer' },
      { re: r`#[ \t]*pragma[ \t]+(?:warning[ \t]*(?:\([ \t]*disable|disable\b)|(?:GCC|clang)[ \t]+diagnostic[ \t]+ignored\b)`, needles: ['pragma'], example: '#pragma GCC diagnostic ignored "-Wunused"' },
      { re: r`\[(?:assembly:[ \t]*)?SuppressMessage\b`, needles: ['SuppressMessage'], example: '[SuppressMessage("Style", "IDE0060")]' },
      { re: r`\/\/[ \t]*ReSharper[ \t]+disable\b`, needles: ['ReSharper'], example: '// ReSharper disable once UnusedVariable' },
    ],
  },
  {
    name: 'PHP (PHPUnit)',
    extensions: ['php'],
    skips: [{ re: r`\$this->mark(?:TestSkipped|TestIncomplete)\s*\(|#\[(?:RequiresPhp|Group\(\s*'skip)`, needles: ['$this->mark', '#['], example: "        $this->markTestSkipped('later');" }],
    suppressions: [
      { re: r`@phpstan-ignore\b|@psalm-suppress\b|@codingStandardsIgnore|\bphpcs:(?:ignore|disable)\b`, needles: ['@phpstan-ignore', '@psalm-suppress', '@codingStandardsIgnore', 'phpcs:'], example: '/** @phpstan-ignore-next-line */' },
    ],
  },
  {
    name: 'CSS',
    extensions: ['css', 'scss', 'less'],
    skips: [],
    suppressions: [{ re: r`\bstylelint-disable\b`, needles: ['stylelint-disable'], example: '/* stylelint-disable-next-line color-no-hex */' }],
  },
  {
    name: 'Shell',
    extensions: ['sh', 'bash', 'zsh'],
    skips: [{ re: r`^[ \t]*skip\b(?![ \t]*=)`, needles: first('skip'), example: '  skip "later"', tests: true }],
    suppressions: [{ re: r`#[ \t]*shellcheck[ \t]+disable=`, needles: ['shellcheck'], example: '# shellcheck disable=SC2086' }],
  },
  {
    name: 'Elixir (ExUnit)',
    extensions: ['ex', 'exs'],
    skips: [{ re: r`@(?:module|describe)?tag[ \t]+(?::skip\b|skip:)`, needles: ['tag'], example: '  @tag :skip' }],
    suppressions: [{ re: r`#[ \t]*credo:disable`, needles: ['credo:'], example: '# credo:disable-for-next-line' }],
  },
  {
    name: 'Swift/Dart',
    extensions: ['swift', 'dart'],
    skips: [{ re: r`\bXCTSkip(?:If|Unless)?\b|\bskip\s*:\s*(?:true|['"])`, needles: ['XCTSkip', 'skip'], example: '        throw XCTSkip("later")', tests: true }],
    suppressions: [{ re: r`\bswiftlint:disable\b|\/\/[ \t]*ignore(?:_for_file)?:`, needles: ['swiftlint:', 'ignore'], example: '// swiftlint:disable force_cast' }],
  },
];

const byExtension = new Map<string, Ecosystem>();
for (const e of ECOSYSTEMS) for (const x of e.extensions) byExtension.set(x, e);

/** One pattern of all the rows given (null when there are none). */
export function combined(rows: readonly Spelling[]): Pattern | null {
  if (rows.length === 0) return null;
  return pattern(new RegExp(rows.map((s) => `(?:${s.re})`).join('|'), 'gm'), rows.flatMap((s) => s.needles));
}

type Kind = 'skips' | 'suppressions';
const cache = new Map<string, Pattern | null>();

/** The pattern of a file's skips or suppressions: its ecosystem's rows (all of them when not listed), the test-only rows in test files. */
export function spellingsFor(kind: Kind, path: string): Pattern | null {
  const x = /\.([A-Za-z0-9]+)$/.exec(path)?.[1]?.toLowerCase() ?? '';
  const ecosystem = byExtension.get(x);
  const tests = isTestFile(path);
  const key = `${kind}\0${ecosystem?.name ?? '*'}\0${tests}`;
  if (!cache.has(key)) {
    const rows = (ecosystem ? [ecosystem] : ECOSYSTEMS).flatMap((e) => e[kind]).filter((s) => tests || !s.tests);
    cache.set(key, combined(rows));
  }
  return cache.get(key)!;
}
