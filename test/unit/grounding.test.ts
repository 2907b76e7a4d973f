import { describe, expect, it } from 'vitest';
import { ground, type Sources } from '../../src/review/grounding';
import { band, heuristicScore, readiness, scale10, scoreFindings, scoreOf } from '../../src/review/scoring';
import { similarity } from '../../src/review/simhash';

const SRC = ['export function page(items, n) {', '  const out = [];', '  for (let i = 0; i <= n; i++) {', '    out.push(items[i]);', '  }', '  return out;', '}', ''].join('\n');
const sources: Sources = {
  'src/page.ts': { kind: 'file', text: SRC },
  'src/big.ts': { kind: 'file', text: [...Array.from({ length: 40 }, (_, i) => `const v${i} = ${i};`), '  for (let i = 0; i <= n; i++) {'].join('\n') },
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
    ['no evidence', f('src/page.ts', 2, ''), 'grounded', null],
    ['witness command evidence', f('src/page.ts', 3, '$ npm test\nFAIL page.test.ts'), 'grounded', null],
    ['missing file', f('src/nope.ts', 1, 'x'), 'ungrounded', 'src/nope.ts does not exist'],
    ['line past the end', f('src/page.ts', 99, 'return out;'), 'ungrounded', 'line 99 is past the end of src/page.ts (7 lines)'],
    ['evidence absent', f('src/page.ts', 3, 'items.forEach(render)'), 'ungrounded', 'the quoted evidence does not occur in src/page.ts'],
    ['outside the project', f('../etc/passwd', 1, 'root'), 'ungrounded', '../etc/passwd is outside the project'],
    ['a directory', f('src', null, ''), 'ungrounded', 'src is not a file'],
  ])('%s → %s', (_, finding, status, reason) => {
    const g = ground(finding, sources);
    expect(g.status).toBe(status);
    expect(g.reason).toBe(reason);
  });

  it('evidence far from the cited line: kept, with the line corrected', () => {
    expect(ground(f('src/big.ts', 2, 'for (let i = 0; i <= n; i++) {'), sources)).toEqual({ status: 'relocated', reason: 'the evidence is at line 41, not 2', line: 41 });
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
