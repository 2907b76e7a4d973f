/** Layer-0: every contract and anti-gaming check, firing, not firing, and silent on what was there before the fix. */
import { describe, expect, it } from 'vitest';
import { runLayer0, type FileChange, type Layer0Check } from '../../src/checks/layer0';
import { jsonErrorIndex } from '../../src/checks/layer0/contract';
import { balance } from '../../src/checks/layer0/delimiters';
import { paragraphHashes, simhash64, similarity, similarity64 } from '../../src/checks/layer0/simhash64';
import { changedRegion, introducedLines, pattern } from '../../src/checks/layer0/text';

const text = (t: string | null): FileChange['before'] => (t === null ? { kind: 'absent' } : { kind: 'text', text: t });
const change = (path: string, before: string | null, after: string | null): FileChange => ({ path, before: text(before), after: text(after) });
/** The hits of one file's change, as [check, line, evidence]. */
const hits = (path: string, before: string | null, after: string | null, only?: Layer0Check) =>
  runLayer0([change(path, before, after)])
    .filter((h) => !only || h.check === only)
    .map((h) => [h.check, h.line, h.evidence]);

const lines = (...ls: string[]): string => `${ls.join('\n')}\n`;
/** A 20+-word paragraph (the text-loop check ignores shorter ones). */
const PARA = 'The cart total adds every line price times its quantity and rounds the sum to whole cents before tax is applied to the order';
const OTHER = 'Refunds go back to the card that paid for the order and take up to five working days to show up on the statement of the customer';

describe('no_placeholder', () => {
  it.each([
    ['a TODO comment', 'src/a.ts', 'export const a = 1;\n', lines('export const a = 1;', '// TODO: handle the empty cart'), [['no_placeholder', 2, '// TODO: handle the empty cart']]],
    ['FIXME, XXX and TBD', 'src/a.py', 'x = 1\n', lines('x = 1', 'y = 2  # FIXME', 'z = 3  # XXX', 'w = 4  # TBD'), [['no_placeholder', 2, 'y = 2  # FIXME'], ['no_placeholder', 3, 'z = 3  # XXX'], ['no_placeholder', 4, 'w = 4  # TBD']]],
    ['lorem ipsum in docs', 'README.md', '# Shop\n', lines('# Shop', '', 'Lorem ipsum dolor sit amet.'), [['no_placeholder', 3, 'Lorem ipsum dolor sit amet.']]],
    ['"implement me"', 'src/b.js', '', lines('function pay() {', '  throw new Error("implement me");', '}'), [['no_placeholder', 2, 'throw new Error("implement me");']]],
    ['a new file with a TODO', 'src/new.ts', null, lines('// TODO later'), [['no_placeholder', 1, '// TODO later']]],
    ['Scala\'s ???', 'src/Pay.scala', '', lines('def pay(): Int = ???'), [['no_placeholder', 1, 'def pay(): Int = ???']]],
    ['??? in a new prose file', 'docs/new.md', null, lines('# Shop', '', 'The price is ???.'), [['no_placeholder', 3, 'The price is ???.']]],
    ['TITLE GOES HERE', 'paper.tex', '', lines('\\title{TITLE GOES HERE}'), [['no_placeholder', 1, '\\title{TITLE GOES HERE}']]],
    ['Author Name in a new file', 'docs/paper.md', null, lines('# Paper', '', 'By Author Name'), [['no_placeholder', 3, 'By Author Name']]],
    ['to be filled', 'README.md', '# Shop\n', lines('# Shop', '', 'Prices: to be filled.'), [['no_placeholder', 3, 'Prices: to be filled.']]],
  ])('fires on %s', (_, path, before, after, expected) => {
    expect(hits(path, before, after, 'no_placeholder')).toEqual(expected);
  });

  it.each([
    ['clean code', 'src/a.ts', '', lines('export const total = 1;')],
    ['words that only contain a marker', 'src/a.ts', '', lines('const TODO_LIST = todos.filter((t) => t.done); // XXXL sizes, TBDX')],
    ['a lower-case "todo"', 'src/a.ts', '', lines('// a todo app: list, add, remove')],
    ['a ?? b and a lower-case title', 'src/a.ts', '', lines('const title = name ?? "author name"; // filled by the form')],
    ['a TODO that was already there', 'src/a.ts', lines('// TODO: handle the empty cart', 'export const a = 1;'), lines('// TODO: handle the empty cart', 'export const a = 2;')],
    ['a TODO that was there and moved', 'src/a.ts', lines('// TODO: x', 'a();', 'b();'), lines('a();', 'b();', '// TODO: x')],
    ['a deleted file', 'src/a.ts', lines('// TODO'), null],
  ])('does not fire on %s', (_, path, before, after) => {
    expect(hits(path, before, after, 'no_placeholder')).toEqual([]);
  });

  it('fires on a second copy of a TODO line that was there once', () => {
    expect(hits('src/a.ts', lines('// TODO: x', 'a();'), lines('// TODO: x', 'a();', '// TODO: x'), 'no_placeholder')).toEqual([['no_placeholder', 3, '// TODO: x']]);
  });
});

describe('balanced_delimiters', () => {
  it.each([
    ['a missing closing brace', 'src/a.ts', lines('function f() {', '  return 1;', '}'), lines('function f() {', '  return 1;'), 'unclosed'],
    ['a stray closing paren', 'src/a.js', lines('call(a);'), lines('call(a));'), 'unexpected'],
    ['a mismatched bracket', 'src/a.go', lines('x := []int{1, 2}'), lines('x := []int{1, 2]'), 'unclosed'],
    ['Python', 'app.py', lines('def f(x):', '    return g(x)'), lines('def f(x):', '    return g(x'), 'unclosed'],
    ['a new file', 'src/new.rs', null, lines('fn main() {', '    let v = vec![1, 2;', '}'), 'unclosed'],
  ])('fires on %s', (_, path, before, after, kind) => {
    const found = runLayer0([change(path, before, after)]).filter((h) => h.check === 'balanced_delimiters');
    expect(found).toHaveLength(1);
    expect(found[0]!.detail).toMatchObject({ kind, before: 0 });
  });

  it.each([
    ['brackets inside strings', 'src/a.ts', lines('const s = "(((" + \'[\' + `{`;')],
    ['brackets inside comments', 'src/a.ts', lines('// (((', '/* [[[ */', 'f();')],
    ['a template literal with ${}', 'src/a.ts', lines('const s = `total: ${sum({ a: 1 })} {`;')],
    ['a regex literal', 'src/a.js', lines('const re = /[(\\[{]/g;', 'if (x) return /\\)/.test(s);')],
    ['division, not a regex', 'src/a.js', lines('const x = (a) / (b) / 2;')],
    ['a char literal and a lifetime', 'src/a.rs', lines("fn f<'a>(s: &'a str) -> char { '{' }")],
    ['a Python triple-quoted string and a comment', 'a.py', lines('s = """ ( [ {', '"""', 'x = 1  # )')],
    ['a Go raw string', 'a.go', lines('var s = `(((`')],
    ['a file unbalanced before the fix and no worse now', 'src/a.ts', lines('function f() {', 'a();'), lines('function f() {', 'b();')],
    ['a file that is not code', 'notes.txt', '', lines('(((')],
  ])('does not fire on %s', (_, path, ...sides) => {
    const [before, after] = sides.length === 1 ? ['', sides[0]!] : sides;
    expect(hits(path, before!, after!, 'balanced_delimiters')).toEqual([]);
  });

  it('fires when an already unbalanced file gets worse', () => {
    expect(hits('src/a.ts', lines('function f() {', 'a();'), lines('function f() {', 'a(;'), 'balanced_delimiters')).toHaveLength(1);
  });

  it('names the first problem', () => {
    expect(balance('a(b]\n', 'js')).toEqual({ problems: 2, first: { index: 1, kind: 'unclosed', char: '(' } });
    expect(balance('x)\n', 'c')).toEqual({ problems: 1, first: { index: 1, kind: 'unexpected', char: ')' } });
  });
});

describe('json_valid', () => {
  it.each([
    ['a trailing comma', 'package.json', '{"a": 1}\n', '{"a": 1,}\n'],
    ['a new file that is not JSON', 'data/new.json', null, '{"a": }\n'],
    ['an emptied file', 'config.json', '{}\n', ''],
  ])('fires on %s', (_, path, before, after) => {
    const found = runLayer0([change(path, before, after)]).filter((h) => h.check === 'json_valid');
    expect(found).toHaveLength(1);
    expect(found[0]!.detail.error).toMatch(/JSON|Unexpected/);
  });

  it.each([
    ['valid JSON', 'package.json', '{"a": 1}\n', '{"a": 2}\n'],
    ['JSON with a byte-order mark', 'package.json', '{"a": 1}\n', '\uFEFF{"a": 2}\n'],
    ['a JSONC file that never parsed', 'tsconfig.json', '{ // comment\n "a": 1 }\n', '{ // comment\n "a": 2 }\n'],
    ['a .jsonl file', 'log.jsonl', '', '{"a":1}\n{"a":2}\n'],
  ])('does not fire on %s', (_, path, before, after) => {
    expect(hits(path, before, after, 'json_valid')).toEqual([]);
  });

  it('gives the line of the error', () => {
    const [hit] = runLayer0([change('a.json', '{}', '{\n  "a": 1,\n  "b": ]\n}\n')]);
    expect(hit).toMatchObject({ check: 'json_valid', line: 3, evidence: '"b": ]' });
  });

  it.each([
    ['{"a": 1,}', 8],
    ['[1, 2,]', 6],
    ['{"a" 1}', 5],
    ['{"a": tru}', 6],
    ['"unterminated', 13],
    ['{"a": "\\x"}', 7],
    ['', 0],
    ['{} x', 3],
  ])('jsonErrorIndex(%j) is %i; valid JSON is -1', (bad, at) => {
    expect(jsonErrorIndex(bad)).toBe(at);
    expect(() => JSON.parse(bad)).toThrow();
    for (const good of ['{"a": [1, -2.5e3, true, null, {"b": "\\u00e9\\n"}]}', '[]', '{}', ' 0 ']) expect(jsonErrorIndex(good)).toBe(-1);
  });
});

describe('no_duplicate_headings', () => {
  it.each([
    ['a section written twice', lines('# Guide', '', '## Install', 'npm i'), lines('# Guide', '', '## Install', 'npm i', '', '## Install', 'npm i'), [['no_duplicate_headings', 6, '## Install']]],
    ['a second title', lines('# Guide'), lines('# Guide', '', 'text', '', '# Guide'), [['no_duplicate_headings', 5, '# Guide']]],
    ['headings that differ only in case and spaces', lines('## Usage'), lines('## Usage', '', '##   usage  '), [['no_duplicate_headings', 3, '##   usage']]],
  ])('fires on %s', (_, before, after, expected) => {
    expect(hits('docs/guide.md', before, after, 'no_duplicate_headings')).toEqual(expected);
  });

  it.each([
    ['the same heading under different parents (a changelog)', lines('# Changelog', '## 1.1', '### Added'), lines('# Changelog', '## 1.2', '### Added', '## 1.1', '### Added')],
    ['a heading inside a code fence', lines('# Guide'), lines('# Guide', '```md', '# Guide', '```')],
    ['a duplicate that was already there', lines('## A', '## A'), lines('## A', 'text', '## A')],
    ['a file that is not Markdown', '', lines('# a', '# a')],
  ])('does not fire on %s', (_, before, after) => {
    const path = _.includes('not Markdown') ? 'script.sh' : 'docs/guide.md';
    expect(hits(path, before, after, 'no_duplicate_headings')).toEqual([]);
  });

  it.each([
    ['a LaTeX section written twice', lines('\\section{Method}', 'text'), lines('\\section{Method}', 'text', '\\section{Method}', 'text'), [['no_duplicate_headings', 3, '\\section{Method}']]],
    ['a starred subsection under one section', lines('\\section{A}', '\\subsection{Setup}'), lines('\\section{A}', '\\subsection{Setup}', '\\subsection*{ setup }'), [['no_duplicate_headings', 3, '\\subsection*{ setup }']]],
    ['a new LaTeX file', null, lines('\\section{Intro}', '\\section[short]{Intro}'), [['no_duplicate_headings', 2, '\\section[short]{Intro}']]],
  ])('fires on %s', (_, before, after, expected) => {
    expect(hits('paper/main.tex', before, after, 'no_duplicate_headings')).toEqual(expected);
  });

  it.each([
    ['one subsection title under two sections', '', lines('\\section{A}', '\\subsection{Setup}', '\\section{B}', '\\subsection{Setup}')],
    ['a LaTeX duplicate that was already there', lines('\\section{A}', '\\section{A}'), lines('\\section{A}', 'more', '\\section{A}')],
    ['titles that differ inside braces', '', lines('\\section{Results {\\em a}}', '\\section{Results {\\em b}}')],
  ])('does not fire on %s', (_, before, after) => {
    expect(hits('paper/main.tex', before, after, 'no_duplicate_headings')).toEqual([]);
  });
});

describe('no_text_loop', () => {
  it.each([
    ['a paragraph written twice', `${PARA}.\n\n${OTHER}.\n`, `${PARA}.\n\n${OTHER}.\n\n${PARA}.\n`, 5],
    ['a near copy (one word added)', `${PARA}.\n`, `${PARA}.\n\n${PARA} as well.\n`, 3],
    ['a new file that repeats itself', null, `${OTHER}.\n\n${PARA}.\n\n${PARA}.\n`, 5],
  ])('fires on %s', (_, before, after, line) => {
    const found = runLayer0([change('docs/guide.md', before, after)]).filter((h) => h.check === 'no_text_loop');
    expect(found.map((h) => h.line)).toEqual([line]);
    expect(found[0]!.detail.percent).toBeGreaterThanOrEqual(85);
  });

  it.each([
    ['different paragraphs', `${PARA}.\n`, `${PARA}.\n\n${OTHER}.\n`],
    ['short repeated lines (under 20 words)', 'Yes.\n', 'Yes.\n\nYes.\n\nYes.\n'],
    ['a repetition that was already there', `${PARA}.\n\n${PARA}.\n`, `${PARA}.\n\n${PARA}.\n\nThe end.\n`],
    ['a code file', `x = 1\n`, `${PARA}\n\n${PARA}\n`],
  ])('does not fire on %s', (_, before, after) => {
    const path = _ === 'a code file' ? 'src/a.py' : 'docs/guide.md';
    expect(hits(path, before, after, 'no_text_loop')).toEqual([]);
  });
});

describe('file_size_delta', () => {
  const kb = (n: number): string => `${'x'.repeat(1023)}\n`.repeat(n);
  it('fires when a file grows more than 2.5× by more than 16 KB', () => {
    expect(hits('log/out.txt', kb(10), kb(26), 'file_size_delta')).toEqual([['file_size_delta', null, 'log/out.txt grew more than 2.5×']]);
  });

  it.each([
    ['growth of 2.5× or less', kb(10), kb(25)],
    ['a small file that triples (under 16 KB more)', kb(2), kb(7)],
    ['a new file', null, kb(100)],
    ['a file that shrank', kb(30), kb(1)],
  ])('does not fire on %s', (_, before, after) => {
    expect(hits('log/out.txt', before, after, 'file_size_delta')).toEqual([]);
  });

  it('measures files not read as text', () => {
    const found = runLayer0([{ path: 'img.png', before: { kind: 'opaque', bytes: 20_000, reason: 'binary' }, after: { kind: 'opaque', bytes: 90_000, reason: 'binary' } }]);
    expect(found.map((h) => h.check)).toEqual(['file_size_delta']);
  });
});

describe('test_skipped', () => {
  const test = lines("import { it } from 'vitest';", "it('adds', () => {", '  expect(add(1, 2)).toBe(3);', '});');
  it.each([
    ['it.skip', test, test.replace("it('adds'", "it.skip('adds'"), 'it.skip'],
    ['describe.skip', lines("describe('cart', () => {});"), lines("describe.skip('cart', () => {});"), 'describe.skip'],
    ['test.todo', '', lines("test.todo('refunds');"), 'test.todo'],
    ['it.only (the rest is skipped)', test, test.replace("it('adds'", "it.only('adds'"), 'it.only'],
    ['xit', test, test.replace("it('adds'", "xit('adds'"), 'xit('],
    ['@pytest.mark.skip', lines('def test_a():', '    assert a()'), lines('@pytest.mark.skip(reason="flaky")', 'def test_a():', '    assert a()'), '@pytest.mark.skip'],
    ['t.Skip', lines('func TestA(t *testing.T) {', '\tcheck(t)', '}'), lines('func TestA(t *testing.T) {', '\tt.Skip("later")', '\tcheck(t)', '}'), 't.Skip('],
    ['#[ignore]', lines('#[test]', 'fn adds() {}'), lines('#[test]', '#[ignore]', 'fn adds() {}'), '#[ignore'],
  ])('fires on %s', (_, before, after, marker) => {
    const path = marker === '@pytest.mark.skip' ? 'tests/test_a.py' : marker === 't.Skip(' ? 'a_test.go' : marker === '#[ignore' ? 'src/lib.rs' : 'test/a.test.ts';
    const found = runLayer0([change(path, before, after)]).filter((h) => h.check === 'test_skipped');
    expect(found.map((h) => h.detail.marker)).toEqual([marker]);
  });

  it.each([
    ['a skip that was already there', lines("it.skip('adds', () => {});", 'x();'), lines("it.skip('adds', () => {});", 'y();')],
    ['a method named skip on another object', '', lines('stream.skip(3);', 'const xity = 1;')],
    ['un-skipping a test', lines("it.skip('adds', () => {});"), lines("it('adds', () => {});")],
  ])('does not fire on %s', (_, before, after) => {
    expect(hits('test/a.test.ts', before, after, 'test_skipped')).toEqual([]);
  });
});

describe('test_removed', () => {
  const two = lines("it('adds', () => {", '  expect(add(1, 2)).toBe(3);', '});', "it('subtracts', () => {", '  expect(sub(3, 2)).toBe(1);', '});');
  const one = lines("it('adds', () => {", '  expect(add(1, 2)).toBe(3);', '});');
  it('fires when a test case is removed', () => {
    expect(hits('test/math.test.ts', two, one, 'test_removed')).toEqual([['test_removed', null, "it('subtracts', () => {"]]);
  });

  it('fires when a test file is deleted, once for the file', () => {
    const found = runLayer0([change('test/math.test.ts', two, null)]).filter((h) => h.check === 'test_removed');
    expect(found).toEqual([expect.objectContaining({ evidence: 'deleted test file test/math.test.ts', detail: { before: 2, after: 0, deleted: true } })]);
  });

  it('fires for Python and Go tests', () => {
    expect(hits('tests/test_a.py', lines('def test_a():', '    assert 1', 'def test_b():', '    assert 2'), lines('def test_a():', '    assert 1'), 'test_removed')).toEqual([['test_removed', null, 'def test_b():']]);
    expect(hits('a_test.go', lines('func TestA(t *testing.T) {}', 'func TestB(t *testing.T) {}'), lines('func TestA(t *testing.T) {}'), 'test_removed')).toEqual([['test_removed', null, 'func TestB(t *testing.T) {}']]);
  });

  it.each([
    ['a test renamed', two, two.replace("it('subtracts'", "it('subtracts two numbers'")],
    ['tests added', one, two],
    ['a removed test that is not in a test file', two, one, 'src/math.ts'],
  ])('does not fire on %s', (_, before, after, path = 'test/math.test.ts') => {
    expect(hits(path, before, after, 'test_removed')).toEqual([]);
  });

  it('does not fire when a test moves to another file in the same fix', () => {
    const moved = [change('test/math.test.ts', two, one), change('test/sub.test.ts', null, lines("it('subtracts', () => {", '  expect(sub(3, 2)).toBe(1);', '});'))];
    expect(runLayer0(moved).filter((h) => h.check === 'test_removed')).toEqual([]);
  });
});

describe('assertion_removed', () => {
  const before = lines("it('adds', () => {", '  expect(add(1, 2)).toBe(3);', '  expect(add(0, 0)).toBe(0);', '});');
  it.each([
    ['an expect removed', 'test/a.test.ts', before, lines("it('adds', () => {", '  expect(add(1, 2)).toBe(3);', '});'), '  expect(add(0, 0)).toBe(0);'],
    ['a Python assert removed', 'tests/test_a.py', lines('def test_a():', '    assert f(1) == 2', '    assert f(2) == 3'), lines('def test_a():', '    assert f(1) == 2'), 'assert f(2) == 3'],
    ['a node:assert call removed', 'test/a.test.js', lines("test('x', () => {", '  assert.equal(f(), 1);', '  assert.ok(g());', '});'), lines("test('x', () => {", '  assert.equal(f(), 1);', '});'), 'assert.ok(g());'],
  ])('fires on %s', (_, path, b, a, evidence) => {
    expect(hits(path, b, a, 'assertion_removed')).toEqual([['assertion_removed', null, evidence.trim()]]);
  });

  it.each([
    ['an assertion changed, not removed', before, before.replace('toBe(3)', 'toBe(4)')],
    ['an assertion added', before, before.replace('});', '  expect(add(2, 2)).toBe(4);\n});')],
    ['an assertion removed from a source file', before, lines("it('adds', () => {", '});'), 'src/a.ts'],
  ])('does not fire on %s', (_, b, a, path = 'test/a.test.ts') => {
    expect(hits(path, b, a, 'assertion_removed')).toEqual([]);
  });
});

describe('suppression_added', () => {
  it.each([
    ['eslint-disable', 'src/a.ts', '// eslint-disable-next-line no-explicit-any'],
    ['@ts-ignore', 'src/a.ts', '// @ts-ignore'],
    ['@ts-expect-error', 'src/a.tsx', '// @ts-expect-error wrong type'],
    ['# noqa', 'app.py', 'import os  # noqa: F401'],
    ['# type: ignore', 'app.py', 'x: int = f()  # type: ignore'],
    ['//nolint', 'main.go', 'x := f() //nolint:errcheck'],
  ])('fires on %s', (_, path, line) => {
    expect(hits(path, 'x = 1\n', lines('x = 1', line), 'suppression_added')).toEqual([['suppression_added', 2, line]]);
  });

  it.each([
    ['a suppression that was already there', 'src/a.ts', lines('// @ts-ignore', 'a();'), lines('// @ts-ignore', 'b();')],
    ['a suppression removed', 'src/a.ts', lines('// @ts-ignore', 'a();'), lines('a();')],
    ['a Markdown file that mentions one', 'docs/lint.md', '', lines('Never add `@ts-ignore`.')],
  ])('does not fire on %s', (_, path, before, after) => {
    expect(hits(path, before, after, 'suppression_added')).toEqual([]);
  });
});

describe('empty_catch', () => {
  it.each([
    ['catch {}', 'src/a.ts', lines('try { f(); } catch (err) { report(err); }'), lines('try { f(); } catch (err) {}'), 1],
    ['a catch with only a comment', 'src/a.js', lines('try {', '  f();', '} finally {}'), lines('try {', '  f();', '} catch {', '  // ignore', '}'), 3],
    ['.catch(() => {})', 'src/a.ts', lines('p.then(ok);'), lines('p.then(ok).catch(() => {});'), 1],
    ['except: pass', 'app.py', lines('x = 1'), lines('try:', '    f()', 'except Exception:', '    pass'), 3],
  ])('fires on %s', (_, path, before, after, line) => {
    const found = runLayer0([change(path, before, after)]).filter((h) => h.check === 'empty_catch');
    expect(found.map((h) => h.line)).toEqual([line]);
  });

  it.each([
    ['a catch that handles the error', 'src/a.ts', '', lines('try { f(); } catch (err) { log(err); throw err; }')],
    ['an empty catch that was already there', 'src/a.ts', lines('try { f(); } catch {}', 'a();'), lines('try { f(); } catch {}', 'b();')],
    ['except that re-raises', 'app.py', '', lines('try:', '    f()', 'except OSError:', '    raise')],
  ])('does not fire on %s', (_, path, before, after) => {
    expect(hits(path, before, after, 'empty_catch')).toEqual([]);
  });
});

describe('the runner', () => {
  it('reports the TODO and the it.skip a fixer added, and nothing that was there', () => {
    const test = lines("import { it } from 'vitest';", '// TODO: old note', "it('adds', () => {", '  expect(add(1, 2)).toBe(3);', '});');
    const after = test.replace("it('adds'", "it.skip('adds'").replace('});', '  // TODO: check negative numbers\n});');
    expect(hits('test/add.test.ts', test, after)).toEqual([
      ['no_placeholder', 5, '// TODO: check negative numbers'],
      ['test_skipped', 3, "it.skip('adds', () => {"],
    ]);
  });

  it('leaves out the checks a project disabled', () => {
    expect(runLayer0([change('src/a.ts', '', '// TODO\n')], ['no_placeholder'])).toEqual([]);
  });

  it('does not read files that are not text', () => {
    expect(runLayer0([{ path: 'a.bin', before: { kind: 'absent' }, after: { kind: 'opaque', bytes: 10, reason: 'binary' } }])).toEqual([]);
  });

  it('reports a few hundred thousand hits of one file (no spread of them all into one call)', () => {
    const hits = runLayer0([{ path: 'docs/todo.md', before: { kind: 'absent' }, after: { kind: 'text', text: 'TODO\n'.repeat(300_000) } }]);
    expect(hits).toHaveLength(300_000);
    expect(hits[299_999]).toMatchObject({ check: 'no_placeholder', line: 300_000 });
  });
});

describe('helpers', () => {
  it('changedRegion: whole lines around the difference, the same stretch on both sides', () => {
    const before = 'a\nb\nc\nd\n';
    const after = 'a\nb\nX\nc\nd\n';
    const r = changedRegion(before, after);
    expect(after.slice(r.start, r.afterEnd)).toBe('X\nc');
    expect(before.slice(r.start, r.beforeEnd)).toBe('c');
  });

  it('introducedLines: counted by line text, so moved lines are not new', () => {
    expect(introducedLines(pattern(/TODO/g, null), 'a // TODO\nb\n', 'b\na // TODO\n')).toEqual([]);
    expect(introducedLines(pattern(/TODO/g, null), 'a\n', 'a\n// TODO\n')).toEqual([{ index: 5, line: 2, evidence: '// TODO' }]);
  });

  it('simhash64 reads words, not bytes: case, punctuation and blank lines change nothing, one word a little, other words much', () => {
    const a = `${PARA} again`;
    const b = `${PARA.replace('quantity', 'amount')} again`;
    expect(similarity64(simhash64(a), simhash64(b))).toBeGreaterThan(0.75);
    expect(similarity64(simhash64(a), simhash64(b))).toBeLessThan(1);
    expect(similarity64(simhash64(a), simhash64(a.toUpperCase()))).toBe(1);
    expect(similarity64(simhash64(PARA), simhash64(OTHER))).toBeLessThan(0.85);
    // The fixpoint rule's measure is the same hash of each whole text.
    expect(similarity(a, `${a.replaceAll(' ', ', ').replace('cart', 'cart\n\n')}.`)).toBe(1);
    expect(similarity(a, b)).toBe(similarity64(simhash64(a), simhash64(b)));
  });

  it('paragraphHashes: paragraphs between blank lines, with their word counts', () => {
    const t = '  one two three\n  four\n\n \t \nfive six\n';
    expect(paragraphHashes(t).map((p) => [t.slice(p.index, p.end), p.words])).toEqual([
      ['one two three\n  four', 4],
      ['five six', 2],
    ]);
  });
});
