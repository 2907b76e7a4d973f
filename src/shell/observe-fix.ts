/** What the fixer's stop observes for the pure core: the checks' input, the changed files' texts, the reports. */
import path from 'node:path';
import { currentIteration } from '../core/loop-state';
import { MAX_LAYER0_BYTES, renamedFrom, RUNNER_CONFIG_FILES, type FileChange, type Side } from '../checks/layer0';
import type { MachineFinding } from '../protocol/machine-finding';
import { ChecksReport, Layer0Report } from '../checks/reports';
import type { Verdict } from '../protocol/verdict-schema';
import type { State } from '../state/schema';
import { checksFile, layer0File } from '../protocol/paths';
import { readParsed } from './observe';
import { changedPaths, readBlobs } from './snapshot';

function side(blob: Buffer | null): Side {
  if (blob === null) return { kind: 'absent' };
  if (blob.length > MAX_LAYER0_BYTES) return { kind: 'opaque', bytes: blob.length, reason: 'too large' };
  if (blob.subarray(0, 8000).includes(0)) return { kind: 'opaque', bytes: blob.length, reason: 'binary' };
  return { kind: 'text', text: blob.toString('utf8') };
}

/** The paths' texts in two trees; null when git could not read them all (Layer-0 then skips the round). */
function sides(root: string, from: string, to: string, paths: readonly string[]): FileChange[] | null {
  const before = readBlobs(root, from, paths);
  const after = readBlobs(root, to, paths);
  if (before.size !== paths.length || after.size !== paths.length) return null;
  return paths.map((p) => ({ path: p, before: side(before.get(p)!), after: side(after.get(p)!) }));
}

/**
 * Layer-0's input at the fixer's stop: the files it changed (review's end → now), and the files of the
 * round's open Layer-0 findings (loop's start → now), and the test runners' config files now (what they
 * collect). Empty outside git.
 */
export function fixObservation(
  root: string,
  state: State,
  tree: string | null,
  verdict: Verdict | null,
): { changes?: FileChange[]; recheck?: FileChange[]; runnerConfigs?: Record<string, string> } {
  const from = currentIteration(state).trees.reviewEnd;
  if (!tree || !from) return {};
  const changes = sides(root, from, tree, changedPaths(root, from, tree));
  if (!changes) return {};
  // A test file renamed out of its runner's collection is found again only with the file it was renamed from.
  const open = (verdict?.findings ?? []).filter((f) => f.toFixer && f.reporters.includes('layer0'));
  const renamed = (f: (typeof open)[number]): string | null => (f.categories.includes('test_uncollected') ? renamedFrom(f.file, f.evidence) : null);
  const files = [...new Set(open.flatMap((f) => [f.file, renamed(f) ?? f.file]))];
  const recheck = state.baseTree && files.length ? (sides(root, state.baseTree, tree, files) ?? []) : [];
  const runnerConfigs: Record<string, string> = {};
  for (const [rel, blob] of readBlobs(root, tree, RUNNER_CONFIG_FILES)) {
    const s = side(blob);
    if (s.kind === 'text') runnerConfigs[rel] = s.text;
  }
  return { changes, recheck, runnerConfigs };
}

/** The hooks' own findings on fix round N (its checks and Layer-0 reports), for round N+1's verdict. */
export function readMachineFindings(root: string, iteration: number): MachineFinding[] {
  if (iteration < 1) return [];
  const checks = readParsed(ChecksReport, path.join(root, checksFile(iteration)));
  const layer0 = readParsed(Layer0Report, path.join(root, layer0File(iteration)));
  return [...(checks?.findings ?? []), ...(layer0?.findings ?? [])];
}
