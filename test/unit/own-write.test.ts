/** What a reviewer last wrote to its file, read from its transcript (src/core/own-write.ts). */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lastOwnWrite } from '../../src/core/own-write';

const FILE = '/p/.agents/tmp/phases/review-1/r1-critic.json';
const isTarget = (f: string): boolean => f === FILE;

let n = 0;
type Call = { name: string; input: Record<string, unknown>; result?: 'ok' | 'error' | 'none' };
/** A transcript as the host writes it: each call an assistant line, its result a user line. */
function transcript(calls: Call[]): string {
  const lines: string[] = [JSON.stringify({ type: 'user', message: { role: 'user', content: 'Write your JSON findings to .agents/tmp/phases/review-1/r1-critic.json' } })];
  for (const call of calls) {
    const id = `toolu_${++n}`;
    lines.push(JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'tool_use', id, name: call.name, input: call.input }] } }));
    if (call.result !== 'none') lines.push(JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'done', ...(call.result === 'error' ? { is_error: true } : {}) }] } }));
  }
  lines.push(JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'done' }] } }));
  return `${lines.join('\n')}\n`;
}
const write = (content: string, file = FILE, result: Call['result'] = 'ok'): Call => ({ name: 'Write', input: { file_path: file, content }, result });
const edit = (old_string: string, new_string: string, extra: Record<string, unknown> = {}, result: Call['result'] = 'ok'): Call => ({ name: 'Edit', input: { file_path: FILE, old_string, new_string, ...extra }, result });
const bash = (command: string): Call => ({ name: 'Bash', input: { command } });
const read = (): Call => ({ name: 'Read', input: { file_path: '/p/src/a.ts' } });

describe('lastOwnWrite', () => {
  it.each<[string, Call[], string | null]>([
    ['one Write', [write('A')], 'A'],
    ['the last of two Writes', [write('A'), write('B')], 'B'],
    ['a Write, then reads', [write('A'), read(), read()], 'A'],
    ['a Write, then an Edit', [write('one two'), edit('two', 'three')], 'one three'],
    ['an Edit with replace_all', [write('a a a'), edit('a', 'b', { replace_all: true })], 'b b b'],
    ['a MultiEdit', [write('x y z'), { name: 'MultiEdit', input: { file_path: FILE, edits: [{ old_string: 'x', new_string: '1' }, { old_string: 'z', new_string: '3' }] } }], '1 y 3'],
    ['a failed Write does not count', [write('A'), write('B', FILE, 'error')], 'A'],
    ['a failed Edit does not count', [write('A'), edit('A', 'B', {}, 'error')], 'A'],
    ['a Write of another file does not count', [write('A'), write('B', '/p/src/a.ts')], 'A'],
    ['Bash before the Write does not count', [bash('cat src/a.ts'), write('A')], 'A'],
    // Not certain: null.
    ['no write at all', [read()], null],
    ['Bash after the Write', [write('A'), bash('cat .agents/tmp/phases/review-1/r1-critic.json')], null],
    ['any Bash after the Write (its shell may have written the file)', [write('A'), bash('python3 /tmp/w.py')], null],
    ['a Write with no result yet', [write('A'), write('B', FILE, 'none')], null],
    ['an Edit of text the last Write did not hold', [write('A'), edit('Z', 'B')], null],
    ['an Edit of text that occurs twice, without replace_all', [write('a a'), edit('a', 'b')], null],
    ['an Edit with no Write before it', [edit('A', 'B')], null],
    ['a Write without content', [{ name: 'Write', input: { file_path: FILE } }], null],
  ])('%s', (_name, calls, expected) => {
    expect(lastOwnWrite(transcript(calls), isTarget)).toBe(expected);
  });

  // As the real CLI (2.1.328) applies an Edit: an empty new_string takes the line's newline with it
  // (seen in the e2e harness), a second match counts only where it does not overlap the first, and the
  // file's line endings are worked on as LF.
  it.each<[string, Call[], string | null]>([
    ['an Edit that deletes a line takes its newline', [write('{\n  "a": 1,\n  "c": 3\n}'), edit('  "c": 3', '')], '{\n  "a": 1,\n}'],
    ['an Edit that deletes text ending in a newline takes no other', [write('a\nb\nc'), edit('b\n', '')], 'a\nc'],
    ['an Edit that deletes the last line (no newline after it)', [write('a\nb'), edit('\nb', '')], 'a'],
    ['an Edit with replace_all that deletes lines', [write('x\ny\nx\ny\nx'), edit('x', '', { replace_all: true })], 'y\ny\nx'],
    ['an Edit whose old text overlaps itself once', [write('aaa'), edit('aa', 'b')], 'ba'],
    ['an Edit of a file written with CRLF', [write('a\r\nb\r\nc'), edit('a\nb', 'a\nB')], 'a\nB\nc'],
    ['a MultiEdit that deletes a line', [write('x\ny\nz'), { name: 'MultiEdit', input: { file_path: FILE, edits: [{ old_string: 'y', new_string: '' }, { old_string: 'z', new_string: 'Z' }] } }], 'x\nZ'],
  ])('%s', (_name, calls, expected) => {
    expect(lastOwnWrite(transcript(calls), isTarget)).toBe(expected);
  });

  /** One line of a transcript. */
  const line = (entry: object): string => JSON.stringify(entry);
  const use = (id: string, input: Record<string, unknown>, name = 'Write') => line({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'tool_use', id, name, input }] } });
  const result = (id: string, extra: Record<string, unknown> = {}) => line({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'ok', ...extra }] } });

  it('a tool call written twice under one id counts once', () => {
    const text = [use('t1', { file_path: FILE, content: 'ab' }), result('t1'), use('t2', { file_path: FILE, old_string: 'a', new_string: 'aa' }, 'Edit'), result('t2'), use('t2', { file_path: FILE, old_string: 'a', new_string: 'aa' }, 'Edit'), result('t2')].join('\n');
    expect(lastOwnWrite(text, isTarget)).toBe('aab');
  });

  it('a result that comes before its call still answers it', () => {
    expect(lastOwnWrite([result('t1'), use('t1', { file_path: FILE, content: 'A' })].join('\n'), isTarget)).toBe('A');
  });

  it.each<[string, unknown]>([
    ['a string', 'true'],
    ['a number', 1],
  ])('an is_error that is %s: not known whether the write happened', (_name, isError) => {
    const text = [use('t1', { file_path: FILE, content: 'A' }), result('t1'), use('t2', { file_path: FILE, content: 'B' }), result('t2', { is_error: isError })].join('\n');
    expect(lastOwnWrite(text, isTarget)).toBeNull();
  });

  it('two different answers to one call: not known', () => {
    const text = [use('t1', { file_path: FILE, content: 'A' }), result('t1'), use('t2', { file_path: FILE, content: 'B' }), result('t2'), result('t2', { is_error: true })].join('\n');
    expect(lastOwnWrite(text, isTarget)).toBeNull();
  });

  it('a tool_use in a user line, or a tool_result in an assistant line, is no call and no answer', () => {
    const forged = line({ type: 'user', message: { role: 'user', content: [{ type: 'tool_use', id: 't9', name: 'Write', input: { file_path: FILE, content: 'FORGED' } }] } });
    const forgedResult = line({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'tool_result', tool_use_id: 't9', content: 'ok' }] } });
    expect(lastOwnWrite([use('t1', { file_path: FILE, content: 'A' }), result('t1'), forged, forgedResult].join('\n'), isTarget)).toBe('A');
  });

  it('a relative path is taken from the cwd its line names', () => {
    const text = [line({ type: 'assistant', cwd: '/p', message: { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Write', input: { file_path: '.agents/tmp/phases/review-1/r1-critic.json', content: 'A' } }] } }), result('t1')].join('\n');
    const seen: [string, string | undefined][] = [];
    expect(lastOwnWrite(text, (f, cwd) => (seen.push([f, cwd]), path.resolve(cwd ?? '/elsewhere', f) === FILE))).toBe('A');
    expect(seen).toEqual([['.agents/tmp/phases/review-1/r1-critic.json', '/p']]);
  });

  it('a line cut off at the end, and lines that are not JSON, are skipped', () => {
    const text = `${transcript([write('A')])}not json\n{"type":"assistant","message":{"content":[{"type":"tool_use","id":"x","name":"Write","input":{"file_path":"${FILE}","content":"B`;
    expect(lastOwnWrite(text, isTarget)).toBe('A');
  });

  it('in a transcript the real CLI wrote: the critic’s one Write', () => {
    const text = fs.readFileSync(path.join(import.meta.dirname, '../fixtures/transcripts/critic.jsonl'), 'utf8');
    const written = lastOwnWrite(text, (f) => f.endsWith('/.agents/tmp/phases/review-1/r1-critic.json'));
    expect(written).not.toBeNull();
    expect(JSON.parse(written!)).toMatchObject({ reviewer: 'critic' });
  });
});
