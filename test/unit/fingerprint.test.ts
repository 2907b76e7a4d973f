import { describe, expect, it } from 'vitest';
import { normaliseCategory, normaliseCode, normaliseFile, sameDefect } from '../../src/review/fingerprint';

describe('normaliseCategory', () => {
  it.each([
    ['logic-error', 'correctness'], ['Off By One', 'correctness'], ['bug', 'correctness'], ['race condition', 'correctness'],
    ['swallowed-error', 'error-handling'], ['Silent failure', 'error-handling'], ['unhandled_rejection', 'error-handling'],
    ['SQL injection', 'security'], ['path-traversal', 'security'], ['hardcoded secret', 'security'],
    ['unit-error', 'correctness'], ['type-error', 'types'], ['build-error', 'correctness'], ['null-dereference', 'types'],
    ['missing-test', 'testing'], ['test-failure', 'testing'], ['naming', 'naming'], ['style', 'naming'],
    ['stale comment', 'docs'], ['dead-code', 'design'], ['slow loop', 'performance'], ['any type', 'types'],
    ['', 'other'], ['Weird Thing!', 'weird-thing'],
  ])('%j → %s', (category, family) => expect(normaliseCategory(category)).toBe(family));
});

describe('normalising code and paths', () => {
  it.each([
    ['  for (let i = 0;\n i < n; i++)', 'for(leti=0;i<n;i++)'],
    ['```ts\nconst a = "x";\n```', "consta='x';"],
    ['  12→  return out;\n  13→}', 'returnout;}'],
  ])('normaliseCode(%j)', (text, flat) => expect(normaliseCode(text)).toBe(flat));
  it.each([['./src/a.ts', 'src/a.ts'], ['src\\a.ts', 'src/a.ts'], [' src//a.ts ', 'src/a.ts']])('normaliseFile(%j)', (file, out) => expect(normaliseFile(file)).toBe(out));
  it('sameDefect needs the same file and family', () => {
    const k = { file: 'a.ts', family: 'correctness', text: 'for(leti=0;i<=n;i++){' };
    expect(sameDefect(k, { ...k })).toBe(true);
    expect(sameDefect(k, { ...k, file: 'b.ts' })).toBe(false);
    expect(sameDefect(k, { ...k, family: 'naming' })).toBe(false);
    expect(sameDefect(k, { ...k, text: `${k.text}out.push(items[i]);` })).toBe(true);
    expect(sameDefect({ ...k, text: 'i++' }, k)).toBe(false);
  });
});
