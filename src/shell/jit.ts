/**
 * V8's optimising compiler, switched off for the rest of a hook that has a large round to work through.
 *
 * A hook lives for one call. Its code runs in V8's interpreter and baseline tier; TurboFan compiles the
 * functions that run hottest on background threads, and that CPU time is the hook's too. In a review of
 * thousands of findings that compiling costs more than the optimised code saves before the hook exits:
 * the fifth reviewer's stop of 5 × 2,000 findings took 0.85–0.90× the CPU time with TurboFan off (bench/
 * aggregate.bench.ts, interleaved pairs), a 50 MB source 0.96×. A small round is not worth the switch:
 * loading node:v8 and the modules below costs a few milliseconds. Functions already optimised keep their
 * code; nothing else changes but speed.
 *
 * V8 refuses a code cache made under other flags than its own. Two caches are kept whole:
 * - node's built-in one for its own modules: the ones a large round goes on to load are loaded before the
 *   switch (node:child_process for the round's snapshot, about 10 ms to compile from source, and
 *   node:crypto for its digests);
 * - the launcher's one for the bundle (launch.ts), written at exit when the call did not run from it: the
 *   flag is set back first, or every later call would refuse that cache and compile the bundle again.
 */
import { createRequire } from 'node:module';

let allowed = false;
let done = false;

/** Called by the hook runner: only a hook's own process is tuned, never a test's or a tool's that imports the shell. */
export function allowJitTuning(): void {
  allowed = true;
}

/** The flag's name: TurboFan was `--opt` before V8 10.8 (node 18), and an unknown flag prints an error. */
const flag = (on: boolean): string => (Number(process.versions.v8.split('.')[0]) >= 11 ? (on ? '--turbofan' : '--no-turbofan') : on ? '--opt' : '--no-opt');

/** Node's modules a large round loads after the switch, loaded before it. */
const LOADED_FIRST = ['node:child_process', 'node:crypto'];

/** Switches TurboFan off for the rest of this hook (once; nothing when not allowed or not possible). */
export function tuneForLargeRound(): void {
  if (!allowed || done) return;
  done = true;
  try {
    // A builtin resolves from anywhere: '/' serves as the base in the bundles and in the tests.
    const load = createRequire('/');
    for (const id of LOADED_FIRST) load(id);
    const v8 = load('node:v8') as typeof import('node:v8');
    v8.setFlagsFromString(flag(false));
    // Before every other exit listener, the launcher's cache writer among them (it was added first).
    process.prependOnceListener('exit', () => v8.setFlagsFromString(flag(true)));
  } catch {
    // a node that refuses the flag runs as before
  }
}
