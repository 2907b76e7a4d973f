/** Codex CLI's agents, generated at build time from agents/*.md (scripts/build.ts): one source for both hosts. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CODEX_AGENTS_DIR, PLUGIN_DIR, codexAgent } from '../../scripts/build';

const REPO = path.resolve(__dirname, '../..');
const agents = fs.readdirSync(path.join(REPO, 'agents')).filter((f) => f.endsWith('.md')).sort();

/** The TOML the build writes: `key = "<JSON-escaped string>"` lines, read back with JSON.parse. */
function readToml(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .trim()
      .split('\n')
      .map((line) => {
        const match = /^(\w+) = (".*")$/.exec(line);
        if (!match) throw new Error(`not a key = "string" line: ${line.slice(0, 80)}`);
        return [match[1]!, JSON.parse(match[2]!) as string];
      }),
  );
}

describe('codex/agents/*.toml', () => {
  it.each(agents)('%s: named minions:<name>, its persona the Markdown body, sandboxed by what its tools write', (file) => {
    const markdown = fs.readFileSync(path.join(REPO, 'agents', file), 'utf8');
    const { file: name, toml } = codexAgent(markdown);
    const fields = readToml(toml);
    expect(name).toBe(file.replace(/\.md$/, ''));
    expect(fields.name).toBe(`minions:${name}`);
    expect(markdown).toContain(fields.description!);
    const body = markdown.slice(markdown.indexOf('\n---\n', 4) + 5).trim();
    expect(fields.developer_instructions!.startsWith(body)).toBe(true);
    const fixer = name === 'review-fixer';
    expect(fields.sandbox_mode).toBe(fixer ? 'workspace-write' : 'read-only');
    // A read-only reviewer is told to answer with its findings; the hooks write the file.
    expect(fields.developer_instructions!.includes('```json fenced block')).toBe(!fixer);
    // What the build committed is what this source generates.
    expect(fs.readFileSync(path.join(REPO, PLUGIN_DIR, CODEX_AGENTS_DIR, `${name}.toml`), 'utf8')).toBe(toml);
  });

  it('an agent file without front matter or without a name is refused at build time', () => {
    expect(() => codexAgent('no front matter')).toThrow(/front matter/);
    expect(() => codexAgent('---\ndescription: x\ntools: Read\n---\nbody')).toThrow(/name/);
  });
});
