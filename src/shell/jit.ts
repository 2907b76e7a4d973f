/**
 * V8's optimising compiler, switched off for the rest of a hook that has a large round to work through.
 *
 * A hook lives for one call. Its code runs in V8's interpreter and baseline tier; TurboFan compiles the
 * functions that run hottest on background threads, and that CPU time is the hook's too. In a review of
 * thousands of findings that compiling costs more than the optimised code saves before the hook exits:
 * the fifth reviewer's stop of 5 × 2,000 findings took 0.85–0.90× the CPU time with TurboFan off (bench/
 * aggregate.bench.ts, interleaved pairs), a 50 MB source 0.96×. A small round is not worth the switch:
 * loading node:v8 and the flag's cost to later module loads (their code cache no longer matches) are
 * about 6 ms. Functions already optimised keep their code; nothing else changes but speed.
 */
import { createRequire } from 'node:module';

let allowed = false;
let done = false;

/** Called by the hook runner: only a hook's own process is tuned, never a test's or a tool's that imports the shell. */
export function allowJitTuning(): void {
  allowed = true;
}

/** The flag's name: TurboFan was `--opt` before V8 10.8 (node 18), and an unknown flag prints an error. */
const flag = (): string => (Number(process.versions.v8.split('.')[0]) >= 11 ? '--no-turbofan' : '--no-opt');

/** Switches TurboFan off for the rest of this hook (once; nothing when not allowed or not possible). */
export function tuneForLargeRound(): void {
  if (!allowed || done) return;
  done = true;
  try {
    // A builtin resolves from anywhere: '/' serves as the base in the bundles and in the tests.
    (createRequire('/')('node:v8') as typeof import('node:v8')).setFlagsFromString(flag());
  } catch {
    // a node that refuses the flag runs as before
  }
}
