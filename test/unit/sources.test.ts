/** What the SubagentStop hook reads for grounding and stop rules: files under each reading of their names, caps, declines. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ground, type Source } from '../../src/review/grounding';
import { openRegular, readRegular } from '../../src/shell/files';
import { readDeclines } from '../../src/shell/observe';
import { IN_PLACE_FROM } from '../../src/review/text-scan';
import { ON_DEMAND_FROM, SOURCE_CAPS, readSources } from '../../src/shell/sources';
import { removeTestdirs, testdir } from '../helpers/testdir';
import { paced } from '../helpers/pace';

afterEach(removeTestdirs);

const review = (...files: string[]): string => JSON.stringify({ issues: files.map((file) => ({ file })) });
const kindOf = (s: Source | undefined) => (s?.kind === 'file' ? { kind: s.kind, rel: s.rel, via: s.via } : s);

describe('readSources: each name as written, without a/ or b/, or the one file matching it ignoring case', () => {
  const project = () =>
    testdir({
      'src/calc.js': 'export const add = (a, b) => a + b;\n',
      'src/Widget.tsx': 'export const Widget = () => null;\n',
      'a/real.js': 'export const real = true;\n',
      'docs/Guide.md': '# Guide\n',
      'docs/guide.MD': '# guide\n',
    }, { git: false });

  it.each([
    ['src/calc.js', { kind: 'file', rel: 'src/calc.js', via: 'as-written' }],
    ['./src/calc.js', { kind: 'file', rel: 'src/calc.js', via: 'as-written' }],
    ['a/src/calc.js', { kind: 'file', rel: 'src/calc.js', via: 'without-diff-prefix' }],
    ['b/src/calc.js', { kind: 'file', rel: 'src/calc.js', via: 'without-diff-prefix' }],
    ['a/real.js', { kind: 'file', rel: 'a/real.js', via: 'as-written' }],
    ['src/widget.tsx', { kind: 'file', rel: 'src/Widget.tsx', via: 'case-insensitive' }],
    ['SRC/CALC.JS', { kind: 'file', rel: 'src/calc.js', via: 'case-insensitive' }],
    ['b/Src/Widget.TSX', { kind: 'file', rel: 'src/Widget.tsx', via: 'case-insensitive' }],
    ['docs/GUIDE.md', { kind: 'missing', similar: ['docs/Guide.md', 'docs/guide.MD'] }],
    ['src/nope.js', { kind: 'missing' }],
    ['src', { kind: 'not-a-file' }],
    ['../outside.js', { kind: 'outside' }],
    ['/src/calc.js', { kind: 'file', rel: 'src/calc.js', via: 'without-leading-slash' }],
    ['calc.js', { kind: 'file', rel: 'src/calc.js', via: 'by-file-name' }],
    ['Widget.tsx', { kind: 'file', rel: 'src/Widget.tsx', via: 'by-file-name' }],
    ['/nope.js', { kind: 'outside' }],
  ])('%s', (name, expected) => {
    const dir = project();
    expect(kindOf(readSources(dir.root, [review(name)])[name.replace(/^\.\//, '')])).toEqual(expected);
  });

  it('an absolute path inside the project is read', () => {
    const dir = project();
    const name = path.join(dir.root, 'src/calc.js');
    expect(kindOf(readSources(dir.root, [review(name)])[name])).toEqual({ kind: 'file', rel: 'src/calc.js', via: 'as-written' });
  });

  it('a path from the folder above the project is read without that folder; a bare name of several files is ambiguous', () => {
    const dir = testdir({ 'src/index.js': 'a\n', 'lib/index.js': 'b\n', 'node_modules/x/calc.js': 'c\n', 'src/calc.js': 'd\n' }, { git: false });
    const inRepo = `${path.basename(dir.root)}/src/index.js`;
    const sources = readSources(dir.root, [review(inRepo, 'index.js', 'calc.js')]);
    expect(kindOf(sources[inRepo])).toEqual({ kind: 'file', rel: 'src/index.js', via: 'without-folder-prefix' });
    expect(kindOf(sources['index.js'])).toEqual({ kind: 'missing', similar: ['lib/index.js', 'src/index.js'] });
    // node_modules is not looked in: the one calc.js of the project's own.
    expect(kindOf(sources['calc.js'])).toEqual({ kind: 'file', rel: 'src/calc.js', via: 'by-file-name' });
  });

  it('one file named three ways is read once', () => {
    const dir = project();
    const sources = readSources(dir.root, [review('src/calc.js', 'b/src/calc.js', 'SRC/calc.js')]);
    const texts = ['src/calc.js', 'b/src/calc.js', 'SRC/calc.js'].map((n) => (sources[n] as Extract<Source, { kind: 'file' }>).text);
    expect(texts[1]).toBe(texts[0]);
    expect(texts[2]).toBe(texts[0]);
  });

  it('read twice in one process, an unchanged file is read once; a changed one again', () => {
    const dir = project();
    const first = readSources(dir.root, [review('src/calc.js')])['src/calc.js'] as Extract<Source, { kind: 'file' }>;
    expect((readSources(dir.root, [review('src/calc.js')])['src/calc.js'] as Extract<Source, { kind: 'file' }>).text).toBe(first.text);
    dir.write('src/calc.js', 'export const add = (a, b) => a - b; // changed\n');
    const changed = readSources(dir.root, [review('src/calc.js')])['src/calc.js'] as Extract<Source, { kind: 'file' }>;
    expect(changed.text).not.toBe(first.text);
    expect(Buffer.from(changed.text as Uint8Array).toString()).toContain('a - b');
  });

  it('a file of a megabyte or more is read whole (into memory its line index scans in place) and grounded to its last line', () => {
    const rows = Array.from({ length: 30_000 }, (_, i) => `  { id: ${i}, name: "row ${i}", price: ${i % 97} },`);
    const dir = testdir({ 'data/table.js': `${rows.join('\n')}\n` }, { git: false });
    const source = readSources(dir.root, [review('data/table.js')])['data/table.js'] as Extract<Source, { kind: 'file' }>;
    expect(source.text.length).toBeGreaterThan(IN_PLACE_FROM);
    expect(Buffer.from(source.text as Uint8Array).equals(fs.readFileSync(dir.abs('data/table.js')))).toBe(true);
    const sources = { 'data/table.js': source };
    expect(ground({ file: 'data/table.js', line: 30_000, evidence: rows[29_999]!.trim() }, sources)).toMatchObject({ status: 'grounded', line: 30_000 });
    expect(ground({ file: 'data/table.js', line: 1, evidence: rows[12_345]!.trim() }, sources)).toMatchObject({ status: 'relocated', line: 12_346 });
  });

  it('a file too large to hold is read on demand: the same lines, grounded to its last line and searched whole', () => {
    const rows = Array.from({ length: 250_000 }, (_, i) => `  { id: ${i}, name: "row ${i}" },`);
    const dir = testdir({ 'data/big.js': `${rows.join('\n')}\n` }, { git: false });
    const source = readSources(dir.root, [review('data/big.js')])['data/big.js'] as Extract<Source, { kind: 'file' }>;
    expect(source.text.length).toBeGreaterThanOrEqual(ON_DEMAND_FROM);
    expect(source.text).not.toBeInstanceOf(Uint8Array);
    const sources = { 'data/big.js': source };
    expect(ground({ file: 'data/big.js', line: 250_000, evidence: rows[249_999]!.trim() }, sources)).toMatchObject({ status: 'grounded', line: 250_000 });
    expect(ground({ file: 'data/big.js', line: 3, evidence: rows[123_456]!.trim() }, sources)).toMatchObject({ status: 'relocated', line: 123_457 });
    expect(ground({ file: 'data/big.js', line: 3, evidence: '{ id: 7, name: "ROW  7" }' }, sources)).toMatchObject({ status: 'grounded' });
    expect(ground({ file: 'data/big.js', line: 3, evidence: 'a line that is not in the file at all' }, sources)).toMatchObject({ status: 'ungrounded' });
  });

  it('a real file named as in a diff is never reported missing to the reviewer', () => {
    const dir = project();
    const sources = readSources(dir.root, [review('b/src/calc.js', 'src/CALC.js')]);
    for (const file of ['b/src/calc.js', 'src/CALC.js']) {
      expect(ground({ file, line: 1, evidence: 'export const add = (a, b) => a + b;' }, sources)).toMatchObject({ status: 'grounded', reason: null });
    }
  });
});

describe('readSources: caps make files unchecked, never missing', () => {
  it('past the number of files read, the rest are unchecked; missing names do not use the cap up', () => {
    const dir = testdir({ 'src/a.js': 'a\n', 'src/b.js': 'b\n', 'src/c.js': 'c\n' });
    const ghosts = Array.from({ length: 200 }, (_, i) => `src/ghost${i}.js`);
    const sources = readSources(dir.root, [review(...ghosts, 'src/a.js', 'src/b.js', 'src/c.js')], { ...SOURCE_CAPS, files: 2 });
    expect(sources['src/ghost0.js']).toEqual({ kind: 'missing' });
    expect(kindOf(sources['src/a.js'])).toMatchObject({ kind: 'file' });
    expect(kindOf(sources['src/b.js'])).toMatchObject({ kind: 'file' });
    expect(sources['src/c.js']).toEqual({ kind: 'unchecked', why: 'more than 2 files were read' });
    expect(ground({ file: 'src/c.js', line: 1, evidence: 'c' }, sources)).toMatchObject({ status: 'unchecked', reason: 'src/c.js was not read: more than 2 files were read' });
  });

  it('a file larger than one file may be, and the bytes read in all', () => {
    const dir = testdir({ 'big.js': 'x'.repeat(3 * 1024 ** 2), 'small.js': 'y\n', 'later.js': 'z'.repeat(2 * 1024 ** 2) });
    const sources = readSources(dir.root, [review('big.js', 'small.js', 'later.js')], { ...SOURCE_CAPS, fileBytes: 2.5 * 1024 ** 2, totalBytes: 1024 ** 2 });
    expect(sources['big.js']).toEqual({ kind: 'unchecked', why: 'it is 3.0 MB, more than the 2.5 MB one file may have' });
    expect(kindOf(sources['small.js'])).toMatchObject({ kind: 'file' });
    expect(sources['later.js']).toEqual({ kind: 'unchecked', why: 'the files read reach 1.0 MB' });
  });

  it('past the number of names, the rest are unchecked', () => {
    const dir = testdir({ 'a.js': 'a\n', 'b.js': 'b\n' });
    const sources = readSources(dir.root, [review('a.js', 'b.js')], { ...SOURCE_CAPS, names: 1 });
    expect(sources['b.js']).toEqual({ kind: 'unchecked', why: 'the reviews name more than 1 files' });
  });

  it('a large file is searched, not truncated: line 400,001 is found', () => {
    const lines = Array.from({ length: 400_001 }, (_, i) => `row(${i});`);
    const dir = testdir({ 'data/rows.js': `${lines.join('\n')}\n` }, { git: false });
    expect(fs.statSync(path.join(dir.root, 'data/rows.js')).size).toBeGreaterThan(4 * 1024 ** 2);
    const sources = readSources(dir.root, [review('data/rows.js')]);
    expect(ground({ file: 'data/rows.js', line: 400_001, evidence: 'row(400000);' }, sources)).toMatchObject({ status: 'grounded' });
    expect(ground({ file: 'data/rows.js', line: 400_009, evidence: 'row(400000);' }, sources)).toMatchObject({ status: 'relocated', line: 400_001 });
  }, paced(120_000)); // writes and reads a 5 MB file: no limit a busy machine can hit
});

describe('readDeclines: a decline counts once per fingerprint per round', () => {
  const summary = (n: number, fixes: { fingerprint: string; status: string; reason?: string }[]) => ({
    [`.agents/tmp/phases/review-${n}/r2-fix-summary.json`]: JSON.stringify({ fixes }),
  });
  const declined = (fingerprint: string) => ({ fingerprint, status: 'declined', reason: 'by design' });

  it('listed twice in one summary: one round', () => {
    const dir = testdir({ ...summary(1, [declined('aaa'), declined('aaa'), declined('bbb')]) }, { git: false });
    expect(readDeclines(dir.root, 2)).toEqual({ aaa: 1, bbb: 1 });
  });

  it('declined in two rounds: two', () => {
    const dir = testdir({ ...summary(1, [declined('aaa'), declined('aaa')]), ...summary(2, [declined('aaa'), { fingerprint: 'bbb', status: 'fixed' }]) }, { git: false });
    expect(readDeclines(dir.root, 3)).toEqual({ aaa: 2 });
    expect(readDeclines(dir.root, 2)).toEqual({ aaa: 1 });
  });
});

describe('readRegular into a buffer it is given', () => {
  it('reads the file into it, up to the file\'s end or the buffer\'s', () => {
    const dir = testdir({ 'a.txt': 'abcdef' }, { git: false });
    const sizes: number[] = [];
    const into = (n: number) => (size: number) => (sizes.push(size), Buffer.alloc(n));
    const whole = readRegular(dir.abs('a.txt'), into(6)) as Buffer;
    expect(whole.toString()).toBe('abcdef');
    expect(sizes).toEqual([6]);
    expect((readRegular(dir.abs('a.txt'), into(10)) as Buffer).toString()).toBe('abcdef');
    expect((readRegular(dir.abs('a.txt'), into(4)) as Buffer).toString()).toBe('abcd');
    // No buffer to be had: one of node's own.
    expect((readRegular(dir.abs('a.txt'), () => null) as Buffer).toString()).toBe('abcdef');
  });

  it('a FIFO is not read, and nothing waits on it', () => {
    const dir = testdir({}, { git: false });
    execFileSync('mkfifo', [dir.abs('pipe')]);
    expect(readRegular(dir.abs('pipe'), () => Buffer.alloc(10))).toBe('not-a-file');
  });
});

describe('openRegular tells what stands at a path (the state file is read so)', () => {
  it('bytes, absent, not a file (a FIFO, a directory) and unreadable, each as itself', () => {
    const dir = testdir({ 'a.txt': 'abc' }, { git: false });
    execFileSync('mkfifo', [dir.abs('pipe')]);
    fs.mkdirSync(dir.abs('folder'));
    const read = openRegular(dir.abs('a.txt'));
    expect(read.kind === 'bytes' && read.bytes.toString()).toBe('abc');
    expect(openRegular(dir.abs('gone.txt'))).toEqual({ kind: 'absent' });
    expect(openRegular(dir.abs('pipe'))).toEqual({ kind: 'not-a-file' });
    expect(openRegular(dir.abs('folder'))).toEqual({ kind: 'not-a-file' });
    // Under a regular file no path can be opened, not even by root: the error is kept for its message.
    const under = openRegular(dir.abs('a.txt/child'));
    expect(under.kind).toBe('unreadable');
    expect(under.kind === 'unreadable' && under.error.message).toMatch(/ENOTDIR/);
    expect(readRegular(dir.abs('a.txt/child'))).toBeNull();
    expect(readRegular(dir.abs('gone.txt'))).toBeNull();
  });
});
