/**
 * Layer-0's fast paths find exactly what the straightforward checks find. The reference is Layer-0 as it
 * was before them (test/unit/layer0-reference: every check scans both texts whole, with plain regex
 * searches, two full lexes, JSON.parse, one counter per simhash bit); the fast paths share the changed
 * region, search only up to its end, lex from the state where it starts, and so on. Random files of each
 * kind, edited at random, must give the same hits, in the same order, with the same details.
 */
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { runLayer0, type FileChange } from '../../src/checks/layer0';
import { ECOSYSTEMS } from '../../src/checks/layer0/gaming-spellings';
import { balance, worseBalance } from '../../src/checks/layer0/delimiters';
import { simpleHeading } from '../../src/checks/layer0/headings';
import { breaksJson, parsesAsJson } from '../../src/checks/layer0/json';
import { paragraphHashes, popcount, popcount64, proseScan } from '../../src/checks/layer0/simhash64';
import { changedRegion, clipLine, countMatches, matchLines, pattern, type Lexer } from '../../src/checks/layer0/text';
import { runLayer0 as referenceLayer0 } from './layer0-reference';
import { paced } from '../helpers/pace';
import { balance as referenceBalance } from './layer0-reference/delimiters';
import { paragraphHashes as referenceHashes } from './layer0-reference/simhash64';

// Property runs over files of thousands of paragraphs are CPU-bound: next to busy processes one took
// 10.8 s where it takes 4.8 s at rest. The limit is only there to end a run that hangs.
vi.setConfig({ testTimeout: paced(600_000) });

/** Pieces of text that the checks react to, and filler around them. */
const CODE = [
  '{', '}', '(', ')', '[', ']', '"', "'", '`', '${', '/', '*', '//', '/*', '*/', '#', '\\', '\n', '\n', '\n\n', ' ', '  ', '\t', '\r\n',
  'x', 'a = b / c', 'return /re[/]g/', "'\\n'", '"""', "'''", 'é', '$',
  'catch (e) {}', 'catch (e) {\n  // nothing\n}', '.catch(() => {})', 'try { f() } catch (err) { report(err) }', 'except ValueError:\n    pass', 'except:\n',
  '// TODO: later', 'FIXME', 'XXX', 'TBD', 'lorem ipsum', 'Lorem Ipsum', 'implement me', 'TODO_LIST',
  "it.skip('a', () => {", "it('adds', () => {", 'xit(', 'xit\n(', 'describe.skip(', 'test.todo(', '@pytest.mark.skip', 'pytest.skip (', 't.Skip(', '#[ignore]', 'it.only(',
  'eslint-disable', '// eslint-disable-next-line', '@ts-ignore', '@ts-expect-error', '# noqa', '#\n noqa', '# type: ignore', '//nolint', '// NOSONAR', 'istanbul ignore', 'c8\nignore', '#[allow(dead_code)]', '@SuppressWarnings',
  'expect(total).toBe(1);', 'expect\n(x)', 'assert x', 'assert(x)', 'assert_eq!(a, b)', 'require.NoError(t, err)', 'x.should.equal(1)', 't.Errorf("bad")',
  'def test_adds():', 'async def test_b():', 'func TestAdds(t *testing.T) {', '#[test]', '@Test', 'test(\n',
  // Every spelling of the table, and pieces of them that split across lines or lose a character.
  ...ECOSYSTEMS.flatMap((e) => [...e.skips, ...e.suppressions].map((s) => s.example)),
  'skip', 'pending', '\n  skip ', '  pending(', ', { skip: true }', ', {', 'only: 1', '# NOQA', '#\tnoqa', 'fit', "fit('", '.runIf(false)', '.skipIf', 'x.skipIfEmpty(', '//go:build', '@Ignore', '@Disabled', '=', '==',
];
const PROSE_WORDS = 'the cart total adds every line price times its quantity and rounds the sum to whole cents before tax is applied to the order'.split(' ');
const PROSE = [
  '\n', '\n\n', '\n \t\n', ' ', '\r\n', '# Title', '## Usage', '## Usage ##', '### Notes', '#### Deep', '####### seven', '#nospace', '```', '```js', '~~~', '`',
  '\n# Title\n', '\n# Other\n', '\n## Usage\n', '\n## usage  \n', '\n### Notes\n', '\n```\n', '\n~~~\n', '\n#### Deep\n',
  'TODO', 'TBD.', 'lorem ipsum dolor', 'implement me', 'word', 'Another', '.', ',',
  PROSE_WORDS.join(' '), PROSE_WORDS.slice(0, 22).join(' '), PROSE_WORDS.slice(2).join(' '), [...PROSE_WORDS].reverse().join(' '), PROSE_WORDS.join(' ').replace('quantity', 'amount'),
];
const JSON_PIECES = ['{', '}', '[', ']', '"a"', '"b\\n"', '"\\u00e9"', '"\\x"', ':', ',', ' ', '\n', '\t', '1', '-0.5e3', '01', '1.', 'true', 'false', 'null', 'nul', '"TODO"', '\u0001', '\ufeff', '"'];

const textOf = (pieces: readonly string[], max: number): fc.Arbitrary<string> => fc.array(fc.constantFrom(...pieces), { maxLength: max }).map((ps) => ps.join(''));

/** An edit of a text: pieces inserted, a stretch deleted or replaced, a few times. */
const edited = (text: string, pieces: readonly string[]): fc.Arbitrary<string> =>
  fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.nat(12), textOf(pieces, 4)), { minLength: 1, maxLength: 3 }).map((edits) =>
    edits.reduce((t, [where, cut, insert]) => {
      const at = Math.floor(where * t.length);
      return t.slice(0, at) + insert + t.slice(Math.min(t.length, at + cut));
    }, text),
  );

/** Two texts that share a start and an end, and differ in between (the region may start inside a comment, a string…). */
const around = (pieces: readonly string[], max: number): fc.Arbitrary<[string, string]> =>
  fc.tuple(textOf(pieces, max), textOf(pieces, 4), textOf(pieces, 4), textOf(pieces, max)).map(([start, x, y, end]) => [start + x + end, start + y + end]);

const side = (text: string | null): FileChange['before'] => (text === null ? { kind: 'absent' } : { kind: 'text', text });

/** A file's before and after: edited, new (before null) or deleted (after null). */
const pair = (pieces: readonly string[], max: number): fc.Arbitrary<[string | null, string | null]> =>
  textOf(pieces, max).chain((before) =>
    fc.oneof(
      { weight: 4, arbitrary: edited(before, pieces).map((after): [string | null, string | null] => [before, after]) },
      { weight: 4, arbitrary: around(pieces, max / 2) },
      { weight: 1, arbitrary: fc.constant<[string | null, string | null]>([null, before]) },
      { weight: 1, arbitrary: fc.constant<[string | null, string | null]>([before, null]) },
    ),
  );

const sameHits = (changes: FileChange[]): void => {
  expect(runLayer0(changes)).toEqual(referenceLayer0(changes));
};

/** One file changed at random, from these pieces: the fast paths give the reference hits. */
const agreesOn = (path: string, pieces: readonly string[], max: number, numRuns: number): void =>
  fc.assert(
    fc.property(pair(pieces, max), ([before, after]) => sameHits([{ path, before: side(before), after: side(after) }])),
    { numRuns },
  );

describe('Layer-0 fast paths give the reference hits', () => {
  it.each([
    ['TypeScript', 'src/cart.ts'],
    ['a TypeScript test', 'test/cart.test.ts'],
    ['Python', 'app/test_cart.py'],
    ['Go', 'cart_test.go'],
    ['Rust', 'src/lib.rs'],
    ['Ruby', 'lib/cart.rb'],
    ['shell', 'run.sh'],
    ['an RSpec spec', 'spec/cart_spec.rb'],
    ['a JUnit test', 'src/test/java/CartTest.java'],
    ['C', 'src/cart.c'],
    ['a language the table does not list', 'lib/cart.lua'],
  ])('on %s files', (_, path) => {
    agreesOn(path, CODE, 60, 1500);
  });

  it.each([
    ['Markdown', 'docs/guide.md'],
    ['plain text', 'notes.txt'],
  ])('on %s files', (_, path) => {
    agreesOn(path, PROSE, 50, 1500);
  });

  it('on JSON files', () => {
    agreesOn('data/catalog.json', JSON_PIECES, 40, 1500);
  });

  it('on several test files changed together (tests moved, files new and deleted)', () => {
    const file = pair(CODE, 40);
    fc.assert(
      fc.property(fc.tuple(file, file, file), (files) =>
        sameHits(files.map(([before, after], k) => ({ path: ['test/a.test.ts', 'test/b.test.ts', 'b_test.py'][k]!, before: side(before), after: side(after) }))),
      ),
      { numRuns: 1000 },
    );
  });
});

/** Catch blocks, empty or not, and what may stand around and inside them: strings, comments, templates, blanks of every kind. */
const CATCHES = [
  'catch', 'catch ', '.catch', 'xcatch', 'catchy', ' (e)', '(e)', '(', ')', '(err: unknown)', '(a(b))', '{', '}', '{}', '{ }', ' {', '{\n}', '{\r\n}', '{ report(e); }',
  '// c', '//', '/* c */', '/*', '*/', '\n', '\r\n', ' ', '\t', '\v', '\f', '\u00a0', '\u2028', '\ufeff', '\u0001', 'é', "'", '"', '`', '${', '() => {}', '=>', 'e => null',
  'try { f() } catch (e) {}', '} catch (err) { report(err); }', "'catch (e) {}'", '`catch {}`', '/* catch {} */', '// catch (e) {}', 'except:\n    pass', '.catch(() => {})', '.catch((e) => undefined)',
];

/** Markdown where headings and fences are sparse among long prose (a mark may be absent from a long stretch), with CRLF and non-ASCII text. */
const SPARSE_MD = [...PROSE_WORDS.map((w) => `${w} `), ...PROSE_WORDS.map((w) => `${w} `), '\n', '\n\n', '\r\n', 'é ', 'Ünïcode ', '\n## Usage\n', '\n## usage\n', '\n# Title\n', '\n```\n', '\n~~~\n', '\n### Notes ##\n', '\n## Ü\n'];

describe('no_duplicate_headings: the marks looked for once per text give the reference hits', () => {
  it('on sparse Markdown files', () => {
    agreesOn('docs/guide.md', SPARSE_MD, 150, 1500);
  });
});

/**
 * A new prose file is read once (proseScan): the placeholder lines and heading lines it notes are the
 * only ones the other checks try. Placeholders at and near word boundaries, headings of every shape,
 * fences, repeated paragraphs, CRLF, non-ASCII and astral text, huge lines.
 */
const NEW_PROSE = [
  ...PROSE,
  'TODO', 'xTODO', 'TODOx', 'TODO_', '_TODO', 'TODOs', 'todo', 'ToDo', 'FIXME', 'fixme', 'XXX', 'XXXX', 'xxx', 'TBD', 'TBDs', 'é', 'éTODO', 'TODOé', '😀', '😀TODO', '\u00a0TBD',
  'lorem ipsum', 'Lorem Ipsum', 'LOREM IPSUM', 'lorem  ipsum', 'lorem\nipsum', 'lorem\tipsum', 'dolorem ipsumque', 'Xlorem Ipsumx', 'lorem', ' ipsum', 'orem ipsum', 'm i', 'm ', 'i',
  'implement me', 'Implement me', 'IMPLEMENT me', 'implement Me', 'implement mex', 'reimplement me', 'implement  me', 'implement', ' me', 'implement\nme', 'implement me_',
  '# Title', '# Title #', '# Title ##  ', '#  Title', '# Title\t', '##', '## ', '#', '####### seven', '#nospace', '# TODO', '\n# Title\r\n', '\r\n## Usage\r\n', '\n###### Six\n', '\n# Ünïcode\n', '\n# 😀\n',
  '```', '```md', '~~~', '``', '~~', '`', '\n```\n', '\n~~~\n', '\n````\n', '\n  ```\n', '\n```\n# Not a heading\n```\n',
  'x'.repeat(3000), `${PROSE_WORDS.join(' ')} `.repeat(40), '\n\n\n', '\r\n\r\n', '\n \n', '\u2028',
];

describe('a new prose file: one scan gives the reference hits', () => {
  const newFile = (path: string, text: string): FileChange[] => [{ path, before: { kind: 'absent' }, after: { kind: 'text', text } }];
  it.each([
    ['Markdown', 'docs/guide.md'],
    ['plain text', 'notes.txt'],
  ])('on %s files', (_, path) => {
    fc.assert(
      fc.property(textOf(NEW_PROSE, 80), (text) => sameHits(newFile(path, text))),
      { numRuns: 3000 },
    );
  });

  it('with many repeated paragraphs and headings (the scan of the bands stops at the fifth repeat)', () => {
    const para = fc.constantFrom(PROSE_WORDS.join(' '), PROSE_WORDS.slice(1).join(' '), [...PROSE_WORDS].reverse().join(' '), `${PROSE_WORDS.join(' ')} TODO`, '## Usage', '## usage  ', '# Title', '### Notes ##', '```', 'TBD');
    fc.assert(
      fc.property(fc.array(para, { maxLength: 40 }), fc.constantFrom('\n\n', '\r\n\r\n', '\n \n'), (ps, sep) => sameHits(newFile('docs/guide.md', ps.join(sep)))),
      { numRuns: 1500 },
    );
  });

  it('proseScan: every line with a placeholder is noted, and exactly the lines starting with #, ``` or ~~~', () => {
    const PLACEHOLDER = /\b(?:TODO|FIXME|XXX|TBD)\b|[Ll]orem [Ii]psum|\b[Ii]mplement me\b/g;
    fc.assert(
      fc.property(textOf(NEW_PROSE, 60), (text) => {
        const scan = proseScan(text, 20);
        const lineOf = (i: number): number => text.lastIndexOf('\n', i - 1) + 1;
        const withMatch = [...new Set([...text.matchAll(PLACEHOLDER)].map((m) => lineOf(m.index)))];
        expect(withMatch.filter((l) => !scan.placeholderLines.includes(l))).toEqual([]);
        const starts = [0, ...[...text.matchAll(/\n/g)].map((m) => m.index + 1)];
        expect(scan.markLines).toEqual(starts.filter((l) => /^(?:#|```|~~~)/.test(text.slice(l))));
        expect(scan.paragraphs.toHashed()).toEqual(referenceHashes(text, 20));
      }),
      { numRuns: 3000 },
    );
  });
});

/** Heading lines of every shape a key can be built from: levels skipped, empty titles, case, blanks, trailing #s, control and non-ASCII characters, fences, CRLF. */
const HEADING_LINES = [
  '\n# A', '\n# a', '\n# Zed', '\n# zED', '\n## B', '\n## b ', '\n##  B', '\n## B ##', '\n## B\t#', '\n## B\r', '\n### C', '\n#### D', '\n###### F', '\n####### G', '\n#A',
  '\n#', '\n##', '\n## ', '\n# #', '\n# \u0001', '\n# a\u0001b', '\n## b\u0001c', '\n## c', '\n### x', '\n## \u0000', '\n# Ü', '\n# ü', '\n## İ', '\n## i\u0307', '\n# 😀',
  '\n```', '\n~~~', '\n```js', '\n````', '\r\n# A\r', '\r\n## B\r', ' text', '\n\n', '\ntext',
];

describe('no_duplicate_headings on a new file: keys hashed as they are read give the reference hits', () => {
  it('on heading-dense Markdown', () => {
    fc.assert(
      fc.property(textOf(HEADING_LINES, 40), (text) => sameHits([{ path: 'docs/guide.md', before: { kind: 'absent' }, after: { kind: 'text', text } }])),
      { numRuns: 5000 },
    );
  });

  it.each([
    // The same key through different parents: titles joined by \u0001 read the same.
    ['# a\u0001b\n## c\n### x\n# a\n## b\u0001c\n### x\n', 1],
    // A skipped level and an empty title are both '' among the parents.
    ['# T\n### x\n# T\n##\n### x\n', 2],
    ['# A\n## B\n# a\n## b\n', 2],
    ['# A\n## B\n# C\n## B\n', 0],
  ])('%j: %i finding(s)', (text, count) => {
    const change: FileChange = { path: 'docs/guide.md', before: { kind: 'absent' }, after: { kind: 'text', text } };
    expect(runLayer0([change]).filter((h) => h.check === 'no_duplicate_headings')).toHaveLength(count);
    sameHits([change]);
  });
});

describe('empty_catch: the cheap test at each catch gives the reference hits', () => {
  it.each([
    ['a TypeScript test', 'test/cart.test.ts'],
    ['Java', 'src/Cart.java'],
  ])('on %s files', (_, path) => {
    agreesOn(path, CATCHES, 50, 3000);
  });
});

describe('no_text_loop on large files', () => {
  /** A long Markdown file of paragraphs from a few words, some of them copies or near copies of earlier ones. */
  const bigFile = (seed: number): { paragraphs: string[]; random: (n: number) => number } => {
    let state = seed >>> 0;
    const random = (n: number): number => {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      return (state >>> 8) % n;
    };
    const words = 'cart total price line item tax order refund card days'.split(' ');
    const paragraphs: string[] = [];
    for (let k = 0; k < 4000; k++) {
      const copy = k > 0 && random(6) === 0 ? paragraphs[random(k)]! : null;
      const fresh = Array.from({ length: 20 + random(15) }, () => words[random(words.length)]!).join(' ');
      paragraphs.push(copy === null ? fresh : random(2) ? copy : copy.replace(/\w+$/, 'again'));
    }
    return { paragraphs, random };
  };

  it('the paragraphs around a change decide what all of them decide', () => {
    fc.assert(
      fc.property(fc.integer(), fc.constantFrom('copy', 'near copy', 'rewrite', 'several'), (seed, edit) => {
        const { paragraphs, random } = bigFile(seed);
        const before = paragraphs.join('\n\n');
        const at = random(paragraphs.length);
        const next = [...paragraphs];
        const some = (): string => paragraphs[random(paragraphs.length)]!;
        if (edit === 'copy') next.splice(at, 0, some());
        else if (edit === 'near copy') next.splice(at, 0, `${some()} too`);
        else if (edit === 'rewrite') next[at] = some();
        else next.splice(at, 3, some(), some(), `${some()} also`, some());
        sameHits([{ path: 'docs/big.md', before: side(before), after: side(next.join('\n\n')) }]);
      }),
      { numRuns: 60 },
    );
  });
});

describe('the fast paths one by one', () => {
  /** The straightforward search: re.exec from each position, over the whole text. */
  const referenceLines = (re: RegExp, text: string, from: number, to: number): { index: number; evidence: string }[] => {
    const out: { index: number; evidence: string }[] = [];
    re.lastIndex = from;
    for (let m = re.exec(text); m !== null && m.index < to; m = re.exec(text)) {
      const start = text.lastIndexOf('\n', m.index - 1) + 1;
      const end = text.indexOf('\n', m.index);
      out.push({ index: m.index, evidence: clipLine(text.slice(start, end === -1 ? text.length : end)) });
      const next = text.indexOf('\n', m.index + Math.max(m[0].length, 1) - 1);
      re.lastIndex = next === -1 ? text.length : next + 1;
    }
    return out;
  };
  const referenceCount = (re: RegExp, text: string, from: number, to: number): number => {
    let n = 0;
    re.lastIndex = from;
    for (let m = re.exec(text); m !== null && m.index < to; m = re.exec(text)) {
      n += 1;
      if (m[0].length === 0) re.lastIndex += 1;
    }
    return n;
  };
  const PATTERNS: [RegExp, (string | [string, number])[] | null][] = [
    [/\bcatch\b\s*(?:\([^()\n]*\))?\s*\{(?:\s|\/\/[^\n]*)*\}|\.catch\s*\(\s*\(\)\s*=>\s*\{\s*\}\s*\)|^[ \t]*except\b[^\n:]*:[ \t]*(?:\n[ \t]*)*pass$/gm, [['catch', 1], 'except']],
    [/#\s*noqa\b|\/\/\s*nolint\b|\b(?:istanbul|c8)\s+ignore\b/g, ['#', '//', 'istanbul', 'c8']],
    [/\bx(?:it|test)\s*\(|\b(?:it|test)\.skip\b/g, ['xit', 'xtest', '.skip']],
    [/^[ \t]*(?:it|test)\s*\(|\bexpect\s*[(.]/gm, null],
    [/\bTODO\b|[Ll]orem [Ii]psum/g, ['TODO', 'psum']],
  ];
  const region = fc.tuple(textOf(CODE, 80), fc.nat(), fc.nat());

  it('matchLines and countMatches stop at the region end and still see matches that run past it', () => {
    fc.assert(
      fc.property(region, fc.constantFrom(...PATTERNS), ([text, a, b], [re, needles]) => {
        const p = pattern(re, needles);
        const [x, y] = [a % (text.length + 1), b % (text.length + 1)];
        const from = text.lastIndexOf('\n', Math.min(x, y) - 1) + 1;
        const to = Math.max(x, y);
        expect(matchLines(p, text, from, to).map(({ index, evidence }) => ({ index, evidence }))).toEqual(referenceLines(re, text, from, to));
        expect(countMatches(p, text, from, to)).toBe(referenceCount(re, text, from, to));
      }),
      { numRuns: 3000 },
    );
  });

  /** Dense in what the lexer decides on: delimiters, quotes, comments, regex literals after a word or not. */
  const LEXEMES = ['{', '}', '(', ')', '[', ']', '"', "'", '`', '${', '/', ' /', '/ ', '*', '\n', ' ', 'x', 'return', 'x\n', 'return\n', '\n/)/', '\\', '#', '/*', '*/', '//', '"""', "'a'", 'aaaaaaaa'];
  it('worseBalance: the same answer as lexing both sides whole', () => {
    const code = fc.oneof(textOf(CODE, 80), textOf(LEXEMES, 40));
    const change = fc.oneof(
      code.chain((before) => fc.tuple(fc.constant(before), fc.oneof(edited(before, CODE), edited(before, LEXEMES)))),
      around(CODE, 30),
      around(LEXEMES, 20),
    );
    fc.assert(
      fc.property(change, fc.constantFrom<Lexer>('js', 'c', 'py', 'hash'), ([before, after], lexer) => {
        const now = balance(after, lexer);
        const then = balance(before, lexer).problems;
        expect(worseBalance(before, after, changedRegion(before, after), lexer)).toEqual(now.problems > then ? { now, then } : null);
      }),
      { numRuns: 10000 },
    );
  });

  it('worseBalance: a change just before the common end decides what a / after it is', () => {
    // "return /)/" is a regex literal, "a /)/" a division and a stray ")": the change is one line, the
    // same text follows it, and both sides reach it with nothing open.
    expect(worseBalance('return\n/)/\n', 'a\n/)/\n', changedRegion('return\n/)/\n', 'a\n/)/\n'), 'js')).toMatchObject({ now: { problems: 1 }, then: 0 });
  });

  it.each([
    // A C char literal may close up to 12 characters on, past a line's end: how the line before the change lexes depends on it.
    ['c', "'\\*/\n\"'(", "'\\*/\naaaaaaaa'("],
    // A comment that starts well before the change and ends inside it on one side only.
    ['c', '/*aaaaaaaaaaaaaaaa\n\'\')', '/*aaaaaaaaaaaaaaaa\n*/\'\')'],
  ] as const)('worseBalance on a change inside what began before it (%s: %j → %j)', (lexer, before, after) => {
    const now = balance(after, lexer);
    const then = balance(before, lexer).problems;
    expect(worseBalance(before, after, changedRegion(before, after), lexer)).toEqual(now.problems > then ? { now, then } : null);
    expect(worseBalance(after, before, changedRegion(after, before), lexer)).toEqual(then > now.problems ? { now: balance(before, lexer), then: now.problems } : null);
  });

  it('balance: the same lexer as before it could stop and resume', () => {
    fc.assert(
      fc.property(textOf(CODE, 120), fc.constantFrom<Lexer>('js', 'c', 'py', 'hash'), (text, lexer) => {
        expect(balance(text, lexer)).toEqual(referenceBalance(text, lexer));
      }),
      { numRuns: 3000 },
    );
  });

  it('breaksJson: the same answer as parsing both sides whole', () => {
    const parses = (s: string): boolean => {
      try {
        JSON.parse(s);
        return true;
      } catch {
        return false;
      }
    };
    const valid = fc.json().map((j) => JSON.stringify(JSON.parse(j), null, 1));
    const change = fc.oneof(
      valid.chain((before) => fc.tuple(fc.constant(before), edited(before, JSON_PIECES))),
      around(JSON_PIECES, 20),
      fc.tuple(valid, fc.nat(), textOf(JSON_PIECES, 3), textOf(JSON_PIECES, 3)).map(([j, at, x, y]): [string, string] => {
        const k = at % (j.length + 1);
        return [j.slice(0, k) + x + j.slice(k), j.slice(0, k) + y + j.slice(k)];
      }),
    );
    fc.assert(
      fc.property(change, ([before, after]) => {
        expect(breaksJson(before, after, changedRegion(before, after))).toBe(!parses(after) && parses(before));
      }),
      { numRuns: 10000 },
    );
  });

  it('breaksJson on a change that a token from before it runs into (blank lines, then the changed value)', () => {
    // Before the fix it did not parse ("x"): nothing broke, though the fix's own text is broken too.
    expect(breaksJson('[1,\n\n\n x, 2]', '[1,\n\n\n 3, 2,]', changedRegion('[1,\n\n\n x, 2]', '[1,\n\n\n 3, 2,]'))).toBe(false);
    expect(breaksJson('[1,\n\n\n 4, 2]', '[1,\n\n\n 3, 2,]', changedRegion('[1,\n\n\n 4, 2]', '[1,\n\n\n 3, 2,]'))).toBe(true);
  });

  it('simpleHeading reads a heading line as the heading regex does, when it reads it', () => {
    const HEADING = /^(#{1,6})(?:[ \t]+(.*?))?[ \t#]*$/;
    const line = fc.array(fc.constantFrom('#', '#', ' ', ' ', '\t', 'a', 'B', '1', '.', '\r', 'é', '\u2028', '\u00a0', '#x'), { maxLength: 14 }).map((ps) => ps.join(''));
    fc.assert(
      fc.property(line, (l) => {
        const level = simpleHeading(l);
        if (level === 0) return;
        const m = HEADING.exec(l);
        expect([m?.[1]?.length, (m?.[2] ?? '').replace(/\s+/g, ' ').trim()]).toEqual([level, l.slice(level + 1)]);
      }),
      { numRuns: 20000 },
    );
  });

  it('parsesAsJson agrees with JSON.parse', () => {
    const parses = (s: string): boolean => {
      try {
        JSON.parse(s);
        return true;
      } catch {
        return false;
      }
    };
    fc.assert(
      fc.property(fc.oneof(textOf(JSON_PIECES, 30), fc.json(), fc.json().chain((j) => edited(j, JSON_PIECES))), (s) => {
        expect(parsesAsJson(s)).toBe(parses(s));
      }),
      { numRuns: 5000 },
    );
  });

  it('popcount64 counts the bits of both halves', () => {
    fc.assert(fc.property(fc.integer(), fc.integer(), (a, b) => popcount64(a, b) === popcount(a) + popcount(b)), { numRuns: 5000 });
    expect(popcount64(-1, -1)).toBe(64);
  });

  it('paragraphHashes: the same simhash as one counter per bit', () => {
    fc.assert(
      fc.property(textOf(PROSE, 60), fc.nat(25), (text, minWords) => {
        expect(paragraphHashes(text, minWords)).toEqual(referenceHashes(text, minWords));
      }),
      { numRuns: 2000 },
    );
  });

  /** Words and what lies between them, non-ASCII included (read as neither word nor blank), in paragraphs of up to a few hundred words. */
  const HASHED = [...PROSE_WORDS, ' ', ' ', ' ', '\n', '\n\n', '\r\n', '\r\n\r\n', '\t', '.', 'é', 'naïve', '日本語', '😀', '\u00a0', '\u0100', 'Ā', 'ĳ', '_x9', '\n \t\n'];
  it('paragraphHashes: the same simhash on long paragraphs and non-ASCII text, at any offset', () => {
    fc.assert(
      fc.property(textOf(HASHED, 700), fc.nat(80), fc.nat(), fc.nat(), (text, minWords, a, b) => {
        expect(paragraphHashes(text, minWords)).toEqual(referenceHashes(text, minWords));
        const [from, to] = [a % (text.length + 1), b % (text.length + 1)].sort((x, y) => x - y);
        expect(paragraphHashes(text, minWords, from, to)).toEqual(referenceHashes(text, minWords, from, to));
      }),
      { numRuns: 1500 },
    );
  });

  it('paragraphHashes: the same simhash when every shingle sets the same bits (counters up to the paragraph length)', () => {
    for (let n = 1; n < 300; n++) {
      const text = `${'cart '.repeat(n)}\n\n${'cart total '.repeat(n)}`;
      expect(paragraphHashes(text)).toEqual(referenceHashes(text));
    }
  });
});
