/**
 * The documents: README.md stays a user's page (short, no project history), every relative link in
 * README.md, CHANGELOG.md and docs/*.md reaches a file (and a heading, when it names one), and the
 * figures the README states are the code's.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REVIEW_FLAGS } from '../../src/core/args';
import { MAX_CHECK_SENDBACKS, MAX_IDLE_BLOCKS, STALE_AFTER_MS } from '../../src/core/loop-state';
import { CHECKS_BUDGET_SECONDS, MAX_CHECKS, NUMERIC_OPTIONS } from '../../src/config/options';
import { validateConfig } from '../../src/config/project-config';
import { LAYER0_CHECKS } from '../../src/checks/layer0/names';
import { ROUND_FILES } from '../../src/protocol/paths';
import { StopReason } from '../../src/protocol/verdict-schema';
import { stopReasonText } from '../../src/report/texts';

const ROOT = path.join(__dirname, '../..');
const read = (rel: string): string => fs.readFileSync(path.join(ROOT, rel), 'utf8');
const README = read('README.md');
const DOCS = ['README.md', 'CHANGELOG.md', ...fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** The text outside fenced code blocks: a link or heading in a code block is an example. */
const unfenced = (text: string): string => text.replace(/^(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1[ \t]*$/gm, '');

/** Every `[text](target)` outside code. */
function links(text: string): string[] {
  return [...unfenced(text).replace(/`[^`\n]*`/g, '').matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!);
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of unfenced(markdown).replace(/`([^`\n]*)`/g, '$1').matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const base = m[1]!.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').trim().replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

describe('README.md is for users', () => {
  it('has at most 300 lines', () => {
    expect(README.split('\n').length).toBeLessThanOrEqual(300);
  });

  it.each(DOCS)('%s cites no seed document and no issue target', (doc) => {
    const lines = read(doc).split('\n');
    expect(lines.filter((line) => /seed 0|issue's target/i.test(line))).toEqual([]);
  });
});

describe('links between the documents', () => {
  const cases = DOCS.flatMap((doc) => links(read(doc)).filter((l) => !/^[a-z][a-z+.-]*:/i.test(l)).map((l) => [doc, l] as const));

  it('there are links to check', () => {
    expect(cases.filter(([doc]) => doc === 'README.md').length).toBeGreaterThanOrEqual(5);
    expect(cases.some(([, l]) => l.includes('#'))).toBe(true);
  });

  it.each(cases)('%s → %s reaches a file, and its heading', (doc, link) => {
    const [file, anchor] = link.split('#') as [string, string | undefined];
    const target = file === '' ? path.join(ROOT, doc) : path.resolve(path.dirname(path.join(ROOT, doc)), decodeURIComponent(file));
    expect(fs.existsSync(target), `${link} from ${doc}`).toBe(true);
    if (anchor !== undefined) {
      expect(target.endsWith('.md'), `${link}: an anchor into a file that is not Markdown`).toBe(true);
      expect([...anchors(fs.readFileSync(target, 'utf8'))], `${link} from ${doc}`).toContain(anchor);
    }
  });

  it('the anchor rule reads headings as GitHub does', () => {
    expect([...anchors('# A b\n## Flags of `/minions:review`\n### The hooks\' record\n```\n# not a heading\n```\n## A b\n')]).toEqual([
      'a-b',
      'flags-of-minionsreview',
      'the-hooks-record',
      'a-b-1',
    ]);
  });
});

describe('the figures the README states are the code\'s', () => {
  /** The flag table's row for a flag: its default and description cells. */
  const row = (flag: string): { default: string; text: string } => {
    const line = README.split('\n').find((l) => l.startsWith(`| \`--${flag}`));
    expect(line, `a row for --${flag}`).toBeDefined();
    const cells = line!.split('|').map((c) => c.trim());
    return { default: cells[2]!, text: cells[3]! };
  };

  it('every flag of /minions:review has a row, and no other flag does', () => {
    const rows = README.split('\n').flatMap((l) => /^\| `--([a-z-]+)/.exec(l)?.[1] ?? []);
    expect(rows.sort()).toEqual(Object.keys(REVIEW_FLAGS).sort());
  });

  it.each(NUMERIC_OPTIONS.map((o) => [o.flag, o] as const))('--%s: its default and its range', (flag, option) => {
    const r = row(flag);
    expect(r.default).toBe(String(option.default));
    expect(r.text).toContain(`(${option.min}–${option.max})`);
  });

  it('--check: at most MAX_CHECKS, and the checks\' shared budget', () => {
    expect(row('check').text).toContain(`up to ${MAX_CHECKS}`);
    expect(row('check-timeout').text).toContain(`share ${CHECKS_BUDGET_SECONDS} s`);
    expect(README).toMatch(new RegExp(`slower than\\s+${CHECKS_BUDGET_SECONDS} s\\s+cannot be a check`));
  });

  it('a loop counts as running for two hours after its last update', () => {
    expect(STALE_AFTER_MS).toBe(2 * 60 * 60 * 1000);
    expect(README).toMatch(/updated\s+in the last two hours/);
  });

  it('a broken check sends the fixer back twice, and an idle session pauses the loop at its second stop', () => {
    expect(MAX_CHECK_SENDBACKS).toBe(2);
    expect(README).toMatch(/sends the fixer back, at most\s+twice/);
    expect(MAX_IDLE_BLOCKS).toBe(2);
    expect(README).toMatch(/stops twice without\s+progress/);
  });

  it('the .minions.json example is valid and shows every key', () => {
    const example = /### `\.minions\.json`[\s\S]*?```json\n([\s\S]*?)```/.exec(README)?.[1];
    expect(example).toBeDefined();
    expect(validateConfig(example!)).toMatchObject({ ok: true });
    // The refusal of an unknown key lists the known ones.
    const refusal = validateConfig('{"notAKey": 1}');
    const known = /known keys: (.*)$/.exec(refusal.ok ? '' : refusal.errors[0]!)?.[1]?.split(', ') ?? [];
    expect(known).toContain('checks');
    expect([...Object.keys(JSON.parse(example!) as object), '$schema'].sort()).toEqual(known.sort());
  });

  it.each(Object.entries(ROUND_FILES))('the files under .agents/: review-N/%s, marked "hooks only" when only the hooks write it', (name, writer) => {
    const line = README.split('\n').find((l) => l.startsWith(`.agents/tmp/phases/review-N/${name} `));
    expect(line, name).toBeDefined();
    expect(line!.endsWith('(hooks only)'), line).toBe(writer === 'hooks');
  });

  it('names every Layer-0 check', () => {
    for (const check of LAYER0_CHECKS) expect(README).toContain(`\`${check}\``);
  });

  it('the outcomes table gives every stop reason as the closing message words it', () => {
    for (const reason of StopReason.options) expect(README, reason).toContain(`**STOPPED** \`${stopReasonText(reason)}\``);
  });

  it('the tested Claude Code version and the Node versions are package.json\'s', () => {
    const pkg = JSON.parse(read('package.json')) as { engines: { node: string }; devDependencies: Record<string, string> };
    expect(README).toContain(`\`@anthropic-ai/claude-code\` in \`package.json\`, ${pkg.devDependencies['@anthropic-ai/claude-code']} today`);
    expect(README).toContain(`(\`${pkg.engines.node}\`)`);
  });

  it('the install size limit is the install test\'s', () => {
    const limit = /const MAX_CACHE_BYTES = ([\d.]+) \* 1024 \* 1024;/.exec(read('test/e2e/install.test.ts'))?.[1];
    expect(limit).toBeDefined();
    expect(README).toContain(`keeps the installed copy under ${limit} MiB`);
  });
});
