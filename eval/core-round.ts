/**
 * One review round of the plugin's pure core over a corpus project: the reviews recorded (each finding
 * grounded against the project's real files), aggregated, the verdict returned. The loop's findings are
 * what the core would send to the fixer: merged across reviewers, grounded or marked unverified.
 */
import fs from 'node:fs';
import path from 'node:path';
import { REVIEWERS, agentType, type Reviewer } from '../src/protocol/agents';
import { initialState, transition, type Effect, type Event } from '../src/core/transition';
import { DEFAULT_MAX_ITERATIONS } from '../src/core/args';
import { verdictFile } from '../src/protocol/paths';
import type { Sources } from '../src/review/grounding';
import type { Verdict } from '../src/protocol/verdict-schema';
import type { State } from '../src/state/schema';
import { MANIFEST, type Project } from './corpus';

const SESSION = 'eval';
const NOW = '2026-12-01T00:00:00.000Z';

export function projectSources(project: Project): Sources {
  const out: Sources = {};
  const walk = (rel: string) => {
    for (const entry of fs.readdirSync(path.join(project.dir, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(child);
      else if (child !== MANIFEST) out[child] = { kind: 'file', text: fs.readFileSync(path.join(project.dir, child), 'utf8') };
    }
  };
  walk('');
  return out;
}

export function coreRound(project: Project, reviews: Record<Reviewer, unknown[]>): Verdict {
  let state: State = initialState(SESSION, `review ${project.name}`, DEFAULT_MAX_ITERATIONS, 'base', NOW);
  const sources = projectSources(project);
  const step = (event: Event): Effect[] => {
    const out = transition({ kind: 'ok', state }, event);
    if (out.state) state = out.state;
    return out.effects;
  };
  const texts = {} as Record<Reviewer, string>;
  for (const r of REVIEWERS) step({ kind: 'dispatch', sessionId: SESSION, now: NOW, subagentType: agentType(r) });
  for (const r of REVIEWERS) {
    const issues = reviews[r];
    texts[r] = JSON.stringify({ issues, summary: { critical: 0, warning: 0, info: 0, verdict: issues.length ? 'issues_found' : 'clean' } });
    const stop = (): Event => ({ kind: 'reviewer-stop', sessionId: SESSION, now: NOW, reviewer: r, file: texts[r], message: null, sources });
    // A reviewer shown a finding it did not ground writes the same review again.
    if (step(stop()).some((e) => e.type === 'block')) step(stop());
  }
  const effects = step({ kind: 'aggregate', sessionId: SESSION, now: NOW, reviews: texts, rewritten: [], sources, history: [], declines: {} });
  const written = effects.find((e): e is Extract<Effect, { type: 'write' }> => e.type === 'write' && e.path === verdictFile(1));
  if (!written) throw new Error(`eval: the core wrote no verdict for ${project.name}`);
  return JSON.parse(written.content) as Verdict;
}
