/** SubagentStop of a reviewer: validate its review and record it, frozen; the fifth one starts the round's verdict. */
import type { Effect, Event, Outcome } from './events';
import { MAX_OUTPUT_FAILURES, currentIteration, json, setReviewer, updateIteration } from './loop-state';
import { identityOf } from '../review/aggregate';
import { ground } from '../review/grounding';
import { encodeReading, holdReading, type ReadingRow } from '../review/reading';
import { extractJsonFromMessage, parseReview, reviewJsonOf } from '../protocol/reviewer-output';
import * as progress from './progress';
import * as prompts from './prompts';
import { sha256 } from '../state/digest';
import type { ReviewerRun, State } from '../state/schema';
import { absolute, reviewerFile } from '../protocol/paths';

export function onReviewerStop(state: State, event: Extract<Event, { kind: 'reviewer-stop' }>): Outcome {
  const { reviewer } = event;
  if (state.currentPhase !== 'R1') return { state, effects: [] };
  const current = currentIteration(state);
  const run = current.r1.reviewers[reviewer];
  // Late or repeated (already recorded), or a stop from an earlier iteration (never dispatched in this one).
  if (run.status === 'valid' || run.status === 'invalid' || run.dispatches === 0) return { state, effects: [] };

  // Once this review is recorded (valid or not), is every review of the round in?
  const last = state.effort.reviewers.every((r) => r === reviewer || isFinal(current.r1.reviewers[r]));
  const path = reviewerFile(state.iteration, reviewer);
  const shown = absolute(state.root, path);
  // A file that holds other text than the reviewer last wrote to it (its transcript) was changed by
  // someone else before this stop: the review is the reviewer's own, and the file is put back.
  // Line endings aside: a tool may keep a file's CRLF when it writes it again.
  const replaced = typeof event.ownWrite === 'string' && !sameText(event.ownWrite, event.file);
  const fileText = replaced ? event.ownWrite! : event.file;
  // The file is the review: the final message stands in only for a file that is missing or empty.
  const fromFile = fileText === null || fileText.trim() === '' ? null : parseReview(fileText);
  const messageJson = fromFile === null ? extractJsonFromMessage(event.message) : null;
  const fromMessage = messageJson === null ? null : parseReview(messageJson);
  // Put back whatever the stop decides (unless the final message's review is written there instead): a
  // reviewer sent back reads its own review in the file, and a review recorded is the file's text.
  const putBack: Effect[] = replaced && !(!fromFile?.ok && fromMessage?.ok) ? [{ type: 'write', path, content: fileText! }, { type: 'notify', text: progress.notify.reviewReplaced(state, reviewer) }] : [];

  const effects: Effect[] = [...putBack];
  let recorded: ReviewerRun;
  // What the round will be aggregated from, whatever happens to the file afterwards.
  let frozenText = fileText ?? '';
  let source = '';
  let reading: string | null = null;
  const accepted = fromFile?.ok ? fromFile : fromMessage?.ok ? fromMessage : null;
  if (accepted) {
    // Grounding (seed 000): a reviewer any of whose findings do not match the files is shown them by name, once.
    const groundings = accepted.issues.map((f) => ground(f, event.sources));
    const ungrounded = accepted.issues.flatMap((f, i) => (groundings[i]!.status === 'ungrounded' ? [prompts.ungroundedLine(i, f, groundings[i]!.reason)] : []));
    if (!run.groundingWarned && ungrounded.length > 0) {
      const next = setReviewer(state, event.now, reviewer, { ...run, groundingWarned: true });
      return { state: next, effects: [...putBack, { type: 'block', reason: prompts.reviewerUngrounded(shown, ungrounded) }] };
    }
    if (!fromFile?.ok && messageJson !== null) {
      const pretty = json(reviewJsonOf(fromMessage!.ok ? fromMessage! : accepted));
      effects.push({ type: 'write', path, content: pretty });
      frozenText = pretty;
      source = ', taken from its final message';
    } else if (replaced) {
      source = ', as it wrote it';
    }
    const frozen = sha256(frozenText);
    const rows = accepted.issues.map((f, i): ReadingRow => ({ grounding: groundings[i]!, key: identityOf(f, event.sources, groundings[i]!) }));
    // The verdict notes a review recorded over a file someone else changed (round.ts).
    const read = { review: accepted, rows, ...(replaced && fromFile?.ok ? { replaced: true as const } : {}) };
    // The last review in goes on to the verdict in this very hook: its reading is held, not kept (a
    // megabyte to encode, hash and write for a round of thousands of findings).
    if (last) holdReading(frozen, read);
    else reading = encodeReading(frozen, read);
    recorded = { ...run, status: 'valid', error: null, counts: accepted.counts, frozen, reading: reading === null ? null : sha256(reading) };
  } else {
    const error = fromFile && !fromFile.ok ? fromFile.error : fromMessage && !fromMessage.ok ? fromMessage.error : null;
    const failures = run.failures + 1;
    if (failures < MAX_OUTPUT_FAILURES) {
      const next = setReviewer(state, event.now, reviewer, { ...run, failures, error: error ?? 'no output' });
      return { state: next, effects: [...putBack, { type: 'block', reason: error ? prompts.reviewerInvalid(shown, error) : prompts.reviewerMissing(shown) }] };
    }
    recorded = { ...run, status: 'invalid', failures, error: error ?? 'no output', counts: null, frozen: sha256(frozenText), reading: null };
  }

  const next = setReviewer(state, event.now, reviewer, recorded);
  effects.push({ type: 'freeze', content: frozenText });
  if (reading !== null) effects.push({ type: 'freeze', content: reading });
  effects.push({ type: 'notify', text: progress.notify.reviewerDone(next, reviewer, recorded.counts, source) });
  if (!last) return { state: next, effects };
  // The fifth review is in. The verdict is computed by the next step (an 'aggregate' event), after this
  // state is saved: a hook killed while aggregating leaves a record that says so (round.ts).
  return { state: updateIteration(next, event.now, (it) => ({ ...it, r1: { ...it.r1, aggregation: { since: event.now, attempts: 1 } } })), effects };
}

const sameText = (a: string, b: string | null): boolean => a === b || (b !== null && a.replace(/\r\n/g, '\n') === b.replace(/\r\n/g, '\n'));

const isFinal = (run: ReviewerRun): boolean => run.status === 'valid' || run.status === 'invalid';
