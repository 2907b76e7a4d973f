/**
 * The least any fifth stop must do, built from the hooks' own code (bench/aggregate.bench.ts bundles it
 * with esbuild and runs it in the case's project, in the hook's place): the round's tree snapshot (part
 * 2 of the issue: a change made during R1 is named in the verdict, so the snapshot comes before it),
 * validating the fifth review (it reaches the hooks only now), and writing a verdict of the round's
 * findings. Nothing else: no hook runner, lock, state or record, no merging, scores, statuses, reports.
 *
 *   node lower-bound.cjs <review file> <findings to write> [ground]
 *
 * With `ground` it also grounds the fifth review's findings, through the hook's own grounder. The
 * findings written are the fifth review's, repeated to the count, each with its grounding: about the
 * verdict's bytes. TurboFan is switched off first, as the hook does for a large round (src/shell/jit.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { grounderFor } from '../src/review/grounding';
import { parseReview } from '../src/protocol/reviewer-output';
import { readSources } from '../src/shell/sources';
import { allowJitTuning, tuneForLargeRound } from '../src/shell/jit';
import { snapshotWithDiff } from '../src/shell/snapshot';

const [reviewFile, countArg, ground] = process.argv.slice(2);
const root = process.cwd();
// As the hook does for a large round (both of the bench's cases are): TurboFan off from here.
allowJitTuning();
tuneForLargeRound();
if (!snapshotWithDiff(root, null).tree) throw new Error('the snapshot failed');
const text = fs.readFileSync(reviewFile!, 'utf8');
const review = parseReview(text);
if (!review.ok) throw new Error(review.error);
const grounder = ground === 'ground' ? grounderFor(readSources(root, [text])) : null;
const groundings = review.issues.map((f) => grounder?.ground(f) ?? { status: 'grounded', line: f.line });
const count = Number(countArg);
const findings = Array.from({ length: count }, (_, i) => ({ ...review.issues[i % review.issues.length]!, grounding: groundings[i % review.issues.length] }));
const out = path.join(os.tmpdir(), `minions-lower-bound-${process.pid}.json`);
fs.writeFileSync(out, `${JSON.stringify({ findings })}\n`);
fs.rmSync(out);
