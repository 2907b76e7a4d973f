/**
 * CPU time of a child process, measured in interleaved pairs against a baseline command: these machines
 * are noisy, so each sample of a case is taken right after a sample of the baseline and reported as a ratio.
 *
 * CPU time (user + system of the process and its children) comes from bash's `time` keyword, which
 * reads the children's rusage (microseconds; the `times` builtin counts 10 ms clock ticks, an eighth
 * of a node start): no wall clock is involved.
 */
import { spawnSync } from 'node:child_process';

export interface Command {
  argv: string[];
  input?: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Runs before every sample (not measured): puts the project in the state the case needs. */
  setup?: () => void;
  /** Runs after every sample (not measured): throws when the run did not do the work the case names. */
  verify?: () => void;
}

const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** User + system CPU milliseconds of one run of the command (and everything it started). */
export function cpuMs(command: Command): number {
  command.setup?.();
  // `time` reports to the shell's stderr, after the command's own output (discarded) is done.
  const script = `TIMEFORMAT='%3U %3S'; time ${command.argv.map(quote).join(' ')} >/dev/null 2>/dev/null`;
  const out = spawnSync('/bin/bash', ['-c', script], {
    input: command.input ?? '',
    env: command.env ?? process.env,
    cwd: command.cwd,
    encoding: 'utf8',
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  if (out.status !== 0) throw new Error(`${command.argv.join(' ')} exited ${out.status}: ${out.stderr}`);
  const [user, system] = out.stderr.trim().split('\n').pop()!.split(' ').map(Number);
  command.verify?.();
  return (user! + system!) * 1000;
}

export interface PairResult {
  name: string;
  /** Median of the per-pair ratios case / baseline. */
  ratio: number;
  /** Median CPU milliseconds of the case and of the baseline. */
  caseMs: number;
  baseMs: number;
  pairs: number;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Runs baseline, case, baseline, case … `pairs` times (after one warm-up each) and reports medians. */
export function measurePairs(name: string, baseline: Command, subject: Command, pairs: number): PairResult {
  cpuMs(baseline);
  cpuMs(subject);
  const ratios: number[] = [];
  const caseMs: number[] = [];
  const baseMs: number[] = [];
  for (let i = 0; i < pairs; i++) {
    const b = cpuMs(baseline);
    const c = cpuMs(subject);
    baseMs.push(b);
    caseMs.push(c);
    ratios.push(c / Math.max(b, 0.001));
  }
  return { name, ratio: median(ratios), caseMs: median(caseMs), baseMs: median(baseMs), pairs };
}

export function formatPairs(results: readonly PairResult[]): string {
  const width = Math.max(...results.map((r) => r.name.length));
  return results
    .map((r) => `${r.name.padEnd(width)}  ${r.ratio.toFixed(2).padStart(6)}×   ${r.caseMs.toFixed(1).padStart(7)} ms CPU (baseline ${r.baseMs.toFixed(1)} ms, ${r.pairs} pairs)`)
    .join('\n');
}

/**
 * The environment a bare node start is measured in: this one, with NODE_EXTRA_CA_CERTS emptied as
 * hooks.json empties it for every hook (src/launch.ts). Node parses the CA bundle it names before any
 * code runs; where it names a system's whole bundle that is more than the rest of a node start, and a
 * baseline that paid for it would make every ratio look about twice as good as it is.
 */
export const nodeEnv: NodeJS.ProcessEnv = { ...process.env, NODE_EXTRA_CA_CERTS: '' };

/** The baseline every ratio is against: a bare node start. */
export const bareNode: Command = { argv: [process.execPath, '-e', ''], env: nodeEnv };

/**
 * Where this environment sets NODE_EXTRA_CA_CERTS, what a node start costs with it (median CPU ms of
 * interleaved pairs), to print beside the figures: the baseline leaves it out, as the hooks do.
 */
export function caBundleNote(pairs: number): string | null {
  const bundle = process.env.NODE_EXTRA_CA_CERTS;
  if (!bundle) return null;
  const withIt = measurePairs('with', bareNode, { argv: [process.execPath, '-e', ''] }, pairs);
  return `this environment sets NODE_EXTRA_CA_CERTS=${bundle}: a bare node start costs ${withIt.caseMs.toFixed(1)} ms of CPU with it, ${withIt.baseMs.toFixed(1)} ms without; hooks.json empties it for every hook, and the baseline here leaves it out`;
}

/** One restated target (docs/performance.md): what was measured, the target, and whether it holds. */
export interface TargetRow {
  target: string;
  measured: string;
  limit: string;
  pass: boolean;
}

export function formatTargets(rows: readonly TargetRow[]): string {
  const width = Math.max(...rows.map((r) => r.target.length));
  const measured = Math.max(...rows.map((r) => r.measured.length));
  return rows.map((r) => `${r.pass ? 'pass' : 'FAIL'}  ${r.target.padEnd(width)}  ${r.measured.padStart(measured)}  (target ${r.limit})`).join('\n');
}

/** A ratio as the tables print it. */
export const times = (ratio: number): string => `${ratio.toFixed(2)}×`;
