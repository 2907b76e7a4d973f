/**
 * Layer-0 on 10 MB files: every check that applies to the file, as the fixer-stop hook runs them
 * (runLayer0 over one change): a one-character fix in the middle, a fix in the middle that adds what
 * several checks report, and the whole file new.
 * Medians of BENCH_RUNS runs after a warm-up; the target is ≤ 100 ms per file (issue 8).
 */
import { runLayer0, type FileChange } from '../src/checks/layer0';

const runs = Number(process.env.BENCH_RUNS ?? 9);
/** Per file of 10 MB. */
const TARGET_MS = 100;
const SIZE = 10 * 1024 * 1024;

/** Deterministic filler words, so paragraphs and names differ as real text does. */
let seed = 42;
const rand = (n: number): number => {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  return seed % n;
};
const WORDS = 'cart total price line item quantity discount tax rounding currency order invoice payment refund customer address shipping weight parcel carrier label status pending settled failed retry queue worker batch report summary'.split(' ');
const sentence = (n: number): string => Array.from({ length: n }, () => WORDS[rand(WORDS.length)]).join(' ');

function grow(make: (i: number) => string): string {
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < SIZE; i++) {
    const part = make(i);
    parts.push(part);
    size += part.length;
  }
  return parts.join('');
}

const testFile = grow(
  (i) =>
    `describe('cart ${i}', () => {\n  it('adds ${sentence(4)} ${i}', () => {\n    const cart = addItem([], '${WORDS[i % WORDS.length]}', ${i}, 2);\n    expect(total(cart)).toBe(${i * 2});\n    try { parse('{"a":${i}}'); } catch (err) { report(err); }\n  });\n});\n\n`,
);
const markdown = grow((i) => `## Section ${i}\n\n${sentence(40 + rand(40))}.\n\n${sentence(25 + rand(30))}.\n\n`);
const json = `[${grow((i) => `${i ? ',' : ''}\n  {"id": ${i}, "name": "${sentence(3)}", "price": ${rand(10000)}, "tags": ["${WORDS[i % WORDS.length]}"]}`)}\n]\n`;

const middle = (text: string): number => text.indexOf('\n', text.length >> 1) + 1;
const insert = (text: string, what: string): string => text.slice(0, middle(text)) + what + text.slice(middle(text));

const cases: { name: string; change: FileChange }[] = [];
for (const [path, text, fix] of [
  ['test/cart.test.ts', testFile, "it.skip('adds a line', () => {\n  // TODO: assert the total\n});\n"],
  ['docs/guide.md', markdown, `## Section 7\n\n${markdown.slice(middle(markdown), middle(markdown) + 400)}\n\nTBD.\n\n`],
  ['data/catalog.json', json, '  {"id": -1, "name": "TODO", "price": 0, "tags": []},\n'],
] as const) {
  // A one-word edit on the middle line: what most fixes look like.
  const at = text.slice(middle(text)).search(/[a-y]/) + middle(text);
  const tweak = text.slice(0, at) + String.fromCharCode(text.charCodeAt(at) + 1) + text.slice(at + 1);
  cases.push({ name: `${path}: a one-character fix`, change: { path, before: { kind: 'text', text }, after: { kind: 'text', text: tweak } } });
  cases.push({ name: `${path}: a fix adding findings`, change: { path, before: { kind: 'text', text }, after: { kind: 'text', text: insert(text, fix) } } });
  cases.push({ name: `${path}: a new file`, change: { path, before: { kind: 'absent' }, after: { kind: 'text', text } } });
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
/** CPU milliseconds (user + system) of fn: less disturbed than the wall clock on a shared machine. */
const cpu = (fn: () => unknown): number => {
  const start = process.cpuUsage();
  fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};
// The yardstick: one charCodeAt pass over 10 MB, in the same run (about 10 ms on an idle laptop).
const yardstickText = testFile;
const yardstick = median(
  Array.from({ length: runs }, () =>
    cpu(() => {
      let n = 0;
      for (let i = 0; i < yardstickText.length; i++) if (yardstickText.charCodeAt(i) === 10) n += 1;
      return n;
    }),
  ),
);
console.log(`Layer-0 on 10 MB files: median CPU time of ${runs} runs (target ≤ ${TARGET_MS} ms); one charCodeAt pass over 10 MB here: ${yardstick.toFixed(1)} ms`);
for (const c of cases) {
  const hits = runLayer0([c.change]);
  const times = Array.from({ length: runs }, () => cpu(() => runLayer0([c.change])));
  const size = (c.change.after.kind === 'text' ? c.change.after.text.length : 0) / 1024 / 1024;
  const found = [...new Set(hits.map((h) => h.check))].join(', ') || 'none';
  const ms = median(times);
  console.log(`${ms <= TARGET_MS ? 'pass' : 'FAIL'}  ${c.name.padEnd(40)} ${size.toFixed(1)} MB ${ms.toFixed(1).padStart(7)} ms CPU = ${(ms / yardstick).toFixed(1).padStart(4)} passes  (target ≤ ${TARGET_MS} ms; ${hits.length} findings: ${found})`);
}
