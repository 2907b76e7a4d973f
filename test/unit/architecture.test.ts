/**
 * The floors of src/ hold: no import circle, and no arrow from a floor to one above it
 * (.dependency-cruiser.cjs). Type-only imports count. The same rules are shown failing on a small
 * project that breaks each of them, so that a rule that no longer matches anything is noticed.
 */
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { testdir } from '../helpers/testdir';

const ROOT = path.resolve(import.meta.dirname, '../..');
const config = createRequire(import.meta.url)(path.join(ROOT, '.dependency-cruiser.cjs'));

async function violations(baseDir: string, tsConfig: string | null): Promise<string[]> {
  const { options } = config;
  const result = await cruise(['src'], {
    ...options,
    baseDir,
    ruleSet: { forbidden: config.forbidden },
    tsConfig: tsConfig ? { fileName: tsConfig } : undefined,
    validate: true,
  });
  const output = result.output as ICruiseResult;
  return output.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}${v.cycle ? ` (${v.cycle.map((c) => c.name).join(' → ')})` : ''}`);
}

describe('the floors of src/', () => {
  it('have no import circle and no arrow that runs up', async () => {
    expect(await violations(ROOT, path.join(ROOT, 'tsconfig.json'))).toEqual([]);
  });

  it('are held by rules that fail on an upward import, a circle of type-only imports and a room with no floor', async () => {
    const { root: dir } = testdir({
      'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'ESNext', moduleResolution: 'Bundler', strict: true }, include: ['src'] }),
      'src/protocol/agents.ts': "import { step } from '../core/transition';\nexport const A = step;\n",
      'src/core/transition.ts': 'export const step = 1;\n',
      'src/review/a.ts': "import type { B } from './b';\nexport interface A { b: B }\n",
      'src/review/b.ts': "import type { A } from './a';\nexport interface B { a: A }\n",
      'src/attic/old.ts': "import { A } from '../protocol/agents';\nexport const old = A;\n",
    }, { git: false });
    const found = await violations(dir, path.join(dir, 'tsconfig.json'));
    expect(found).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^floor-0-protocol: src\/protocol\/agents\.ts → src\/core\/transition\.ts/),
        expect.stringMatching(/^no-circular: src\/review\/a\.ts → src\/review\/b\.ts/),
        expect.stringMatching(/^no-unplaced-room: src\/attic\/old\.ts → src\/protocol\/agents\.ts/),
      ]),
    );
    expect(fs.existsSync(path.join(dir, 'src'))).toBe(true);
  });
});
