import { describe, expect, it } from 'vitest';
import { ground, type Sources } from '../../src/review/grounding';
import { MAX_SKIPPED_LINES, MIN_GAP_TEXT, alternativeNeedles, literalNeedles, readingsOf } from '../../src/review/readings';

const CODE = [
  "import { readFile } from 'node:fs/promises';", //  1
  '',
  'export async function loadConfig(path, defaults = {}) {', //  3
  '  const text = await readFile(path, "utf8");',
  '  const parsed = JSON.parse(text)',
  '  const merged = { ...defaults, ...parsed };',
  '  if (!merged.name) throw new Error("config needs a name\\n");', //  7
  '  log(`loaded ${path}`);',
  '  return merged;',
  '}', // 10
  '',
  '- a Markdown list item, quoted with its dash',
  ...Array.from({ length: 60 }, (_, i) => `  step${i + 13}();`), // 13 … 72
  'export const done = true;', // 73
  '',
].join('\n');
const sources: Sources = { 'src/config.js': { kind: 'file', text: CODE } };
const at = (line: number | null, evidence: string) => ground({ file: 'src/config.js', line, evidence }, sources);

describe('alternative readings of a quote, tried when it does not match as written', () => {
  it.each([
    // [what, cited line, evidence, the readings that matched]
    ['as written', 4, '  const text = await readFile(path, "utf8");', []],
    ['a real escape in the code matches as written', 7, 'throw new Error("config needs a name\\n");', []],
    ['a template literal with backticks matches as written', 8, 'log(`loaded ${path}`);', []],
    ['a spread matches as written, not as a gap', 6, 'const merged = { ...defaults, ...parsed };', []],
    ['a Markdown dash matches as written, not as a diff marker', 12, '- a Markdown list item, quoted with its dash', []],
    ['escapes kept from JSON: \\n between lines', 4, 'const text = await readFile(path, "utf8");\\n  const parsed = JSON.parse(text)', ['unescaped']],
    ['escapes kept from JSON: \\"', 4, 'const text = await readFile(path, \\"utf8\\");', ['unescaped']],
    ['escapes kept from JSON: \\t', 9, '\\treturn merged;', ['unescaped']],
    ['inline backticks', 5, '`const parsed = JSON.parse(text)`', ['backticks']],
    ['"+ " diff markers', 4, '+  const text = await readFile(path, "utf8");\n+  const parsed = JSON.parse(text)', ['diff-markers']],
    ['"+" diff markers, no space', 4, '+const text = await readFile(path, "utf8");', ['diff-markers']],
    ['"- " diff markers', 5, '-  const parsed = JSON.parse(text)', ['diff-markers']],
    ['a hunk with its header and context lines', 4, '@@ -3,4 +3,4 @@\n   const text = await readFile(path, "utf8");\n+  const parsed = JSON.parse(text)', ['diff-markers']],
    ['a hunk with removed lines: its new side', 4, '   const text = await readFile(path, "utf8");\n-  const parsed = JSON.parse(text);\n+  const parsed = JSON.parse(text)', ['diff-new-side']],
    ['a ; added', 5, 'const parsed = JSON.parse(text);', ['semicolon']],
    ['... eliding the middle of a line', 3, 'export async function loadConfig(...) {', ['gap']],
    ['… eliding the middle of a line', 4, 'const text = await readFile(…, "utf8");', ['gap']],
    ['... ending a truncated line', 7, 'if (!merged.name) throw new Error(...', ['gap']],
    ['a skipped line', 4, 'const text = await readFile(path, "utf8");\n  ...\n  const merged = { ...defaults, ...parsed };', ['gap']],
    ['a skipped stretch, marked as a comment', 3, 'export async function loadConfig(path, defaults = {}) {\n  // ...\n  return merged;\n}', ['gap']],
    ['diff markers and an ellipsis together', 4, '+  const text = await readFile(path, "utf8");\n+  …\n+  return merged;', ['diff-markers', 'gap']],
    ['escaped, in backticks, with a ; added', 5, '`const parsed = JSON.parse(text);`', ['backticks', 'semicolon']],
  ] as const)('%s', (_, line, evidence, readings) => {
    const g = at(line, evidence);
    expect(g.status).toBe('grounded');
    expect(g.reading.evidence).toEqual(readings);
  });

  it.each([
    ['an invented ending after a gap', 4, 'const text = await readFile(... "latin1");'],
    ['an invented line after a skipped line', 4, 'const text = await readFile(path, "utf8");\n...\nconst validated = validate(merged);'],
    ['a gap with too little literal text to tell', 9, 'ret…ged;'],
    ['an inline gap does not reach the next line', 4, 'const text = await … JSON.parse(text)'],
    ['diff markers on an invented line', 4, '+  const text = await readFile(path, "ascii");'],
    ['a ; does not make an invented line real', 5, 'const parsed = JSON.parse(body);'],
    ['pieces out of order', 6, 'const merged = { ...parsed, ...defaults };'],
  ] as const)('not accepted: %s', (_, line, evidence) => {
    const g = at(line, evidence);
    expect(g.status).toBe('ungrounded');
    expect(g.reading.evidence).toBeNull();
  });

  it(`a line of its own elides at most ${MAX_SKIPPED_LINES} lines`, () => {
    expect(at(13, 'step13();\n...\nstep52();').status).toBe('grounded');
    expect(at(13, 'step13();\n...\nexport const done = true;').status).toBe('ungrounded');
  });

  it(`a reading with gaps needs ${MIN_GAP_TEXT} characters of literal code`, () => {
    expect(readingsOf('retu…rged;').some((n) => n.applied.includes('gap'))).toBe(false);
    expect(readingsOf('return m…rged;').some((n) => n.applied.includes('gap'))).toBe(true);
  });

  it('keeps the quote as written first, alternatives only when they change it', () => {
    expect(literalNeedles('  return merged').map((n) => n.applied)).toEqual([[]]);
    expect(alternativeNeedles('  return merged')).toEqual([]);
    expect(alternativeNeedles('+ return merged;').map((n) => n.applied)).toEqual([['diff-markers'], ['semicolon'], ['diff-markers', 'semicolon']]);
  });

  it('a truncated line runs to its end in the identity; an elided middle keeps what the file has', () => {
    expect(at(7, 'if (!merged.name) throw new Error(...').matched).toBe("if(!merged.name)thrownewerror('configneedsaname\\n');");
    expect(at(3, 'export async function loadConfig(...) {').matched).toBe('exportasyncfunctionloadconfig(path,defaults={}){');
  });

  it('a quote past the end of the file under a reading is relocated', () => {
    expect(at(500, '+  return merged;')).toMatchObject({ status: 'relocated', line: 9, reading: { evidence: ['diff-markers'] } });
  });
});
