/** Texts of the verdict that the review floor writes: what changed during a review, and classes that keep coming back. */
import { UNSNAPSHOTTED } from '../protocol/paths';
import type { EscalationOutcome } from '../protocol/verdict-schema';
import { fileNames, plural, truncate } from '../protocol/text';

/** What changed while a round was reviewed, for a line: the files, or that the project could not be snapshotted. */
export function changedDuringText(changed: readonly string[]): string {
  if (changed[0] === UNSNAPSHOTTED) return 'git could not snapshot the project when the review ended, so a change during it cannot be ruled out';
  return `${plural(changed.length, 'project file')} changed during the review (${changed.slice(0, 3).map((f) => truncate(f, 200)).join(', ')}${changed.length > 3 ? ', …' : ''})`;
}

/** stopDetail of a loop stopped by an escalated class (seed 003): the class, why, and the critic's diagnosis. */
export function stuckClasses(outcomes: readonly EscalationOutcome[]): string {
  return outcomes
    .map((o) => {
      const what = `finding class ${o.class} (${truncate(o.category || 'finding', 80)}: ${fileNames(o.sites.slice(0, 4))}${o.sites.length > 4 ? ', …' : ''})`;
      const rounds = `fix round${o.attempts.length === 1 ? '' : 's'} ${o.attempts.join(' and ') || '?'}`;
      const why =
        o.reason === 'fixer_escalated'
          ? `the fixer escalated ${what} in ${rounds}${o.fixerReason ? ` ("${truncate(o.fixerReason, 160)}")` : ''}${o.open ? '' : '; the review no longer reports it, but nothing fixed it'}`
          : `${what} is still open after ${rounds}`;
      const diagnosis = o.diagnosis
        ? `structural diagnosis (critic): ${truncate(o.diagnosis.rootCause, 300)} — recommended ${o.diagnosis.recommend} fix: ${truncate(o.diagnosis.fix, 300)}`
        : 'the critic gave no structural diagnosis';
      return `${why}; ${diagnosis}`;
    })
    .join(' | ');
}

/** A finding written without a line (or line 0): the verdict's line is where its quote was found. */
export const lineFromQuote = (line: number): string => `no line given: line ${line}, where the quote was found`;
