/**
 * What the marketplace installs (plugin/) passes the host's own validator at the plugin directory's
 * bar, `claude plugin validate <copy> --strict --profile directory`, and the clone's marketplace
 * manifest passes `--strict` (offline, ~1 s each). Installing is in install.test.ts.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { paced } from '../helpers/pace';
import { CLAUDE_BIN, claudeEnv, copyCommittedPlugin, copyShippedPlugin, REPO_ROOT } from './harness';
import { ICON_PATH, makeIcon } from '../../scripts/make-icon';

const run = promisify(execFile);
let pluginDir: string;
let clone: string;

beforeAll(() => {
  pluginDir = copyShippedPlugin();
  clone = copyCommittedPlugin(REPO_ROOT);
});

afterAll(() => {
  for (const dir of [pluginDir, clone]) rmSync(dir, { recursive: true, force: true });
});

async function validate(...args: string[]): Promise<{ code: number; out: string }> {
  const home = mkdtempSync(join(tmpdir(), 'claude-home-'));
  const env = claudeEnv('http://127.0.0.1:9', home, join(home, '.claude'));
  try {
    return await run(CLAUDE_BIN, ['plugin', 'validate', ...args], { env, timeout: paced(60_000) }).then(
      (r) => ({ code: 0, out: `${r.stdout}${r.stderr}` }),
      (e: { code?: number; stdout?: string; stderr?: string }) => ({ code: e.code ?? -1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` }),
    );
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** Width and height from a PNG's IHDR. */
function pngSize(png: Buffer): { width: number; height: number } {
  expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  expect(png.subarray(12, 16).toString('ascii')).toBe('IHDR');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

describe('claude plugin validate', () => {
  test('the shipped plugin/ passes with --strict --profile directory', async () => {
    const result = await validate(pluginDir, '--strict', '--profile', 'directory');
    expect(result, `validator output:\n${result.out}`).toMatchObject({ code: 0 });
    expect(result.out).toContain('✔ Validation passed');
    expect(result.out).toContain('These checks found nothing to report');
  });

  test('the clone\'s marketplace manifest passes with --strict', async () => {
    const result = await validate(join(clone, '.claude-plugin', 'marketplace.json'), '--strict');
    expect(result, `validator output:\n${result.out}`).toMatchObject({ code: 0 });
    expect(result.out).toContain('Validating marketplace manifest');
    expect(result.out).toContain('✔ Validation passed');
  });

  test('the icon is a square PNG of 512–2048 px under 2 MB, and the committed file is what scripts/make-icon.ts draws', () => {
    const png = readFileSync(join(pluginDir, '.claude-plugin', 'icon.png'));
    const { width, height } = pngSize(png);
    expect(width).toBe(height);
    expect(width).toBeGreaterThanOrEqual(512);
    expect(width).toBeLessThanOrEqual(2048);
    expect(png.length).toBeLessThan(2 * 1024 * 1024);
    expect(makeIcon().equals(readFileSync(ICON_PATH)), 'run `npx tsx scripts/make-icon.ts` and commit .claude-plugin/icon.png').toBe(true);
  });

  test('the README has at least 40 words', () => {
    const words = readFileSync(join(pluginDir, 'README.md'), 'utf8').split(/\s+/).filter(Boolean);
    expect(words.length).toBeGreaterThanOrEqual(40);
  });
});
