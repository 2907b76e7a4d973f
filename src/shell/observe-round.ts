/** What the hooks observe for a reviewer's stop and for the round's verdict: the reviews as recorded, not as they are now. */
import fs from 'node:fs';
import path from 'node:path';
import { REVIEWERS, type Reviewer } from '../protocol/agents';
import type { Event } from '../core/events';
import { currentIteration } from '../core/loop-state';
import { lastOwnWrite } from '../core/own-write';
import type { Sources } from '../review/grounding';
import { decodeReading, heldReading, type ReviewReading } from '../review/reading';
import { extractJsonFromMessage } from '../protocol/reviewer-output';
import { sha256 } from '../state/digest';
import { reviewerFile } from '../protocol/paths';
import type { State } from '../state/schema';
import { readRegular, readText } from './files';
import { tuneForLargeRound } from './jit';
import { readDeclines, readFixRounds, readHistory, readSources } from './observe';
import { readMachineFindings } from './observe-fix';
import { readReviewedChecks } from './observe-checks';
import { reviewEndObservation } from './observe-tree';
import { pinnedObservation } from './pins';
import { frozenHolds, frozenText, type Store } from './store';
import { readDismissed } from './dismissed';

type ReviewerStop = Extract<Event, { kind: 'reviewer-stop' }>;
type Aggregate = Extract<Event, { kind: 'aggregate' }>;

/** A review of this many characters (about 650 findings), a round of this many findings, or this many bytes of sources to search are worked through with TurboFan off (shell/jit.ts). */
const LARGE_REVIEW = 256 * 1024;
const LARGE_ROUND = 1_000;
const LARGE_SOURCES = 16 * 1024 ** 2;

/** The bytes of the files read for grounding (a file named several ways once). */
const sourceBytes = (sources: Sources): number => [...new Set(Object.values(sources).flatMap((s) => (s.kind === 'file' ? [s.text] : [])))].reduce((sum, text) => sum + text.length, 0);

/** The stopping reviewer's output file and the files its review names. */
export function reviewerStopObservation(root: string, state: State, reviewer: Reviewer, message: string | null, transcript: string | null = null): Pick<ReviewerStop, 'file' | 'message' | 'sources' | 'ownWrite'> {
  const output = path.join(root, reviewerFile(state.iteration, reviewer));
  const file = readText(output);
  if (file !== null && file.length >= LARGE_REVIEW) tuneForLargeRound();
  const ownWrite = transcript === null ? null : lastOwnWrite(transcript, sameFileAs(root, output));
  const sources = readSources(root, [ownWrite ?? file, extractJsonFromMessage(message)]);
  if (sourceBytes(sources) >= LARGE_SOURCES) tuneForLargeRound();
  return { file, message, sources, ownWrite };
}

/** Whether a path a tool was given (absolute, or from its cwd, else the project) names this file: as written, or where its folder really is. */
function sameFileAs(root: string, target: string): (file: string, cwd: string | undefined) => boolean {
  const real = (p: string): string => {
    try {
      return path.join(fs.realpathSync(path.dirname(p)), path.basename(p));
    } catch {
      return p;
    }
  };
  const want = real(target);
  return (file, cwd) => {
    const given = path.resolve(cwd !== undefined && path.isAbsolute(cwd) ? cwd : root, file);
    return given === target || real(given) === want;
  };
}

/**
 * Everything the round's verdict is computed from. Each review is the text the hooks froze when they
 * recorded it; a review file that no longer holds that text is named in `rewritten` and not read.
 */
export function roundObservation(store: Store, state: State): Omit<Aggregate, 'kind' | 'sessionId' | 'now'> {
  // First, while the hook holds the least memory: the snapshot starts a process, and a fork of node costs
  // the more, the more memory it holds.
  const end = reviewEndObservation(store.root, state);
  const n = state.iteration;
  const runs = currentIteration(state).r1.reviewers;
  const counted = (r: Reviewer): number => {
    const counts = runs[r].counts;
    return counts ? counts.critical + counts.warning + counts.info : 0;
  };
  if (REVIEWERS.reduce((sum, r) => sum + counted(r), 0) >= LARGE_ROUND) tuneForLargeRound();
  const dismissed = readDismissed(store.root);
  const reviews = {} as Record<Reviewer, string | null>;
  const readings: Partial<Record<Reviewer, ReviewReading>> = {};
  const rewritten: Reviewer[] = [];
  for (const r of REVIEWERS) {
    const file = path.join(store.root, reviewerFile(n, r));
    const frozen = runs[r].frozen;
    // Recorded before reviews were frozen, or nowhere to keep a copy: the file is all there is.
    if (frozen === null || !store.dir) {
      reviews[r] = readText(file);
      continue;
    }
    // The hook has the frozen copy already (checked at load, or frozen by this very hook): the same bytes
    // need no hash, and are not decoded. A review in other bytes than UTF-8 was pinned as its text.
    const onDisk = readRegular(file);
    if (!(onDisk instanceof Buffer && (frozenHolds(store, frozen, onDisk) || sha256(onDisk.toString('utf8')) === frozen))) rewritten.push(r);
    // The last review's reading is held by the hook that recorded it, when that is this one.
    const reading = runs[r].reading === null ? heldReading(frozen) : decodeReading(frozenText(store, runs[r].reading!), frozen);
    // A reading holds the review as validated: the verdict does not parse the text again.
    if (reading) readings[r] = reading;
    reviews[r] = reading ? null : frozenText(store, frozen);
  }
  return {
    reviews,
    rewritten,
    readings,
    // Only the reviews their stops' readings do not cover are grounded again.
    sources: readSources(store.root, REVIEWERS.filter((r) => !readings[r]).map((r) => reviews[r])),
    history: readHistory(store.root, n),
    declines: readDeclines(store.root, n),
    fixes: readFixRounds(store.root, n),
    machine: readMachineFindings(store.root, n - 1),
    checks: readReviewedChecks(store.root, n),
    pinned: pinnedObservation(store.root, store.record?.pins),
    dismissed: dismissed.kind === 'ok' ? dismissed.dismissed : [],
    dismissedProblem: dismissed.kind === 'broken' ? dismissed.problem : null,
    ...end,
  };
}
