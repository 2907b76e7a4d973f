/** Texts of the findings the hooks make themselves: a check the fix broke, and Layer-0's hits. */
import type { CheckRun } from '../protocol/check-runs';
import type { Layer0Check, Layer0Hit } from './layer0';
import { plural, truncate } from '../protocol/text';

const seconds = (ms: number): string => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;

/** How one check run ended, in a few words. */
export function checkResultText(run: Pick<CheckRun, 'exitCode' | 'signal' | 'timedOut' | 'durationMs' | 'error'>, timeoutSeconds?: number): string {
  if (run.error) return run.error;
  if (run.timedOut) return `timed out${timeoutSeconds ? ` after ${timeoutSeconds} s` : ''} and was killed`;
  if (run.exitCode === null) return `killed by ${run.signal ?? 'a signal'} after ${seconds(run.durationMs)}`;
  return `exit ${run.exitCode} after ${seconds(run.durationMs)}`;
}

export const checkFailedDescription = (run: CheckRun, sentBack: number): string =>
  `\`${run.command}\` passed when the loop started and fails after the fix (${checkResultText(run)}), also after the fixer was sent back ${plural(sentBack, 'time')}.`;

export const checkFailedSuggestion = (command: string, log: string): string => `Run \`${command}\`, read ${log} and fix what the change broke; the check must pass again.`;

/** What a Layer-0 finding says, from the facts its check found. */
export function layer0Description(hit: Layer0Hit): string {
  switch (hit.check) {
    case 'no_placeholder':
      return `The fix added a placeholder (${hit.detail.marker}) instead of finished work.`;
    case 'balanced_delimiters':
      return `The fix left the brackets unbalanced: ${plural(hit.detail.problems, 'problem')} now (${hit.detail.before} before), the first an ${hit.detail.kind} "${hit.detail.char}".`;
    case 'json_valid':
      return `The file was valid JSON before the fix and is not now: ${truncate(hit.detail.error, 160)}.`;
    case 'no_duplicate_headings':
      return `The heading "${truncate(hit.detail.heading, 80)}" now appears ${hit.detail.count} times under the same parent (first at line ${hit.detail.firstLine}): a section written twice.`;
    case 'no_text_loop':
      return `The fix wrote a paragraph that repeats the one at line ${hit.detail.similarTo} (${hit.detail.percent}% similar).`;
    case 'file_size_delta':
      return `The file grew from ${hit.detail.before} to ${hit.detail.after} bytes (more than 2.5×) in one fix round.`;
    case 'test_skipped':
      return `The fix skipped a test (${hit.detail.marker}).`;
    case 'test_removed':
      return hit.detail.deleted
        ? `The fix deleted a test file with ${plural(hit.detail.before, 'test')}.`
        : `The fix removed a test: the file has ${hit.detail.after} test cases, ${hit.detail.before} before.`;
    case 'assertion_removed':
      return `The fix removed an assertion: the file has ${hit.detail.after}, ${hit.detail.before} before.`;
    case 'suppression_added':
      return `The fix added a suppression (${hit.detail.marker}) instead of fixing what the tool reports.`;
    case 'empty_catch':
      return 'The fix added an empty catch (or except: pass) that swallows errors.';
    case 'test_uncollected':
      return `The fix renamed the test file ${hit.detail.from} (${plural(hit.detail.tests, 'test')}) to a name its test runner does not collect: its tests no longer run.`;
    case 'config_weakened':
      return `The fix weakened the ${hit.detail.tool} configuration (${truncate(hit.detail.change, 120)}) instead of fixing what it reports.`;
  }
}

const LAYER0_SUGGESTIONS: Record<Layer0Check, string> = {
  no_placeholder: 'Finish the work the placeholder stands for, or remove it.',
  balanced_delimiters: 'Restore the missing or extra bracket; the file must parse.',
  json_valid: 'Make the file valid JSON again.',
  no_duplicate_headings: 'Merge the two sections into one.',
  no_text_loop: 'Remove the repetition; say it once.',
  file_size_delta: 'Check for text appended by mistake (a duplicated block, a log, generated output) and remove it.',
  test_skipped: 'Make the test pass by fixing the code, and run it again instead of skipping it.',
  test_removed: 'Restore the test; fix the code it tests.',
  assertion_removed: 'Restore the assertion; fix the code so that it holds.',
  suppression_added: 'Fix what the checker reports and remove the suppression.',
  empty_catch: 'Handle the error: narrow the catch to what is expected and rethrow or report the rest.',
  test_uncollected: "Give the file back a name its runner collects (or widen the runner's pattern to it); fix the code its tests test.",
  config_weakened: 'Restore the configuration; fix the code so that it passes the stricter setting and runs every test.',
};

export const layer0Suggestion = (check: Layer0Check): string => LAYER0_SUGGESTIONS[check];
