/** What a Layer-0 check reports: where, the line as evidence, and the facts its message is written from. */
import type { Layer0Check } from './names';

export interface Details {
  no_placeholder: { marker: string };
  balanced_delimiters: { problems: number; before: number; kind: 'unclosed' | 'unexpected'; char: string };
  json_valid: { error: string };
  no_duplicate_headings: { heading: string; count: number; firstLine: number };
  no_text_loop: { similarTo: number; percent: number };
  file_size_delta: { before: number; after: number };
  test_skipped: { marker: string };
  test_removed: { before: number; after: number; deleted: boolean };
  assertion_removed: { before: number; after: number };
  suppression_added: { marker: string };
  empty_catch: Record<string, never>;
  /** A test file renamed out of its runner's collection: where it was, and how many test cases it held. */
  test_uncollected: { from: string; tests: number };
  /** The tool whose config the fix weakened, and how (a line, a value listed or gone, a script). */
  config_weakened: { tool: string; change: string };
}

export type Layer0Hit = {
  [K in Layer0Check]: { check: K; path: string; line: number | null; evidence: string; detail: Details[K] };
}[Layer0Check];
