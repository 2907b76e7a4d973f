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
  /** The cwd the host gave the line: a relative path is the tool's from there. */
  cwd: string | undefined;
}

/** A call's answer: done, refused, or one the transcript does not tell for certain (an odd is_error, two answers that disagree). */
type Answer = 'ok' | 'error' | 'unclear';

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
 * Calls are the assistant's lines and answers the user's; a call on record twice (one id) counts once.
 */
export function lastOwnWrite(transcript: string, isTarget: (file: string, cwd: string | undefined) => boolean): string | null {
  if (transcript.length > MAX_TRANSCRIPT_CHARS) return null;
  const uses: ToolUse[] = [];
  const seen = new Set<string>();
  const results = new Map<string, Answer>();
  for (const line of transcript.split('\n')) {
    if (!line.includes('"tool_use"') && !line.includes('"tool_result"')) continue;
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      continue; // a line still being written
    }
    const e = (entry ?? {}) as { cwd?: unknown; message?: { role?: unknown; content?: unknown } };
    const content = e.message?.content;
    if (!Array.isArray(content)) continue;
    const role = e.message?.role;
    const cwd = typeof e.cwd === 'string' ? e.cwd : undefined;
    for (const block of content as unknown[]) {
      if (!block || typeof block !== 'object') continue;
      const b = block as Record<string, unknown>;
      if (role === 'assistant' && b.type === 'tool_use' && typeof b.id === 'string' && typeof b.name === 'string' && b.input && typeof b.input === 'object') {
        if (seen.has(b.id)) continue;
        seen.add(b.id);
        uses.push({ id: b.id, name: b.name, input: b.input as Record<string, unknown>, cwd });
      } else if (role === 'user' && b.type === 'tool_result' && typeof b.tool_use_id === 'string') {
        const answer: Answer = b.is_error === true ? 'error' : b.is_error === undefined || b.is_error === false ? 'ok' : 'unclear';
        const before = results.get(b.tool_use_id);
        results.set(b.tool_use_id, before === undefined || before === answer ? answer : 'unclear');
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
    if (typeof file !== 'string' || !isTarget(file, use.cwd)) continue;
    const result = results.get(use.id);
    if (result === 'error') continue;
    wrote = true;
    // No answer yet, or an unclear one: it may have happened.
    known = result === 'ok' ? applied(known, use) : null;
  }
  return known?.text ?? null;
}

/**
 * The text after one successful call of a file tool, from the text before it (null: not known). An
 * edit is applied as the host's Edit tool applies it (Claude Code 2.1.328): to the text with LF line
 * endings (it writes the file's own endings back; the stop compares line endings aside), an old text
 * unique where a second match would not overlap the first, and an empty new text that takes the
 * newline after the old one with it.
 */
function applied(before: Known, use: ToolUse): Known {
  if (use.name === 'Write') return typeof use.input.content === 'string' ? { text: use.input.content } : null;
  const edits = use.name === 'MultiEdit' ? use.input.edits : [use.input];
  if (!before || !Array.isArray(edits)) return null;
  let text = before.text.replace(/\r\n/g, '\n');
  for (const edit of edits as unknown[]) {
    const e = (edit ?? {}) as Record<string, unknown>;
    const { old_string: old, new_string: replacement } = e;
    if (typeof old !== 'string' || typeof replacement !== 'string' || old === '') return null;
    const at = text.indexOf(old);
    if (at === -1) return null;
    // The tool refuses an old text that is not unique: a success means it was.
    if (e.replace_all !== true && text.indexOf(old, at + old.length) !== -1) return null;
    const withNewline = replacement === '' && !old.endsWith('\n') && text.includes(`${old}\n`) ? `${old}\n` : old;
    if (e.replace_all === true) text = text.split(withNewline).join(replacement);
    else {
      const from = text.indexOf(withNewline);
      text = text.slice(0, from) + replacement + text.slice(from + withNewline.length);
    }
  }
  return { text };
}
