/**
 * Review files as models commonly write them, each labelled: `accept` (read as meant, keeping the
 * meaning given), `sendback` (ambiguous: sent back with a message), or `either` (a send-back is fine, a
 * reading must keep the meaning). Built from one project and two findings, varied one way at a time
 * and in a few packagings.
 */

/** The project the reviews are about. Line numbers matter: the findings cite lines 3 and 12. */
export const PROJECT: Record<string, string> = {
  'src/calc.js': [
    '// calc.js: small arithmetic helpers',
    'export function divide(a, b) {',
    '  return a / b;',
    '}',
    '',
    '/** The mean of a list of numbers. */',
    'export function average(xs) {',
    '  if (!Array.isArray(xs)) throw new TypeError("xs");',
    '  let sum = 0;',
    '  // every element, once',
    '  const n = xs.length;',
    '  for (let i = 0; i <= n; i++) {',
    '    sum += xs[i];',
    '  }',
    '  return sum / n;',
    '}',
    '',
  ].join('\n'),
  'src/util/format.js': 'export const fmt = (n) => n.toFixed(2);\n',
  'README.md': '# calc\n',
};

export interface Meaning {
  severity: 'critical' | 'warning' | 'info';
  file: string;
  line: number | null;
}

export interface ReviewVariant {
  name: string;
  text: string;
  label: 'accept' | 'sendback' | 'either';
  /** For accept and either: each finding's severity, file (as the project has it) and line. */
  meaning?: Meaning[];
  /** For sendback: what the message must say. */
  says?: RegExp;
}

type Issue = Record<string, unknown>;
const A: Issue = {
  severity: 'critical',
  category: 'off-by-one',
  file: 'src/calc.js',
  line: 12,
  description: 'the loop reads one element past the end: sum becomes NaN',
  evidence: 'for (let i = 0; i <= n; i++) {',
  suggestion: 'use i < n',
};
const B: Issue = {
  severity: 'warning',
  category: 'division-by-zero',
  file: 'src/calc.js',
  line: 3,
  description: 'divide(1, 0) returns Infinity instead of failing',
  evidence: 'return a / b;',
  suggestion: 'throw on b === 0',
};
const MEANING: Meaning[] = [
  { severity: 'critical', file: 'src/calc.js', line: 12 },
  { severity: 'warning', file: 'src/calc.js', line: 3 },
];
const summary = { critical: 1, warning: 1, info: 0, verdict: 'issues_found' };
const review = (issues: unknown[], over: Record<string, unknown> = {}): Record<string, unknown> => ({ issues, summary, ...over });
const pretty = (v: unknown): string => JSON.stringify(v, null, 2);

/** The first finding varied (the second kept as written), and the meaning the variant keeps. */
interface FindingVariant {
  name: string;
  a: Issue;
  label?: ReviewVariant['label'];
  severity?: Meaning['severity'];
  line?: number | null;
}
const without = (issue: Issue, ...keys: string[]): Issue => Object.fromEntries(Object.entries(issue).filter(([k]) => !keys.includes(k)));
const renamed = (issue: Issue, from: string, to: string): Issue => ({ ...without(issue, from), [to]: issue[from] });

const SEVERITIES: [string, string, Meaning['severity']][] = [
  ['upper case', 'CRITICAL', 'critical'],
  ['title case', 'Critical', 'critical'],
  ['high', 'high', 'critical'],
  ['blocker', 'blocker', 'critical'],
  ['P0', 'P0', 'critical'],
  ['P1', 'P1', 'critical'],
  ['error', 'error', 'critical'],
  ['red emoji', '🔴', 'critical'],
  ['emoji and word', '🔴 Critical', 'critical'],
  ['medium', 'medium', 'warning'],
  ['P2', 'P2', 'warning'],
  ['warning emoji', '⚠️ Warning', 'warning'],
  ['yellow emoji', '🟡', 'warning'],
  ['major', 'major', 'warning'],
  ['low', 'low', 'info'],
  ['P3', 'P3', 'info'],
  ['nit', 'nit', 'info'],
  ['blue emoji', '🔵 info', 'info'],
];

const LINES: [string, unknown, number | null][] = [
  ['a numeric string', '12', 12],
  ['L12', 'L12', 12],
  ['a range', '12-13', 12],
  ['a range with L', 'L12-L13', 12],
  ['line:column', '12:3', 12],
  ['an array', [12, 13], 12],
  ['an object', { start: 12, end: 13 }, 12],
  ['"line 12"', 'line 12', 12],
];

const FINDING_VARIANTS: FindingVariant[] = [
  ...SEVERITIES.map(([name, value, severity]): FindingVariant => ({ name: `severity ${name}`, a: { ...A, severity: value }, severity })),
  ...LINES.map(([name, value, line]): FindingVariant => ({ name: `line as ${name}`, a: { ...A, line: value }, line })),
  { name: 'line_start and line_end', a: { ...without(A, 'line'), line_start: 12, line_end: 13 } },
  { name: 'lineStart', a: { ...without(A, 'line'), lineStart: 12 } },
  { name: 'line_number', a: renamed(A, 'line', 'line_number') },
  { name: 'lines as a range', a: { ...without(A, 'line'), lines: '12-14' } },
  { name: 'line missing (the quote is found at 12)', a: without(A, 'line') },
  { name: 'line 0 (the quote is found at 12)', a: { ...A, line: 0 } },
  { name: 'line null (the quote is found at 12)', a: { ...A, line: null } },
  { name: 'path for file', a: renamed(A, 'file', 'path') },
  { name: 'file_path for file', a: renamed(A, 'file', 'file_path') },
  { name: 'message for description', a: renamed(A, 'description', 'message') },
  { name: 'details for description', a: renamed(A, 'description', 'details') },
  { name: 'title for description', a: renamed(A, 'description', 'title') },
  { name: 'type for category', a: renamed(A, 'category', 'type') },
  { name: 'code for evidence', a: renamed(A, 'evidence', 'code') },
  { name: 'snippet for evidence', a: renamed(A, 'evidence', 'snippet') },
  { name: 'recommendation for suggestion', a: renamed(A, 'suggestion', 'recommendation') },
  { name: 'fix for suggestion', a: renamed(A, 'suggestion', 'fix') },
  { name: 'Capitalised keys', a: Object.fromEntries(Object.entries(A).map(([k, v]) => [k[0]!.toUpperCase() + k.slice(1), v])) },
  { name: 'a location object', a: { ...without(A, 'file', 'line'), location: { file: 'src/calc.js', line: 12 } } },
  { name: 'category missing', a: without(A, 'category') },
  { name: 'evidence as an array of lines', a: { ...A, evidence: ['for (let i = 0; i <= n; i++) {', '    sum += xs[i];'] } },
  { name: 'path with :line', a: { ...without(A, 'line'), file: 'src/calc.js:12' } },
  { name: 'path with :line and a line', a: { ...A, file: 'src/calc.js:12' } },
  { name: 'path with :line:column', a: { ...without(A, 'line'), file: 'src/calc.js:12:5' } },
  { name: 'path with #L12', a: { ...without(A, 'line'), file: 'src/calc.js#L12' } },
  { name: 'path in backticks', a: { ...A, file: '`src/calc.js`' } },
  { name: 'path with a leading /', a: { ...A, file: '/src/calc.js' } },
  { name: 'path with ./', a: { ...A, file: './src/calc.js' } },
  { name: 'path as file://', a: { ...A, file: 'file://src/calc.js' } },
  { name: 'a bare file name', a: { ...A, file: 'calc.js' } },
  { name: 'a bare file name with :line', a: { ...without(A, 'line'), file: 'calc.js:12' } },
  { name: 'path from the repository folder', a: { ...A, file: '<repo>/src/calc.js' } },
  { name: 'path in another case', a: { ...A, file: 'SRC/Calc.js' } },
  { name: 'quote with a "12: " gutter', a: { ...A, evidence: '12: for (let i = 0; i <= n; i++) {' } },
  { name: 'quote with an "L12: " gutter', a: { ...A, evidence: 'L12: for (let i = 0; i <= n; i++) {' } },
  { name: 'quote with a gutter of spaces', a: { ...A, evidence: '  12    for (let i = 0; i <= n; i++) {\n  13      sum += xs[i];' } },
  { name: 'quote with a "12 | " gutter', a: { ...A, evidence: '12 | for (let i = 0; i <= n; i++) {\n13 |   sum += xs[i];' } },
  { name: 'quote with a cat -n gutter', a: { ...A, evidence: '    12\tfor (let i = 0; i <= n; i++) {' } },
  { name: 'quote as a fix diff', a: { ...A, evidence: '-  for (let i = 0; i <= n; i++) {\n+  for (let i = 0; i < n; i++) {' } },
  { name: 'quote as a diff with context', a: { ...A, evidence: '   const n = xs.length;\n-  for (let i = 0; i <= n; i++) {\n+  for (let i = 0; i < n; i++) {' } },
  { name: 'quote in a code fence', a: { ...A, evidence: '```js\nfor (let i = 0; i <= n; i++) {\n```' } },
  { name: 'quote in backticks', a: { ...A, evidence: '`for (let i = 0; i <= n; i++) {`' } },
  { name: 'quote with an ellipsis', a: { ...A, evidence: 'for (let i = 0; i <= n; i++) {\n  ...\n  return sum / n;' } },
  { name: 'quote with a gutter and a diff', a: { ...A, evidence: '12: -  for (let i = 0; i <= n; i++) {\n12: +  for (let i = 0; i < n; i++) {' }, label: 'either' },
  { name: 'a line as the word "twelve"', a: { ...A, line: 'twelve' }, label: 'sendback' },
];

/** How the JSON is put in the file. */
const PACKAGINGS: [string, (v: unknown) => string][] = [
  ['plain', pretty],
  ['in a json fence with prose', (v) => `Here is my review.\n\n\`\`\`json\n${pretty(v)}\n\`\`\`\n\nLet me know if you need more.`],
  ['under `findings`', (v) => pretty({ findings: (v as { issues: unknown }).issues, summary })],
];

const SAYS_LINE = /issues\[0\]\.line is a string \("twelve"\)/;

function findingVariants(repo: string): ReviewVariant[] {
  const out: ReviewVariant[] = [];
  for (const v of FINDING_VARIANTS) {
    const a = JSON.parse(JSON.stringify(v.a).replace(/<repo>/g, repo)) as Issue;
    const meaning: Meaning[] = [{ ...MEANING[0]!, ...(v.severity ? { severity: v.severity } : {}), ...(v.line !== undefined ? { line: v.line } : {}) }, MEANING[1]!];
    for (const [packaging, pack] of PACKAGINGS) {
      // Every variant plain; the severity and line variants in the other packagings too.
      if (packaging !== 'plain' && !/^severity|^line as|^path|^quote/.test(v.name)) continue;
      out.push({ name: `${v.name} (${packaging})`, text: pack(review([a, B])), label: v.label ?? 'accept', ...(v.label === 'sendback' ? { says: SAYS_LINE } : { meaning }) });
    }
  }
  return out;
}

const CANONICAL = review([A, B]);
const canonicalText = pretty(CANONICAL);

const SHAPES: ReviewVariant[] = [
  { name: 'as the contract writes it', text: canonicalText, label: 'accept', meaning: MEANING },
  { name: 'on one line', text: JSON.stringify(CANONICAL), label: 'accept', meaning: MEANING },
  { name: 'with CRLF line endings', text: canonicalText.replace(/\n/g, '\r\n'), label: 'accept', meaning: MEANING },
  { name: 'with a BOM', text: `\uFEFF${canonicalText}`, label: 'accept', meaning: MEANING },
  { name: 'in a json fence', text: `\`\`\`json\n${canonicalText}\n\`\`\``, label: 'accept', meaning: MEANING },
  { name: 'in a bare fence', text: `\`\`\`\n${canonicalText}\n\`\`\``, label: 'accept', meaning: MEANING },
  { name: 'with a BOM and a fence', text: `\uFEFF\`\`\`json\n${canonicalText}\n\`\`\`\n`, label: 'accept', meaning: MEANING },
  { name: 'between prose, no fence', text: `Review of src/calc.js:\n\n${canonicalText}\n\nThat is all.`, label: 'accept', meaning: MEANING },
  { name: 'with // comments', text: canonicalText.replace('"issues": [', '"issues": [ // two findings').replace('"summary": {', '// counts\n  "summary": {'), label: 'accept', meaning: MEANING },
  { name: 'with a /* */ comment', text: `/* review by the critic */\n${canonicalText}`, label: 'accept', meaning: MEANING },
  { name: 'with trailing commas', text: canonicalText.replace(/"use i < n"/, '"use i < n",').replace(/"verdict": "issues_found"/, '"verdict": "issues_found",'), label: 'accept', meaning: MEANING },
  { name: 'with a raw line break in a string', text: canonicalText.replace('sum becomes NaN', 'sum\nbecomes NaN'), label: 'accept', meaning: MEANING },
  { name: 'under `findings`', text: pretty({ findings: [A, B], summary }), label: 'accept', meaning: MEANING },
  { name: 'under `Issues`', text: pretty({ Issues: [A, B], summary }), label: 'accept', meaning: MEANING },
  { name: 'under `FINDINGS`', text: pretty({ FINDINGS: [A, B] }), label: 'accept', meaning: MEANING },
  { name: 'in a wrapper object', text: pretty({ review: CANONICAL }), label: 'accept', meaning: MEANING },
  { name: 'in a wrapper with findings', text: pretty({ result: { findings: [A, B] } }), label: 'accept', meaning: MEANING },
  { name: 'as a top-level array', text: pretty([A, B]), label: 'accept', meaning: MEANING },
  { name: 'summary missing', text: pretty({ issues: [A, B] }), label: 'accept', meaning: MEANING },
  { name: 'summary as a sentence', text: pretty({ issues: [A, B], summary: 'Two problems in calc.js.' }), label: 'accept', meaning: MEANING },
  { name: 'summary verdict "fail"', text: pretty({ issues: [A, B], summary: { verdict: 'fail' } }), label: 'accept', meaning: MEANING },
  { name: 'summary counts wrong', text: pretty({ issues: [A, B], summary: { critical: 0, warning: 0, info: 3, verdict: 'issues_found' } }), label: 'accept', meaning: MEANING },
  { name: 'summary says clean with findings', text: pretty({ issues: [A, B], summary: { verdict: 'clean' } }), label: 'accept', meaning: MEANING },
  { name: 'extra keys on findings', text: pretty(review([{ ...A, confidence: 0.9, cwe: 'CWE-193' }, B])), label: 'accept', meaning: MEANING },
  { name: 'a reviewer key and a note', text: pretty({ reviewer: 'critic', notes: 'checked calc.js', ...CANONICAL }), label: 'accept', meaning: MEANING },
  { name: 'the shortest clean review', text: '{"issues": []}', label: 'accept', meaning: [] },
  { name: 'a clean review in a fence', text: '```json\n{"issues": [], "summary": {"verdict": "clean"}}\n```', label: 'accept', meaning: [] },
  { name: 'a clean review as an empty array', text: '[]', label: 'accept', meaning: [] },
  { name: 'a clean findings list', text: '{"findings": []}', label: 'accept', meaning: [] },
  { name: 'an info finding', text: pretty(review([{ ...B, severity: 'info' }])), label: 'accept', meaning: [{ ...MEANING[1]!, severity: 'info' }] },
  // Ambiguous: sent back, saying what was read.
  { name: 'two JSON blocks', text: `\`\`\`json\n${canonicalText}\n\`\`\`\nFor example:\n\`\`\`json\n{"issues": []}\n\`\`\``, label: 'sendback', says: /found 2 JSON blocks \(starting on lines 1 and \d+\)/ },
  { name: 'two JSON objects in prose', text: `${canonicalText}\n\nand the corrected one:\n\n${canonicalText}`, label: 'sendback', says: /found 2 JSON values/ },
  { name: 'issues as bare strings', text: pretty({ issues: ['src/calc.js:12 off by one', 'src/calc.js:3 division by zero'] }), label: 'sendback', says: /issues\[0\] is a string .*not an object/ },
  { name: 'a severity missing', text: pretty(review([without(A, 'severity'), B])), label: 'sendback', says: /issues\[0\] has no severity: add "severity"/ },
  { name: 'the template severity', text: pretty(review([{ ...A, severity: 'critical|warning|info' }, B])), label: 'sendback', says: /copied from the template/ },
  { name: 'an unknown severity', text: pretty(review([{ ...A, severity: 'urgent-ish' }, B])), label: 'sendback', says: /severity is "urgent-ish": write one of/ },
  { name: 'an unknown severity with an invisible character', text: pretty(review([{ ...A, severity: 'urgent\u200b' }, B])), label: 'sendback', says: /severity is "urgent<U\+200B>"/ },
  { name: 'a numeric severity', text: pretty(review([{ ...A, severity: 2 }, B])), label: 'sendback', says: /issues\[0\]\.severity is number 2: write it as a "string"/ },
  { name: 'a description missing', text: pretty(review([without(A, 'description'), B])), label: 'sendback', says: /issues\[0\] has no description/ },
  { name: 'a file missing', text: pretty(review([without(A, 'file'), B])), label: 'sendback', says: /issues\[0\] has no file/ },
  { name: 'a missing comma', text: canonicalText.replace('"line": 12,', '"line": 12'), label: 'sendback', says: /line \d+: a comma is missing before "description"/ },
  { name: 'an unclosed object', text: canonicalText.slice(0, -2), label: 'sendback', says: /ends before it is closed: add the missing \}/ },
  { name: 'single quotes', text: canonicalText.replace('"suggestion": "use i < n"', "\"suggestion\": 'use i < n'"), label: 'sendback', says: /double quotes/ },
  { name: 'an unquoted key', text: canonicalText.replace('"category": "off-by-one"', 'category: "off-by-one"'), label: 'either', meaning: MEANING, says: /the key category needs double quotes/ },
  { name: 'a broken fence', text: `\`\`\`json\n${canonicalText.replace('"line": 12,', '"line": 12')}\n\`\`\``, label: 'sendback', says: /line \d+: a comma is missing.*inside the ``` fence on line 1/ },
  { name: 'an invisible character in the JSON', text: canonicalText.replace('"issues"', '\u200b"issues"'), label: 'sendback', says: /U\+200B/ },
  { name: 'no JSON at all', text: 'I found two problems: an off-by-one at src/calc.js:12 and a division by zero at line 3.', label: 'sendback', says: /no JSON object was found/ },
  { name: 'only a summary', text: pretty({ summary }), label: 'sendback', says: /found the keys `summary`, expected `issues`/ },
  { name: 'issues_found with nothing listed', text: pretty({ issues: [], summary: { verdict: 'issues_found' } }), label: 'sendback', says: /issues\[\] is empty/ },
  { name: 'issues as an object', text: pretty({ issues: A }), label: 'sendback', says: /found `issues` as an object, expected a list/ },
  { name: 'an unreadable evidence', text: pretty(review([{ ...A, evidence: { code: 1 } }, B])), label: 'sendback', says: /issues\[0\]\.evidence is an object: write it as a "string"/ },
];

export function reviewVariants(repo: string): ReviewVariant[] {
  return [...SHAPES, ...findingVariants(repo)];
}
