import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { renderSchemas } from '../../scripts/schema';
import { STATE_SHAPE } from '../../src/state/schema';

describe('schema/*.json are generated from the zod schemas', () => {
  it.each(Object.entries(renderSchemas()))('%s has not drifted (run `npm run schema` after changing a zod schema)', (file, text) => {
    expect(fs.readFileSync(path.join(__dirname, '../../schema', file), 'utf8')).toBe(text);
  });
});

describe('STATE_SHAPE names the state schema', () => {
  it('is the start of the sha256 of schema/state.schema.json (update it when the state schema changes)', () => {
    const text = renderSchemas()['state.schema.json']!;
    expect(STATE_SHAPE).toBe(createHash('sha256').update(text).digest('hex').slice(0, 16));
  });
});
