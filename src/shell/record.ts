/**
 * The hooks' private record of the files they own: what each held when the hooks last wrote it (sha256),
 * a copy of the last state they saved, and the reviews as they were validated (content-addressed
 * objects). It lives where agents are not pointed: inside the git dir (<git dir>/minions/record/<key>),
 * else in the plugin's data folder (${CLAUDE_PLUGIN_DATA}/records/<key>). Finding it costs a few stats
 * and no git process, because the gates read it on every tool call.
 *
 * A commit writes the record twice: before the files, naming the digests they will have and what they
 * may still hold if the commit is cut short (`prior`), and after, without `prior`. A killed hook therefore
 * never leaves a record that calls its own files forged.
 */
import fs from 'node:fs';
import path from 'node:path';
import { sha256 } from '../state/digest';
import { openRegular, readRegular, removeFile, writeAtomic } from './files';

export const RECORD_VERSION = 1;

export interface IntegrityRecord {
  version: typeof RECORD_VERSION;
  /** Project-relative path → sha256 of what the hooks last wrote there. */
  files: { [rel: string]: string };
  /** While a commit runs: what a file it touches may hold instead (null: it may be absent). */
  prior: { [rel: string]: (string | null)[] };
  /**
   * The STATE_SHAPE of the hooks that saved the state (state/schema.ts). Hooks of the same shape read
   * their own copy of the state without checking it against the schema again; null: unknown.
   */
  shape: string | null;
  /**
   * How many commits wrote this record, counted on (null: hooks that did not count). The live-loop marker
   * in the plugin's data folder holds the count of the last commit too: a record older than the marker
   * says was put back (a copy of .agents/tmp/ and the record taken earlier, restored by an interpreter).
   */
  generation: number | null;
}

export const emptyRecord = (): IntegrityRecord => ({ version: RECORD_VERSION, files: {}, prior: {}, shape: null, generation: null });

/** The git dir of the repository that holds `root`, found on the file system (a worktree's .git file is followed). */
export function findGitDir(root: string): { gitDir: string; top: string } | null {
  for (let dir = root; ; ) {
    const dotGit = path.join(dir, '.git');
    const stat = fs.statSync(dotGit, { throwIfNoEntry: false });
    if (stat?.isDirectory()) return { gitDir: dotGit, top: dir };
    if (stat?.isFile()) {
      try {
        const target = /^gitdir:\s*(.+?)\s*$/m.exec(fs.readFileSync(dotGit, 'utf8'))?.[1];
        return target ? { gitDir: path.resolve(dir, target), top: dir } : null;
      } catch {
        return null;
      }
    }
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/**
 * The record's folder for a project, or null when there is none to be had (outside git with no plugin
 * data folder, e.g. the CLI run from a command's `!` line outside a repository). Inside git the key is
 * the project's path inside the repository, so a moved or copied clone keeps its record.
 */
export function recordDir(root: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const git = findGitDir(root);
  if (git) {
    const inside = path.relative(git.top, root).split(path.sep).join('/');
    return path.join(git.gitDir, 'minions', 'record', inside ? sha256(inside).slice(0, 16) : 'top');
  }
  const data = env.CLAUDE_PLUGIN_DATA;
  return data && path.isAbsolute(data) ? path.join(data, 'records', sha256(root).slice(0, 16)) : null;
}

const recordFile = (dir: string): string => path.join(dir, 'record.json');
const objectFile = (dir: string, digest: string): string => path.join(dir, 'objects', digest);

/**
 * The record in `dir`: null when there is none, 'unreadable' when what stands in its place cannot be read
 * (a directory, a FIFO, no permission: nothing the hooks wrote). A record that does not parse counts as
 * empty (and is rewritten), so every file it vouched for is then unaccounted for.
 */
export function readRecordFile(dir: string): IntegrityRecord | 'unreadable' | null {
  const read = openRegular(recordFile(dir));
  if (read.kind === 'absent') return null;
  if (read.kind !== 'bytes') return 'unreadable';
  try {
    return parseRecord(JSON.parse(read.bytes.toString('utf8')));
  } catch {
    return emptyRecord();
  }
}

/** readRecordFile, with an unreadable record as none. */
export function readRecord(dir: string): IntegrityRecord | null {
  const record = readRecordFile(dir);
  return record === 'unreadable' ? null : record;
}

/** The record file's name in messages: project-relative when it is inside the project (the git dir), else absolute. */
export function recordName(root: string, dir: string): string {
  const rel = path.relative(root, recordFile(dir));
  return rel.startsWith('..') || path.isAbsolute(rel) ? recordFile(dir) : rel.split(path.sep).join('/');
}

/** Checked by hand, not with zod: the gates read the record on every tool call. */
function parseRecord(data: unknown): IntegrityRecord {
  const r = data as Partial<IntegrityRecord> | null;
  const files: IntegrityRecord['files'] = {};
  const prior: IntegrityRecord['prior'] = {};
  if (!r || r.version !== RECORD_VERSION) return emptyRecord();
  for (const [k, v] of Object.entries(r.files ?? {})) if (typeof v === 'string') files[k] = v;
  for (const [k, v] of Object.entries(r.prior ?? {})) if (Array.isArray(v)) prior[k] = v.filter((d): d is string | null => d === null || typeof d === 'string');
  const generation = typeof r.generation === 'number' && Number.isSafeInteger(r.generation) && r.generation >= 0 ? r.generation : null;
  return { version: RECORD_VERSION, files, prior, shape: typeof r.shape === 'string' ? r.shape : null, generation };
}

export function writeRecord(dir: string, record: IntegrityRecord): void {
  writeAtomic(recordFile(dir), `${JSON.stringify(record)}\n`, dir);
}

/** Stores a text (or its bytes, with their digest when known) under its digest; returns the digest. */
export function putObject(dir: string, text: string | Uint8Array, digest = sha256(text)): string {
  // One already there is written again unless it holds this text: an agent may have put other bytes
  // under a digest it could foresee (that of the review it is about to write).
  if (!objectHolds(dir, digest, text)) writeAtomic(objectFile(dir, digest), text, dir);
  return digest;
}

/**
 * A stored text, or null when it is missing or no longer matches its digest. The bytes are hashed as
 * they are: the hooks wrote them from a text, so they are that text's UTF-8 and its digest.
 */
export function getObject(dir: string, digest: string): string | null {
  return getObjectBytes(dir, digest)?.toString('utf8') ?? null;
}

/** A stored object's bytes, or null when it is missing or no longer matches its digest. */
export function getObjectBytes(dir: string, digest: string): Buffer | null {
  if (!/^[0-9a-f]{64}$/.test(digest)) return null;
  const bytes = readRegular(objectFile(dir, digest));
  return bytes instanceof Buffer && sha256(bytes) === digest ? bytes : null;
}

/**
 * Whether the stored object `digest` holds exactly this text (or these bytes): then it has that digest,
 * found by reading the object rather than hashing the text (the gates' state check runs on every tool
 * call, and hashing loads node:crypto; a review file already hashed is not hashed again). The object is
 * not hashed either. Whoever could put other text under that name could as well rewrite record.json
 * beside it with the digest of their own text, so this check trusts the record's folder exactly as the
 * digest check does.
 */
export function objectHolds(dir: string, digest: string, content: string | Uint8Array): boolean {
  if (!/^[0-9a-f]{64}$/.test(digest)) return false;
  const held = readRegular(objectFile(dir, digest));
  if (!(held instanceof Buffer)) return false;
  return typeof content === 'string' ? held.toString('utf8') === content : held.equals(content);
}

/**
 * Removes every stored object but these. Only names an object can have: the folder may not be the
 * hooks' own (an agent can put a symlink to the project there), and nothing else in it is theirs to delete.
 */
export function pruneObjects(dir: string, keep: ReadonlySet<string>): void {
  let names: string[];
  try {
    names = fs.readdirSync(path.join(dir, 'objects'));
  } catch {
    return;
  }
  for (const name of names) {
    if (keep.has(name) || !/^[0-9a-f]{64}$/.test(name)) continue;
    try {
      removeFile(path.join(dir, 'objects', name));
    } catch {
      // not a file (a folder of that name): not the hooks', left as it is
    }
  }
}

export type FileCheck = { ok: true } | { ok: false; problem: 'changed' | 'deleted' | 'added' };

/**
 * Whether a hook-owned file holds what the record says (digest: its sha256 now, null when absent). A file
 * the record does not list is fine when absent and "added" when present.
 */
export function checkDigest(record: IntegrityRecord, rel: string, digest: string | null): FileCheck {
  const expected = record.files[rel];
  const alternatives = record.prior[rel] ?? [];
  if (digest === (expected ?? null) || alternatives.includes(digest)) return { ok: true };
  if (expected === undefined) return { ok: false, problem: 'added' };
  return { ok: false, problem: digest === null ? 'deleted' : 'changed' };
}

/**
 * The marker that tells hooks.json's shell prefilter a loop may be running although state.json is gone:
 * ${CLAUDE_PLUGIN_DATA}/live<CLAUDE_PROJECT_DIR>/loop, a path the prefilter builds without starting a
 * process. Null when the host did not give both variables (the CLI, tests without them).
 */
export function markerPath(env: NodeJS.ProcessEnv = process.env): string | null {
  const data = env.CLAUDE_PLUGIN_DATA;
  const project = env.CLAUDE_PROJECT_DIR;
  if (!data || !project || !path.isAbsolute(data) || !path.isAbsolute(project)) return null;
  return path.join(data, `live${project}`, 'loop');
}

/** Whether the live-loop marker stands: the hooks saved a running loop's state here and have not seen it end. */
export function markerHeld(env: NodeJS.ProcessEnv = process.env): boolean {
  const marker = markerPath(env);
  return marker !== null && fs.existsSync(marker);
}

/**
 * Sets the marker (with the generation of the record just written: a smaller one than it had would
 * never be written, as commits count on) or removes it.
 */
export function setMarker(env: NodeJS.ProcessEnv, on: boolean, generation: number | null = null): void {
  const marker = markerPath(env);
  if (!marker) return;
  try {
    if (on) {
      const text = `${env.CLAUDE_PROJECT_DIR}\n${generation ?? ''}\n`;
      if (generation === null && fs.existsSync(marker)) return;
      fs.mkdirSync(path.dirname(marker), { recursive: true });
      // Written in place: a torn write leaves a smaller count or none, which is never taken for a rollback.
      fs.writeFileSync(marker, text);
    } else {
      removeFile(marker);
    }
  } catch {
    // a hint only: without it a deleted state.json is noticed at the next hook that starts node anyway
  }
}

/** The record generation the marker holds; null when there is no marker or it holds none. */
export function markerGeneration(env: NodeJS.ProcessEnv = process.env): number | null {
  const marker = markerPath(env);
  const bytes = marker === null ? null : readRegular(marker);
  if (!(bytes instanceof Buffer) || bytes.length > 4096) return null;
  const count = bytes.toString('utf8').split('\n')[1] ?? '';
  return /^\d{1,15}$/.test(count) ? Number(count) : null;
}
