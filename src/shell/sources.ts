/**
 * The files the reviews name, read once each, for grounding: each name as written, then without a
 * diff's `a/`/`b/` prefix, then as the one file that matches it ignoring case. Files are passed on as
 * bytes (never decoded here). What a cap keeps from being read is `unchecked`, never "missing".
 */
import fs from 'node:fs';
import path from 'node:path';
import { normaliseFile } from '../review/fingerprint';
import type { FileReading } from '../protocol/verdict-schema';
import type { Source, Sources } from '../review/grounding';
import type { FileBytes } from '../review/source-index';
import { IN_PLACE_FROM, scannableBuffer, streamedLineStarts } from '../review/text-scan';
import { parseReview } from '../protocol/reviewer-output';
import { openDescriptor, readRegular } from './files';
import { realpathLoose, relativeInside } from './project';

export interface SourceCaps {
  /** Distinct names resolved (a missing name costs a few directory reads). */
  names: number;
  /** Files read. */
  files: number;
  /** Bytes of one file. */
  fileBytes: number;
  /** Bytes read in all. */
  totalBytes: number;
}
export const SOURCE_CAPS: SourceCaps = { names: 20_000, files: 5_000, fileBytes: 256 * 1024 ** 2, totalBytes: 1024 ** 3 };

const MB = (bytes: number): string => `${(bytes / 1024 ** 2).toFixed(bytes < 10 * 1024 ** 2 ? 1 : 0)} MB`;

/**
 * The file names the reviews' findings give, normalised, in order of first mention. A review that
 * validates is read through parseReview, which keeps its result for the core's own validation of the
 * same text (a review of thousands of findings is parsed once per hook, not twice).
 */
export function namedFiles(texts: readonly (string | null)[]): string[] {
  const names = new Set<string>();
  for (const text of texts) {
    if (!text) continue;
    const parsed = parseReview(text);
    if (parsed.ok) {
      for (const issue of parsed.issues) names.add(normaliseFile(issue.file));
      continue;
    }
    try {
      const issues = (JSON.parse(text) as { issues?: unknown }).issues;
      if (Array.isArray(issues)) for (const issue of issues) if (typeof issue?.file === 'string' && issue.file.trim()) names.add(normaliseFile(issue.file));
    } catch {
      // an unreadable review names no files
    }
  }
  return [...names];
}

export function readSources(root: string, texts: readonly (string | null)[], caps: SourceCaps = SOURCE_CAPS): Sources {
  const resolver = new Resolver(root);
  const read = new Map<string, Source>(); // real path → what was read
  let files = 0;
  let total = 0;
  const sources: Sources = {};
  namedFiles(texts).forEach((name, i) => {
    if (i >= caps.names) return void (sources[name] = { kind: 'unchecked', why: `the reviews name more than ${caps.names} files` });
    const found = resolver.resolve(name);
    if (found.kind !== 'found') return void (sources[name] = found.source);
    const seen = read.get(found.rel);
    if (seen) return void (sources[name] = seen.kind === 'file' ? fileSource(root, seen.text as Buffer | FileBytes, found.rel, found.via) : seen);
    let source: Source;
    if (found.size > caps.fileBytes) source = { kind: 'unchecked', why: `it is ${MB(found.size)}, more than the ${MB(caps.fileBytes)} one file may have` };
    else if (files >= caps.files) source = { kind: 'unchecked', why: `more than ${caps.files} files were read` };
    else if (total + found.size > caps.totalBytes) source = { kind: 'unchecked', why: `the files read reach ${MB(caps.totalBytes)}` };
    else {
      const text = readCached(path.join(root, found.rel), found.stat);
      if (typeof text === 'string') source = text === 'not-a-file' ? { kind: 'not-a-file' } : { kind: 'unchecked', why: 'it could not be read' };
      else {
        files += 1;
        total += text.length;
        source = fileSource(root, text, found.rel, found.via);
      }
    }
    read.set(found.rel, source);
    sources[name] = source;
  });
  return sources;
}

/**
 * Files read by this process, by path: a hook that reads the sources twice (the reviewer's stop, then
 * the round's verdict) reads each unchanged file once, and grounding indexes the same bytes once.
 */
const readFiles = new Map<string, { stat: fs.Stats; bytes: Buffer | FileBytes }>();
/**
 * A file's bytes, read without blocking (a FIFO put in its place is 'not-a-file', never waited on). A
 * large one is read into memory its line index scans in place (review/text-scan.ts); one too large to
 * hold is read on demand.
 */
function readCached(file: string, stat: fs.Stats): Buffer | FileBytes | 'not-a-file' | 'unreadable' {
  const seen = readFiles.get(file);
  if (seen && seen.stat.size === stat.size && seen.stat.mtimeMs === stat.mtimeMs && seen.stat.ino === stat.ino) return seen.bytes;
  const bytes = stat.size >= ON_DEMAND_FROM ? onDemand(file) : readRegular(file, stat.size >= IN_PLACE_FROM ? scannableBuffer : undefined);
  if (bytes === null) return 'unreadable';
  if (bytes !== 'not-a-file') readFiles.set(file, { stat, bytes });
  return bytes;
}

/**
 * Files at least this large are not held: their lines are found in one pass through a 64 KB window, and
 * grounding reads the ranges it looks at. Reading 50 MB whole costs about 35 ms here, most of it the
 * kernel mapping fresh memory; the pass reads it into the same few pages.
 */
export const ON_DEMAND_FROM = 8 * 1024 ** 2;

/**
 * A large file read through its descriptor (opened without blocking, checked to be a regular file), left
 * open until the hook exits: a file renamed over it meanwhile is not mixed into what was indexed.
 */
function onDemand(file: string): FileBytes | 'not-a-file' | null {
  const opened = openDescriptor(file);
  if (opened.kind !== 'open') return opened.kind === 'not-a-file' ? 'not-a-file' : null;
  const { fd, size } = opened;
  /** Reads into `into` from `position`: as much as there is, and nothing past a read error. */
  const read = (into: Uint8Array, position: number): number => {
    let got = 0;
    try {
      for (let n = 1; n > 0 && got < into.length; got += n) n = fs.readSync(fd, into, got, into.length - got, position + got);
    } catch {
      // what was read stands; the rest is not there
    }
    return got;
  };
  try {
    const lines = streamedLineStarts(read, size);
    return {
      length: lines.length,
      lineStarts: () => lines,
      range: (from, to) => {
        const bytes = Buffer.allocUnsafe(Math.max(0, Math.min(to, lines.length) - from));
        return bytes.subarray(0, read(bytes, from));
      },
    };
  } catch {
    fs.closeSync(fd);
    return null;
  }
}

/**
 * One Source per file read and reading of its name, while its bytes are the same: grounding keeps its
 * results by Source, so a hook that reads the sources twice grounds each finding once.
 */
const fileSources = new Map<string, Extract<Source, { kind: 'file' }>>();
function fileSource(root: string, text: Buffer | FileBytes, rel: string, via: FileReading): Source {
  const key = `${path.join(root, rel)}\0${via}`;
  const kept = fileSources.get(key);
  if (kept && kept.text === text) return kept;
  const source = { kind: 'file', text, rel, via } as const;
  fileSources.set(key, source);
  return source;
}

type Resolved = { kind: 'found'; rel: string; via: FileReading; size: number; stat: fs.Stats } | { kind: 'other'; source: Source };

/** Folders a bare file name is not looked for in, and how many folders the look may read. */
const SKIPPED_DIRS = new Set(['.git', 'node_modules', '.agents']);
const BY_NAME_DIRS = 5_000;

/** Resolves names inside one project, reading each directory at most once. */
class Resolver {
  private readonly dirs = new Map<string, fs.Dirent[]>();

  constructor(private readonly root: string) {}

  resolve(name: string): Resolved {
    const literal = this.exact(name);
    if (literal.kind === 'found') return { ...literal, via: 'as-written' };
    // A path written from the project's root with a leading / ("/src/a.ts"), or from the folder above it ("repo/src/a.ts").
    const other = this.otherSpelling(name);
    if (other) return other;
    if (literal.kind !== 'missing') return { kind: 'other', source: literal.source };
    const stripped = /^[ab]\//.test(name) ? name.slice(2) : null;
    if (stripped) {
      const unprefixed = this.exact(stripped);
      if (unprefixed.kind === 'found') return { ...unprefixed, via: 'without-diff-prefix' };
    }
    const matches = new Set<string>();
    for (const candidate of stripped ? [name, stripped] : [name]) for (const rel of this.ignoringCase(candidate)) matches.add(rel);
    if (matches.size === 1) {
      const only = this.exact([...matches][0]!);
      if (only.kind === 'found') return { ...only, via: 'case-insensitive' };
    }
    if (matches.size === 0 && !name.includes('/')) {
      // A bare file name that names exactly one file of the project.
      const named = this.byFileName(name);
      if (named.length === 1) {
        const only = this.exact(named[0]!);
        if (only.kind === 'found') return { ...only, via: 'by-file-name' };
      }
      if (named.length > 1) return { kind: 'other', source: { kind: 'missing', similar: named.sort().slice(0, 5) } };
    }
    return { kind: 'other', source: matches.size > 1 ? { kind: 'missing', similar: [...matches].sort().slice(0, 5) } : { kind: 'missing' } };
  }

  private otherSpelling(name: string): Resolved | null {
    if (name.startsWith('/')) {
      const rel = name.replace(/^\/+/, '');
      const found = rel ? this.exact(rel) : null;
      if (found?.kind === 'found') return { ...found, via: 'without-leading-slash' };
    }
    const folder = path.basename(this.root);
    const unrooted = name.replace(/^\/+/, '');
    if (unrooted.startsWith(`${folder}/`)) {
      const found = this.exact(unrooted.slice(folder.length + 1));
      if (found.kind === 'found') return { ...found, via: 'without-folder-prefix' };
    }
    return null;
  }

  /** Project files with this exact name, outside .git, node_modules and .agents (the first few, in a bounded walk). */
  private byFileName(name: string): string[] {
    const out: string[] = [];
    let dirs = 0;
    const walk = (dir: string): void => {
      if (++dirs > BY_NAME_DIRS || out.length > 5) return;
      for (const entry of this.entries(dir)) {
        const rel = dir ? `${dir}/${entry.name}` : entry.name;
        if (entry.isDirectory()) {
          if (!SKIPPED_DIRS.has(entry.name)) walk(rel);
        } else if (entry.name === name && entry.isFile()) out.push(rel);
      }
    };
    walk('');
    return out;
  }

  /** The name as a path of the project: a file, missing, or something that is not a file inside it. */
  private exact(name: string): { kind: 'found'; rel: string; size: number; stat: fs.Stats } | { kind: 'missing' } | { kind: 'other'; source: Source } {
    const rel = relativeInside(this.root, realpathLoose(path.resolve(this.root, name)));
    if (rel === null) return { kind: 'other', source: { kind: 'outside' } };
    try {
      const stat = fs.statSync(path.join(this.root, rel));
      return stat.isFile() ? { kind: 'found', rel, size: stat.size, stat } : { kind: 'other', source: { kind: 'not-a-file' } };
    } catch {
      return { kind: 'missing' };
    }
  }

  /** Project paths equal to the name ignoring case, component by component (at most a few). */
  private ignoringCase(name: string): string[] {
    const rel = path.relative(this.root, path.resolve(this.root, name));
    if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return [];
    const parts = rel.split(path.sep);
    const out: string[] = [];
    const walk = (dir: string, i: number): void => {
      for (const entry of this.entries(dir)) {
        if (out.length > 5) return;
        if (entry.name.toLowerCase() !== parts[i]!.toLowerCase()) continue;
        const next = dir ? `${dir}/${entry.name}` : entry.name;
        if (i === parts.length - 1) out.push(next);
        else if (entry.isDirectory() || entry.isSymbolicLink()) walk(next, i + 1);
      }
    };
    walk('', 0);
    return out;
  }

  private entries(dir: string): fs.Dirent[] {
    let entries = this.dirs.get(dir);
    if (!entries) {
      try {
        entries = fs.readdirSync(path.join(this.root, dir), { withFileTypes: true });
      } catch {
        entries = [];
      }
      this.dirs.set(dir, entries);
    }
    return entries;
  }
}
