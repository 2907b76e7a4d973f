/**
 * dist/ is committed (users run it as cloned): it must be exactly what src/ builds to. Rebuilds into a
 * temp dir with the project's own build (scripts/build.ts) and compares file by file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ASSETS, ENTRYPOINTS, buildAll } from '../../scripts/build';
import { REPO_ROOT } from '../helpers/run';
import { removeTestdirs, tempDir } from '../helpers/testdir';

afterAll(removeTestdirs);

describe('dist/', () => {
  it('is exactly what src/ builds to', async () => {
    const outdir = path.join(tempDir('minions-dist-'), 'dist');
    await buildAll(outdir);
    const committed = path.join(REPO_ROOT, 'dist');
    const built = fs.readdirSync(outdir).sort();
    // One bundle per entrypoint, plus the chunks of code they share and the files they load (the shell parser's WebAssembly).
    expect(built.filter((file) => !/^chunk-[A-Z0-9]+\.mjs$/.test(file))).toEqual([...Object.keys(ENTRYPOINTS).map((name) => `${name}.mjs`), ...Object.keys(ASSETS)].sort());
    expect(fs.readdirSync(committed).sort(), 'files in dist/').toEqual(built);
    const differing = built.filter((file) => !fs.readFileSync(path.join(outdir, file)).equals(fs.readFileSync(path.join(committed, file))));
    expect(differing, 'dist/ is stale: run `npm run build` and commit dist/').toEqual([]);
  });
});
