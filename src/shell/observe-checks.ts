/** The project's checks on the tree a round reviewed, as the verification step recorded them. */
import path from 'node:path';
import { ChecksReport } from '../checks/reports';
import { baselineChecksFile, checksFile } from '../protocol/paths';
import { readParsed } from './observe';

/**
 * Round 1 reviewed the tree the baseline ran on (`baseline/checks.json`); round N the tree fix round N−1
 * left (`review-(N−1)/checks.json`). null when there is no record, or it does not read as one.
 */
export function readReviewedChecks(root: string, n: number): ChecksReport | null {
  return readParsed(ChecksReport, path.join(root, n <= 1 ? baselineChecksFile : checksFile(n - 1)));
}
