import * as z from 'zod/mini';
import { thousands } from './text';
import { count, describeZodError, preprocess } from './zod';
import { readJson } from './lenient-json';
import { normaliseReview, readConfidence, type Interpreted } from './review-reader';
import * as readerTexts from './reader-texts';

export { describeZodError };

/**
 * One reviewer's findings: `.agents/tmp/phases/review-N/r1-<reviewer>.json`. The object schemas are
 * built on first use (z.lazy): the hooks that never read a review never pay for building them.
 */
export const Severity = z.enum(['critical', 'warning', 'info']);
export type Severity = z.infer<typeof Severity>;

/** Common synonyms are read as the three severities; anything else is refused with the allowed values. */
const SEVERITY_WORDS: Record<string, Severity> = {
  critical: 'critical', blocker: 'critical', high: 'critical', error: 'critical',
  warning: 'warning', warn: 'warning', medium: 'warning', major: 'warning', moderate: 'warning',
  info: 'info', low: 'info', minor: 'info', nit: 'info', suggestion: 'info', note: 'info',
};
const severity = preprocess((v) => (typeof v === 'string' ? (SEVERITY_WORDS[v.trim().toLowerCase()] ?? v) : v), Severity);
/** A string with blanks trimmed that must not be empty, and what to say when it is. */
const text = (message: string) => z.string().check(z.trim(), z.minLength(1, message));

export const Finding = z.lazy(() =>
  z.object({
    severity,
    category: text('must name a category, e.g. "logic-error"'),
    file: text('must be a path relative to the project root'),
    /** null (or absent, or 0) for a whole-file finding. */
    line: preprocess((v) => {
      const n = typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : v;
      return n === undefined || n === 0 ? null : n;
    }, z.nullable(z.int().check(z.positive()))),
    description: text('must say what is wrong'),
    evidence: z._default(z.string(), ''),
    suggestion: z._default(z.string(), ''),
    /** How sure the reviewer is, 0–100 (review-reader.ts reads other forms); absent: not scored. */
    confidence: z.optional(preprocess((v) => readConfidence(v) ?? undefined, z.optional(z.int().check(z.minimum(0), z.maximum(100))))),
  }),
);
export type Finding = z.infer<typeof Finding>;

/** From iteration 2 a reviewer may answer for earlier findings, by fingerprint. */
export const PreviousMark = z.lazy(() =>
  z.object({
    fingerprint: z.string().check(z.minLength(1)),
    status: preprocess((v) => (typeof v === 'string' ? v.trim().toUpperCase().replace(/[\s-]+/g, '_') : v), z.enum(['FIXED', 'PARTIAL', 'NOT_FIXED'])),
    note: z.optional(z.string()),
  }),
);
export type PreviousMark = z.infer<typeof PreviousMark>;

/** What the critic recommends for an escalated class. */
export const Recommendation = z.enum(['structural', 'patch']);

/** The critic's answer for an escalated finding class (escalation.json): what the failed fixes share. */
export const Diagnosis = z.lazy(() =>
  z.object({
    class: text('must name the class id from escalation.json'),
    rootCause: text('must say what all the failed attempts share'),
    fix: text('must name the root-level fix'),
    recommend: z._default(Recommendation, 'structural'),
  }),
);
export type Diagnosis = z.infer<typeof Diagnosis>;

export const ReviewerOutput = z.lazy(() =>
  z.object({
    reviewer: z.optional(z.string()),
    issues: z.array(Finding),
    previous: z._default(z.array(PreviousMark), []),
    diagnosis: z._default(z.array(Diagnosis), []),
    summary: z.object({
      critical: z.optional(count()),
      warning: z.optional(count()),
      info: z.optional(count()),
      verdict: z.enum(['clean', 'issues_found']),
    }),
  }),
);
export type ReviewerOutput = z.infer<typeof ReviewerOutput>;

export type ParsedReview =
  | {
      ok: true;
      issues: Finding[];
      previous: PreviousMark[];
      diagnosis: Diagnosis[];
      counts: Counts;
      verdict: 'clean' | 'issues_found';
      notes: string[];
      /** What was read other than as the contract writes it, by the finding's index (none: as written). */
      interpreted?: Interpreted;
    }
  | { ok: false; error: string };

/** Findings by severity. */
export interface Counts {
  critical: number;
  warning: number;
  info: number;
}

export function countBySeverity(issues: readonly { severity: Severity }[]): Counts {
  // Counted in locals: a store keyed by the severity costs a keyed lookup per finding in a hook's cold code.
  let critical = 0;
  let warning = 0;
  let info = 0;
  for (const { severity } of issues) {
    if (severity === 'critical') critical++;
    else if (severity === 'warning') warning++;
    else info++;
  }
  return { critical, warning, info };
}

/**
 * The last few texts validated, and their results: within one hook the fifth review is validated by
 * the reviewer's stop and again by the aggregation. Results are read, never changed, by their users.
 */
const parsed = new Map<string, ParsedReview>();

/** Validates a reviewer's JSON text. The issue list wins over the summary's counts. */
export function parseReview(text: string): ParsedReview {
  let result = parsed.get(text);
  if (!result) {
    if (parsed.size >= 8) parsed.delete(parsed.keys().next().value!);
    parsed.set(text, (result = parseReviewOnce(text)));
  }
  return result;
}

/**
 * The most a review may hold: past this the hooks' work on it (validating, grounding, the round's
 * verdict over five such reviews) no longer fits a hook's time and memory, and nobody reads the rest.
 * A reviewer over either is told so, with what to do, like any other invalid output.
 */
export const MAX_FINDINGS = 5_000;
export const MAX_REVIEW_CHARS = 16 * 1024 * 1024;

function parseReviewOnce(text: string): ParsedReview {
  if (text.length > MAX_REVIEW_CHARS) {
    return { ok: false, error: `the review is ${(text.length / 1024 / 1024).toFixed(1)} MB long: a review may be at most ${MAX_REVIEW_CHARS / 1024 / 1024} MB; list the most important findings, each briefly` };
  }
  const json = readJson(text);
  if (!json.ok) return { ok: false, error: json.problem };
  const read = normaliseReview(json.value);
  if (!read.ok) return { ok: false, error: read.problem };
  const data = read.data;
  const listed = data.issues as unknown[];
  if (listed.length > MAX_FINDINGS) {
    return { ok: false, error: `issues lists ${thousands(listed.length)} findings: a review may list at most ${thousands(MAX_FINDINGS)}; keep the most important ones` };
  }
  const result = validateReview(data);
  if (!result.success) return { ok: false, error: describeZodError(result.error) };
  const { issues, summary, previous, diagnosis } = result.data;
  if (summary.verdict === 'issues_found' && issues.length === 0) return { ok: false, error: readerTexts.problem.verdictEmpty };
  const counts = countBySeverity(issues);
  const notes: string[] = [...json.notes, ...read.notes];
  if (summary.verdict === 'clean' && issues.length > 0 && !read.notes.some((n) => n.startsWith('summary '))) {
    notes.push(`summary said "clean" with ${issues.length} issue(s) listed; counted as issues_found`);
  }
  for (const key of ['critical', 'warning', 'info'] as const) {
    const said = summary[key];
    if (said !== undefined && said !== counts[key]) notes.push(`summary.${key} said ${said}, the list has ${counts[key]}`);
  }
  const interpreted = Object.keys(read.interpreted).length > 0 ? { interpreted: read.interpreted } : {};
  return { ok: true, issues, previous, diagnosis, counts, verdict: issues.length > 0 ? 'issues_found' : 'clean', notes, ...interpreted };
}

/** A JSON object as JSON.parse makes it: the only kind the fast paths below read. */
const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype;
const isCount = (v: unknown): boolean => v === undefined || (Number.isSafeInteger(v) && (v as number) >= 0);

/**
 * ReviewerOutput.safeParse, with the findings read by canonicalFinding when every one of them is already
 * in the form the schema gives (the usual case): zod's general parse of a finding costs about 10 µs in a
 * hook's cold process, and a review may list thousands. The rest of the review still goes through zod,
 * and a review with any other finding goes through zod whole, so errors read exactly as before.
 */
function validateReview(data: unknown): ReturnType<typeof ReviewerOutput.safeParse> {
  const issues = (data as { issues?: unknown } | null)?.issues;
  const canonical = Array.isArray(issues) ? canonicalFindings(issues) : null;
  if (canonical === null) return ReviewerOutput.safeParse(data);
  // The rest in its usual form is read by hand too: building the schema costs a few milliseconds of a reviewer's stop.
  const usual = canonicalRest(data);
  if (usual !== null) return { success: true, data: { ...usual, issues: canonical } } as ReturnType<typeof ReviewerOutput.safeParse>;
  const rest = ReviewerOutput.safeParse({ ...(data as object), issues: [] });
  return rest.success ? { ...rest, data: { ...rest.data, issues: canonical } } : rest;
}

/**
 * What ReviewerOutput gives for a review's all but its issues, when they are in the usual form of a
 * first round: no earlier marks, no diagnoses, a summary of counts and a verdict. null for anything else,
 * which zod then reads or refuses. test/unit/reviewer-output.test.ts checks on generated reviews that the two agree.
 */
export function canonicalRest(data: unknown): Omit<ReviewerOutput, 'issues'> | null {
  if (!isPlainObject(data)) return null;
  const { reviewer, previous, diagnosis, summary } = data;
  if (!(reviewer === undefined || typeof reviewer === 'string')) return null;
  if (!(previous === undefined || (Array.isArray(previous) && previous.length === 0))) return null;
  if (!(diagnosis === undefined || (Array.isArray(diagnosis) && diagnosis.length === 0))) return null;
  if (!isPlainObject(summary)) return null;
  const { critical, warning, info, verdict } = summary;
  if ((verdict !== 'clean' && verdict !== 'issues_found') || !isCount(critical) || !isCount(warning) || !isCount(info)) return null;
  // A key that is there stays there, as zod keeps it (even when it holds undefined, which JSON cannot).
  const counted: ReviewerOutput['summary'] = { verdict };
  if ('critical' in summary) counted.critical = critical as number;
  if ('warning' in summary) counted.warning = warning as number;
  if ('info' in summary) counted.info = info as number;
  return { ...('reviewer' in data ? { reviewer: reviewer as string | undefined } : {}), previous: [], diagnosis: [], summary: counted };
}

function canonicalFindings(issues: readonly unknown[]): Finding[] | null {
  const out: Finding[] = [];
  for (const issue of issues) {
    const finding = canonicalFinding(issue);
    if (finding === null) return null;
    out.push(finding);
  }
  return out;
}

const SEVERITIES: ReadonlySet<unknown> = new Set(Severity.options);
const trimmedText = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);
const optionalText = (v: unknown): string | null => (v === undefined ? '' : typeof v === 'string' ? v : null);

/**
 * What Finding.parse gives for an issue that needs none of its readings (a severity as named, a line
 * as a positive integer or null); null for anything else, which zod then reads or refuses.
 * test/unit/reviewer-output.test.ts checks on generated issues that the two agree.
 */
export function canonicalFinding(issue: unknown): Finding | null {
  if (!isPlainObject(issue)) return null;
  const { severity, category, file, line, description, evidence, suggestion, confidence } = issue;
  if (!SEVERITIES.has(severity) || !(line === null || (Number.isSafeInteger(line) && (line as number) > 0))) return null;
  if (!(confidence === undefined || (Number.isSafeInteger(confidence) && (confidence as number) >= 0 && (confidence as number) <= 100))) return null;
  const fields = { category: trimmedText(category), file: trimmedText(file), description: trimmedText(description), evidence: optionalText(evidence), suggestion: optionalText(suggestion) };
  if (fields.category === null || fields.file === null || fields.description === null || fields.evidence === null || fields.suggestion === null) return null;
  const finding: Finding = { severity: severity as Severity, category: fields.category, file: fields.file, line: line as number | null, description: fields.description, evidence: fields.evidence, suggestion: fields.suggestion };
  if (confidence !== undefined) finding.confidence = confidence as number;
  return finding;
}

/** The canonical text of a clean review: what a final message that only says it found nothing stands for. */
export const CLEAN_REVIEW = '{"issues":[],"summary":{"critical":0,"warning":0,"info":0,"verdict":"clean"}}';

/** A final message that says, and only says, that nothing was found. */
const NOTHING_FOUND = /^(?:no (?:issues|findings|problems|defects|bugs)(?: were)? (?:found|identified|detected)|(?:i )?found no (?:issues|findings|problems)|nothing (?:to report|found)|lgtm|clean)[.!]?$/i;

/**
 * What a reviewer's final message holds for its review: the message itself when it holds JSON (the
 * reader takes the one JSON value, and sends back several), the clean review when it says only that
 * nothing was found, else null. Read only when the review file is missing or empty.
 */
export function extractJsonFromMessage(message: string | null | undefined): string | null {
  if (!message) return null;
  const whole = message.trim();
  if (/[{[]/.test(whole) && readJson(whole).ok) return whole;
  if (NOTHING_FOUND.test(whole.replace(/[*_`#>]/g, '').trim())) return CLEAN_REVIEW;
  return /^\s*[{[]|```/m.test(whole) ? whole : null;
}

/** A review as the contract writes it: what a review read from elsewhere (a final message) is written as. */
export function reviewJsonOf(review: Extract<ParsedReview, { ok: true }>): unknown {
  return {
    issues: review.issues,
    ...(review.previous.length ? { previous: review.previous } : {}),
    ...(review.diagnosis.length ? { diagnosis: review.diagnosis } : {}),
    summary: { ...review.counts, verdict: review.verdict },
  };
}
