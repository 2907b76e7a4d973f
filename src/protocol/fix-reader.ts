/**
 * The stated policy for reading the fixer's answers (r2-fix-summary.json), before the zod schema checks
 * them: what is unambiguous is read as meant and noted, what is ambiguous is sent back. Pure.
 *
 * Unambiguous: a fence, prose, comments, trailing commas (lenient-json.ts); a top-level array; `answers`
 * or `results` for `fixes`; the answers as a map by fingerprint; a fingerprint in any case, or a unique
 * prefix of an open one; status synonyms (FIXED, done, resolved, won't fix …); a fixed answer without a
 * kind (a patch). Ambiguous: `partially_fixed`, a status copied from the template, a prefix of several.
 */
import { readJson } from './lenient-json';
import * as texts from './reader-texts';
import { describeZodError } from './zod';
import { FixSummary } from './verdict-schema';

export type FixRead = { ok: true; summary: FixSummary; notes: string[] } | { ok: false; problem: string };

const keyOf = (key: string): string => key.toLowerCase().replace(/[\s_-]+/g, '');
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const kindOf = texts.valueKind;

function pick(obj: Record<string, unknown>, names: readonly string[]): { key: string; value: unknown } | null {
  const keys = Object.keys(obj);
  for (const name of names) {
    const key = keys.find((k) => keyOf(k) === name);
    if (key !== undefined && obj[key] !== undefined && obj[key] !== null) return { key, value: obj[key] };
  }
  return null;
}

const LISTS = ['fixes', 'answers', 'results', 'findings', 'fix', 'responses'];
const FINGERPRINT = ['fingerprint', 'fp', 'id', 'finding', 'findingid'];
const STATUS = ['status', 'result', 'outcome', 'resolution', 'state', 'answer'];
const KIND = ['kind', 'fixkind', 'type'];
const REASON = ['reason', 'note', 'notes', 'explanation', 'why', 'comment', 'details', 'rationale'];

type Status = 'fixed' | 'declined' | 'could_not_fix' | 'escalate';
/** Status words, as keyOf compares them, and the status each is read as. */
export const STATUS_TABLE: Record<string, Status> = {
  fixed: 'fixed', fix: 'fixed', done: 'fixed', resolved: 'fixed', complete: 'fixed', completed: 'fixed', addressed: 'fixed', ok: 'fixed',
  declined: 'declined', decline: 'declined', wontfix: 'declined', "won'tfix": 'declined', rejected: 'declined', notabug: 'declined', falsepositive: 'declined', invalid: 'declined', notanissue: 'declined', disputed: 'declined',
  couldnotfix: 'could_not_fix', couldntfix: 'could_not_fix', "couldn'tfix": 'could_not_fix', cannotfix: 'could_not_fix', cantfix: 'could_not_fix', unabletofix: 'could_not_fix', blocked: 'could_not_fix', failed: 'could_not_fix', notfixed: 'could_not_fix', unfixed: 'could_not_fix',
  escalate: 'escalate', escalated: 'escalate',
};
const KIND_TABLE: Record<string, 'patch' | 'structural'> = { patch: 'patch', local: 'patch', minimal: 'patch', surgical: 'patch', structural: 'structural', rootcause: 'structural', refactor: 'structural', systemic: 'structural' };

/** Reads the fixer's answers against the round's open fingerprints. */
export function readFixSummary(text: string, open: readonly string[]): FixRead {
  const json = readJson(text);
  if (!json.ok) return { ok: false, problem: json.problem };
  const notes = [...json.notes];
  let value = json.value;
  if (Array.isArray(value)) {
    value = { fixes: value };
    notes.push(texts.read.key('[…]', 'fixes'));
  }
  if (!isObject(value)) return { ok: false, problem: texts.problem.topLevel(kindOf(value)) };
  let list = pick(value, LISTS);
  let host = value;
  if (!list) {
    // A map by fingerprint at the top level, or one object that wraps the answers.
    const keys = Object.keys(value).filter((k) => k !== 'patterns');
    if (keys.length > 0 && keys.every((k) => matchFingerprint(k, open) !== null)) {
      list = { key: '', value: Object.fromEntries(keys.map((k) => [k, value[k as keyof typeof value]])) };
    } else {
      const inner = Object.entries(value).filter(([, v]) => isObject(v) && pick(v, LISTS) !== null);
      if (inner.length !== 1) return { ok: false, problem: texts.problem.fixesMissing(Object.keys(value)) };
      host = inner[0]![1] as Record<string, unknown>;
      list = pick(host, LISTS)!;
      notes.push(texts.read.wrapper(inner[0]![0]));
    }
  } else if (keyOf(list.key) !== 'fixes') notes.push(texts.read.key(list.key, 'fixes'));
  let entries: unknown[];
  if (Array.isArray(list.value)) entries = list.value;
  else if (isObject(list.value)) {
    entries = Object.entries(list.value).map(([fp, v]) => (isObject(v) ? { fingerprint: fp, ...v } : { fingerprint: fp, status: v }));
    notes.push(texts.read.answersMap);
  } else return { ok: false, problem: texts.problem.fixesMissing(Object.keys(value)) };

  const fixes: Record<string, unknown>[] = [];
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    if (!isObject(entry)) return { ok: false, problem: texts.problem.fixNotObject(i, kindOf(entry)) };
    const fp = pick(entry, FINGERPRINT);
    if (!fp || typeof fp.value !== 'string' || fp.value.trim() === '') return { ok: false, problem: texts.problem.fingerprintMissing(i) };
    const written = fp.value.trim();
    const matched = matchFingerprint(written, open);
    if (matched !== null && typeof matched !== 'string') return { ok: false, problem: texts.problem.fingerprintAmbiguous(written, matched.several) };
    if (fp.key !== 'fingerprint') notes.push(texts.read.key(fp.key, 'fingerprint'));
    const fingerprint = matched ?? written;
    if (fingerprint !== written) notes.push(texts.read.fingerprint(written, fingerprint));
    const status = pick(entry, STATUS);
    if (!status || (typeof status.value === 'string' && status.value.trim() === '')) return { ok: false, problem: texts.problem.fixStatusMissing(i) };
    const statusText = String(status.value).trim();
    if (statusText.includes('|')) return { ok: false, problem: texts.problem.fixStatusTemplate(i, statusText) };
    const read = typeof status.value === 'string' ? (STATUS_TABLE[keyOf(statusText).replace(/[^a-z']/g, '')] ?? (/^\s*\u2705/u.test(statusText) ? 'fixed' : undefined)) : undefined;
    if (!read) return { ok: false, problem: texts.problem.fixStatusUnknown(i, statusText) };
    if (read !== statusText) notes.push(texts.read.status(statusText, read));
    const out: Record<string, unknown> = { fingerprint, status: read };
    const kind = pick(entry, KIND);
    if (kind) {
      const k = typeof kind.value === 'string' ? KIND_TABLE[keyOf(kind.value)] : undefined;
      if (!k) return { ok: false, problem: texts.problem.fixKindUnknown(i, String(kind.value)) };
      if (k !== kind.value) notes.push(texts.read.key(`kind: ${String(kind.value)}`, `kind: ${k}`));
      out.kind = k;
    } else if (read === 'fixed') {
      out.kind = 'patch';
      notes.push(texts.read.kind);
    }
    const reason = pick(entry, REASON);
    if (reason && typeof reason.value === 'string') {
      if (reason.key !== 'reason') notes.push(texts.read.key(reason.key, 'reason'));
      out.reason = reason.value;
    }
    fixes.push(out);
  }
  const patterns = pick(host, ['patterns']) ?? pick(value, ['patterns']);
  const parsed = FixSummary.safeParse({ fixes, ...(patterns ? { patterns: patterns.value } : {}) });
  if (!parsed.success) return { ok: false, problem: describeZodError(parsed.error) };
  return { ok: true, summary: parsed.data, notes: [...new Set(notes)] };
}

/** The open fingerprint a written one names: itself in any case, or the one it is a prefix of (6 characters at least). */
function matchFingerprint(written: string, open: readonly string[]): string | { several: string[] } | null {
  const lower = written.toLowerCase();
  const exact = open.find((fp) => fp.toLowerCase() === lower);
  if (exact) return exact;
  if (lower.length < 6) return null;
  const prefixed = open.filter((fp) => fp.toLowerCase().startsWith(lower));
  if (prefixed.length === 1) return prefixed[0]!;
  return prefixed.length > 1 ? { several: prefixed.slice(0, 5) } : null;
}
