/**
 * The live eval: the real Claude Code CLI, with the user's key, runs /minions:review on a copy of each
 * corpus project (without its answers), then the run's own files are scored: each reviewer's first
 * review, the loop's first verdict, the defects gone at the end with the project's checks passing, the
 * rounds and the tokens the hooks recorded. --compare builtin runs Claude Code's /code-review on another copy.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fg from 'fast-glob';
import { REVIEWERS, type Reviewer } from '../src/protocol/agents';
import { parseReview } from '../src/protocol/reviewer-output';
import { MANIFEST, type Project } from './corpus';
import { score, type ReportedFinding, type Score } from './score';

/** Checks per language, written to the copy's .minions.json when their tool is installed (compile-level only). */
const CHECKS: Record<string, { tool: string; commands: string[] }> = {
  python: { tool: 'python3', commands: ['python3 -m compileall -q .'] },
  javascript: { tool: 'node', commands: ['node --check src/queue.js'] },
  go: { tool: 'go', commands: ['go vet ./...'] },
  rust: { tool: 'cargo', commands: ['cargo check --quiet'] },
};

export interface LiveProject {
  project: string;
  reviewers: Record<Reviewer, Score | null>;
  loop: Score | null;
  /** Planted defects found, gone from the last verdict, with the checks passing at the end (null: no checks for this language here). */
  fixed: number;
  checksPassing: boolean | null;
  rounds: number;
  tokens: number | null;
  outcome: string;
  builtin?: Score | null;
}

export function liveRefusal(env: NodeJS.ProcessEnv): string | null {
  if (env.ANTHROPIC_API_KEY?.trim()) return null;
  return [
    'eval --live needs ANTHROPIC_API_KEY: it runs the real Claude Code CLI with your key on every corpus project',
    '(8 review loops; expect several million tokens). Set it and run again: ANTHROPIC_API_KEY=… npm run eval -- --live',
  ].join('\n');
}

const onPath = (tool: string): boolean => spawnSync(tool, ['--version'], { stdio: 'ignore' }).status === 0;

/** A git repository holding the project without its answers: the base commit is empty, every file is the change. */
export function copyProject(project: Project, into: string): string {
  const dir = path.join(into, project.name);
  fs.cpSync(project.dir, dir, { recursive: true, filter: (src) => path.basename(src) !== MANIFEST });
  const checks = CHECKS[project.manifest.language];
  if (checks && onPath(checks.tool)) fs.writeFileSync(path.join(dir, '.minions.json'), `${JSON.stringify({ checks: checks.commands }, null, 2)}\n`);
  const git = (...args: string[]) => spawnSync('git', args, { cwd: dir, stdio: 'ignore' });
  git('init', '-q');
  git('-c', 'user.name=eval', '-c', 'user.email=eval@example.invalid', 'commit', '-q', '--allow-empty', '-m', 'base');
  return dir;
}

export function claude(bin: string, dir: string, prompt: string, pluginDir: string | null): { status: number | null; output: string } {
  const args = ['-p', prompt, ...(pluginDir ? ['--plugin-dir', pluginDir] : []), '--permission-mode', 'bypassPermissions', '--output-format', 'text'];
  const run = spawnSync(bin, args, { cwd: dir, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 60 * 60 * 1000 });
  return { status: run.status, output: `${run.stdout ?? ''}${run.stderr ?? ''}` };
}

/** What a finished loop left in the copy, scored against the project's answers. */
export function collectLive(project: Project, dir: string): LiveProject {
  const files = fg.sync('.agents/tmp/**/review-*/r1-*.json', { cwd: dir, dot: true });
  const round = (f: string) => Number(/review-(\d+)\//.exec(f)?.[1] ?? 0);
  const rounds = Math.max(0, ...files.map(round));
  const findingsOf = (f: string | undefined): ReportedFinding[] | null => {
    if (!f) return null;
    const review = parseReview(fs.readFileSync(path.join(dir, f), 'utf8'));
    return review.ok ? review.issues : null;
  };
  const reviewers = Object.fromEntries(
    REVIEWERS.map((r) => {
      const found = findingsOf(files.find((f) => round(f) === 1 && f.endsWith(`/r1-${r}.json`)));
      return [r, found ? score(project, found) : null];
    }),
  ) as Record<Reviewer, Score | null>;
  const verdictOf = (n: number): { findings: (ReportedFinding & { toFixer: boolean })[]; next?: string; stopReason?: string | null } | null => {
    const f = files.find((x) => round(x) === n && x.endsWith('/r1-verdict.json'));
    return f ? JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) : null;
  };
  const first = verdictOf(1);
  const last = verdictOf(rounds);
  const loop = first ? score(project, first.findings.filter((f) => f.toFixer)) : null;
  const checks = CHECKS[project.manifest.language];
  const checksPassing = checks && onPath(checks.tool) ? checks.commands.every((c) => spawnSync(c, { cwd: dir, shell: true, stdio: 'ignore' }).status === 0) : null;
  const stillReported = new Set(last ? score(project, last.findings.filter((f) => f.toFixer)).found : []);
  const fixed = checksPassing === false ? 0 : (loop?.found ?? []).filter((id) => !stillReported.has(id)).length;
  const state = fg.sync('.agents/tmp/**/state.json', { cwd: dir, dot: true })[0];
  const tokens = state ? tokensOf(JSON.parse(fs.readFileSync(path.join(dir, state), 'utf8'))) : null;
  const outcome = last?.next === 'STOPPED' ? `STOPPED (${last.stopReason})` : (last?.next ?? 'no verdict');
  return { project: project.name, reviewers, loop, fixed, checksPassing, rounds, tokens, outcome };
}

function tokensOf(state: { iterations?: { cost?: Record<string, { tokens: Record<string, number> | null }> }[] }): number {
  let total = 0;
  for (const it of state.iterations ?? []) for (const c of Object.values(it.cost ?? {})) for (const n of Object.values(c.tokens ?? {})) total += n;
  return total;
}

/** Findings in /code-review's prose: every `file:line` it names, read with the words of its line as the category. */
export function builtinFindings(project: Project, output: string): ReportedFinding[] {
  const files = fg.sync('**/*', { cwd: project.dir, ignore: [MANIFEST] });
  const out: ReportedFinding[] = [];
  for (const text of output.split('\n')) {
    for (const m of text.matchAll(/([\w./-]+\.\w+):(\d+)/g)) {
      const file = files.find((f) => m[1] === f || m[1]!.endsWith(`/${f}`));
      if (file) out.push({ file, line: Number(m[2]), category: text });
    }
  }
  return out;
}

export function runLive(projects: Project[], options: { bin: string; pluginDir: string; builtin: boolean; flags?: string; log: (line: string) => void }): LiveProject[] {
  const into = fs.mkdtempSync(path.join(os.tmpdir(), 'minions-eval-'));
  return projects.map((project) => {
    const review = `/minions:review ${options.flags ? `${options.flags} ` : ''}every file of this project`;
    options.log(`eval: ${project.name}: ${review}`);
    const dir = copyProject(project, into);
    claude(options.bin, dir, review, options.pluginDir);
    const result = collectLive(project, dir);
    if (options.builtin) {
      options.log(`eval: ${project.name}: /code-review …`);
      const other = copyProject(project, path.join(into, 'builtin'));
      const run = claude(options.bin, other, '/code-review', null);
      result.builtin = /unknown (slash )?command|not a known command/i.test(run.output) ? null : score(project, builtinFindings(project, run.output));
    }
    return result;
  });
}
