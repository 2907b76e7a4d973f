/**
 * The stated policy for reading what a reviewer wrote, before the zod schema checks it: what is
 * unambiguous is read as meant and noted (per review, and per finding), what is ambiguous is a problem
 * sent back. Normalise first, then validate (reviewer-output.ts). Pure.
 *
 * Unambiguous: `findings` (any case) for `issues`, a wrapper object, a top-level array of findings, a
 * summary missing or in another shape (the findings decide), severity synonyms, lines as "12-13", "L12",
 * "12:3", [12, 13] or line_start, key synonyms, evidence as an array of lines, a path with a `:line`
 * suffix, backticks or file://. Ambiguous: several JSON values, issues as bare strings, a severity
 * missing, the template's `critical|warning|info` copied as a value.
 */
import * as texts from './reader-texts';

export type Interpreted = Record<number, string[]>;
export type ReviewRead = { ok: true; data: Record<string, unknown>; notes: string[]; interpreted: Interpreted } | { ok: false; problem: string };

/** A key as compared: case, `_`, `-` and blanks aside. */
const keyOf = (key: string): string => key.toLowerCase().replace(/[\s_-]+/g, '');

const ISSUE_LISTS = ['issues', 'findings', 'problems', 'defects', 'bugs', 'reviewfindings'];
const FIELDS: Record<'severity' | 'category' | 'file' | 'line' | 'description' | 'evidence' | 'suggestion' | 'confidence', string[]> = {
  severity: ['severity', 'level', 'priority', 'sev', 'impact'],
  category: ['category', 'type', 'kind', 'rule', 'ruleid', 'tag'],
  file: ['file', 'path', 'filepath', 'filename', 'location'],
  line: ['line', 'linenumber', 'lineno', 'linestart', 'startline', 'lines', 'linerange', 'range'],
  description: ['description', 'message', 'details', 'detail', 'explanation', 'problem', 'issue', 'text', 'title', 'summary'],
  evidence: ['evidence', 'code', 'snippet', 'quote', 'codesnippet', 'excerpt', 'source'],
  suggestion: ['suggestion', 'recommendation', 'fix', 'remediation', 'suggestedfix', 'proposal'],
  confidence: ['confidence', 'certainty', 'confidencescore'],
};

export type Severity = 'critical' | 'warning' | 'info';
/** Severity words, lower case, and the severity each is read as. */
export const SEVERITY_TABLE: Record<string, Severity> = {
  critical: 'critical', crit: 'critical', blocker: 'critical', blocking: 'critical', high: 'critical', error: 'critical', severe: 'critical', fatal: 'critical', p0: 'critical', p1: 'critical', sev0: 'critical', sev1: 'critical',
  warning: 'warning', warn: 'warning', medium: 'warning', major: 'warning', moderate: 'warning', p2: 'warning', sev2: 'warning',
  info: 'info', information: 'info', informational: 'info', low: 'info', minor: 'info', nit: 'info', nitpick: 'info', trivial: 'info', suggestion: 'info', note: 'info', style: 'info', p3: 'info', sev3: 'info',
};
const SEVERITY_EMOJI: [RegExp, Severity][] = [
  [/\u{1F534}|\u{1F6A8}|\u{1F6D1}|\u2757|\u203C/u, 'critical'], // 🔴 🚨 🛑 ❗ ‼
  [/\u{1F7E0}|\u{1F7E1}|\u26A0/u, 'warning'], // 🟠 🟡 ⚠
  [/\u{1F535}|\u{1F7E2}|\u26AA|\u2139|\u{1F4A1}/u, 'info'], // 🔵 🟢 ⚪ ℹ 💡
];

export function readSeverity(value: string): Severity | 'template' | null {
  const trimmed = value.trim();
  if (trimmed.includes('|') || /^<.*>$/.test(trimmed)) return 'template';
  const word = trimmed.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
  const direct = SEVERITY_TABLE[word] ?? SEVERITY_TABLE[word.split(' ')[0] ?? ''] ?? SEVERITY_TABLE[word.split(' ').pop() ?? ''];
  if (direct) return direct;
  for (const [emoji, severity] of SEVERITY_EMOJI) if (emoji.test(trimmed)) return severity;
  return null;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const kindOf = texts.valueKind;

/** The first key of `obj` that is one of `names` (compared as keyOf). */
function pick(obj: Record<string, unknown>, names: readonly string[]): { key: string; value: unknown } | null {
  const keys = Object.keys(obj);
  for (const name of names) {
    const key = keys.find((k) => keyOf(k) === name);
    if (key !== undefined && obj[key] !== undefined && obj[key] !== null && obj[key] !== '') return { key, value: obj[key] };
  }
  return null;
}

/** Where the issues are: the object itself, or the one object it wraps. */
function findIssues(data: Record<string, unknown>, notes: string[]): { host: Record<string, unknown>; key: string } | null {
  const own = pick(data, ISSUE_LISTS) ?? (Object.keys(data).some((k) => ISSUE_LISTS.includes(keyOf(k))) ? { key: Object.keys(data).find((k) => ISSUE_LISTS.includes(keyOf(k)))!, value: [] } : null);
  if (own) return { host: data, key: own.key };
  const inner = Object.entries(data).filter(([, v]) => isObject(v) && pick(v, ISSUE_LISTS) !== null);
  if (inner.length === 1) {
    notes.push(texts.read.wrapper(inner[0]![0]));
    const host = inner[0]![1] as Record<string, unknown>;
    return { host, key: pick(host, ISSUE_LISTS)!.key };
  }
  return null;
}

/** A review as a plain object in the contract's shape, or the first thing wrong with it. */
export function normaliseReview(value: unknown): ReviewRead {
  const notes: string[] = [];
  let data: Record<string, unknown>;
  if (Array.isArray(value)) {
    if (!value.every(isObject)) return { ok: false, problem: texts.problem.topLevel('a list that holds other things than findings') };
    data = { issues: value };
    notes.push(texts.read.topArray);
  } else if (isObject(value)) {
    data = value;
  } else {
    return { ok: false, problem: texts.problem.topLevel(kindOf(value)) };
  }
  const found = findIssues(data, notes);
  if (!found) return { ok: false, problem: texts.problem.noIssues(Object.keys(data)) };
  const { host, key } = found;
  if (key !== 'issues') notes.push(texts.read.key(key, 'issues'));
  const listed = host[key] === null || host[key] === undefined ? [] : host[key];
  if (!Array.isArray(listed)) return { ok: false, problem: texts.problem.issuesNotList(key, kindOf(listed)) };
  const interpreted: Interpreted = {};
  const issues: unknown[] = new Array(listed.length);
  for (let i = 0; i < listed.length; i++) {
    const issue = listed[i];
    if (isCanonical(issue)) {
      issues[i] = issue;
      continue;
    }
    const read = normaliseFinding(issue, i);
    if (!read.ok) return read;
    issues[i] = read.finding;
    if (read.notes.length) interpreted[i] = read.notes;
  }
  const out: Record<string, unknown> = { ...host, issues };
  if (host !== data && data.reviewer !== undefined && out.reviewer === undefined) out.reviewer = data.reviewer;
  if (key !== 'issues') delete out[key];
  const summary = pick(host, ['summary']);
  if (!summary || !isObject(summary.value) || !('verdict' in summary.value) || (summary.value.verdict !== 'clean' && summary.value.verdict !== 'issues_found')) {
    notes.push(texts.read.summaryFromFindings(summary ? 'shape' : 'missing'));
    out.summary = { verdict: issues.length > 0 ? 'issues_found' : 'clean' };
  } else {
    out.summary = countsOnly(summary.value);
  }
  return { ok: true, data: out, notes, interpreted };
}

/** A summary's counts as the schema reads them: a count that is not a whole number ≥ 0 is left out (the findings decide). */
function countsOnly(summary: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { verdict: summary.verdict };
  for (const k of ['critical', 'warning', 'info']) if (Number.isSafeInteger(summary[k]) && (summary[k] as number) >= 0) out[k] = summary[k];
  return out;
}

const PLAIN_PATH = /^[^`'"\s:#][^`:#]*$/;
const CONTRACT_KEYS: ReadonlySet<string> = new Set(['severity', 'category', 'file', 'line', 'description', 'evidence', 'suggestion', 'confidence']);
/** A finding exactly as the contract writes it (the common case): nothing to read otherwise. */
function isCanonical(issue: unknown): boolean {
  if (!isObject(issue)) return false;
  // Another key may be a synonym (`code` for the evidence): such a finding is read key by key.
  for (const key in issue) if (!CONTRACT_KEYS.has(key)) return false;
  const { severity, category, file, line, description, evidence, suggestion, confidence } = issue;
  return (
    (confidence === undefined || isScore(confidence)) &&
    (severity === 'critical' || severity === 'warning' || severity === 'info') &&
    typeof category === 'string' && category.trim() !== '' &&
    typeof file === 'string' && PLAIN_PATH.test(file) && !file.startsWith('file:') &&
    (line === null || (Number.isSafeInteger(line) && (line as number) > 0)) &&
    typeof description === 'string' && description.trim() !== '' &&
    (evidence === undefined || typeof evidence === 'string') &&
    (suggestion === undefined || typeof suggestion === 'string')
  );
}

type FindingRead = { ok: true; finding: Record<string, unknown>; notes: string[] } | { ok: false; problem: string };

function normaliseFinding(issue: unknown, i: number): FindingRead {
  if (!isObject(issue)) return { ok: false, problem: texts.problem.issueNotObject(i, kindOf(issue)) };
  const notes: string[] = [];
  const field = (name: keyof typeof FIELDS): { key: string; value: unknown } | null => {
    const got = pick(issue, FIELDS[name]);
    if (got && got.key !== name) notes.push(texts.read.key(got.key, name));
    return got;
  };
  // A location object ({file, line}) holds both.
  const location = pick(issue, ['location']);
  const nested = location && isObject(location.value) ? location.value : null;
  if (nested) notes.push(texts.read.key(location!.key, 'file and line'));

  const severity = field('severity');
  if (!severity) return { ok: false, problem: texts.problem.severityMissing(i) };
  let sev: Severity;
  if (typeof severity.value === 'string') {
    const read = readSeverity(severity.value);
    if (read === 'template') return { ok: false, problem: texts.problem.severityTemplate(i, severity.value) };
    if (read === null) return { ok: false, problem: texts.problem.severityUnknown(i, severity.value) };
    if (read !== severity.value) notes.push(texts.read.severity(severity.value, read));
    sev = read;
  } else return { ok: false, problem: texts.problem.fieldNotText(i, 'severity', kindOf(severity.value)) };

  const category = field('category');
  let cat = typeof category?.value === 'string' ? category.value.trim() : '';
  if (category && typeof category.value !== 'string') return { ok: false, problem: texts.problem.fieldNotText(i, 'category', kindOf(category.value)) };
  if (!cat) {
    cat = 'general';
    notes.push(texts.read.category);
  }

  const fileField = nested ? (pick(nested, FIELDS.file) ?? field('file')) : field('file');
  if (!fileField || (typeof fileField.value === 'string' && fileField.value.trim() === '')) return { ok: false, problem: texts.problem.fieldMissing(i, 'file', '"src/…" (the path from the project root)') };
  if (typeof fileField.value !== 'string') return { ok: false, problem: texts.problem.fieldNotText(i, 'file', kindOf(fileField.value)) };
  const path = readPath(fileField.value);
  if (path.file !== fileField.value.trim()) notes.push(texts.read.path(fileField.value, path.file));

  const lineField = nested ? (pick(nested, FIELDS.line) ?? field('line')) : field('line');
  let line: number | null = null;
  if (lineField) {
    const read = readLine(lineField.value);
    if (read === 'unreadable') return { ok: false, problem: texts.problem.lineUnreadable(i, kindOf(lineField.value)) };
    line = read;
    const plain = Number.isSafeInteger(lineField.value) && (lineField.value as number) > 0;
    if (!plain) notes.push(texts.read.line(JSON.stringify(lineField.value), line));
  } else if ('line' in issue && issue.line === 0) {
    notes.push(texts.read.line('0', null));
  }
  if (line === null && path.line !== null) {
    line = path.line;
    notes.push(texts.read.lineFromPath(path.line));
  }

  const description = field('description');
  if (!description || (typeof description.value === 'string' && description.value.trim() === '')) return { ok: false, problem: texts.problem.fieldMissing(i, 'description', '"what is wrong"') };
  if (typeof description.value !== 'string') return { ok: false, problem: texts.problem.fieldNotText(i, 'description', kindOf(description.value)) };

  const evidence = field('evidence');
  let quote = '';
  if (evidence) {
    if (typeof evidence.value === 'string') quote = evidence.value;
    else if (Array.isArray(evidence.value) && evidence.value.every((l) => typeof l === 'string')) {
      quote = evidence.value.join('\n');
      notes.push(texts.read.evidenceLines);
    } else return { ok: false, problem: texts.problem.fieldNotText(i, 'evidence', kindOf(evidence.value)) };
  }
  const suggestion = field('suggestion');
  let advice = '';
  if (suggestion) {
    if (typeof suggestion.value !== 'string') return { ok: false, problem: texts.problem.fieldNotText(i, 'suggestion', kindOf(suggestion.value)) };
    advice = suggestion.value;
  }
  // Optional: a score read other than as written is noted; one that cannot be read is noted and left out (not scored).
  const confidenceField = field('confidence');
  const score = confidenceField ? readConfidence(confidenceField.value) : null;
  if (confidenceField && (score === null || !(isScore(confidenceField.value) && score === confidenceField.value))) notes.push(texts.read.confidence(JSON.stringify(confidenceField.value), score));
  return { ok: true, finding: { severity: sev, category: cat, file: path.file, line, description: description.value, evidence: quote, suggestion: advice, ...(score !== null ? { confidence: score } : {}) }, notes };
}

const isScore = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) <= 100;
const CONFIDENCE_WORDS: Record<string, number> = { certain: 100, high: 75, medium: 50, moderate: 50, low: 25 };

/**
 * A finding's confidence as written, on the 0–100 scale: a whole number as is; a fraction between 0 and 1
 * (0.85) times 100; a number in a string ("85", "85%", "0.85"); high, medium, low as 75, 50, 25. null for
 * anything else (over 100, negative, another word): read as not scored.
 */
export function readConfidence(value: unknown): number | null {
  if (typeof value === 'string') {
    const s = value.trim().toLowerCase();
    if (Object.hasOwn(CONFIDENCE_WORDS, s)) return CONFIDENCE_WORDS[s]!;
    const m = /^(\d+(?:\.\d+)?|\.\d+)\s*(%)?$/.exec(s);
    if (!m) return null;
    const n = Number(m[1]);
    return m[2] ? (n <= 100 ? Math.round(n) : null) : readConfidence(n);
  }
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 100) return null;
  return value > 0 && value < 1 ? Math.round(value * 100) : Math.round(value);
}

/**
 * A path as written, read as the project file it names: backticks and quotes, a file:// scheme and a
 * `:line` (`:line:column`, `#Lline`) suffix come off. A leading `/`, a repository-folder prefix and a
 * bare file name are resolved against the project by the shell (shell/sources.ts).
 */
export function readPath(written: string): { file: string; line: number | null } {
  let file = written.trim().replace(/^[`'"]+|[`'"]+$/g, '').trim();
  file = file.replace(/^file:\/\/(?:localhost)?/i, '');
  let line: number | null = null;
  const suffix = /(?::(\d+)(?:[:-]\d+)*|#L(\d+)(?:-L?\d+)?|\s*\((?:line|l\.?)\s*(\d+)\))$/i.exec(file);
  if (suffix && suffix.index > 0) {
    const n = Number(suffix[1] ?? suffix[2] ?? suffix[3]);
    file = file.slice(0, suffix.index);
    line = n > 0 ? n : null;
  }
  return { file, line };
}

/** A line as written: a number, "12", "L12", "12-13", "12:3", "line 12", [12, 13], {start: 12}; null for none; 'unreadable' otherwise. */
export function readLine(value: unknown): number | null | 'unreadable' {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return Number.isSafeInteger(value) && value > 0 ? value : value === 0 ? null : 'unreadable';
  if (typeof value === 'string') {
    const s = value.trim();
    // \u2013 is an en dash, \u2014 an em dash (escaped: the bundles stay ASCII, see test/hooks/hook-startup.test.ts).
    if (s === '' || /^(?:n\/?a|none|null|-|\u2014|whole file|entire file|all)$/i.test(s)) return null;
    const m = /^(?:lines?\s*)?L?(\d+)((?:\s*(?:-|\u2013|\u2014|to|:|,)\s*L?\d+)*)$/i.exec(s);
    if (!m) return 'unreadable';
    const n = Number(m[1]);
    return n > 0 ? n : null;
  }
  if (Array.isArray(value)) return value.length === 0 ? null : readLine(value[0]);
  if (isObject(value)) {
    const start = pick(value, ['start', 'from', 'line', 'begin', 'startline']);
    return start ? readLine(start.value) : 'unreadable';
  }
  return 'unreadable';
}
