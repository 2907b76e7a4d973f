/**
 * npm run eval [-- --live [--flags "<flags of /minions:review>"] [--compare builtin]] [--out DIR]
 *
 * Offline (the default): the scripted reviewers (eval/scripted.ts) on the planted-defect corpus, each
 * scored, and their reviews put through one round of the plugin's core for the loop's score.
 * --live: the real Claude Code CLI with your key (eval/live.ts), each loop started with --flags when given
 * (e.g. "--effort quick --done-when warning"). Writes results.json and results.md.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { REVIEWERS, type Reviewer } from '../src/protocol/agents';
import { coreRound } from './core-round';
import { loadCorpus, type Project } from './corpus';
import { liveRefusal, runLive, type LiveProject } from './live';
import { combine, score, type Score } from './score';
import { scriptedReviews } from './scripted';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface EvalResult {
  mode: 'offline' | 'live';
  /** Live only: the flags each /minions:review was given. */
  flags?: string;
  projects: number;
  defects: number;
  decoys: number;
  reviewers: Record<Reviewer, Score>;
  loop: Score;
  /** Live only: defects gone at the end with the checks passing, rounds and tokens (offline: one scripted round, no fixer). */
  fixed: number | null;
  rounds: number | null;
  tokens: number | null;
  builtin?: Score | null;
  perProject?: LiveProject[];
}

export function offlineEval(corpus: Project[] = loadCorpus()): EvalResult {
  const reviews = corpus.map((p) => ({ project: p, reviews: scriptedReviews(p) }));
  const reviewers = Object.fromEntries(REVIEWERS.map((r) => [r, combine(reviews.map(({ project, reviews }) => score(project, reviews[r])))])) as Record<Reviewer, Score>;
  const loop = combine(reviews.map(({ project, reviews }) => score(project, coreRound(project, reviews).findings.filter((f) => f.toFixer))));
  return { mode: 'offline', ...counts(corpus), reviewers, loop, fixed: null, rounds: 1, tokens: null };
}

function liveEval(corpus: Project[], builtin: boolean, flags: string, log: (line: string) => void): EvalResult {
  const bin = process.env.MINIONS_CLAUDE_BIN ?? path.join(ROOT, 'node_modules', '.bin', 'claude');
  const perProject = runLive(corpus, { bin, pluginDir: path.join(ROOT, 'plugin'), builtin, flags, log });
  const scored = <T>(xs: (T | null | undefined)[]): T[] => xs.filter((x): x is T => x != null);
  const reviewers = Object.fromEntries(REVIEWERS.map((r) => [r, combine(scored(perProject.map((p) => p.reviewers[r])))])) as Record<Reviewer, Score>;
  return {
    mode: 'live',
    flags,
    ...counts(corpus),
    reviewers,
    loop: combine(scored(perProject.map((p) => p.loop))),
    fixed: perProject.reduce((s, p) => s + p.fixed, 0),
    rounds: perProject.reduce((s, p) => s + p.rounds, 0),
    tokens: perProject.reduce((s, p) => s + (p.tokens ?? 0), 0),
    ...(builtin ? { builtin: perProject.some((p) => p.builtin) ? combine(scored(perProject.map((p) => p.builtin))) : null } : {}),
    perProject,
  };
}

const counts = (corpus: Project[]) => ({
  projects: corpus.length,
  defects: corpus.reduce((s, p) => s + p.manifest.defects.length, 0),
  decoys: corpus.reduce((s, p) => s + p.manifest.decoys.length, 0),
});

export function renderEval(r: EvalResult): string {
  const row = (name: string, s: Score) => `| ${name} | ${s.findings} | ${s.truePositives} | ${s.falsePositives} | ${s.decoys} | ${s.defectsFound}/${s.defects} | ${s.precision.toFixed(3)} | ${s.recall.toFixed(3)} | ${s.f1.toFixed(3)} |`;
  return [
    `# minions eval (${r.mode})`,
    '',
    ...(r.flags ? [`Each loop: \`/minions:review ${r.flags} …\`.`, ''] : []),
    `${r.projects} projects, ${r.defects} planted defects, ${r.decoys} decoys. A finding matches a defect on the same file, within its line range, with a compatible category.`,
    '',
    '| reviewer | findings | true | false | on decoys | defects found | precision | recall | F1 |',
    '|---|---|---|---|---|---|---|---|---|',
    ...REVIEWERS.map((name) => row(name, r.reviewers[name])),
    row('the loop (round 1, merged by the core)', r.loop),
    ...(r.builtin ? [row('Claude Code /code-review', r.builtin)] : r.builtin === null ? ['| Claude Code /code-review | not available in this CLI | | | | | | | |'] : []),
    '',
    r.mode === 'live'
      ? `Defects fixed with the project's checks passing: ${r.fixed}/${r.defects}. Rounds: ${r.rounds}. Tokens: ${r.tokens?.toLocaleString('en-US')}.`
      : 'Offline: the scripted reviewers, one round, no fixer and no tokens. Run `npm run eval -- --live` for the loop with your key.',
    '',
  ].join('\n');
}

export function main(argv: string[], env: NodeJS.ProcessEnv = process.env, log: (line: string) => void = console.log): number {
  const out = path.resolve(ROOT, argv.includes('--out') ? (argv[argv.indexOf('--out') + 1] ?? '') : 'eval/results');
  const compare = argv.includes('--compare') ? argv[argv.indexOf('--compare') + 1] : undefined;
  const flags = argv.includes('--flags') ? (argv[argv.indexOf('--flags') + 1] ?? '').trim() : '';
  const valued = ['--compare', '--out', '--flags'];
  const unknown = argv.filter((a, i) => !['--live', ...valued].includes(a) && !valued.includes(argv[i - 1] ?? ''));
  if (unknown.length > 0 || (compare !== undefined && compare !== 'builtin')) {
    log(`eval: unknown ${unknown.length > 0 ? `option ${unknown.join(' ')}` : `--compare ${compare ?? '(nothing)'}`} (known: --live, --flags "<flags>", --compare builtin, --out DIR)`);
    return 2;
  }
  const live = argv.includes('--live') || compare === 'builtin';
  if (argv.includes('--flags') && (!live || !flags.startsWith('--'))) {
    log(live ? `eval: --flags takes the flags of /minions:review, e.g. --flags "--effort quick", not ${JSON.stringify(flags)}` : 'eval: --flags needs --live: the offline eval runs the scripted reviewers, not a loop');
    return 2;
  }
  if (live) {
    const refusal = liveRefusal(env);
    if (refusal) {
      log(refusal);
      return 2;
    }
  }
  const result = live ? liveEval(loadCorpus(), compare === 'builtin', flags, log) : offlineEval();
  fs.mkdirSync(out, { recursive: true });
  fs.writeFileSync(path.join(out, 'results.json'), `${JSON.stringify(result, null, 2)}\n`);
  const table = renderEval(result);
  fs.writeFileSync(path.join(out, 'results.md'), table);
  log(table);
  log(`eval: written to ${path.relative(process.cwd(), out) || '.'}/results.json and results.md`);
  return 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) process.exitCode = main(process.argv.slice(2));
