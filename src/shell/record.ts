/**
 * The hooks' private record of the files they own: for each, a copy of what the hooks last wrote there
 * (an object named by the commit that wrote it, compared byte for byte), or for a file an agent wrote
 * (the fixer's answers, once accepted) its sha256; and the reviews as they were validated (objects named
 * by their sha256). It lives where agents are not pointed: inside the git dir (<git dir>/minions/record/<key>),
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
import type { Pins, PinRecord } from '../checks/pins';

/**
 * 2: files the hooks write are pinned by a copy (COPY_NAME), so checking them hashes nothing and a hook
 * that hashes nothing never loads node:crypto. Version 1 pinned every file by its sha256; its records
 * are still read (a digest entry is checked by hashing, as before).
 */
export const RECORD_VERSION = 2;
const READABLE_VERSIONS: readonly number[] = [1, 2];

/** An object named by its sha256 (a review, its reading, a state.json of a version 1 record). */
const DIGEST_NAME = /^[0-9a-f]{64}$/;
/** An object named by the commit that wrote it: `c<generation>.<n>` (a copy of a file the hooks wrote). */
const COPY_NAME = /^c\d{1,15}\.\d{1,6}$/;
const isObjectName = (name: string): boolean => DIGEST_NAME.test(name) || COPY_NAME.test(name);
/** The name of the `n`th copy a commit of this generation writes. */
export const copyName = (generation: number, n: number): string => `c${generation}.${n}`;

export interface IntegrityRecord {
  version: number;
  /**
   * Project-relative path → what the file must hold: the name of the hooks' copy of what they last wrote
   * there (COPY_NAME), or the sha256 of what an agent wrote there (the fixer's answers, as accepted).
   */
  files: { [rel: string]: string };
  /** While a commit runs: what a file it touches may hold instead (a copy's name or a digest; null: it may be absent). */
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
  /**
   * The git dir's files and the files the checks run outside the snapshot, fingerprinted when the loop
   * started (checks/pins.ts), by absolute path; null: none taken (no loop started since, or older hooks).
   */
  pins: PinRecord | null;
}

export const emptyRecord = (): IntegrityRecord => ({ version: RECORD_VERSION, files: {}, prior: {}, shape: null, generation: null, pins: null });

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
    return inside ? keyed(path.join(git.gitDir, 'minions', 'record'), inside) : path.join(git.gitDir, 'minions', 'record', 'top');
  }
  const data = env.CLAUDE_PLUGIN_DATA;
  return data && path.isAbsolute(data) ? keyed(path.join(data, 'records'), root) : null;
}

/**
 * The folder in `base` for a key (a path): the path spelled as one file name (`p-` and the path with
 * every other character than a letter, digit, `.`, `_` or `-` as `%XX`), which every hook can work out
 * without node:crypto. Hooks before it named the folder by the path's sha256: while no folder of the new
 * name is there, one of the old name is used (a loop those hooks started goes on), and a path too long for
 * one file name keeps the old name.
 */
function keyed(base: string, key: string): string {
  const spelled = `p-${Array.from(Buffer.from(key, 'utf8'), (b) => (/[\w.-]/.test(String.fromCharCode(b)) && b < 0x80 ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`)).join('')}`;
  const named = path.join(base, spelled);
  if (spelled.length <= 200 && fs.existsSync(named)) return named;
  const hashed = path.join(base, sha256(key).slice(0, 16));
  return spelled.length > 200 || fs.existsSync(hashed) ? hashed : named;
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
  if (!r || typeof r.version !== 'number' || !READABLE_VERSIONS.includes(r.version)) return emptyRecord();
  for (const [k, v] of Object.entries(r.files ?? {})) if (typeof v === 'string') files[k] = v;
  for (const [k, v] of Object.entries(r.prior ?? {})) if (Array.isArray(v)) prior[k] = v.filter((d): d is string | null => d === null || typeof d === 'string');
  const generation = typeof r.generation === 'number' && Number.isSafeInteger(r.generation) && r.generation >= 0 ? r.generation : null;
  const pins = r.pins && typeof r.pins === 'object' ? { gitDir: parsePins(r.pins.gitDir), checks: parsePins(r.pins.checks) } : null;
  return { version: r.version, files, prior, shape: typeof r.shape === 'string' ? r.shape : null, generation, pins };
}

function parsePins(data: unknown): Pins {
  const pins: Pins = {};
  if (!data || typeof data !== 'object') return pins;
  for (const [k, v] of Object.entries(data)) if (v === null || typeof v === 'string') pins[k] = v;
  return pins;
}

export function writeRecord(dir: string, record: IntegrityRecord): void {
  writeAtomic(recordFile(dir), `${JSON.stringify(record)}\n`, dir);
}

/** Stores a text (or its bytes) under its digest, or under `name` (a copy's, COPY_NAME); returns the name. */
export function putObject(dir: string, text: string | Uint8Array, name = sha256(text)): string {
  // One already there is written again unless it holds this text: an agent may have put other bytes
  // under a name it could foresee (the digest of the review it is about to write, the next copy's name).
  if (!objectHolds(dir, name, text)) writeAtomic(objectFile(dir, name), text, dir);
  return name;
}

/**
 * A stored text, or null when it is missing or no longer matches its digest. The bytes are hashed as
 * they are: the hooks wrote them from a text, so they are that text's UTF-8 and its digest.
 */
export function getObject(dir: string, digest: string): string | null {
  return getObjectBytes(dir, digest)?.toString('utf8') ?? null;
}

/**
 * A stored object's bytes, or null when it is missing or (named by a digest) no longer matches it. A copy
 * is not checked: it is trusted as the record beside it is (see objectHolds).
 */
export function getObjectBytes(dir: string, name: string): Buffer | null {
  if (!isObjectName(name)) return null;
  const bytes = readRegular(objectFile(dir, name));
  if (!(bytes instanceof Buffer)) return null;
  return COPY_NAME.test(name) || sha256(bytes) === name ? bytes : null;
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
  if (!isObjectName(digest)) return false;
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
    if (keep.has(name) || !isObjectName(name)) continue;
    try {
      removeFile(path.join(dir, 'objects', name));
    } catch {
      // not a file (a folder of that name): not the hooks', left as it is
    }
  }
}

export type FileCheck = { ok: true } | { ok: false; problem: 'changed' | 'deleted' | 'added'; copyLost?: true };

/**
 * Whether a hook-owned file holds what the record says (`bytes`: what it holds now, null when absent,
 * 'unreadable' when something stands there that cannot be read), or one of the alternatives a commit
 * under way left. A copy is compared with the file. A digest is compared without hashing when the object
 * of that name holds the same bytes (a state.json of a version 1 record beside its copy), else with the
 * sha256 of the bytes, or of their text (a file an agent wrote in other bytes than UTF-8 was pinned as the
 * text it reads as).
 * A file the record does not list is fine when absent and "added" when present. `copyLost`: the file is
 * there but the hooks' copy it is pinned by is not (deleted, or made unreadable), so nothing vouches for it.
 */
export function checkFile(record: IntegrityRecord, dir: string | null, rel: string, bytes: Buffer | null | 'unreadable'): FileCheck {
  const expected = record.files[rel];
  const candidates = [expected ?? null, ...(record.prior[rel] ?? [])];
  let raw: string | undefined;
  let text: string | undefined;
  const holds = (want: string | null): boolean => {
    if (want === null || bytes === null) return want === bytes;
    if (bytes === 'unreadable') return false;
    if (dir !== null && objectHolds(dir, want, bytes)) return true;
    if (!DIGEST_NAME.test(want)) return false;
    return want === (raw ??= sha256(bytes)) || want === (text ??= sha256(bytes.toString('utf8')));
  };
  if (candidates.some(holds)) return { ok: true };
  if (expected === undefined) return { ok: false, problem: 'added' };
  if (bytes === null) return { ok: false, problem: 'deleted' };
  const lost = COPY_NAME.test(expected) && (dir === null || !(readRegular(objectFile(dir, expected)) instanceof Buffer));
  return lost ? { ok: false, problem: 'deleted', copyLost: true } : { ok: false, problem: 'changed' };
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
