/**
 * Deterministic scoring, no model as judge. A finding matches a planted defect when it names the same
 * file, a line within the defect's range, and a compatible category. A finding that matches no defect is
 * a false positive; one on a decoy (suspicious-looking but correct code) is counted as such too.
 */
import type { Category, Project } from './corpus';

export interface ReportedFinding {
  /** Project-relative, as the reviewer wrote it (a leading ./ or the project's folder is tolerated). */
  file: string;
  line: number | null;
  category: string;
}

export interface Score {
  findings: number;
  truePositives: number;
  falsePositives: number;
  /** Of the false positives, those on a decoy. */
  decoys: number;
  defectsFound: number;
  defects: number;
  precision: number;
  recall: number;
  f1: number;
  /** The defects found, by id. */
  found: string[];
}

/** The category families a reviewer's free-text category is read as (first match wins). */
const FAMILIES: readonly [Category, RegExp][] = [
  ['security', /secur|inject|xss|traversal|auth|crypt|hash|secret|sql|pickle|deserial|timing|csrf|ssrf/i],
  ['concurrency', /concurr|race|deadlock|lock|thread|async|await|parallel|atomic|sync/i],
  ['logic', /logic|correct|off.?by|arith|calc|invert|unit/i],
  ['error-handling', /error|exception|silent|swallow|panic|unwrap|handling|failure|ignored/i],
  ['api-misuse', /api|misuse|resource|leak|close|deprecat|encoding|utf/i],
  ['logic', /bug|overflow|bound|wrong/i],
];

export function familyOf(category: string): Category | null {
  return FAMILIES.find(([, re]) => re.test(category))?.[0] ?? null;
}

/** What a defect of each category accepts: its own family, and the neighbours reviewers often name instead. */
const ACCEPTS: Record<Category, readonly Category[]> = {
  logic: ['logic', 'error-handling', 'api-misuse'],
  security: ['security'],
  'error-handling': ['error-handling', 'logic', 'api-misuse'],
  concurrency: ['concurrency', 'logic'],
  'api-misuse': ['api-misuse', 'error-handling', 'logic'],
};

export const compatible = (defect: Category, reported: string): boolean => {
  const family = familyOf(reported);
  return family !== null && ACCEPTS[defect].includes(family);
};

const normalise = (project: string, file: string): string => file.replace(/\\/g, '/').replace(/^\.\//, '').replace(new RegExp(`^(.*/)?${project}/`), '');
const within = (line: number | null, [from, to]: readonly [number, number]): boolean => line !== null && line >= from && line <= to;

export function score(project: Project, findings: readonly ReportedFinding[]): Score {
  const { defects, decoys } = project.manifest;
  const found = new Set<string>();
  let tp = 0;
  let fp = 0;
  let onDecoy = 0;
  for (const f of findings) {
    const file = normalise(project.name, f.file);
    const hit = defects.find((d) => d.file === file && within(f.line, d.lines) && compatible(d.category, f.category));
    if (hit) {
      tp++;
      found.add(hit.id);
      continue;
    }
    fp++;
    if (decoys.some((d) => d.file === file && within(f.line, d.lines))) onDecoy++;
  }
  return summarise({ findings: findings.length, truePositives: tp, falsePositives: fp, decoys: onDecoy, defectsFound: found.size, defects: defects.length, found: [...found].sort() });
}

/** Scores of several projects (or reviewers) added up, the ratios computed again from the sums. */
export function combine(scores: readonly Score[]): Score {
  const sum = (k: 'findings' | 'truePositives' | 'falsePositives' | 'decoys' | 'defectsFound' | 'defects') => scores.reduce((s, x) => s + x[k], 0);
  return summarise({
    findings: sum('findings'),
    truePositives: sum('truePositives'),
    falsePositives: sum('falsePositives'),
    decoys: sum('decoys'),
    defectsFound: sum('defectsFound'),
    defects: sum('defects'),
    found: scores.flatMap((s) => s.found).sort(),
  });
}

function summarise(s: Omit<Score, 'precision' | 'recall' | 'f1'>): Score {
  const precision = s.findings === 0 ? 0 : s.truePositives / s.findings;
  const recall = s.defects === 0 ? 0 : s.defectsFound / s.defects;
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { ...s, precision: round(precision), recall: round(recall), f1: round(f1) };
}

const round = (x: number): number => Math.round(x * 1000) / 1000;
