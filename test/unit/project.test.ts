import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { relativeInside } from '../../src/shell/project';

describe('relativeInside', () => {
  const root = path.resolve('/p/root');
  it.each([
    ['/p/root/src/a.ts', 'src/a.ts'],
    ['/p/root', '.'],
    ['/p/root/..hidden.ts', '..hidden.ts'],
    ['/p/root/..cache/x.json', '..cache/x.json'],
    ['/p/other/a.ts', null],
    ['/p', null],
    ['/p/root-sibling/a.ts', null],
  ])('%s → %j', (target, rel) => expect(relativeInside(root, path.resolve(target))).toBe(rel));
});
