/**
 * dist/ and plugin/ are committed: users run dist/ as cloned, and an install copies plugin/. dist/ must
 * be exactly what src/ builds to, and plugin/ exactly the shipped files of this checkout (scripts/build.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { ASSETS, ENTRYPOINTS, PLUGIN_DIR, GENERATED, REPOSITORY_DOCS, SHIPPED, WRITTEN, assemblePlugin } from '../../scripts/build';
import { REPO_ROOT } from '../helpers/run';
import { removeTestdirs, tempDir } from '../helpers/testdir';

afterAll(removeTestdirs);

/** Every file under dir, relative, sorted. */
function filesUnder(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true, withFileTypes: true }) as fs.Dirent[])
    .filter((entry) => entry.isFile() || entry.isSymbolicLink())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
    .sort();
}

function differingFiles(a: string, b: string, files: string[]): string[] {
  return files.filter((file) => !fs.readFileSync(path.join(a, file)).equals(fs.readFileSync(path.join(b, file))));
}

describe('dist/', () => {
  it('is exactly what src/ builds to', () => {
    // Built once per run from src/ by test/helpers/hooks-setup.ts.
    const outdir = inject('build').dist;
    const committed = path.join(REPO_ROOT, 'dist');
    const built = fs.readdirSync(outdir).sort();
    // One self-contained bundle per entrypoint, and the files they load (the shell parser's WebAssembly).
    expect(built).toEqual([...Object.keys(ENTRYPOINTS), ...Object.keys(ASSETS)].sort());
    expect(fs.readdirSync(committed).sort(), 'files in dist/').toEqual(built);
    expect(differingFiles(outdir, committed, built), 'dist/ is stale: run `npm run build` and commit dist/').toEqual([]);
  });
});

describe('plugin/ (what the marketplace entry installs)', () => {
  it('is exactly the shipped files of this checkout, as regular files', () => {
    const outdir = path.join(tempDir('minions-plugin-'), PLUGIN_DIR);
    assemblePlugin(REPO_ROOT, outdir);
    const committed = path.join(REPO_ROOT, PLUGIN_DIR);
    const expected = filesUnder(outdir);
    expect(filesUnder(committed), 'files in plugin/: run `npm run build` and commit plugin/').toEqual(expected);
    expect(differingFiles(outdir, committed, expected), 'plugin/ is stale: run `npm run build` and commit plugin/').toEqual([]);
    // The host refuses to validate links and would copy whatever they point at.
    expect(expected.filter((file) => !fs.lstatSync(path.join(committed, file)).isFile())).toEqual([]);
  });

  it('holds only what runs: nothing for the host to install, no sources, no tests', () => {
    const top = fs.readdirSync(path.join(REPO_ROOT, PLUGIN_DIR)).sort();
    expect(top).toEqual([...new Set([...[...SHIPPED, ...WRITTEN].map((rel) => rel.split('/')[0]!), ...GENERATED])].sort());
    for (const absent of ['package.json', 'package-lock.json', 'npm-shrinkwrap.json', 'bun.lock', 'node_modules', 'src', 'test']) expect(top).not.toContain(absent);
  });

  it("ships a short README that points to the repository's documents, each of which exists, not a copy of README.md", () => {
    const readme = fs.readFileSync(path.join(REPO_ROOT, PLUGIN_DIR, 'README.md'), 'utf8');
    const version = (JSON.parse(fs.readFileSync(path.join(REPO_ROOT, '.claude-plugin', 'plugin.json'), 'utf8')) as { version: string }).version;
    expect(readme).not.toBe(fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8'));
    expect(readme.split('\n').length).toBeLessThanOrEqual(40);
    expect(readme).toContain(`version ${version}`);
    for (const [doc] of REPOSITORY_DOCS) {
      expect(readme).toContain(`\`${doc}\``);
      expect(fs.existsSync(path.join(REPO_ROOT, doc)), doc).toBe(true);
    }
  });

  it('is where the marketplace entry points', () => {
    const marketplace = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, '.claude-plugin', 'marketplace.json'), 'utf8')) as { plugins: { name: string; source: string }[] };
    expect(marketplace.plugins).toEqual([expect.objectContaining({ name: 'minions', source: `./${PLUGIN_DIR}` })]);
  });
});
