/**
 * The state file as a small database: validated reads checked against the hooks' record (record.ts),
 * one lock, atomic writes, an archive. What is on disk is trusted only when it is what the hooks wrote;
 * otherwise the load says "tampered" and carries the last state the hooks wrote.
 */
import fs from 'node:fs';
import path from 'node:path';
import { REVIEWERS } from '../protocol/agents';
import type { Effect, Loaded, Outcome, Tamper } from '../core/events';
import { currentIteration } from '../core/loop-state';
import { describeZodError } from '../protocol/zod';
import { sha256 } from '../state/digest';
import { stateProblems } from '../state/invariants';
import { ARCHIVE_DIR, LOCK_FILE, PHASES_DIR, REPORT_FILE, STATE_FILE, TMP_DIR, isRecorded, reviewerFile } from '../protocol/paths';
import { State, STATE_SHAPE, STATE_VERSION } from '../state/schema';
import { openRegular, ownDir, ownTmp, readRegular, readText, sweepTemps, writeAtomic, writeBeside } from './files';
import { reportError } from './io';
import { withFileLock } from './lock';
import { checkFile, copyName, emptyRecord, findGitDir, getObject, getObjectBytes, markerGeneration, markerHeld, objectHolds, pruneObjects, putObject, readRecordFile, recordDir, recordName, RECORD_VERSION, setMarker, writeRecord, type FileCheck, type IntegrityRecord } from './record';

export const statePath = (root: string): string => path.join(root, STATE_FILE);
const tmpRoot = (root: string): string => path.join(root, TMP_DIR);

export interface Store {
  root: string;
  env: NodeJS.ProcessEnv;
  /** The record's folder, or null when the project has none (see recordDir). */
  dir: string | null;
  /** The record as last read or written; null before the hooks wrote one. */
  record: IntegrityRecord | null;
  /**
   * What happened to the record itself, when not what the hooks left: something unreadable stands in its
   * place ('changed'), or it is gone while the live-loop marker says the hooks saved a running loop ('deleted').
   */
  fault: Tamper | null;
  /**
   * Objects this store has checked or written, by digest: content-addressed, so a text once checked is
   * that digest's text (its bytes as read, or the text as written, decoded only when asked for). One hook
   * checks the frozen reviews when it loads and compares them again for the verdict; a review of
   * thousands of findings is a megabyte to read and hash.
   */
  objects: Map<string, string | Buffer>;
}

export function openStore(root: string, env: NodeJS.ProcessEnv = process.env): Store {
  const dir = recordDir(root, env);
  const read = dir ? readRecordFile(dir) : null;
  const fault: Tamper | null =
    dir === null ? null : read === 'unreadable' ? { file: recordName(root, dir), problem: 'changed' } : read === null && markerHeld(env) ? { file: recordName(root, dir), problem: 'deleted' } : rolledBack(root, dir, read, env);
  return { root, env, dir, record: read === 'unreadable' ? null : read, fault, objects: new Map() };
}

/** A record older than the one the marker says the hooks last wrote: put back from an earlier copy. */
function rolledBack(root: string, dir: string, record: IntegrityRecord | null, env: NodeJS.ProcessEnv): Tamper | null {
  if (record?.generation == null) return null;
  const last = markerGeneration(env);
  if (last === null || record.generation >= last) return null;
  return { file: recordName(root, dir), problem: 'changed', detail: `it is the record of ${last - record.generation} commits before the last one the hooks made: an earlier copy was put back` };
}

/** A stored object (its bytes, or the text it was written from), or null when it is missing or does not match its digest. */
function object(store: Store, digest: string): string | Buffer | null {
  const kept = store.objects.get(digest);
  if (kept !== undefined || !store.dir) return kept ?? null;
  const bytes = getObjectBytes(store.dir, digest);
  if (bytes !== null) store.objects.set(digest, bytes);
  return bytes;
}

/** A stored object's text, or null when it is missing or does not match its digest. */
function objectText(store: Store, digest: string): string | null {
  const kept = object(store, digest);
  if (kept === null || typeof kept === 'string') return kept;
  const text = kept.toString('utf8');
  store.objects.set(digest, text);
  return text;
}

type Raw = { kind: 'absent' } | { kind: 'unreadable'; problem: string } | { kind: 'text'; text: string; bytes: Buffer };

function readState(root: string): Raw {
  // A FIFO would block a read forever, a directory fails it: only a regular file is read, checked on the
  // descriptor it is read from (nothing can be swapped in between).
  const read = openRegular(statePath(root));
  if (read.kind === 'bytes') return { kind: 'text', text: read.bytes.toString('utf8'), bytes: read.bytes };
  if (read.kind === 'absent') return { kind: 'absent' };
  return { kind: 'unreadable', problem: read.kind === 'not-a-file' ? 'it is not a regular file' : `cannot read it: ${read.error.message}` };
}

export function parseState(text: string): Loaded {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { kind: 'broken', problem: 'not valid JSON' };
  }
  return migrate(data);
}

/** Reads any known version of the state; only version 1 exists so far. */
export function migrate(data: unknown): Loaded {
  const version = (data as { version?: unknown } | null)?.version;
  if (version !== STATE_VERSION) return { kind: 'broken', problem: `unknown state version ${JSON.stringify(version)}` };
  const result = State.safeParse(data);
  return result.success ? { kind: 'ok', state: result.data } : { kind: 'broken', problem: describeZodError(result.error) };
}

/** A state that parses but breaks an invariant is not one the hooks wrote. */
function sound(loaded: Loaded): Loaded {
  if (loaded.kind !== 'ok') return loaded;
  const problems = stateProblems(loaded.state);
  return problems.length === 0 ? loaded : { kind: 'tampered', state: loaded.state, problems: problems.map((detail) => ({ file: STATE_FILE, problem: 'invariant', detail })) };
}

/** The last state the hooks saved, from their record; null when it is not to be had or not sound. */
function trustedState(store: Store): State | null {
  const copy = store.record?.files[STATE_FILE];
  const text = store.dir && copy ? getObject(store.dir, copy) : null;
  const loaded = text === null ? null : parseState(text);
  return loaded?.kind === 'ok' && stateProblems(loaded.state).length === 0 ? loaded.state : null;
}

/** What a failed check reports: the file, or the hooks' copy of it when that is what went. */
const tamperOf = (rel: string, check: Extract<FileCheck, { ok: false }>): Tamper => (check.copyLost ? { file: `${rel} (the hooks' copy)`, problem: 'deleted' } : { file: rel, problem: check.problem });

/** The state, checked against the record: state.json only (the gates' path), or with `full` every hook-owned file. */
export function loadFrom(store: Store, full: boolean): Loaded {
  const raw = readState(store.root);
  const record = store.record;
  if (store.fault) {
    // Without its record nothing on disk can be vouched for: a state.json there is not trusted, and one
    // deleted with the record (the marker says a loop ran) is no loop that ended.
    if (raw.kind === 'absent' && !markerHeld(store.env)) return { kind: 'none' };
    const gone: Tamper[] = raw.kind === 'absent' ? [{ file: STATE_FILE, problem: 'deleted' }] : [];
    return { kind: 'tampered', state: null, problems: [store.fault, ...gone], claimedBy: claimedSession(raw) };
  }
  if (!record) {
    // No record (a loop from before it, or nowhere to keep one): the file is all there is.
    if (raw.kind === 'absent') return { kind: 'none' };
    return sound(raw.kind === 'unreadable' ? { kind: 'broken', problem: raw.problem } : parseState(raw.text));
  }
  const own = raw.kind === 'text' && holdsOwnCopy(store, raw.bytes);
  const check: FileCheck = own ? { ok: true } : checkFile(record, store.dir, STATE_FILE, raw.kind === 'text' ? raw.bytes : raw.kind === 'absent' ? null : 'unreadable');
  if (!check.ok) {
    const trusted = trustedState(store);
    if (check.problem === 'deleted' && trusted && !findGitDir(store.root) && cancelledElsewhere(store.root, trusted.runId)) return { kind: 'none' };
    return { kind: 'tampered', state: trusted, problems: [tamperOf(STATE_FILE, check)], claimedBy: trusted ? undefined : claimedSession(raw) };
  }
  if (raw.kind !== 'text') return { kind: 'none' };
  const loaded = sound(own && record.shape === STATE_SHAPE ? ownState(raw.text) : parseState(raw.text));
  if (loaded.kind !== 'ok' || !full) return loaded;
  const problems = ownedFileProblems(store, loaded.state);
  return problems.length === 0 ? loaded : { kind: 'tampered', state: loaded.state, problems };
}

/** The session a state file names, read as plain JSON (nothing else of it is believed); null when it names none. */
function claimedSession(raw: Raw): string | null {
  if (raw.kind !== 'text') return null;
  try {
    const id = (JSON.parse(raw.text) as { sessionId?: unknown } | null)?.sessionId;
    return typeof id === 'string' && id !== '' ? id : null;
  } catch {
    return null;
  }
}

/** Whether state.json holds exactly the hooks' copy of the state they last saved (not one a commit under way may have left). */
function holdsOwnCopy(store: Store, bytes: Buffer): boolean {
  const expected = store.record?.files[STATE_FILE];
  return expected !== undefined && store.dir !== null && objectHolds(store.dir, expected, bytes);
}

/**
 * The hooks' own copy of the state, saved by hooks of this very schema (the record's shape): the hooks
 * made it (the start, then the transition), so it is read without building and running the schema (a
 * few milliseconds of every hook's start). Its invariants are still checked (sound). test/helpers/loop.ts
 * holds every state the hooks save in the hook tests to what the schema would make of it.
 */
function ownState(text: string): Loaded {
  try {
    const data = JSON.parse(text) as State;
    return data?.version === STATE_VERSION ? { kind: 'ok', state: data } : parseState(text);
  } catch {
    return parseState(text);
  }
}

/**
 * The CLI's cancel outside git (no plugin data folder, so no record) archives the state as cancelled
 * without updating the record: a state that went to the archive that way is not a deletion. Only
 * outside git: in a repository the CLI finds the record in the git dir and updates it, so there a
 * "cancelled" archive beside a deleted state.json is somebody else's doing (an interpreter can write
 * both), and the loop is tampered with.
 */
function cancelledElsewhere(root: string, runId: string): boolean {
  try {
    const text = readText(path.join(root, ARCHIVE_DIR, runId.replace(/[^\w.-]/g, '_'), 'state.json'));
    if (text === null) return false;
    const archived = parseState(text);
    return archived.kind === 'ok' && archived.state.runId === runId && archived.state.status === 'cancelled';
  } catch {
    return false;
  }
}

/** Every hook-owned file but the state, and the frozen reviews of the current round. */
function ownedFileProblems(store: Store, state: State): Tamper[] {
  const problems: Tamper[] = [];
  for (const rel of Object.keys(store.record!.files)) {
    if (rel === STATE_FILE) continue;
    const bytes = readRegular(path.join(store.root, rel));
    if (bytes === 'not-a-file') {
      problems.push({ file: rel, problem: 'changed' });
      continue;
    }
    const check = checkFile(store.record!, store.dir, rel, bytes);
    if (!check.ok) problems.push(tamperOf(rel, check));
  }
  const runs = currentIteration(state).r1.reviewers;
  for (const r of REVIEWERS) {
    const frozen = runs[r].frozen;
    // Checked against the sha256 that names it, and kept for the verdict this hook may compute next.
    if (frozen !== null && object(store, frozen) === null) problems.push({ file: `${reviewerFile(state.iteration, r)} (the hooks' copy)`, problem: 'deleted' });
  }
  return problems;
}

/**
 * An unlocked read, for the gates: one small record read, and state.json compared with the hooks' copy
 * (hashed only when it differs). A commit may run between the two reads, so a mismatch is read once more
 * before it counts.
 */
export function load(root: string, env: NodeJS.ProcessEnv = process.env): Loaded {
  let loaded = loadFrom(openStore(root, env), false);
  for (let again = 0; again < 2 && loaded.kind === 'tampered'; again++) loaded = loadFrom(openStore(root, env), false);
  if (loaded.kind === 'none') setMarker(env, false);
  return loaded;
}

/** A recorded review's text as the hooks froze it, or null. */
export function frozenText(store: Store, digest: string): string | null {
  return store.dir ? objectText(store, digest) : null;
}

/** Whether these bytes are the hooks' frozen copy `digest` (compared, not hashed; decoded only against a copy this hook wrote from its text). */
export function frozenHolds(store: Store, digest: string, bytes: Buffer): boolean {
  const kept = store.dir ? object(store, digest) : null;
  if (kept === null) return false;
  return typeof kept === 'string' ? bytes.length >= kept.length && bytes.toString('utf8') === kept : kept.equals(bytes);
}

/** Runs fn under the project's lock, after sweeping temporary files that killed hooks left behind; `takeOver`: see LockOptions. */
export async function withLock<T>(root: string, fn: (held: () => boolean) => Promise<T>, env: NodeJS.ProcessEnv = process.env, takeOver = false): Promise<T> {
  // Strict: a .agents that is a link (a cloned repository may carry one) would put the loop's files, and
  // its reviewers' writes, wherever it leads, another project's loop included. WriteRefused says so.
  ownTmp(root, true);
  // MINIONS_LOCK_WAIT_MS: how long a hook waits for a held lock (25 s unless set; 0.1–60 s).
  const wait = Number(env.MINIONS_LOCK_WAIT_MS);
  const waitMs = Number.isFinite(wait) && wait > 0 ? Math.min(Math.max(wait, 100), 60_000) : undefined;
  return withFileLock(path.join(root, LOCK_FILE), { tempRoot: tmpRoot(root), waitMs, takeOver }, async (held) => {
    sweepTemps(tmpRoot(root));
    const dir = recordDir(root, env);
    if (dir) sweepTemps(dir);
    return fn(held);
  });
}

const PRE_SAVE = new Set<Effect['type']>(['write', 'mkdir', 'archive-previous']);

/**
 * Writes one transition's outcome: the files its effects name, the state, and the record around them
 * (see record.ts for the order). The state is written when it changed, or when the one on disk was not
 * the hooks' (it is put back). Returns the state now on disk.
 */
export function commit(store: Store, loaded: Loaded, outcome: Outcome, now: string): State | null {
  const before = loaded.kind === 'ok' ? loaded.state : null;
  const saving = outcome.state !== null && (outcome.state !== before || loaded.kind === 'tampered');
  // Each file is encoded once: the hooks' copy of it and the write use the same bytes.
  const stateText = saving ? Buffer.from(`${JSON.stringify(outcome.state, null, 2)}\n`) : null;
  const encoded = new Map<Effect, Buffer>();
  const bytesOf = (effect: Extract<Effect, { type: 'write' }>): Buffer => {
    let bytes = encoded.get(effect);
    if (!bytes) encoded.set(effect, (bytes = Buffer.from(effect.content)));
    return bytes;
  };
  const old = store.record ?? emptyRecord();
  // Counted on from the record this commit replaces (see IntegrityRecord.generation).
  const generation = (old.generation ?? 0) + 1;
  /** The copies this commit keeps of the files it writes, by their names (see record.ts's COPY_NAME). */
  const copies = new Map<string, Buffer>();
  const copyOf = (bytes: Buffer): string => {
    const name = copyName(generation, copies.size);
    copies.set(name, bytes);
    return name;
  };
  // The shape the state on disk was saved under: this schema's once this commit saves it, else as it was.
  const shape = stateText !== null ? STATE_SHAPE : old.shape;
  const files = { ...old.files };
  const prior: IntegrityRecord['prior'] = {};
  let pins = old.pins;
  // A file written is replaced by a rename, so until then it holds what it held (or is absent if it was);
  // only a file moved away may also be absent. A commit cut short does not make a deleted state.json fine.
  const touch = (rel: string, pin: string | null) => {
    prior[rel] = [...new Set([...(prior[rel] ?? []), old.files[rel] ?? null, ...(pin === null ? [null] : [])])];
    if (pin === null) delete files[rel];
    else files[rel] = pin;
  };
  const moved = (effect: Effect) => {
    const phases = effect.type === 'archive-previous' || (effect.type === 'archive-run' && effect.phases);
    for (const rel of Object.keys(files)) if (rel === STATE_FILE || (phases && rel.startsWith(`${PHASES_DIR}/`))) touch(rel, null);
  };
  const pre = outcome.effects.filter((e) => PRE_SAVE.has(e.type));
  const post = outcome.effects.filter((e) => !PRE_SAVE.has(e.type));
  for (const effect of pre) {
    if (effect.type === 'write' && isRecorded(effect.path)) touch(effect.path, copyOf(bytesOf(effect)));
    if (effect.type === 'archive-previous') moved(effect);
  }
  if (stateText !== null) touch(STATE_FILE, copyOf(stateText));
  for (const effect of post) {
    if (effect.type === 'pin') files[effect.path] = sha256(effect.content);
    if (effect.type === 'archive-run') moved(effect);
    if (effect.type === 'forget') for (const rel of effect.paths) if (rel !== STATE_FILE) delete files[rel];
    if (effect.type === 'pin-repo') pins = effect.pins;
  }

  if (store.dir) {
    // Kept by digest for the rest of this hook too: the round's verdict, computed next, reads them back.
    for (const effect of outcome.effects) if (effect.type === 'freeze') store.objects.set(putObject(store.dir, effect.content), effect.content);
    for (const [name, bytes] of copies) putObject(store.dir, bytes, name);
    writeRecord(store.dir, { version: RECORD_VERSION, files, prior, shape, generation, pins });
  }
  for (const effect of pre) applyFileEffect(store.root, effect, now, bytesOf);
  if (stateText !== null) {
    writeAtomic(statePath(store.root), stateText, tmpRoot(store.root));
  }
  for (const effect of post) applyFileEffect(store.root, effect, now, bytesOf);
  const record: IntegrityRecord = { version: RECORD_VERSION, files, prior: {}, shape, generation, pins };
  if (store.dir) {
    writeRecord(store.dir, record);
    store.record = record;
    const live = files[STATE_FILE] !== undefined;
    setMarker(store.env, live, generation);
    // The copies the record names, and the frozen reviews the state names; nothing once the loop is archived.
    pruneObjects(store.dir, new Set(live ? [...Object.values(files), ...(outcome.state ? frozenDigests(outcome.state) : [])] : []));
  }
  const archived = post.some((e) => e.type === 'archive-run') || (outcome.state === null && pre.some((e) => e.type === 'archive-previous'));
  return archived ? null : (outcome.state ?? before);
}

/** The frozen reviews and their readings the state names. */
const frozenDigests = (state: State): string[] =>
  state.iterations.flatMap((it) => REVIEWERS.flatMap((r) => [it.r1.reviewers[r].frozen, it.r1.reviewers[r].reading].filter((d): d is string => d !== null)));

/** Carries out one file effect; answers (block, deny, notify …) are left to the runner. */
function applyFileEffect(root: string, effect: Effect, now: string, bytesOf: (write: Extract<Effect, { type: 'write' }>) => Buffer): void {
  switch (effect.type) {
    case 'write':
      if (effect.path !== REPORT_FILE) return writeAtomic(path.join(root, effect.path), bytesOf(effect), tmpRoot(root));
      // The report is for reading, not for the loop: one that cannot be written costs the state change nothing.
      try {
        writeAtomic(path.join(root, effect.path), bytesOf(effect), tmpRoot(root));
      } catch (err) {
        reportError('report', `could not write the loop's REPORT.md (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); /minions:report writes it again`, err);
      }
      return;
    case 'mkdir':
      ownDir(path.join(root, effect.path), tmpRoot(root));
      return;
    case 'archive-previous': {
      const into = effect.into ?? previousRunId(root) ?? `unknown-${now.replace(/[-:.]/g, '')}`;
      archive(root, into, true);
      return;
    }
    case 'archive-run':
      archive(root, effect.into, effect.phases);
      return;
    case 'export':
      try {
        writeBeside(effect.file, effect.content);
      } catch (err) {
        reportError('report', `could not write ${effect.file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); minions report --sarif --out FILE writes it again`, err);
      }
      return;
    default:
      return;
  }
}

function previousRunId(root: string): string | null {
  try {
    const run = JSON.parse(readText(path.join(root, PHASES_DIR, 'run.json')) ?? 'null') as { runId?: unknown } | null;
    return typeof run?.runId === 'string' && /^[\w.-]+$/.test(run.runId) ? run.runId : null;
  } catch {
    return null;
  }
}

/** Moves the state file (and phases/) into archive/<id>/, never overwriting what is there. */
function archive(root: string, id: string, withPhases: boolean): void {
  // A finished run's state is archived when it ends, its phases at the next start: both land in one folder.
  const dir = path.join(root, ARCHIVE_DIR, id.replace(/[^\w.-]/g, '_'));
  const moves: [string, string][] = [[statePath(root), path.join(dir, 'state.json')]];
  if (withPhases) moves.push([path.join(root, PHASES_DIR), path.join(dir, 'phases')]);
  for (const [from, to] of moves) {
    if (!fs.existsSync(from)) continue;
    ownDir(path.dirname(to), tmpRoot(root));
    // Same file system (both under .agents/tmp), so a rename moves it atomically.
    fs.renameSync(from, fs.existsSync(to) ? `${to}.${Date.now()}` : to);
  }
}
