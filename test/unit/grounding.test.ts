import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { flatten, flattenBytes } from '../../src/review/fingerprint';
import { EVIDENCE_WINDOW, Grounder, ground, type Sources } from '../../src/review/grounding';
import { band, heuristicScore, readiness, scale10, scoreFindings, scoreOf } from '../../src/review/scoring';
import { similarity } from '../../src/checks/layer0/simhash64';

const SRC = ['export function page(items, n) {', '  const out = [];', '  for (let i = 0; i <= n; i++) {', '    out.push(items[i]);', '  }', '  return out;', '}', ''].join('\n');
const BIG = [...Array.from({ length: 40 }, (_, i) => `const v${i} = ${i};`), '  for (let i = 0; i <= n; i++) {'].join('\n');
/** The same statement at lines 3, 30 and 60 of 70. */
const REPEATED = Array.from({ length: 70 }, (_, i) => ([3, 30, 60].includes(i + 1) ? '  cache.delete(key);' : `  step${i + 1}(state);`)).join('\n');
const sources: Sources = {
  'src/page.ts': { kind: 'file', text: SRC },
  'src/big.ts': { kind: 'file', text: BIG },
  'src/repeated.ts': { kind: 'file', text: REPEATED },
  'src/crlf.ts': { kind: 'file', text: SRC.replace(/\n/g, '\r\n') },
  'src/tabs.ts': { kind: 'file', text: SRC.replace(/^ {2}/gm, '\t').replace(/^\t {2}/gm, '\t\t') },
  'a/src/page.ts': { kind: 'file', text: SRC, rel: 'src/page.ts', via: 'without-diff-prefix' },
  'SRC/Page.ts': { kind: 'file', text: SRC, rel: 'src/page.ts', via: 'case-insensitive' },
  'src/huge.ts': { kind: 'unchecked', why: 'it is 300 MB, more than the 256 MB one file may have' },
  'src/twin.ts': { kind: 'missing', similar: ['src/Twin.ts', 'src/TWIN.ts'] },
  '../etc/passwd': { kind: 'outside' },
  src: { kind: 'not-a-file' },
};
const f = (file: string, line: number | null, evidence: string) => ({ file, line, evidence });

describe('grounding', () => {
  it.each([
    ['exact line', f('src/page.ts', 3, 'for (let i = 0; i <= n; i++) {'), 'grounded', null],
    ['whitespace differs', f('src/page.ts', 3, 'for(let i=0;i<=n;i++){'), 'grounded', null],
    ['Read-tool gutter in the quote', f('./src/page.ts', 3, '     3→  for (let i = 0; i <= n; i++) {'), 'grounded', null],
    ['multi-line evidence', f('src/page.ts', 3, 'for (let i = 0; i <= n; i++) {\n    out.push(items[i]);'), 'grounded', null],
    ['evidence moved by a few lines', f('src/page.ts', 7, 'out.push(items[i]);'), 'grounded', null],
    ['no line, evidence in the file', f('src/page.ts', null, 'return out;'), 'grounded', null],
    ['no evidence', f('src/page.ts', 2, ''), 'unquoted', 'no evidence is quoted; line 2 exists'],
    ['no evidence, no line', f('src/page.ts', null, '  '), 'unquoted', 'no evidence is quoted, and no line is cited'],
    ['witness command evidence', f('src/page.ts', 3, '$ npm test\nFAIL page.test.ts'), 'unquoted', 'the evidence is a command, not a quote of the code; line 3 exists'],
    ['a CRLF file, multi-line evidence', f('src/crlf.ts', 3, 'for (let i = 0; i <= n; i++) {\n    out.push(items[i]);'), 'grounded', null],
    ['a file indented with tabs, quoted with spaces', f('src/tabs.ts', 4, '    out.push(items[i]);'), 'grounded', null],
    ['missing file', f('src/nope.ts', 1, 'x'), 'ungrounded', 'src/nope.ts does not exist'],
    ['missing, two files match ignoring case', f('src/twin.ts', 1, 'x'), 'ungrounded', 'src/twin.ts is ambiguous: 2 files match it ignoring case (src/Twin.ts, src/TWIN.ts)'],
    ['evidence absent', f('src/page.ts', 3, 'items.forEach(render)'), 'ungrounded', 'the quoted evidence does not occur in src/page.ts'],
    ['past the end, evidence absent', f('src/page.ts', 99, 'items.forEach(render)'), 'ungrounded', 'line 99 is past the end of src/page.ts (7 lines), and the quoted evidence does not occur in it'],
    ['past the end, no evidence', f('src/page.ts', 99, ''), 'ungrounded', 'line 99 is past the end of src/page.ts (7 lines)'],
    ['outside the project', f('../etc/passwd', 1, 'root'), 'ungrounded', '../etc/passwd is outside the project'],
    ['a directory', f('src', null, ''), 'ungrounded', 'src is not a file'],
    ['a file not read because of a cap', f('src/huge.ts', 10, 'anything'), 'unchecked', 'src/huge.ts was not read: it is 300 MB, more than the 256 MB one file may have'],
  ])('%s → %s', (_, finding, status, reason) => {
    const g = ground(finding, sources);
    expect(g.status).toBe(status);
    expect(g.reason).toBe(reason);
  });

  it('evidence far from the cited line: kept, with the line corrected', () => {
    expect(ground(f('src/big.ts', 2, 'for (let i = 0; i <= n; i++) {'), sources)).toMatchObject({ status: 'relocated', reason: 'the evidence is at line 41, not 2', line: 41 });
  });

  it('a cited line past the end is no reason to give up: the file is searched', () => {
    expect(ground(f('src/page.ts', 99, 'return out;'), sources)).toMatchObject({ status: 'relocated', reason: 'line 99 is past the end of src/page.ts (7 lines); the evidence is at line 6', line: 6 });
  });

  it.each([
    [12, 3],
    [24, 30],
    [40, 30],
    [48, 60],
    [200, 60],
  ])('relocation takes the occurrence nearest the cited line (%s → %s), not the first', (cited, line) => {
    const g = ground(f('src/repeated.ts', cited, 'cache.delete(key);'), sources);
    expect(g.line).toBe(line);
  });

  it('says which reading of the path matched, and reports against the real path', () => {
    expect(ground(f('a/src/page.ts', 3, 'for (let i = 0; i <= n; i++) {'), sources)).toMatchObject({ status: 'grounded', reading: { file: 'without-diff-prefix', evidence: [] } });
    expect(ground(f('SRC/Page.ts', 3, 'return nothing;'), sources)).toMatchObject({ status: 'ungrounded', reason: 'the quoted evidence does not occur in src/page.ts', reading: { file: 'case-insensitive', evidence: null } });
  });

  it('the identity is the flat text the evidence matched', () => {
    expect(ground(f('src/page.ts', 3, '+ for (let i = 0; i <= n; i++) {'), sources)).toMatchObject({ reading: { evidence: ['diff-markers'] }, matched: 'for(leti=0;i<=n;i++){' });
    expect(ground(f('src/page.ts', 3, 'for (let i = 0; … i++) {'), sources)).toMatchObject({ reading: { evidence: ['gap'] }, matched: 'for(leti=0;i<=n;i++){' });
    expect(ground(f('src/page.ts', 3, 'items.forEach(render)'), sources).matched).toBeNull();
  });

  it('a quote of its cited line is compared as UTF-8: a Latin-1 byte is not the character of its code', () => {
    const line = (text: Uint8Array): Sources => ({ 'name.js': { kind: 'file', text } });
    const quote = f('name.js', 2, 'const name = "café";');
    const utf8 = Buffer.from('// names\n  const name = "café";\n');
    const latin1 = Buffer.from('// names\n  const name = "café";\n', 'latin1');
    expect(new Grounder(line(utf8)).ground(quote)).toMatchObject({ status: 'grounded', matched: "constname='café';" });
    expect(new Grounder(line(latin1)).ground(quote).status).toBe('ungrounded');
  });

  it('a quote cited at several places is grounded at each, once', () => {
    const grounder = new Grounder(sources);
    const at = (line: number) => grounder.ground(f('src/repeated.ts', line, 'cache.delete(key);'));
    const [first, second, third] = [at(3), at(30), at(45)];
    expect([first.status, second.status, third.status, third.line]).toEqual(['grounded', 'grounded', 'relocated', 60]);
    expect([at(3), at(30), at(45)]).toEqual([first, second, third]);
    expect(at(3)).toBe(first);
    expect(at(45)).toBe(third);
  });

  it(`within ${EVIDENCE_WINDOW} lines is grounded, one line further is relocated`, () => {
    expect(ground(f('src/big.ts', 41 - EVIDENCE_WINDOW, 'for (let i = 0; i <= n; i++) {'), sources).status).toBe('grounded');
    expect(ground(f('src/big.ts', 40 - EVIDENCE_WINDOW, 'for (let i = 0; i <= n; i++) {'), sources).status).toBe('relocated');
  });

  it('a search budget spent: what was not found near its line is unchecked, never "does not occur"', () => {
    const lines = Array.from({ length: 5_000 }, (_, i) => `  emit(${i}, "row ${i}");`);
    const big: Sources = { 'big.js': { kind: 'file', text: lines.join('\n') } };
    const grounder = new Grounder(big, 200_000); // a few whole-file searches of a 120 KB file
    const results = Array.from({ length: 20 }, (_, i) => grounder.ground(f('big.js', 10, `emit(${4_000 + i}, "row ${4_000 + i}");`)));
    expect(results[0]).toMatchObject({ status: 'relocated', line: 4_001 });
    const unchecked = results.filter((r) => r.status === 'unchecked');
    expect(unchecked.length).toBeGreaterThan(0);
    expect(unchecked[0]!.reason).toBe("the quoted evidence is not within 5 lines of line 10, and the rest of big.js was not searched (this hook's search budget is spent)");
    expect(results.some((r) => r.status === 'ungrounded')).toBe(false);
    // Near the cited line a finding is still checked.
    expect(grounder.ground(f('big.js', 12, 'emit(11, "row 11");')).status).toBe('grounded');
  });
});

describe('flattenBytes is flatten over UTF-8', () => {
  it('for any text', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', 'Z', ' ', '\t', '\r', '\n', '"', "'", '`', 'é', 'Ä', '→', '\u00a0', '😀', ';', '{') }), (text) => {
        expect(flattenBytes(Buffer.from(text, 'utf8')).toString('utf8')).toBe(flatten(text));
      }),
    );
  });
  it('records where each line starts', () => {
    const starts: number[] = [];
    expect(flattenBytes(Buffer.from('a b\n  c\r\nd'), starts).toString()).toBe('abcd');
    expect(starts).toEqual([2, 3]);
  });
});

describe('scores', () => {
  const of = (critical: number, warning: number, info: number) => [
    ...Array(critical).fill({ severity: 'critical' }),
    ...Array(warning).fill({ severity: 'warning' }),
    ...Array(info).fill({ severity: 'info' }),
  ];
  it.each([
    [of(0, 0, 0), 1, 'accept', 10, 'READY'],
    [of(0, 0, 5), 0.9, 'accept', 9, 'READY'],
    [of(0, 1, 0), 0.9, 'accept', 9, 'READY'],
    [of(0, 1, 1), 0.88, 'accept_with_warnings', 9, 'READY'],
    [of(0, 3, 0), 0.7, 'accept_with_warnings', 7, 'READY'],
    [of(0, 4, 0), 0.6, 'accept_with_warnings', 6, 'ALMOST'],
    [of(0, 4, 1), 0.58, 'repair', 6, 'ALMOST'],
    [of(1, 0, 0), 0.55, 'repair', 6, 'ALMOST'],
    [of(1, 1, 0), 0.45, 'repair', 5, 'ALMOST'],
    [of(1, 2, 0), 0.35, 'repair', 4, 'NOT_READY'],
    [of(1, 3, 0), 0.25, 'escalate', 3, 'NOT_READY'],
    [of(2, 0, 0), 0.1, 'escalate', 1, 'NOT_READY'],
    [of(3, 0, 0), 0, 'escalate', 0, 'NOT_READY'],
  ])('%# score %s', (findings, score, b, scale, ready) => {
    expect(scoreOf(scoreFindings(findings))).toEqual({ score, band: b, scale, readiness: ready });
  });

  it.each([
    [0.9, 'accept'], [0.89, 'accept_with_warnings'], [0.6, 'accept_with_warnings'], [0.59, 'repair'], [0.3, 'repair'], [0.29, 'escalate'], [0, 'escalate'],
  ] as const)('band edge %s → %s', (score, expected) => {
    expect(band(score)).toBe(expected);
  });

  it.each([[7, 'READY'], [6, 'ALMOST'], [5, 'ALMOST'], [4, 'NOT_READY']] as const)('scale %s → %s', (scale, expected) => {
    expect(readiness(scale)).toBe(expected);
  });
  it('scale10 rounds', () => expect([scale10(0.64), scale10(0.65), scale10(0.449)]).toEqual([6, 7, 4]));

  it.each([
    ['not an object', 'x', [], 0],
    ['no summary', { issues: [] }, [], 0.8],
    ['no issues array, no summary', {}, [], 0.6],
    ['an issue missing its file and with an empty description', { issues: [{ severity: 'warning', category: 'x', description: ' ' }], summary: {} }, [], 0.7],
    ['salvaged findings count too', { issues: [], summary: {} }, [{ severity: 'critical' as const }], 0.55],
  ])('heuristic fallback: %s → %s', (_, data, salvaged, score) => {
    expect(heuristicScore(data, salvaged)).toBe(score);
  });
});

describe('simhash similarity', () => {
  const summary = '- [fixed] src/page.ts:3 correctness — changed <= to < in the loop bound\n- [fixed] src/page.ts:9 error-handling — rethrow the parse error\nTests run: npm test, 12 passed';
  it('identical texts are 1.0', () => expect(similarity(summary, summary)).toBe(1));
  it('a near-identical summary is ≥ 0.95', () => expect(similarity(summary, summary.replace('12 passed', '12 passed.'))).toBeGreaterThanOrEqual(0.95));
  it('a different summary is well below', () => expect(similarity(summary, '- [could not fix] src/other.ts:40 security — the token comes from a vendored library; Tests run: none')).toBeLessThan(0.8));
});
