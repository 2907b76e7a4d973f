/**
 * How slowly this machine runs right now, for the few limits a test needs (a process that must not
 * hang, a run that must end). Measured once, when the run starts (vitest.config.ts), as the median
 * wall time of bare node starts over what one takes on an idle machine; every limit is written for an
 * idle machine and scaled by it: paced(4000). No test asserts how fast anything is.
 */
import { spawnSync } from 'node:child_process';

/** A bare `node -e ''` on an idle 2-core machine, in wall milliseconds (about 80 on the one this was written on). */
export const IDLE_NODE_START_MS = 100;
const ENV = 'MINIONS_TEST_PACE';

export interface Pace {
  /** ≥ 1: how many times slower than idle. */
  factor: number;
  nodeStartMs: number;
}

export function measurePace(samples = 5): Pace {
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const started = performance.now();
    spawnSync(process.execPath, ['-e', ''], { stdio: 'ignore' });
    times.push(performance.now() - started);
  }
  const nodeStartMs = times.sort((a, b) => a - b)[Math.floor(samples / 2)]!;
  return { factor: Math.max(1, nodeStartMs / IDLE_NODE_START_MS), nodeStartMs };
}

/** Measures the pace and hands it to every test process (they inherit the environment). */
export function publishPace(): Pace {
  const measured = measurePace();
  process.env[ENV] = String(measured.factor);
  return measured;
}

/** The factor measured at the start of this run (1 outside vitest, e.g. in the demo). */
export function pace(): number {
  const factor = Number(process.env[ENV]);
  return Number.isFinite(factor) && factor >= 1 ? factor : 1;
}

/** A limit written for an idle machine, scaled to this run's pace. */
export const paced = (ms: number): number => Math.ceil(ms * pace());
