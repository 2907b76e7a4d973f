import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { identityOf } from '../../src/review/aggregate';
import { IdentityIndex, clusterKeys } from '../../src/review/clusters';
import { MIN_CONTAINED, sameDefect, type IdentityKey } from '../../src/review/fingerprint';
import type { Sources } from '../../src/review/grounding';
import type { Finding } from '../../src/protocol/reviewer-output';
import { paced } from '../helpers/pace';

const key = (text: string, file = 'a.ts', family = 'correctness'): IdentityKey => ({ file, family, text });
const LOOP = 'for(leti=0;i<=n;i++){';
const PUSH = 'out.push(items[i]);';
const SAVE = 'try{save(out);}catch(e){}';

describe('clusterKeys', () => {
  it.each([
    ['the same evidence', [key(LOOP), key(LOOP)], [[0, 1]]],
    ['one quote containing the other', [key(LOOP), key(LOOP + PUSH)], [[0, 1]]],
    ['a chain of containing quotes', [key(LOOP + PUSH + SAVE), key(LOOP), key(LOOP + PUSH)], [[0, 1, 2]]],
    ['another file', [key(LOOP), key(LOOP, 'b.ts')], [[0], [1]]],
    ['another family', [key(LOOP), key(LOOP, 'a.ts', 'naming')], [[0], [1]]],
    ['different code', [key(LOOP), key(PUSH)], [[0], [1]]],
    ['a short quote inside another', [key('i++'), key(LOOP)], [[0], [1]]],
    ['a broad quote containing two distinct defects joins neither', [key(LOOP + PUSH + SAVE), key(LOOP), key(SAVE)], [[0], [1], [2]]],
    ['… nor three', [key(LOOP + PUSH + SAVE), key(LOOP), key(PUSH), key(SAVE)], [[0], [1], [2], [3]]],
    ['a broad quote containing one defect reported twice joins it', [key(LOOP + PUSH + SAVE), key(LOOP), key(LOOP)], [[0, 1, 2]]],
    ['a broad quote containing two quotes of one defect joins them', [key(LOOP + PUSH + SAVE), key(LOOP), key(LOOP + PUSH)], [[0, 1, 2]]],
  ])('%s', (_, keys, groups) => {
    expect(clusterKeys(keys)).toEqual(groups);
  });

  // A reference: every pair compared, shorter texts first, a text joining what it contains only when that is one group.
  function reference(keys: IdentityKey[]): number[][] {
    const parent = keys.map((_, i) => i);
    const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
    const order = keys.map((_, i) => i).sort((a, b) => keys[a]!.text.length - keys[b]!.text.length || a - b);
    const done: number[] = [];
    for (const i of order) {
      const k = keys[i]!;
      for (const j of done) if (keys[j]!.file === k.file && keys[j]!.family === k.family && keys[j]!.text === k.text) parent[find(i)] = find(j);
      const contained = new Set(done.filter((j) => keys[j]!.text !== k.text && sameDefect(keys[j]!, k) && keys[j]!.text.length < k.text.length).map(find));
      if (contained.size === 1) parent[find(i)] = [...contained][0]!;
      done.push(i);
    }
    const groups = new Map<number, number[]>();
    keys.forEach((_, i) => groups.set(find(i), [...(groups.get(find(i)) ?? []), i]));
    return [...groups.values()].map((g) => g.sort((a, b) => a - b)).sort((a, b) => a[0]! - b[0]!);
  }
  const normal = (groups: number[][]) => groups.map((g) => [...g].sort((a, b) => a - b)).sort((a, b) => a[0]! - b[0]!);

  it.each([
    ['comparing each text with the shorter ones', undefined],
    ['the window index', 0],
  ])('%s finds exactly what comparing every pair finds', (_, direct) => {
    const text = fc.array(fc.constantFrom('ab', 'cd', 'ef', 'a', '(', ');', 'x=1'), { minLength: 1, maxLength: 14 }).map((p) => p.join(''));
    const arbKey = fc.record({ file: fc.constantFrom('a.ts', 'b.ts'), family: fc.constantFrom('correctness', 'naming'), text });
    fc.assert(
      fc.property(fc.array(arbKey, { maxLength: 30 }), (keys) => {
        expect(normal(clusterKeys(keys, direct))).toEqual(reference(keys));
      }),
      { numRuns: 300 },
    );
  }, paced(120_000));
});

describe('IdentityIndex', () => {
  it('the first added key that is the same defect, whichever contains which', () => {
    const index = new IdentityIndex<string>();
    index.add(key(PUSH + SAVE), 'broad');
    index.add(key(LOOP), 'loop');
    index.add(key(SAVE), 'save');
    expect(index.first(key(LOOP))).toBe('loop');
    expect(index.first(key(SAVE))).toBe('broad');
    expect(index.first(key(LOOP + PUSH))).toBe('loop');
    expect(index.first(key(LOOP, 'b.ts'))).toBeUndefined();
    expect(index.first(key('i++'))).toBeUndefined();
  });

  it('agrees with sameDefect over every earlier key', () => {
    const text = fc.array(fc.constantFrom('ab', 'cd', 'ef', '(', ');', 'x=1'), { minLength: 1, maxLength: 14 }).map((p) => p.join(''));
    const arbKey = fc.record({ file: fc.constantFrom('a.ts', 'b.ts'), family: fc.constant('correctness'), text });
    fc.assert(
      fc.property(fc.array(arbKey, { maxLength: 25 }), arbKey, (earlier, probe) => {
        const index = new IdentityIndex<number>();
        earlier.forEach((k, i) => index.add(k, i));
        const expected = earlier.findIndex((k) => sameDefect(k, probe));
        expect(index.first(probe) ?? -1).toBe(expected);
      }),
      { numRuns: 300 },
    );
  }, paced(120_000));
});

describe('identity from the reading that matched', () => {
  const FILE = [
    'export function total(items) {',
    '  let sum = 0;',
    '  for (let i = 0; i <= items.length; i++) sum += items[i].price;',
    '  if (sum > LIMIT && !override) throw new RangeError("total over the limit");',
    '  return sum;',
    '}',
    '',
  ].join('\n');
  const sources: Sources = { 'src/total.js': { kind: 'file', text: FILE, rel: 'src/total.js' } };
  const finding = (line: number, evidence: string): Finding => ({ severity: 'warning', category: 'logic-error', file: 'src/total.js', line, description: 'd', evidence, suggestion: '' });
  const idOf = (line: number, evidence: string) => identityOf(finding(line, evidence), sources);

  /** The ways a model may quote one line of code. */
  const variant = fc.record({
    marker: fc.constantFrom('', '+ ', '+', '- ', ' '),
    backticks: fc.boolean(),
    semicolon: fc.boolean(),
    escaped: fc.boolean(),
    lineShift: fc.integer({ min: -3, max: 30 }),
  });
  const quote = (line: string, v: { marker: string; backticks: boolean; semicolon: boolean; escaped: boolean }): string => {
    let q = line.trim();
    if (v.semicolon && !q.endsWith(';')) q = `${q};`;
    if (v.backticks) q = `\`${q}\``;
    if (v.marker) q = `${v.marker}${q}`;
    if (v.escaped) q = JSON.stringify(q).slice(1, -1);
    return q;
  };

  it('the same quote in random variants is the same finding', () => {
    const lines = FILE.split('\n');
    fc.assert(
      fc.property(fc.integer({ min: 3, max: 4 }), variant, variant, (line, a, b) => {
        const ka = idOf(Math.max(1, line + a.lineShift), quote(lines[line - 1]!, a));
        const kb = idOf(Math.max(1, line + b.lineShift), quote(lines[line - 1]!, b));
        expect(clusterKeys([ka, kb])).toHaveLength(1);
      }),
      { numRuns: 400 },
    );
  }, paced(120_000));

  it('two different quotes from one line stay two findings', () => {
    const a = idOf(4, 'if (sum > LIMIT && !override)');
    const b = idOf(4, 'throw new RangeError("total over the limit");');
    expect(a.text.length).toBeGreaterThanOrEqual(MIN_CONTAINED);
    expect(clusterKeys([a, b])).toHaveLength(2);
  });

  it('the quote that matched nothing keeps its own text as its identity', () => {
    expect(idOf(4, 'if (total > MAX) throw new Error("too big");').text).toBe("if(total>max)thrownewerror('toobig');");
  });
});
