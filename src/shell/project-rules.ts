/** Reads the project's review rules for the loop's start (core/project-rules.ts splits them), capped. */
import fs from 'node:fs';
import path from 'node:path';
import { MAX_RULES_BYTES, RULES_FILES, type ProjectRules } from '../core/project-rules';
import { readRegular } from './files';

/** The first of REVIEW.md and .minions/rules.md that is a regular file, cut at MAX_RULES_BYTES; null when neither is. */
export function readProjectRules(root: string): ProjectRules | null {
  for (const file of RULES_FILES) {
    // Read up to one byte past the cap: a larger file is not read whole.
    const bytes = readRegular(path.join(root, file), (size) => Buffer.alloc(Math.min(size, MAX_RULES_BYTES + 1)));
    if (bytes === null || bytes === 'not-a-file') continue;
    const truncated = bytes.length > MAX_RULES_BYTES;
    // Cut on a character: a UTF-8 sequence split at the cap is dropped whole.
    const text = bytes.subarray(0, MAX_RULES_BYTES).toString('utf8').replace(/\uFFFD+$/, '');
    return { file, text, truncated };
  }
  return null;
}

export function isFolder(dir: string): boolean {
  try {
    return fs.statSync(dir).isDirectory();
  } catch {
    return false;
  }
}
