import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderSchemas } from '../../scripts/schema';

describe('schema/*.json are generated from the zod schemas', () => {
  it.each(Object.entries(renderSchemas()))('%s has not drifted (run `npm run schema` after changing a zod schema)', (file, text) => {
    expect(fs.readFileSync(path.join(__dirname, '../../schema', file), 'utf8')).toBe(text);
  });
});
