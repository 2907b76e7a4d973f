/**
 * What the reader of models' files says: the interpretations it records (read.*), and the problems it
 * sends back (problem.*, syntax.*), each saying what was read, what is wrong and the change to make.
 * Never a parser's offset; an invisible character is named by its code point. The send-backs that wrap
 * these are in core/prompts.ts.
 */
const list = (items: readonly (string | number)[]): string => (items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`);
const q = (key: string): string => `\`${shownRaw(key)}\``;
/** Invisible characters named by their code point: a model cannot act on what it cannot see. */
const shownRaw = (text: string): string => text.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, (ch) => `<U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}>`);
/** A value the model wrote, quoted as JSON, its invisible characters named. */
const shown = (text: string): string => shownRaw(JSON.stringify(text));

/** A value as a message describes it: its kind, and a string's first characters. */
export const valueKind = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v === 'string' ? `a string (${shown(v.slice(0, 40))})` : typeof v === 'object' ? 'an object' : `${typeof v} ${String(v)}`;

/** Interpretations: what was read other than as the contract writes it. */
export const read = {
  bom: 'removed a byte-order mark at the start',
  fence: (line: number) => `read the JSON inside the \`\`\` fence on line ${line}`,
  prose: 'read the JSON object between the prose around it',
  comments: 'ignored comments',
  trailingCommas: 'ignored trailing commas',
  rawBreaks: 'read raw line breaks or tabs inside strings as \\n and \\t',
  key: (found: string, meant: string) => `read ${q(found)} as ${q(meant)}`,
  topArray: 'read a top-level array as the list of issues',
  wrapper: (key: string) => `read the review inside ${q(key)}`,
  summaryFromFindings: (why: 'missing' | 'shape') => `summary ${why === 'missing' ? 'missing' : 'not in the expected shape'}: the findings decide`,
  severity: (found: string, meant: string) => `severity ${shown(found)} read as ${meant}`,
  line: (found: string, line: number | null) => (line === null ? `line ${found} read as no line (the quote's line is taken)` : `line ${found} read as ${line}`),
  lineFromKey: (key: string, line: number) => `line taken from ${q(key)} (${line})`,
  lineFromPath: (line: number) => `line ${line} taken from the path`,
  path: (found: string, meant: string) => `path ${shown(found)} read as ${meant}`,
  evidenceLines: 'evidence given as an array of lines, joined',
  confidence: (found: string, read: number | null) => (read === null ? `confidence ${found} is not a score from 0 to 100: read as not scored` : `confidence ${found} read as ${read}`),
  category: 'no category given: read as "general"',
  status: (found: string, meant: string) => `status ${shown(found)} read as ${meant}`,
  kind: 'no kind given for a fixed answer: read as "patch"',
  fingerprint: (found: string, meant: string) => `fingerprint ${shown(found)} read as ${meant}`,
  answersMap: 'read the answers given as a map by fingerprint',
} as const;

/** Syntax errors, each as "line N: <what>" once placed. */
export const syntax = {
  end: 'the end of the text',
  lineBreak: 'a line break',
  invisible: (code: string) => `an invisible character (${code}); delete it`,
  openComment: 'a /* comment is never closed: add */ or remove the comment',
  tooDeep: 'values nest more than 512 deep',
  singleQuotes: "strings need double quotes (\"), not single quotes (')",
  endsEarly: 'the text ends where a value was expected',
  expectedValue: (found: string) => `expected a value (a "string", a number, true, false, null, { or [), found ${found}`,
  bareKey: (key: string) => `the key ${key} needs double quotes: write "${key}"`,
  expectedKey: (found: string) => `expected a "key" in double quotes or }, found ${found}`,
  colon: (key: string, found: string) => `a colon is missing after the key "${key}" (found ${found}): write "${key}": value`,
  unclosed: (close: string) => `the JSON ends before it is closed: add the missing ${close} (and any other unclosed bracket)`,
  missingComma: (key: string) => `a comma is missing before ${key ? `"${key}"` : 'this key'}: add , after the value before it`,
  missingCommaItem: 'a comma is missing between two items of a list: add , after the item before it',
  wrongClose: (found: string, want: string) => `found ${found} where ${want} closes the value: use ${want}, or add the missing bracket before`,
  afterValue: (found: string, close: string) => `found ${found} after a value: a , or ${close} must follow it`,
  badEscape: (found: string) => `${found} cannot follow a backslash in a JSON string: write \\\\ for a backslash`,
  openString: 'this string is never closed: add the closing "',
  badString: 'this string cannot be read: write a plain "string" with \\" for a quote and \\\\ for a backslash',
  after: (found: string) => `found ${found} after the JSON inside the fence: keep only the JSON in the fence`,
} as const;

/** Problems sent back. Each says what was read, then what to change. */
export const problem = {
  noJson: (invisible: readonly string[]) =>
    `no JSON object was found in the file${invisible.length ? ` (it holds invisible characters ${list(invisible)}: delete them)` : ''}: write the JSON object alone, starting with {`,
  several: (lines: readonly number[], fenced: boolean) =>
    `found ${lines.length} JSON ${fenced ? 'blocks' : 'values'} (starting on lines ${list(lines)}): it is not clear which is the review; write one JSON object alone, with every finding in its "issues" list`,
  syntax: (error: { line: number; what: string }, fenceLine: number | null) =>
    `the JSON is not valid: line ${error.line}: ${error.what}${fenceLine !== null ? ` (the JSON is inside the \`\`\` fence on line ${fenceLine}: you may also remove the fence)` : ''}`,
  topLevel: (found: string) => `found ${found} at the top level: write one JSON object with an "issues" list`,
  noIssues: (keys: readonly string[]) =>
    keys.length === 0 ? 'found an empty object: write "issues": [] when you found nothing' : `found the keys ${list(keys.slice(0, 8).map(q))}, expected \`issues\`: put the list of findings in "issues" ("issues": [] when you found nothing)`,
  issuesNotList: (key: string, found: string) => `found ${q(key)} as ${found}, expected a list: write "issues": [ {…}, … ]`,
  issueNotObject: (i: number, found: string) => `issues[${i}] is ${found}, not an object: write each finding as {"severity": …, "category": …, "file": …, "line": …, "description": …, "evidence": …}`,
  severityMissing: (i: number) => `issues[${i}] has no severity: add "severity": "critical", "warning" or "info"`,
  severityTemplate: (i: number, found: string) => `issues[${i}].severity is ${shown(found)}, copied from the template: choose one of "critical", "warning" or "info"`,
  severityUnknown: (i: number, found: string) => `issues[${i}].severity is ${shown(found)}: write one of "critical", "warning" or "info"`,
  fieldMissing: (i: number, field: string, how: string) => `issues[${i}] has no ${field}: add "${field}": ${how}`,
  fieldNotText: (i: number, field: string, found: string) => `issues[${i}].${field} is ${found}: write it as a "string"`,
  lineUnreadable: (i: number, found: string) => `issues[${i}].line is ${found}: write the line number (e.g. 12), or null for the whole file`,
  verdictEmpty: 'summary.verdict is "issues_found" but issues[] is empty: list every issue, or set the verdict to "clean"',
  fixesMissing: (keys: readonly string[]) =>
    keys.length === 0 ? 'found an empty object: write {"fixes": [ … ]} with one answer per finding' : `found the keys ${list(keys.slice(0, 8).map(q))}, expected \`fixes\`: put one answer per finding in "fixes"`,
  fixNotObject: (i: number, found: string) => `fixes[${i}] is ${found}, not an object: write {"fingerprint": …, "status": …, "kind": …, "reason": …}`,
  fixStatusMissing: (i: number) => `fixes[${i}] has no status: add "status": "fixed", "declined", "could_not_fix" or "escalate"`,
  fixStatusUnknown: (i: number, found: string) =>
    `fixes[${i}].status is ${shown(found)}: write one of "fixed", "declined", "could_not_fix" or "escalate" (a partial fix is "could_not_fix" with a reason saying what is left)`,
  fixStatusTemplate: (i: number, found: string) => `fixes[${i}].status is ${shown(found)}, copied from the template: choose one of "fixed", "declined", "could_not_fix" or "escalate"`,
  fixKindUnknown: (i: number, found: string) => `fixes[${i}].kind is ${shown(found)}: write "patch" or "structural"`,
  fingerprintMissing: (i: number) => `fixes[${i}] has no fingerprint: add "fingerprint" from r2-findings.json`,
  fingerprintAmbiguous: (found: string, matches: readonly string[]) => `the fingerprint ${shown(found)} starts ${matches.length} open findings (${list(matches)}): write the whole fingerprint`,
} as const;
