/**
 * The scripted reviewers of the offline eval. They find and miss planted defects on purpose, by a plan
 * simple enough that the scores can be worked out by hand (test/unit/eval.test.ts holds them):
 * - critic: the first two defects of every project, and every project's first decoy;
 * - pedant: every third defect, named with a category no defect accepts ("naming"): all false positives;
 * - witness: every fourth defect, cited at the last line of its range;
 * - security-reviewer: every security defect, and every project's second decoy;
 * - silent-failure-hunter: every fifth defect, always as "error-handling" (which a security or
 *   concurrency defect does not accept).
 */
import fs from 'node:fs';
import path from 'node:path';
import { REVIEWERS, type Reviewer } from '../src/protocol/agents';
import type { Decoy, Defect, Project } from './corpus';

export interface ScriptedFinding {
  severity: 'critical' | 'warning' | 'info';
  category: string;
  file: string;
  line: number;
  description: string;
  evidence: string;
  suggestion: string;
}

type Pick = { at: Defect | Decoy; line: 'first' | 'last'; category: string };

function plan(reviewer: Reviewer, project: Project): Pick[] {
  const { defects, decoys } = project.manifest;
  const nth = (i: number) => (defects[i] ? [defects[i]!] : []);
  switch (reviewer) {
    case 'critic':
      return [
        ...[...nth(0), ...nth(1)].map((d): Pick => ({ at: d, line: 'first', category: d.category })),
        ...decoys.slice(0, 1).map((d): Pick => ({ at: d, line: 'first', category: 'logic' })),
      ];
    case 'pedant':
      return nth(2).map((d) => ({ at: d, line: 'first' as const, category: 'naming' }));
    case 'witness':
      return nth(3).map((d) => ({ at: d, line: 'last' as const, category: d.category }));
    case 'security-reviewer':
      return [
        ...defects.filter((d) => d.category === 'security').map((d): Pick => ({ at: d, line: 'first', category: 'security' })),
        ...decoys.slice(1, 2).map((d): Pick => ({ at: d, line: 'first', category: 'security' })),
      ];
    case 'silent-failure-hunter':
      return nth(4).map((d) => ({ at: d, line: 'first' as const, category: 'error-handling' }));
  }
}

/** One scripted reviewer's findings on a project, quoting the cited line as it is in the file. */
export function scriptedReview(reviewer: Reviewer, project: Project): ScriptedFinding[] {
  return plan(reviewer, project).map(({ at, line, category }) => {
    const n = line === 'first' ? at.lines[0] : at.lines[1];
    const text = fs.readFileSync(path.join(project.dir, at.file), 'utf8').split('\n')[n - 1]!.trim();
    return {
      severity: category === 'security' ? 'critical' : 'warning',
      category,
      file: at.file,
      line: n,
      description: `${reviewer} (scripted): ${category} problem at ${at.file}:${n}`,
      evidence: text,
      suggestion: 'fix this line',
    };
  });
}

export const scriptedReviews = (project: Project): Record<Reviewer, ScriptedFinding[]> =>
  Object.fromEntries(REVIEWERS.map((r) => [r, scriptedReview(r, project)])) as Record<Reviewer, ScriptedFinding[]>;
