/**
 * Filesystem grounding (seed 000), made mechanical: is a finding about code that is really there? The
 * quote is looked for as written, then under the readings of readings.ts; near the cited line first,
 * then anywhere in the file (the occurrence nearest the cited line). Pure.
 */
import { Buffer } from 'node:buffer';
import { normaliseFile } from './fingerprint';
import type { EvidenceReading, FileReading } from '../protocol/verdict-schema';
import { alternativeNeedles, literalNeedles, type Needle } from './readings';
import { SourceIndex, type FileBytes, type FlatText } from './source-index';

/** What the shell saw of each file a finding names. */
export type Source =
  /** text: the file's content, as the bytes read (a string in tests; a large file read on demand); rel: its real path in the project; via: how the name was read. */
  | { kind: 'file'; text: string | Uint8Array | FileBytes; rel?: string; via?: FileReading }
  /** similar: files whose path matches ignoring case, when more than one does. */
  | { kind: 'missing'; similar?: string[] }
  | { kind: 'outside' }
  | { kind: 'not-a-file' }
  /** Not read, because of a cap (why: for the reports): grounding cannot say anything about it. */
  | { kind: 'unchecked'; why: string };
export type Sources = Record<string, Source>;

export type GroundingStatus = 'grounded' | 'relocated' | 'ungrounded' | 'unchecked' | 'unquoted';
export interface Reading {
  /** How the path was read; null when no file was found. */
  file: FileReading | null;
  /** The readings of the quote that matched ([]: as written); null when it did not match or was not searched. */
  evidence: EvidenceReading[] | null;
}

export interface Grounding {
  /**
   * grounded: the evidence is within a few lines of the cited line; relocated: elsewhere in the file,
   * kept with the line corrected; ungrounded: not in the file (or no such file); unchecked: the file or
   * the rest of it was not searched (a cap), kept and sent to the fixer; unquoted: the file exists but
   * the finding quotes no code (no evidence, or a command and its output): nothing to check, so never
   * grounded (aggregate.ts decides whether another signal supports it).
   */
  status: GroundingStatus;
  reason: string | null;
  line: number | null;
  reading: Reading;
  /** The flat text of the code the evidence matched: the finding's identity. null when nothing matched. */
  matched: string | null;
}

/** "Within a few lines" of the cited line. */
export const EVIDENCE_WINDOW = 5;
/**
 * Bytes one hook may scan in whole-file searches (a quote not near its cited line, an invented one):
 * about a second of CPU. Building a file's flat form counts FLAT_BUILD_COST times its size. Past the
 * budget, a finding that was not found near its line is `unchecked`, never "does not occur".
 */
export const SEARCH_BUDGET = 2 * 1024 ** 3;
export const FLAT_BUILD_COST = 16;
/** A whole-file search looks this many lines around the cited line first, then RADIUS_GROWTH times as far, and so on. */
const FIRST_RADIUS = 64;
const RADIUS_GROWTH = 8;
/** A byte-for-byte copy of the quote this many lines away is taken before any alternative reading near the line. */
const LOCAL_RADIUS = 4096;

/** Witness evidence is a command and its output, not code: it is not looked for in the file. */
export const isCommandEvidence = (evidence: string): boolean => /^\s*\$\s/.test(evidence);

interface Occurrence {
  line: number;
  matched: string;
}

/** One index per file's bytes, whichever grounder asks (the shell hands the same bytes to each step of a hook). */
const byteIndexes = new WeakMap<Uint8Array | FileBytes, SourceIndex>();

/** A quote's result where it is cited, or (a quote cited at more than one place) its results by placeKey. */
type Results = Map<string, { file: string; line: number | null; result: Grounding } | Map<string, Grounding>>;
const placeKey = (file: string, line: number | null): string => `${line}\0${file}`;
/**
 * Results by source (evidence → file as named and line), whichever grounder worked them out: the shell
 * hands the same Source to each step of a hook, so the round's verdict does not ground the fifth review
 * again after its reviewer's stop did. A name no source is given for is grounded by each grounder.
 */
const resultsBySource = new WeakMap<Source, Results>();

/** Grounds the findings of one hook against one set of sources, sharing the files' indexes and the search budget. */
export class Grounder {
  private spent = 0;
  private readonly indexes = new Map<string, SourceIndex>();
  /** The readings of quotes searched past their cited line (one found there is not kept). */
  private readonly literals = new Map<string, Search[]>();
  private readonly alternatives = new Map<string, Search[]>();
  /** Results for names without a source; the others are kept by source (resultsBySource). */
  private readonly unsourced: Results = new Map();

  constructor(
    private readonly sources: Sources,
    private readonly budget = SEARCH_BUDGET,
  ) {}

  /** Reviewers often report the same finding: each evidence, file and line is grounded once. */
  ground(finding: { file: string; line: number | null; evidence: string }): Grounding {
    const source = this.sources[normaliseFile(finding.file)];
    let results = source ? resultsBySource.get(source) : this.unsourced;
    if (!results) resultsBySource.set(source!, (results = new Map()));
    const { file, line, evidence } = finding;
    // One small record per quote, not a Map per quote and file: most quotes are cited at one place.
    const kept = results.get(evidence);
    if (kept instanceof Map) {
      const key = placeKey(file, line);
      let result = kept.get(key);
      if (!result) kept.set(key, (result = this.groundOnce(finding)));
      return result;
    }
    if (kept && kept.file === file && kept.line === line) return kept.result;
    const result = this.groundOnce(finding);
    results.set(evidence, kept ? new Map([[placeKey(kept.file, kept.line), kept.result], [placeKey(file, line), result]]) : { file, line, result });
    return result;
  }

  /** The code around a line, flat: a finding's identity when it quotes no evidence. */
  codeAround(file: string, line: number | null): string {
    const source = this.sources[normaliseFile(file)];
    if (!source || source.kind !== 'file' || line === null) return '';
    const index = this.index(source.text);
    if (line > index.lineCount + 1) return '';
    return index.flat(line - 1, line + 1).bytes.toString('utf8');
  }

  private index(text: string | Uint8Array | FileBytes): SourceIndex {
    if (typeof text !== 'string') {
      let index = byteIndexes.get(text);
      if (!index) byteIndexes.set(text, (index = new SourceIndex(text)));
      return index;
    }
    let index = this.indexes.get(text);
    if (!index) this.indexes.set(text, (index = new SourceIndex(text)));
    return index;
  }

  /** The quote's alternative readings (worked out once per hook). */
  private alternativesOf(evidence: string): Search[] {
    let readings = this.alternatives.get(evidence);
    if (!readings) this.alternatives.set(evidence, (readings = alternativeNeedles(evidence).map((n) => new Search(n))));
    return readings;
  }

  private groundOnce(finding: { file: string; line: number | null; evidence: string }): Grounding {
    const named = normaliseFile(finding.file);
    const source = this.sources[named] ?? { kind: 'missing' };
    const cited = finding.line;
    if (source.kind !== 'file') return unread(source, named, cited);
    const index = this.index(source.text);
    const pastEnd = cited !== null && cited > index.lineCount;
    const fileReading: FileReading = source.via ?? 'as-written';
    const evidence = finding.evidence;
    const literal = !evidence.trim() || isCommandEvidence(evidence) ? null : (this.literals.get(evidence) ?? literalNeedles(evidence).map((n) => new Search(n)));
    if (literal === null || literal.length === 0) {
      if (pastEnd) return grounding('ungrounded', pastEndText(cited, source.rel ?? named, index), cited, fileReading, null, null);
      const what = evidence.trim() ? 'the evidence is a command, not a quote of the code' : 'no evidence is quoted';
      return grounding('unquoted', cited === null ? `${what}, and no line is cited` : `${what}; line ${cited} exists`, cited, fileReading, null, null);
    }
    // Cheapest first: as written near the cited line (searchFurther has the rest).
    if (cited !== null && !pastEnd) {
      for (const search of literal) {
        const near = nearLine(index, search, cited);
        if (near) return grounding('grounded', null, cited, fileReading, search.needle.applied, near.matched);
      }
    }
    this.literals.set(evidence, literal);
    return this.searchFurther(index, literal, evidence, cited, source.rel ?? named, fileReading);
  }

  /**
   * A quote not found as written near its cited line: a copy of it byte for byte within a few thousand
   * lines; the alternative readings near the line; then every reading anywhere in the file.
   */
  private searchFurther(index: SourceIndex, literal: Search[], evidence: string, cited: number | null, file: string, fileReading: FileReading): Grounding {
    const pastEnd = cited !== null && cited > index.lineCount;
    const located = (at: Occurrence & { search: Search }): Grounding => {
      const { search, line, matched } = at;
      const applied = search.needle.applied;
      // No line given (or line 0): the line is where the quote was found.
      if (cited === null) return grounding('grounded', null, line, fileReading, applied, matched);
      if (!pastEnd && Math.abs(line - cited) <= EVIDENCE_WINDOW) return grounding('grounded', null, cited, fileReading, applied, matched);
      const where = `the evidence is at line ${line}`;
      return grounding('relocated', pastEnd ? `${pastEndText(cited, file, index)}; ${where}` : `${where}, not ${cited}`, line, fileReading, applied, matched);
    };
    const copy = this.locate(index, literal, cited, 'raw', LOCAL_RADIUS);
    if (copy && copy !== 'over-budget') return located(copy);
    const alternatives = this.alternativesOf(evidence);
    if (cited !== null && !pastEnd) {
      for (const search of alternatives) {
        const near = nearLine(index, search, cited);
        if (near) return grounding('grounded', null, cited, fileReading, search.needle.applied, near.matched);
      }
    }
    const at = this.locate(index, [...literal, ...alternatives], cited, 'both', Infinity);
    if (at !== null && at !== 'over-budget') return located(at);
    if (at === 'over-budget') {
      const near = cited !== null && !pastEnd ? `is not within ${EVIDENCE_WINDOW} lines of line ${cited}, and ` : '';
      return grounding('unchecked', `the quoted evidence ${near}the rest of ${file} was not searched (this hook's search budget is spent)`, cited, fileReading, null, null);
    }
    const reason = pastEnd ? `${pastEndText(cited, file, index)}, and the quoted evidence does not occur in it` : `the quoted evidence does not occur in ${file}`;
    return grounding('ungrounded', reason, cited, fileReading, null, null);
  }

  /**
   * The occurrence of any reading nearest the cited line (the first, with no line), searched in
   * regions that grow around it, so that the cost follows the distance and not the file's size:
   * byte for byte first (a copy of the code is preferred), then flat; readings in order on a tie.
   */
  private locate(index: SourceIndex, needles: readonly Search[], cited: number | null, passes: 'raw' | 'both', maxRadius: number): (Occurrence & { search: Search }) | null | 'over-budget' {
    const lines = index.lineCount;
    const line = cited === null ? 1 : Math.min(cited, lines + 1);
    const span = Math.max(...needles.map((n) => n.needle.span));
    for (const pass of passes === 'raw' ? (['raw'] as const) : (['raw', 'flat'] as const)) {
      if (pass === 'raw' && needles.every((n) => n.needle.raw === null)) continue;
      for (let radius = Math.min(FIRST_RADIUS, maxRadius); ; radius = Math.min(radius * RADIUS_GROWTH, maxRadius)) {
        if (this.spent >= this.budget) return 'over-budget';
        const from = Math.max(1, line - radius);
        const to = Math.min(lines, line + radius + span);
        const best = pass === 'raw' ? this.nearestRaw(index, needles, from, to, line) : this.nearestFlat(index, needles, from, to, line);
        if (best) return best;
        if ((from === 1 && to === lines) || radius >= maxRadius) break;
      }
    }
    return this.spent >= this.budget ? 'over-budget' : null;
  }

  private nearestRaw(index: SourceIndex, needles: readonly Search[], from: number, to: number, line: number): (Occurrence & { search: Search }) | null {
    const region = index.raw(from, to);
    const start = index.lineStart(from);
    const origin = index.lineStart(line) - start;
    let best: (Occurrence & { search: Search }) | null = null;
    for (const search of needles) {
      const raw = search.raw;
      if (raw === null) continue;
      this.spent += region.length;
      const after = region.subarray(origin).indexOf(raw);
      const before = origin > 0 ? region.subarray(0, Math.min(region.length, origin - 1 + raw.length)).lastIndexOf(raw) : -1;
      for (const at of [after < 0 ? -1 : origin + after, before]) {
        if (at < 0) continue;
        const hit = index.lineOf(start + at);
        if (!best || Math.abs(hit - line) < Math.abs(best.line - line)) best = { line: hit, matched: search.needle.pieces[0]!, search };
      }
    }
    return best;
  }

  /** Flat: the region's own flat form while it is small, else the whole file's (built once). */
  private nearestFlat(index: SourceIndex, needles: readonly Search[], from: number, to: number, line: number): (Occurrence & { search: Search }) | null {
    const size = index.lineEnd(to) - index.lineStart(from);
    let flat: FlatText;
    if (index.flattened || size * 4 > index.size) {
      if (!index.flattened) this.spent += index.size * FLAT_BUILD_COST;
      flat = index.flatAll();
    } else {
      this.spent += size * FLAT_BUILD_COST;
      flat = index.flat(from, to);
    }
    const lo = flat.lineStart(from);
    const hi = flat.lineEnd(to);
    const mid = flat.lineStart(line);
    let best: (Occurrence & { search: Search }) | null = null;
    for (const search of needles) {
      for (const hit of [this.scan(flat, search, mid, hi, 1), mid > lo ? this.scan(flat, search, mid - 1, lo, -1) : null]) {
        if (hit && (!best || Math.abs(hit.line - line) < Math.abs(best.line - line))) best = { ...hit, search };
      }
    }
    return best;
  }

  /**
   * The first full match of a reading whose first piece starts at or after `from` and before `limit`
   * (direction 1), or at or before `from` and at or after `limit` (direction -1), in flat text.
   */
  private scan(flat: FlatText, search: Search, from: number, limit: number, direction: 1 | -1): Occurrence | null {
    const first = search.pieces[0]!;
    for (let at = from; direction === 1 ? at < limit : at >= limit; ) {
      const p = direction === 1 ? flat.bytes.subarray(at, Math.min(flat.bytes.length, limit + first.length - 1)).indexOf(first) : flat.bytes.subarray(limit, at + first.length).lastIndexOf(first);
      if (p < 0) {
        this.spent += Math.abs(limit - at);
        return null;
      }
      const hit = direction === 1 ? at + p : limit + p;
      this.spent += Math.abs(hit - at);
      const match = matchFrom(flat, search, hit);
      if (match) return match;
      if (this.spent >= this.budget) return null;
      at = hit + direction;
    }
    return null;
  }
}

/** The evidence within EVIDENCE_WINDOW lines of the cited line (byte for byte, then flat). */
function nearLine(index: SourceIndex, search: Search, cited: number): Occurrence | null {
  const needle = search.needle;
  const from = cited - EVIDENCE_WINDOW;
  const to = cited + EVIDENCE_WINDOW + needle.span - 1;
  // A quote of the cited line as it stands: one compare, no search and no bytes of the quote.
  if (needle.raw !== null && index.holdsAscii(cited, needle.raw, index.lineEnd(to))) return { line: cited, matched: needle.pieces[0]! };
  const raw = search.raw;
  if (raw !== null && index.raw(from, to).includes(raw)) return { line: cited, matched: needle.pieces[0]! };
  const flat = index.flat(from, to);
  const first = search.pieces[0]!;
  for (let p = flat.bytes.indexOf(first); p >= 0; p = flat.bytes.indexOf(first, p + 1)) {
    const match = matchFrom(flat, search, p);
    if (match) return match;
  }
  return null;
}

/**
 * The match of every piece of a reading, the first starting at `start`: each next piece is the earliest
 * one after the previous that starts within its gap's line budget.
 */
function matchFrom(flat: FlatText, search: Search, start: number): Occurrence | null {
  const needle = search.needle;
  const pieces = search.pieces;
  let end = start + pieces[0]!.length;
  for (let i = 1; i < pieces.length; i++) {
    const piece = pieces[i]!;
    const lastStart = flat.lineEnd(flat.lineOf(end - 1) + needle.gaps[i - 1]!);
    const at = flat.bytes.subarray(end, Math.min(flat.bytes.length, lastStart + piece.length - 1)).indexOf(piece);
    if (at < 0) return null;
    end += at + piece.length;
  }
  const from = needle.openStart ? flat.lineStart(flat.lineOf(start)) : start;
  const to = needle.openEnd ? flat.lineEnd(flat.lineOf(end - 1)) : end;
  return { line: flat.lineOf(start), matched: needle.pieces.length === 1 && !needle.openStart && !needle.openEnd ? needle.pieces[0]! : flat.bytes.toString('utf8', from, to) };
}

/** A reading as searched, with its UTF-8 bytes encoded on first use (a quote found by holdsAscii never is). */
class Search {
  private rawBytes: Buffer | null | undefined;
  private pieceBytes: Buffer[] | undefined;

  constructor(readonly needle: Needle) {}

  get raw(): Buffer | null {
    if (this.rawBytes === undefined) this.rawBytes = this.needle.raw === null ? null : Buffer.from(this.needle.raw, 'utf8');
    return this.rawBytes;
  }

  get pieces(): Buffer[] {
    return (this.pieceBytes ??= this.needle.pieces.map((p) => Buffer.from(p, 'utf8')));
  }
}

const grounding = (status: GroundingStatus, reason: string | null, line: number | null, file: FileReading | null, evidence: EvidenceReading[] | null, matched: string | null): Grounding => ({
  status,
  reason,
  line,
  reading: { file, evidence },
  matched,
});

const pastEndText = (cited: number | null, file: string, index: SourceIndex): string => `line ${cited} is past the end of ${file} (${index.lineCount} lines)`;

/** A finding whose file was not read. */
function unread(source: Exclude<Source, { kind: 'file' }>, named: string, cited: number | null): Grounding {
  const fail = (status: 'ungrounded' | 'unchecked', reason: string): Grounding => grounding(status, reason, cited, null, null, null);
  if (source.kind === 'outside') return fail('ungrounded', `${named} is outside the project`);
  if (source.kind === 'not-a-file') return fail('ungrounded', `${named} is not a file`);
  if (source.kind === 'unchecked') return fail('unchecked', `${named} was not read: ${source.why}`);
  // Never "does not exist" for a name that does, ignoring case: it is ambiguous.
  if (source.similar?.length) return fail('ungrounded', `${named} is ambiguous: ${source.similar.length} files match it ignoring case (${source.similar.join(', ')})`);
  return fail('ungrounded', `${named} does not exist`);
}

const grounders = new WeakMap<Sources, Grounder>();
/** The grounder of a set of sources: one per hook, so every caller shares its indexes and budget. */
export function grounderFor(sources: Sources): Grounder {
  let grounder = grounders.get(sources);
  if (!grounder) grounders.set(sources, (grounder = new Grounder(sources)));
  return grounder;
}

export const ground = (finding: { file: string; line: number | null; evidence: string }, sources: Sources): Grounding => grounderFor(sources).ground(finding);
