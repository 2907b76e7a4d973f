/**
 * What an agent last wrote to one file with the Write, Edit and MultiEdit tools, read from the
 * transcript the host keeps for it (JSON lines: the assistant's `tool_use` blocks, each answered by a
 * `tool_result` in a user message). A reviewer's stop compares it with the file: a file that holds
 * other text was changed by someone else between the reviewer's write and its stop, before the hooks
 * froze the review. Pure.
 */

interface ToolUse {
  id: string;
  name: string;
  input: Record<string, unknown>;
}

type Known = { text: string } | null;

/** A transcript bigger than this (characters) is not searched. */
const MAX_TRANSCRIPT_CHARS = 64 * 1024 * 1024;

/**
 * The text of `isTarget`'s file after the agent's last write to it, or null when the transcript does
 * not tell it for certain:
 * - no Write of the whole file is on record before the edits after it;
 * - an edit's old text is not in the text worked out so far (it then failed, or was of other text);
 * - a write has no result yet, or one with is_error (it did not happen, or may not have);
 * - the agent ran Bash after its last write there (its own shell may have written the file since: a
 *   reviewer may write its file by redirect or `tee`, and any program may write it).
 */
export function lastOwnWrite(transcript: string, isTarget: (file: string) => boolean): string | null {
  if (transcript.length > MAX_TRANSCRIPT_CHARS) return null;
  const uses: ToolUse[] = [];
  const results = new Map<string, { error: boolean }>();
  for (const line of transcript.split('\n')) {
    if (!line.includes('"tool_use"') && !line.includes('"tool_result"')) continue;
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      continue; // a line still being written
    }
    const content = (entry as { message?: { content?: unknown } } | null)?.message?.content;
    if (!Array.isArray(content)) continue;
    for (const block of content as unknown[]) {
      if (!block || typeof block !== 'object') continue;
      const b = block as Record<string, unknown>;
      if (b.type === 'tool_use' && typeof b.id === 'string' && typeof b.name === 'string' && b.input && typeof b.input === 'object') {
        uses.push({ id: b.id, name: b.name, input: b.input as Record<string, unknown> });
      } else if (b.type === 'tool_result' && typeof b.tool_use_id === 'string') {
        results.set(b.tool_use_id, { error: b.is_error === true });
      }
    }
  }
  let known: Known = null;
  let wrote = false;
  for (const use of uses) {
    if (use.name === 'Bash') {
      if (wrote) known = null;
      continue;
    }
    if (!['Write', 'Edit', 'MultiEdit'].includes(use.name)) continue;
    const file = use.input.file_path;
    if (typeof file !== 'string' || !isTarget(file)) continue;
    const result = results.get(use.id);
    if (!result) {
      known = null; // no answer yet: it may have happened
      wrote = true;
      continue;
    }
    if (result.error) continue;
    wrote = true;
    known = applied(known, use);
  }
  return known?.text ?? null;
}

/** The text after one successful call of a file tool, from the text before it (null: not known). */
function applied(before: Known, use: ToolUse): Known {
  if (use.name === 'Write') return typeof use.input.content === 'string' ? { text: use.input.content } : null;
  const edits = use.name === 'MultiEdit' ? use.input.edits : [use.input];
  if (!before || !Array.isArray(edits)) return null;
  let text = before.text;
  for (const edit of edits as unknown[]) {
    const e = (edit ?? {}) as Record<string, unknown>;
    if (typeof e.old_string !== 'string' || typeof e.new_string !== 'string' || e.old_string === '') return null;
    const at = text.indexOf(e.old_string);
    if (at === -1) return null;
    if (e.replace_all === true) text = text.split(e.old_string).join(e.new_string);
    else {
      // The tool refuses an old text that is not unique: a success means it was.
      if (text.indexOf(e.old_string, at + 1) !== -1) return null;
      text = text.slice(0, at) + e.new_string + text.slice(at + e.old_string.length);
    }
  }
  return { text };
}
