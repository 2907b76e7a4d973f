import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CATEGORIES, MANIFEST, loadCorpus, type Project } from '../../eval/corpus';
import { projectSources } from '../../eval/core-round';
import { main, offlineEval, renderEval } from '../../eval/eval';
import { builtinFindings, collectLive, copyProject, liveRefusal, runLive } from '../../eval/live';
import { combine, compatible, familyOf, score } from '../../eval/score';

const corpus = loadCorpus();
const project = (name: string): Project => corpus.find((p) => p.name === name)!;
const tmp = () => fs.mkdtempSync(path.join(process.env.MINIONS_TEST_TMP ?? os.tmpdir(), 'eval-'));

describe('the planted-defect corpus', () => {
  it('has at least 8 projects in 4 languages, 40 defects of every category and 15 decoys', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(8);
    expect(new Set(corpus.map((p) => p.manifest.language)).size).toBeGreaterThanOrEqual(4);
    const defects = corpus.flatMap((p) => p.manifest.defects);
    expect(defects.length).toBeGreaterThanOrEqual(40);
    expect(new Set(defects.map((d) => d.category))).toEqual(new Set(CATEGORIES));
    expect(corpus.flatMap((p) => p.manifest.decoys).length).toBeGreaterThanOrEqual(15);
  });

  it.each(corpus.map((p) => [p.name, p] as const))('%s: every range is in its file, ids are unique, no decoy overlaps a defect', (_, p) => {
    const all = [...p.manifest.defects, ...p.manifest.decoys];
    expect(new Set(all.map((x) => x.id)).size).toBe(all.length);
    for (const x of all) {
      const lines = fs.readFileSync(path.join(p.dir, x.file), 'utf8').split('\n');
      expect(x.lines[0]).toBeLessThanOrEqual(x.lines[1]);
      expect(x.lines[1]).toBeLessThanOrEqual(lines.length);
      expect(lines.slice(x.lines[0] - 1, x.lines[1]).join('').trim()).not.toBe('');
    }
    for (const d of p.manifest.decoys) for (const x of p.manifest.defects) expect(d.file === x.file && d.lines[0] <= x.lines[1] && x.lines[0] <= d.lines[1]).toBe(false);
  });

  it('the answers are never among the files a model reviews', () => {
    for (const p of corpus) expect(Object.keys(projectSources(p))).not.toContain(MANIFEST);
    const dir = copyProject(project('py-ledger'), tmp());
    expect(fs.existsSync(path.join(dir, MANIFEST))).toBe(false);
    expect(fs.existsSync(path.join(dir, 'ledger.py'))).toBe(true);
  });
});

describe('the scorer', () => {
  const cart = project('ts-cart');
  const [discount, , fetchDefect] = cart.manifest.defects;

  it('reads categories into families, and a defect accepts its neighbours but security only itself', () => {
    expect(['logic-error', 'swallowed-error', 'injection', 'race condition', 'resource-leak', 'naming'].map(familyOf)).toEqual(['logic', 'error-handling', 'security', 'concurrency', 'api-misuse', null]);
    expect(compatible('logic', 'error-handling')).toBe(true);
    expect(compatible('security', 'logic')).toBe(false);
    expect(compatible('concurrency', 'naming')).toBe(false);
  });

  it('a finding matches on the same file, within the range, with a compatible category; anything else is a false positive', () => {
    const s = score(cart, [
      { file: 'src/cart.ts', line: discount!.lines[0], category: 'logic-error' },
      { file: './src/cart.ts', line: fetchDefect!.lines[1], category: 'error-handling' },
      { file: 'eval/corpus/ts-cart/src/cart.ts', line: fetchDefect!.lines[0], category: 'unhandled error' },
      { file: 'src/cart.ts', line: discount!.lines[0] + 1, category: 'logic' },
      { file: 'src/cart.ts', line: discount!.lines[0], category: 'security' },
      { file: 'src/render.ts', line: discount!.lines[0], category: 'logic' },
      { file: 'src/cart.ts', line: null, category: 'logic' },
    ]);
    expect(s).toMatchObject({ findings: 7, truePositives: 3, falsePositives: 4, decoys: 0, defectsFound: 2, defects: 5, found: ['ts-cart/d1', 'ts-cart/d3'] });
    expect(s.precision).toBe(0.429);
    expect(s.recall).toBe(0.4);
  });

  it('a finding on a decoy is a false positive, counted as a decoy', () => {
    const decoy = cart.manifest.decoys[0]!;
    expect(score(cart, [{ file: decoy.file, line: decoy.lines[0], category: 'logic' }])).toMatchObject({ truePositives: 0, falsePositives: 1, decoys: 1, precision: 0, recall: 0, f1: 0 });
  });

  it('no findings: zero precision and recall, no division by zero', () => {
    expect(combine([score(cart, []), score(project('go-cache'), [])])).toMatchObject({ findings: 0, defects: 10, precision: 0, recall: 0, f1: 0 });
  });
});

describe('the offline eval: the scripted reviewers score their known answers', () => {
  const result = offlineEval(corpus);
  const pick = (s: { findings: number; truePositives: number; falsePositives: number; decoys: number; defectsFound: number; precision: number; recall: number; f1: number }) => [
    s.findings, s.truePositives, s.falsePositives, s.decoys, s.defectsFound, s.precision, s.recall, s.f1,
  ];

  it.each([
    // critic: defects 1 and 2 of 8 projects (16), and each project's first decoy (8).
    ['critic', [24, 16, 8, 8, 16, 0.667, 0.4, 0.5]],
    // pedant: defect 3 of each, as "naming", which no defect accepts.
    ['pedant', [8, 0, 8, 0, 0, 0, 0, 0]],
    // witness: defect 4 of each, at the last line of its range.
    ['witness', [8, 8, 0, 0, 8, 1, 0.2, 0.333]],
    // security-reviewer: the 8 security defects, and each project's second decoy.
    ['security-reviewer', [16, 8, 8, 8, 8, 0.5, 0.2, 0.286]],
    // silent-failure-hunter: defect 5 of each as error-handling: py-auth's is security, so 7 of 8.
    ['silent-failure-hunter', [8, 7, 1, 0, 7, 0.875, 0.175, 0.292]],
  ] as const)('%s', (reviewer, expected) => {
    expect(pick(result.reviewers[reviewer])).toEqual(expected);
  });

  it('the loop: the core merges six findings two reviewers share (py-auth d1 d2 d4, go-files d2, ts-cart d4, js-queue d4); 33 of 40 found', () => {
    expect(pick(result.loop)).toEqual([58, 33, 25, 16, 33, 0.569, 0.825, 0.673]);
    expect(result).toMatchObject({ mode: 'offline', projects: 8, defects: 40, decoys: 16, rounds: 1, fixed: null, tokens: null });
  });

  it('renders a Markdown row per reviewer and one for the loop', () => {
    const md = renderEval(result);
    expect(md).toContain('| critic | 24 | 16 | 8 | 8 | 16/40 | 0.667 | 0.400 | 0.500 |');
    expect(md).toContain('| the loop (round 1, merged by the core) | 58 | 33 | 25 | 16 | 33/40 | 0.569 | 0.825 | 0.673 |');
  });
});

describe('npm run eval', () => {
  const run = (argv: string[], env: NodeJS.ProcessEnv = {}) => {
    const lines: string[] = [];
    const code = main(argv, env, (l) => lines.push(l));
    return { code, text: lines.join('\n') };
  };

  it('offline: writes results.json and results.md', () => {
    const out = tmp();
    expect(run(['--out', out]).code).toBe(0);
    expect(JSON.parse(fs.readFileSync(path.join(out, 'results.json'), 'utf8')).loop.defectsFound).toBe(33);
    expect(fs.readFileSync(path.join(out, 'results.md'), 'utf8')).toContain('# minions eval (offline)');
  });

  it('--live and --compare builtin without a key: a clear refusal, nothing run', () => {
    for (const argv of [['--live'], ['--compare', 'builtin'], ['--live', '--compare', 'builtin']]) {
      const { code, text } = run(argv, {});
      expect(code).toBe(2);
      expect(text).toContain('needs ANTHROPIC_API_KEY');
    }
    expect(liveRefusal({ ANTHROPIC_API_KEY: '  ' })).not.toBeNull();
    expect(liveRefusal({ ANTHROPIC_API_KEY: 'sk-test' })).toBeNull();
  });

  it('refuses an unknown option and a comparison it does not know', () => {
    expect(run(['--quick'])).toMatchObject({ code: 2, text: expect.stringContaining('unknown option --quick') });
    expect(run(['--compare', 'coderabbit'])).toMatchObject({ code: 2, text: expect.stringContaining('unknown --compare coderabbit') });
  });

  it('--flags: only with --live, and only flags; the live table names them', () => {
    expect(run(['--flags', '--effort quick'])).toMatchObject({ code: 2, text: expect.stringContaining('--flags needs --live') });
    expect(run(['--live', '--flags', 'fix everything'], { ANTHROPIC_API_KEY: 'sk-test' })).toMatchObject({ code: 2, text: expect.stringContaining('takes the flags of /minions:review') });
    expect(run(['--live', '--flags'], { ANTHROPIC_API_KEY: 'sk-test' }).code).toBe(2);
    const live = { ...offlineEval(), mode: 'live' as const, flags: '--effort quick', fixed: 0, rounds: 8, tokens: 1 };
    expect(renderEval(live)).toContain('Each loop: `/minions:review --effort quick …`.');
    expect(renderEval(offlineEval())).not.toContain('Each loop');
  });
});

describe('the live eval reads what a loop left', () => {
  it('scores the first reviews and verdict, counts a defect gone from the last verdict with the checks passing, sums the tokens', () => {
    const p = project('py-ledger');
    const dir = copyProject(p, tmp());
    const [race, skip] = p.manifest.defects;
    const finding = (d: typeof race) => ({ severity: 'warning', category: d!.category, file: d!.file, line: d!.lines[0], description: 'x', evidence: 'y', suggestion: 'z' });
    const write = (rel: string, value: unknown) => {
      fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      fs.writeFileSync(path.join(dir, rel), JSON.stringify(value));
    };
    write('.agents/tmp/phases/review-1/r1-critic.json', { issues: [finding(race), finding(skip)], summary: { critical: 0, warning: 2, info: 0, verdict: 'issues_found' } });
    write('.agents/tmp/phases/review-1/r1-verdict.json', { findings: [{ ...finding(race), toFixer: true }, { ...finding(skip), toFixer: true }], next: 'R2' });
    write('.agents/tmp/phases/review-2/r1-verdict.json', { findings: [{ ...finding(skip), toFixer: true }], next: 'STOPPED', stopReason: 'max_iterations' });
    write('.agents/tmp/state.json', { iterations: [{ cost: { a: { tokens: { input: 10, output: 5, cacheCreation: 0, cacheRead: 100 } } } }, { cost: { b: { tokens: null } } }] });
    const r = collectLive(p, dir);
    expect(r.reviewers.critic).toMatchObject({ truePositives: 2, defectsFound: 2 });
    expect(r.reviewers.pedant).toBeNull();
    expect(r).toMatchObject({ rounds: 2, tokens: 115, outcome: 'STOPPED (max_iterations)', fixed: r.checksPassing === false ? 0 : 1 });
  });

  it('starts each loop with the flags it was given, in the copy of its project', () => {
    const dir = tmp();
    const bin = path.join(dir, 'fake-claude');
    fs.writeFileSync(bin, `#!/bin/sh\nprintf '%s|%s\\n' "$PWD" "$2" >> "${path.join(dir, 'calls')}"\n`, { mode: 0o755 });
    const lines: string[] = [];
    const [r] = runLive([project('js-queue')], { bin, pluginDir: dir, builtin: false, flags: '--effort quick --done-when warning', log: (l) => lines.push(l) });
    const [call] = fs.readFileSync(path.join(dir, 'calls'), 'utf8').trim().split('\n');
    expect(call).toMatch(/minions-eval-.*\|\/minions:review --effort quick --done-when warning every file of this project$/);
    expect(lines).toEqual(['eval: js-queue: /minions:review --effort quick --done-when warning every file of this project']);
    expect(r).toMatchObject({ project: 'js-queue', rounds: 0, outcome: 'no verdict' });
  });

  it("reads /code-review's prose: every file:line of a corpus file, its line's words as the category", () => {
    const p = project('py-auth');
    const sql = p.manifest.defects[2]!;
    const found = builtinFindings(p, `1. SQL injection in auth.py:${sql.lines[0]} — the name is formatted in\n2. see README.md:3 and nothing else`);
    expect(found).toEqual([{ file: 'auth.py', line: sql.lines[0], category: `1. SQL injection in auth.py:${sql.lines[0]} — the name is formatted in` }]);
    expect(score(p, found)).toMatchObject({ truePositives: 1 });
  });
});
