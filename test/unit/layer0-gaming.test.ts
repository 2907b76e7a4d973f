/**
 * Layer-0 anti-gaming per ecosystem: every spelling of a skip or a suppression in the table hits, near
 * misses do not; config changes that weaken a tool hit, those that tighten it do not; a test file renamed
 * out of its runner's collection is not a move. Then the properties: clean edits never hit, a gaming line
 * inserted anywhere always does.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runLayer0, type FileChange, type Layer0Check, type Layer0Hit } from '../../src/checks/layer0';
import { layer0Round } from '../../src/checks/layer0-round';
import { collects, globToRegExp, renamedFrom } from '../../src/checks/layer0/collection';
import { valuesOf } from '../../src/checks/layer0/config-values';
import { CONFIG_RULES, scriptWeakened } from '../../src/checks/layer0/config-weakening';
import { ECOSYSTEMS } from '../../src/checks/layer0/gaming-spellings';

const side = (t: string | null): FileChange['before'] => (t === null ? { kind: 'absent' } : { kind: 'text', text: t });
const change = (path: string, before: string | null, after: string | null): FileChange => ({ path, before: side(before), after: side(after) });
const lines = (...ls: string[]): string => `${ls.join('\n')}\n`;
const hitsOf = <C extends Layer0Check>(changes: FileChange[], only: C, configs?: Map<string, string>) =>
  runLayer0(changes, [], configs).filter((h): h is Extract<Layer0Hit, { check: C }> => h.check === only);
/** One file's change: its hits of one check, as [line, evidence]. */
const hits = (path: string, before: string | null, after: string | null, only: Layer0Check) => hitsOf([change(path, before, after)], only).map((h) => [h.line, h.evidence]);

/** A test file of each ecosystem, by its first extension. */
const testPath = (ext: string): string => `tests/cart_test.${ext}`;
const BEFORE = lines('const a = 1;', 'const b = 2;');

describe('the spellings table', () => {
  const rows = ECOSYSTEMS.flatMap((e) =>
    (['skips', 'suppressions'] as const).flatMap((kind) => e[kind].map((s) => [e.name, kind, s.example, e.extensions[0]!, s.tests === true] as const)),
  );

  it.each(rows)('%s %s: %j hits in a .%s test file', (_, kind, example, ext) => {
    const check = kind === 'skips' ? 'test_skipped' : 'suppression_added';
    expect(hits(testPath(ext), BEFORE, `${BEFORE}${example}\n`, check)).toEqual([[3, example.trim()]]);
  });

  it.each(rows.filter((r) => r[4]))('%s %s: %j counts only in a test file', (_, kind, example, ext) => {
    const check = kind === 'skips' ? 'test_skipped' : 'suppression_added';
    expect(hits(`src/cart.${ext}`, BEFORE, `${BEFORE}${example}\n`, check)).toEqual([]);
  });

  it('a code file of a language the table does not list gets every spelling', () => {
    expect(hits('lib/cart.lua', BEFORE, lines('const a = 1;', '-- eslint-disable-next-line', 'const b = 2;'), 'suppression_added')).toEqual([[2, '-- eslint-disable-next-line']]);
  });
});

describe('test_skipped: each spelling the brief names', () => {
  it.each([
    ['test.skipIf(true)(', 'test/a.test.ts', "test.skipIf(true)('adds', () => {", 'test.skipIf('],
    ['test.runIf(false)(', 'test/a.test.ts', "test.runIf(false)('adds', () => {", 'test.runIf(false)'],
    ['it.concurrent.skip(', 'test/a.test.ts', "it.concurrent.skip('adds', async () => {", 'it.concurrent.skip'],
    ['describe.only', 'test/a.test.js', "describe.only('cart', () => {", 'describe.only'],
    ['test.todo', 'test/a.test.js', "test.todo('refunds');", 'test.todo'],
    ['xdescribe', 'test/a.spec.js', "xdescribe('cart', () => {", 'xdescribe('],
    ['vitest test.fails', 'test/a.test.ts', "test.fails('adds', () => {", 'test.fails'],
    ['node:test { skip: true }', 'test/a.test.mjs', "test('adds', { skip: true }, () => {", "test('adds', { skip: t"],
    ['mocha this.skip()', 'test/a.spec.js', '    this.skip();', 'this.skip('],
    ['pytestmark = pytest.mark.skip(...)', 'tests/test_a.py', 'pytestmark = pytest.mark.skip(reason="flaky")', 'pytest.mark.skip'],
    ['@pytest.mark.skipif', 'tests/test_a.py', '@pytest.mark.skipif(sys.platform == "linux", reason="x")', '@pytest.mark.skipif'],
    ['@pytest.mark.xfail', 'tests/test_a.py', '@pytest.mark.xfail', '@pytest.mark.xfail'],
    ['@unittest.skip', 'tests/test_a.py', '    @unittest.skip("later")', '@unittest.skip'],
    ['self.skipTest', 'tests/test_a.py', '        self.skipTest("later")', 'skipTest('],
    ['t.Skip', 'cart_test.go', '\tt.Skipf("later: %d", n)', 't.Skipf('],
    ['a build tag on a Go test file', 'cart_test.go', '//go:build integration', '//go:build'],
    ['#[ignore]', 'tests/cart.rs', '#[ignore]', '#[ignore'],
    ['@Disabled', 'src/test/java/CartTest.java', '    @Disabled', '@Disabled'],
    ['@Ignore', 'src/test/java/CartTest.java', '    @Ignore("later")', '@Ignore'],
    ['assumeTrue(false)', 'src/test/kotlin/CartTest.kt', '        assumeTrue(false)', 'assumeTrue(false)'],
    ['RSpec xit', 'spec/cart_spec.rb', "  xit 'adds' do", 'xit'],
    ['RSpec skip', 'spec/cart_spec.rb', "    skip 'later'", 'skip'],
    ['RSpec pending', 'spec/cart_spec.rb', '    pending', 'pending'],
    ['minitest skip', 'test/cart_test.rb', '    skip("later")', 'skip'],
  ])('%s', (_, path, line, marker) => {
    const found = hitsOf([change(path, BEFORE, `${BEFORE}${line}\n`)], 'test_skipped');
    expect(found.map((h) => [h.line, h.evidence])).toEqual([[3, line.trim()]]);
    expect(found[0]!.detail.marker).toBe(marker);
  });

  it.each([
    ['a string that contains "skip"', 'test/a.test.ts', 'const msg = "skip this step when the cart is empty";'],
    ['a function named skipIfEmpty', 'test/a.test.ts', 'skipIfEmpty(cart); list.skipIfEmpty();'],
    ['a method named skip on another object', 'test/a.test.ts', 'stream.skip(3); iterator.only(2);'],
    ['runIf on a real condition', 'test/a.test.ts', "test.runIf(process.platform === 'linux')('adds', () => {"],
    ['{ skip: false }', 'test/a.test.mjs', "test('adds', { skip: false }, () => {"],
    ['a title that says todo:', 'test/a.test.mjs', "test('todo: lists', () => {"],
    ['model.fit', 'test/a.test.js', 'model.fit(x, y); const fit = 1;'],
    ['t.skip in a file that is not a test', 'src/a.ts', "t.skip('x');"],
    ['Python names with skip in them', 'tests/test_a.py', 'def skip_empty(rows): return [r for r in rows if r]'],
    ['a Go method that reports a skip', 'cart_test.go', '\tif t.Skipped() {'],
    ['a Go build tag outside the tests', 'cart.go', '//go:build linux'],
    ['@JsonIgnore', 'src/test/java/CartTest.java', '    @JsonIgnore'],
    ['an RSpec variable named skip', 'spec/cart_spec.rb', '    skip = rows.empty?'],
    ['an RSpec hash of test data', 'spec/cart_spec.rb', '    let(:page) { { skip: 10, take: 5 } }'],
    ['a Ruby skip outside the specs', 'lib/cart.rb', '    skip'],
    ['#[cfg(test)]', 'src/lib.rs', '#[cfg(test)]'],
    ['a Swift argument named skip outside the tests', 'Sources/Cart.swift', 'let page = fetch(skip: true)'],
  ])('does not fire on %s', (_, path, line) => {
    expect(hits(path, BEFORE, `${BEFORE}${line}\n`, 'test_skipped')).toEqual([]);
  });
});

describe('suppression_added: each spelling the brief names', () => {
  it.each([
    ['# NOQA', 'app.py', 'import os  # NOQA'],
    ['# NoQa: F401', 'app.py', 'import os  # NoQa: F401'],
    ['# ruff: noqa', 'app.py', '# ruff: noqa: E501'],
    ['# pyright: ignore', 'app.py', 'x: int = f()  # pyright: ignore'],
    ['# pylint: disable', 'app.py', '# pylint: disable=unused-import'],
    ['# type: ignore', 'app.py', 'x: int = f()  # type: ignore[assignment]'],
    ['// NOLINT', 'src/a.cpp', 'int x = f(); // NOLINT(bugprone-unused-return-value)'],
    ['// NOLINTNEXTLINE', 'src/a.c', '// NOLINTNEXTLINE'],
    ['// biome-ignore', 'src/a.ts', '// biome-ignore lint/suspicious/noExplicitAny: later'],
    ['// deno-lint-ignore', 'src/a.ts', '// deno-lint-ignore no-explicit-any'],
    ['// deno-lint-ignore-file', 'src/a.ts', '// deno-lint-ignore-file'],
    ['/* tslint:disable */', 'src/a.ts', '/* tslint:disable */'],
    ['eslint-disable', 'src/a.js', '/* eslint-disable */'],
    ['@ts-nocheck', 'src/a.ts', '// @ts-nocheck'],
    ['#![allow(...)]', 'src/lib.rs', '#![allow(clippy::all)]'],
    ['#[allow(...)]', 'src/lib.rs', '#[allow(dead_code)]'],
    ['@SuppressWarnings', 'src/main/java/Cart.java', '@SuppressWarnings("unchecked")'],
    ['Kotlin @Suppress', 'src/main/kotlin/Cart.kt', '@Suppress("UNCHECKED_CAST")'],
    ['//nolint', 'main.go', 'defer f.Close() //nolint:errcheck'],
    ['rubocop:disable', 'lib/cart.rb', 'def total # rubocop:disable Metrics/AbcSize'],
  ])('%s', (_, path, line) => {
    expect(hits(path, BEFORE, `${BEFORE}${line}\n`, 'suppression_added')).toEqual([[3, line]]);
  });

  it.each([
    ['noqa in prose in a Markdown file', 'docs/lint.md', 'Never add `# noqa` or `# NOQA` to silence ruff.'],
    ['a word that contains noqa', 'app.py', 'x = 1  # see noqa_rules.md'],
    ['eslint-disable in a Python string', 'app.py', 'MSG = "no eslint here"'],
    ['#[cfg(test)] in Rust', 'src/lib.rs', '#[cfg(test)]'],
    ['allow in a Rust expression', 'src/lib.rs', 'let allowed = policy.allow(user);'],
    ['an annotation that only starts like one', 'src/main/java/Cart.java', '@Supplier'],
  ])('does not fire on %s', (_, path, line) => {
    expect(hits(path, BEFORE, `${BEFORE}${line}\n`, 'suppression_added')).toEqual([]);
  });
});

describe('config_weakened', () => {
  const pkg = (scripts: Record<string, string>): string => `${JSON.stringify({ name: 'shop', scripts, devDependencies: { vitest: '4.1.0' } }, null, 2)}\n`;
  it.each([
    ['|| true', 'vitest run', 'vitest run || true', 'cannot fail'],
    ['exit 0', 'vitest run', 'exit 0', 'no longer runs anything'],
    ['echo', 'pytest', 'echo "tests skipped"', 'no longer runs anything'],
    ['--passWithNoTests', 'jest', 'jest --passWithNoTests', 'passes with no tests'],
    ['a name filter', 'vitest run', 'vitest run -t adds', 'runs fewer tests'],
    ['a path filter', 'vitest run', 'vitest run test/unit/cart.test.ts', 'runs fewer tests'],
    ['pytest -k', 'pytest -q', 'pytest -q -k "not slow"', 'runs fewer tests'],
  ])('the test script: %s', (_, before, after, how) => {
    const found = hitsOf([change('package.json', pkg({ test: before, build: 'tsc' }), pkg({ test: after, build: 'tsc' }))], 'config_weakened');
    expect(found).toEqual([expect.objectContaining({ line: 4, evidence: `"test": ${JSON.stringify(after)},`, detail: { tool: 'package.json scripts', change: `the "test" script ${how}` } })]);
  });

  it('the test script removed', () => {
    const found = hitsOf([change('package.json', pkg({ test: 'vitest run', lint: 'eslint .' }), pkg({ lint: 'eslint .' }))], 'config_weakened');
    expect(found).toEqual([expect.objectContaining({ line: null, evidence: '"test": "vitest run" removed' })]);
  });

  it.each([
    ['a coverage flag added', 'vitest run', 'vitest run --coverage'],
    ['a reporter option', 'vitest run', 'vitest run --reporter=dot'],
    ['a script that was a no-op and now runs tests', 'echo "no tests"', 'vitest run'],
    ['|| true removed', 'jest || true', 'jest'],
  ])('the test script, not weakened: %s', (_, before, after) => {
    expect(hitsOf([change('package.json', pkg({ test: before }), pkg({ test: after }))], 'config_weakened')).toEqual([]);
  });

  it.each([
    ['tsconfig "strict": false', 'tsconfig.json', lines('{', '  "compilerOptions": {', '    "strict": true', '  }', '}'), lines('{', '  "compilerOptions": {', '    "strict": false', '  }', '}'), '"strict": false'],
    ['tsconfig noImplicitAny: false', 'packages/a/tsconfig.build.json', lines('{ "compilerOptions": {', '} }'), lines('{ "compilerOptions": {', '  "noImplicitAny": false', '} }'), '"noImplicitAny": false'],
    ['an ESLint rule turned off', 'eslint.config.js', lines('export default [{ rules: {', "  'no-console': 'error',", '} }];'), lines('export default [{ rules: {', "  'no-console': 'off',", '} }];'), "'no-console': 'off'"],
    ['an ESLint rule lowered to warn', '.eslintrc.json', lines('{ "rules": {', '  "eqeqeq": 2', '} }'), lines('{ "rules": {', '  "eqeqeq": "warn"', '} }'), '"eqeqeq": "warn"'],
    ['an ESLint rule set to 0', '.eslintrc.json', lines('{ "rules": {', '  "eqeqeq": 2', '} }'), lines('{ "rules": {', '  "eqeqeq": 0', '} }'), '"eqeqeq": 0'],
    ['a Biome rule turned off', 'biome.json', lines('{ "linter": { "rules": {', '} } }'), lines('{ "linter": { "rules": {', '  "suspicious": { "noExplicitAny": "off" }', '} } }'), '"noExplicitAny": "off"'],
    ['vitest passWithNoTests', 'vitest.config.ts', lines('export default defineConfig({ test: {', '} });'), lines('export default defineConfig({ test: {', '  passWithNoTests: true,', '} });'), 'passWithNoTests: true'],
    ['pytest addopts -k', 'pytest.ini', lines('[pytest]', 'addopts = -q'), lines('[pytest]', 'addopts = -q -k "not cart"'), '-k'],
    ['pytest addopts --deselect in pyproject', 'pyproject.toml', lines('[tool.pytest.ini_options]', 'addopts = "-q"'), lines('[tool.pytest.ini_options]', 'addopts = "-q --deselect tests/test_cart.py::test_total"'), '--deselect'],
    ['pytest addopts --ignore in setup.cfg', 'setup.cfg', lines('[tool:pytest]', 'addopts = -q'), lines('[tool:pytest]', 'addopts = -q --ignore=tests/test_cart.py'), '--ignore'],
    ['mypy strictness off', 'mypy.ini', lines('[mypy]', 'strict = True'), lines('[mypy]', 'strict = False'), 'strict = False'],
    ['a Clippy lint allowed in Cargo.toml', 'Cargo.toml', lines('[lints.clippy]', 'unwrap_used = "deny"'), lines('[lints.clippy]', 'unwrap_used = "allow"'), 'unwrap_used = "allow"'],
    ['golangci disable-all', '.golangci.yml', lines('linters:', '  enable:', '    - errcheck'), lines('linters:', '  disable-all: true', '  enable:', '    - errcheck'), 'disable-all: true'],
    ['RuboCop cop disabled', '.rubocop.yml', lines('Metrics/AbcSize:', '  Max: 20'), lines('Metrics/AbcSize:', '  Enabled: false'), 'Enabled: false'],
    ['Maven skipTests', 'pom.xml', lines('<properties>', '</properties>'), lines('<properties>', '  <skipTests>true</skipTests>', '</properties>'), '<skipTests>true'],
    ['a CI step that may fail', '.github/workflows/ci.yml', lines('    - run: npm test'), lines('    - run: npm test', '      continue-on-error: true'), 'continue-on-error: true'],
  ])('%s', (_, path, before, after, what) => {
    const found = hitsOf([change(path, before, after)], 'config_weakened');
    expect(found.length).toBeGreaterThanOrEqual(1);
    expect(found[0]!.detail.change).toContain(what);
    expect(found[0]!.line).not.toBeNull();
  });

  it.each([
    ['vitest include narrowed', 'vitest.config.ts', "export default defineConfig({ test: { include: ['test/**/*.test.ts', 'src/**/*.test.ts'] } });\n", "export default defineConfig({ test: { include: ['test/**/*.test.ts'] } });\n", 'include lost "src/**/*.test.ts"'],
    ['vitest exclude widened', 'vitest.config.mts', "export default { test: {\n  exclude: ['node_modules/**'],\n} };\n", "export default { test: {\n  exclude: ['node_modules/**', 'test/cart.test.ts'],\n} };\n", 'exclude gained "test/cart.test.ts"'],
    ['jest testPathIgnorePatterns widened', 'jest.config.js', "module.exports = {\n  testPathIgnorePatterns: ['/node_modules/'],\n};\n", "module.exports = {\n  testPathIgnorePatterns: ['/node_modules/', '/test/cart'],\n};\n", 'testPathIgnorePatterns gained "/test/cart"'],
    ['jest testMatch narrowed in package.json', 'package.json', '{\n  "jest": { "testMatch": ["**/*.test.js", "**/*.spec.js"] }\n}\n', '{\n  "jest": { "testMatch": ["**/*.test.js"] }\n}\n', 'testMatch lost "**/*.spec.js"'],
    ['pytest python_files narrowed', 'pyproject.toml', '[tool.pytest.ini_options]\npython_files = ["test_*.py", "*_test.py"]\n', '[tool.pytest.ini_options]\npython_files = ["test_*.py"]\n', 'python_files lost "*_test.py"'],
    ['pytest testpaths narrowed (INI continuation lines)', 'setup.cfg', '[tool:pytest]\ntestpaths =\n    tests\n    integration\n', '[tool:pytest]\ntestpaths =\n    tests\n', 'testpaths lost "integration"'],
    ['a ruff rule ignored', 'ruff.toml', '[lint]\nignore = ["E501"]\n', '[lint]\nignore = ["E501", "F401"]\n', 'ignore gained "F401"'],
    ['a golangci linter disabled', '.golangci.yaml', 'linters:\n  disable:\n    - lll\n', 'linters:\n  disable:\n    - lll\n    - errcheck\n', 'disable gained "errcheck"'],
    ['a golangci linter no longer enabled', '.golangci.yml', 'linters:\n  enable:\n    - errcheck\n    - govet\n', 'linters:\n  enable:\n    - govet\n', 'enable lost "errcheck"'],
  ])('%s', (_, path, before, after, what) => {
    const found = hitsOf([change(path, before, after)], 'config_weakened');
    expect(found.map((h) => h.detail.change)).toEqual([what]);
  });

  it.each([
    ['"strict": true (tightened)', 'tsconfig.json', lines('{ "compilerOptions": {', '  "strict": false', '} }'), lines('{ "compilerOptions": {', '  "strict": true', '} }')],
    ['an ESLint rule raised to error', 'eslint.config.js', lines("rules: { 'no-console': 'warn' }"), lines("rules: { 'no-console': 'error' }")],
    ['a rule that was off already, moved', '.eslintrc.json', lines('{ "rules": {', '  "a": "off",', '  "b": 2', '} }'), lines('{ "rules": {', '  "b": 2,', '  "a": "off"', '} }')],
    ['vitest include widened', 'vitest.config.ts', "test: { include: ['test/**/*.test.ts'] }\n", "test: { include: ['test/**/*.test.ts', 'src/**/*.test.ts'] }\n"],
    ['a build folder excluded in tsconfig', 'tsconfig.json', '{\n  "exclude": ["node_modules"]\n}\n', '{\n  "exclude": ["node_modules", "dist", "**/coverage/**"]\n}\n'],
    ['vitest exclude reduced', 'vitest.config.ts', "test: { exclude: ['a/**', 'b/**'] }\n", "test: { exclude: ['a/**'] }\n"],
    ['a vite optimizeDeps exclude (not the tests)', 'vite.config.ts', "export default { optimizeDeps: { exclude: ['a'] } };\n", "export default { optimizeDeps: { exclude: ['a', 'b'] } };\n"],
    ['pytest addopts made more verbose', 'pytest.ini', lines('[pytest]', 'addopts = -q'), lines('[pytest]', 'addopts = -ra -q --strict-markers')],
    ['tox running pytest as a module', 'tox.ini', lines('[testenv]', 'commands = pytest'), lines('[testenv]', 'commands = python -m pytest')],
    ['a ruff rule selected', 'ruff.toml', '[lint]\nselect = ["E"]\n', '[lint]\nselect = ["E", "F"]\n'],
    ['a JSON data file that is not a config', 'data/rules.json', lines('{ "rules": {', '  "a": 2', '} }'), lines('{ "rules": {', '  "a": "off"', '} }')],
  ])('does not fire on %s', (_, path, before, after) => {
    expect(hitsOf([change(path, before, after)], 'config_weakened')).toEqual([]);
  });

  it('every rule with an example line finds it in a file of its own', () => {
    const file: Record<string, string> = { 'TypeScript': 'tsconfig.json', 'ESLint': 'eslint.config.js', 'Biome/oxlint/Deno lint': 'biome.json', 'Jest': 'jest.config.js', 'Vitest': 'vitest.config.ts', 'Mocha': '.mocharc.json', 'pytest': 'pytest.ini', 'golangci-lint': '.golangci.yml', 'Cargo/Clippy': 'Cargo.toml', 'RuboCop/RSpec': '.rubocop.yml', 'Maven/Gradle': 'pom.xml', 'CI workflow': '.github/workflows/ci.yml' };
    file['Python linters and type checkers (ruff, flake8, pylint, mypy, pyright)'] = 'mypy.ini';
    for (const rule of CONFIG_RULES.filter((r) => r.example)) {
      const path = file[rule.tool]!;
      expect(path, rule.tool).toBeDefined();
      expect(hitsOf([change(path, '\n', `\n${rule.example}\n`)], 'config_weakened').map((h) => [h.line, h.evidence]), rule.tool).toContainEqual([2, rule.example!.trim()]);
    }
  });

  it('scriptWeakened reads each way a script gets weaker', () => {
    expect(scriptWeakened('vitest run', 'vitest run; exit 0')).toBe('cannot fail');
    expect(scriptWeakened('vitest run', 'vitest run || :')).toBe('cannot fail');
    expect(scriptWeakened('mocha', 'mocha --grep cart')).toBe('runs fewer tests');
    expect(scriptWeakened('vitest run || true', 'vitest run || true --coverage')).toBeNull();
    expect(scriptWeakened('jest', 'jest')).toBeNull();
  });
});

describe('test_uncollected', () => {
  const suite = lines("import { it, expect } from 'vitest';", "it('adds', () => {", '  expect(add(1, 2)).toBe(3);', '});');
  const renamed = (from: string, to: string, text = suite, configs?: Map<string, string>) => runLayer0([change(from, text, null), change(to, null, text)], [], configs);

  it.each([
    ['x.test.js → x.tests.js', 'test/x.test.js', 'test/x.tests.js', suite],
    ['test_x.py → x_check.py', 'tests/test_x.py', 'tests/x_check.py', lines('def test_adds():', '    assert add(1, 2) == 3')],
    ['x_test.go → x_tst.go', 'x_test.go', 'x_tst.go', lines('package cart', 'func TestAdds(t *testing.T) {', '\tif add(1, 2) != 3 { t.Fatal() }', '}')],
    ['a spec renamed out of RSpec', 'spec/cart_spec.rb', 'spec/cart_specs.rb', lines("describe 'cart' do", "  it 'adds' do", '  end', 'end')],
    ['a JUnit test renamed out of Surefire', 'src/test/java/CartTest.java', 'src/test/java/CartCheck.java', lines('class CartTest {', '  @Test', '  void adds() {}', '}')],
  ])('a rename %s is a hit, not a move', (_, from, to, text) => {
    const found = renamed(from, to, text);
    expect(found.map((h) => h.check)).toEqual(['test_uncollected']);
    expect(found[0]).toMatchObject({ path: to, line: null, evidence: `renamed test file ${from} to ${to}`, detail: { from } });
  });

  it('a renamed file that was also edited still counts, by its test cases', () => {
    const found = runLayer0([change('test/x.test.ts', suite, null), change('test/x.check.ts', null, suite.replace('toBe(3)', 'toBe(4)'))]);
    expect(found.filter((h) => h.check === 'test_uncollected')).toHaveLength(1);
  });

  it.each([
    ['to another name the runner collects', 'test/x.test.js', 'test/x.spec.js'],
    ['to another folder', 'test/x.test.ts', 'test/unit/x.test.ts'],
    ['a Python test to another collected name', 'tests/test_x.py', 'tests/x_test.py'],
    ['a file no runner collected before (a helper)', 'test/helpers.js', 'test/support.js'],
  ])('a rename %s is a move', (_, from, to) => {
    expect(renamed(from, to).filter((h) => h.check === 'test_uncollected' || h.check === 'test_removed')).toEqual([]);
  });

  it('a new file the runner does not collect does not make up for tests removed elsewhere', () => {
    const two = `${suite}${lines("it('subtracts', () => {", '  expect(sub(3, 2)).toBe(1);', '});')}`;
    const found = runLayer0([change('test/math.test.ts', two, suite), change('test/sub.tests.ts', null, lines("it('subtracts', () => {", '  expect(sub(3, 2)).toBe(1);', '});'))]);
    expect(found.map((h) => h.check)).toContain('test_removed');
  });

  describe('against the pattern the project declares', () => {
    const vitest = (include: string): Map<string, string> => new Map([['vitest.config.ts', `export default defineConfig({ test: { include: [${include}] } });\n`]]);
    it('vitest include: a rename out of it is a hit, though the default pattern would collect the new name', () => {
      const configs = vitest("'src/**/*.spec.ts'");
      expect(renamed('src/cart.spec.ts', 'src/cart.test.ts', suite, configs).map((h) => h.check)).toEqual(['test_uncollected']);
      expect(renamed('src/cart.spec.ts', 'src/cart.test.ts', suite).map((h) => h.check)).toEqual([]);
    });

    it('vitest include: a rename the declared pattern still collects is a move, though the default would not', () => {
      expect(renamed('src/cart.check.ts', 'src/cart2.check.ts', suite, vitest("'src/**/*.check.ts'"))).toEqual([]);
    });

    it('jest testMatch in package.json, and a config changed in the same fix', () => {
      const pkg = (testMatch: string): string => `{\n  "devDependencies": { "jest": "30.0.0" },\n  "jest": { "testMatch": [${testMatch}] }\n}\n`;
      expect(renamed('test/a.check.js', 'test/a.test.js', suite, new Map([['package.json', pkg('"**/*.check.js"')]])).map((h) => h.check)).toEqual(['test_uncollected']);
      const withConfig = runLayer0([change('test/a.check.js', suite, null), change('test/a.test.js', null, suite), change('package.json', pkg('"**/*.check.js"'), pkg('"**/*.check.js"').replace('}\n}', '},\n  "private": true\n}'))]);
      expect(withConfig.map((h) => h.check)).toEqual(['test_uncollected']);
    });

    it('pytest python_files', () => {
      const configs = new Map([['pytest.ini', '[pytest]\npython_files = check_*.py\n']]);
      const py = lines('def test_adds():', '    assert add(1, 2) == 3');
      expect(renamed('tests/check_x.py', 'tests/test_x.py', py, configs).map((h) => h.check)).toEqual(['test_uncollected']);
      expect(renamed('tests/test_x.py', 'tests/check_x.py', py, configs)).toEqual([]);
    });
  });

  it('layer0Round passes the configs the shell read', () => {
    const report = layer0Round({
      iteration: 1,
      from: null,
      to: null,
      changes: [change('src/cart.spec.ts', suite, null), change('src/cart.test.ts', null, suite)],
      recheck: [],
      findings: [],
      disabled: [],
      runnerConfigs: { 'vitest.config.ts': "export default { test: { include: ['src/**/*.spec.ts'] } };\n" },
    });
    expect(report.findings).toEqual([expect.objectContaining({ category: 'test_uncollected', severity: 'critical', file: 'src/cart.test.ts' })]);
  });
});

describe('helpers', () => {
  it.each([
    ['**/*.{test,spec}.?(c|m)[jt]s?(x)', ['a/b.test.ts', 'b.spec.mjs', 'x/y/z.test.cjsx', 'c.test.js'], ['a/b.tests.ts', 'b.test.py', 'btest.ts']],
    ['**/?(*.)+(spec|test).?([mc])[jt]s?(x)', ['a/b.test.ts', 'spec.js', 'a/x.spec.jsx'], ['a/b.tests.js', 'a/b.check.ts']],
    ['<rootDir>/src/**/__tests__/*.js', ['src/a/__tests__/x.js', 'src/__tests__/x.js'], ['lib/__tests__/x.js']],
    ['test_*.py', ['test_a.py'], ['a_test.py', 'tests.py']],
    ['!(*.d).ts', ['a.ts'], ['a.d.ts']],
  ])('globToRegExp(%j)', (glob, yes, no) => {
    const re = globToRegExp(glob);
    for (const p of yes) expect(re.test(p), p).toBe(true);
    for (const p of no) expect(re.test(p), p).toBe(false);
  });

  it('valuesOf reads a JS list, a JSON list, a TOML list, an INI value and a YAML block list', () => {
    expect(valuesOf("include: ['a', \"b\"],", 'include').map((v) => v.values)).toEqual([['a', 'b']]);
    expect(valuesOf('"testMatch": ["**/*.t.js"]', 'testMatch').map((v) => v.values)).toEqual([['**/*.t.js']]);
    expect(valuesOf('python_files = ["a_*.py", "b_*.py"]', 'python_files').map((v) => v.values)).toEqual([['a_*.py', 'b_*.py']]);
    expect(valuesOf('python_files = a_*.py b_*.py  # both', 'python_files').map((v) => v.values)).toEqual([['a_*.py', 'b_*.py']]);
    expect(valuesOf('linters:\n  disable:\n    - lll # long lines\n    - "errcheck"\n  enable: []\n', 'disable').map((v) => v.values)).toEqual([['lll', 'errcheck']]);
    expect(valuesOf('testRegex: /\\.check\\.js$/,', 'testRegex').map((v) => v.values)).toEqual([['\\.check\\.js$']]);
    expect(valuesOf('a == b', 'a')).toEqual([]);
  });

  it('collects: the runners the project uses, else the defaults; null for a kind no runner is known for', () => {
    const mocha = collects(new Map([['.mocharc.json', '{ "spec": ["test/**/*.spec.js"] }']]));
    expect([mocha('test/a/x.spec.js'), mocha('test/x.test.js')]).toEqual([true, false]);
    const node = collects(new Map([['package.json', '{ "scripts": { "test": "node --test" } }']]));
    expect([node('test/helpers/x.js'), node('src/x.test.mjs'), node('src/x.spec.js')]).toEqual([true, true, false]);
    const none = collects(new Map());
    expect([none('a/x.test.ts'), none('a/__tests__/x.js'), none('a/x.ts'), none('src/lib.rs'), none('a.c')]).toEqual([true, true, false, null, null]);
  });
});

// ── Properties ────────────────────────────────────────────────────────────────

/** Whole lines of code in every ecosystem's style that game nothing, some of them near misses. */
const CLEAN = [
  'const total = items.reduce((sum, i) => sum + i.price, 0);', 'const msg = "skip this step";', 'skipIfEmpty(list);', 'stream.skip(3);', 'model.fit(x, y)',
  "it('adds', () => {", '  expect(add(1, 2)).toBe(3);', '});', "describe('cart', () => {", "test.runIf(isLinux)('x', () => {", "test('x', { timeout: 5 }, () => {",
  'def test_adds():', '    assert add(1, 2) == 3', 'def skip_empty(rows):', '    return [r for r in rows if r]  # keep the non-empty ones', 'import os',
  'func TestAdds(t *testing.T) {', '\tif t.Skipped() {', '\tt.Run("x", func(t *testing.T) {})', '}', '#[test]', 'fn adds() { assert_eq!(add(1, 2), 3); }', '#[cfg(test)]', 'let allowed = policy.allow(user);',
  '@Test', 'void adds() { assertEquals(3, add(1, 2)); }', '@JsonIgnore', "  it 'adds' do", '    expect(add(1, 2)).to eq(3)', '  end', '    skip_list = rows.reject(&:empty?)',
  '// a comment about the cart', '# a comment about the cart', '/* block */', '', '    ', 'x = {"skip": 10}',
];
const PATHS = ['test/cart.test.ts', 'src/cart.ts', 'tests/test_cart.py', 'app/cart.py', 'cart_test.go', 'src/lib.rs', 'src/test/java/CartTest.java', 'spec/cart_spec.rb', 'lib/cart.rb', 'src/cart.c', 'lib/cart.lua', 'tsconfig.json', 'package.json', 'pytest.ini', '.eslintrc.json'];
const code = fc.array(fc.constantFrom(...CLEAN), { maxLength: 30 });
const join = (ls: readonly string[]): string => (ls.length ? `${ls.join('\n')}\n` : '');

describe('properties', () => {
  it('arbitrary edits of clean code never hit a skip, a suppression or a weakened config', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...PATHS),
        code,
        fc.array(fc.tuple(fc.nat(), fc.nat(4), code), { minLength: 1, maxLength: 4 }),
        (path, before, edits) => {
          const after = edits.reduce((ls, [at, cut, put]) => {
            const i = at % (ls.length + 1);
            return [...ls.slice(0, i), ...put, ...ls.slice(i + cut)];
          }, before);
          const found = runLayer0([change(path, join(before), join(after))]).filter((h) => ['test_skipped', 'suppression_added', 'config_weakened', 'test_uncollected'].includes(h.check));
          expect(found).toEqual([]);
        },
      ),
      { numRuns: 1500 },
    );
  });

  const GAMING = ECOSYSTEMS.flatMap((e) => (['skips', 'suppressions'] as const).flatMap((kind) => e[kind].map((s) => ({ example: s.example, ext: e.extensions[0]!, check: kind === 'skips' ? ('test_skipped' as const) : ('suppression_added' as const) }))));
  const ANY_LINE = fc.string({ maxLength: 40 }).map((s) => s.replace(/[\r\n\u2028\u2029]/g, ' '));

  it('a gaming line from the table inserted into arbitrary surrounding code always hits, at that line', () => {
    fc.assert(
      fc.property(fc.constantFrom(...GAMING), fc.array(fc.oneof(fc.constantFrom(...CLEAN), ANY_LINE), { maxLength: 30 }), fc.nat(), (g, around, at) => {
        fc.pre(!around.some((l) => l.trim() === g.example.trim()));
        const i = at % (around.length + 1);
        const after = [...around.slice(0, i), g.example, ...around.slice(i)];
        const found = runLayer0([change(testPath(g.ext), join(around), join(after))]).filter((h) => h.check === g.check);
        expect(found.map((h) => h.line)).toContain(i + 1);
      }),
      { numRuns: 3000 },
    );
  });

  const CONFIG_LINES = CONFIG_RULES.filter((r) => r.example).map((r) => ({ example: r.example!, path: r.files.source.includes('tsconfig') ? 'tsconfig.json' : r.files.source.includes('eslint') ? '.eslintrc.js' : '' }));
  it('a weakening config line inserted into arbitrary config text always hits, at that line', () => {
    const configs = CONFIG_LINES.filter((c) => c.path !== '');
    fc.assert(
      fc.property(fc.constantFrom(...configs), fc.array(fc.oneof(fc.constantFrom('{', '}', '  "target": "es2022",', '  "strict": true,', "  'eqeqeq': 'error',", '  "outDir": "dist"'), ANY_LINE), { maxLength: 20 }), fc.nat(), (c, around, at) => {
        fc.pre(!around.some((l) => l.trim() === c.example.trim()));
        const i = at % (around.length + 1);
        const after = [...around.slice(0, i), c.example, ...around.slice(i)];
        const found = runLayer0([change(c.path, join(around), join(after))]).filter((h) => h.check === 'config_weakened');
        expect(found.map((h) => h.line)).toContain(i + 1);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('test_uncollected in a later round', () => {
  const suite = lines("it('adds', () => {", '  expect(add(1, 2)).toBe(3);', '});');
  const finding = (file: string, evidence: string) => ({
    fingerprint: 'f',
    categories: ['test_uncollected'],
    file,
    evidence,
    reporters: ['layer0'],
    toFixer: true,
  });

  it('renamedFrom reads the path back from the evidence, whatever the paths hold', () => {
    expect(renamedFrom('test/a b to c.tests.js', 'renamed test file test/x to y.test.js to test/a b to c.tests.js')).toBe('test/x to y.test.js');
    expect(renamedFrom('test/a.tests.js', 'renamed test file test/a.test.js to test/other.js')).toBeNull();
    expect(renamedFrom('test/a.tests.js', '// TODO')).toBeNull();
  });

  it('a rename the fixer left in place is found again against the loop start, with the file it came from', () => {
    const report = layer0Round({
      iteration: 2,
      from: null,
      to: null,
      changes: [change('src/cart.ts', 'a\n', 'b\n')],
      recheck: [change('test/x.test.js', suite, null), change('test/x.tests.js', null, suite)],
      findings: [finding('test/x.tests.js', 'renamed test file test/x.test.js to test/x.tests.js') as never],
      disabled: [],
    });
    expect(report.findings.map((f) => [f.category, f.file])).toEqual([['test_uncollected', 'test/x.tests.js']]);
  });
});
