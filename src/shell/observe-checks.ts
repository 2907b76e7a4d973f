/** A round's check results as the verification step recorded them (`review-N/checks.json`). */
import path from 'node:path';
import { ChecksRecord } from '../report/checks';
import { PHASES_DIR, checksFile } from '../state/paths';
import { readOrNull } from './observe';

/** null when the round has no record, or it does not read as one. `phasesDir` ends in '/'. */
export function readChecks(root: string, phasesDir: string, n: number): ChecksRecord | null {
  const text = readOrNull(path.join(root, `${phasesDir}${checksFile(n).slice(PHASES_DIR.length + 1)}`));
  if (text === null) return null;
  try {
    const parsed = ChecksRecord.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
