/** Reviewer outputs as the agents are told to write them (agents/*.md, "Output contract"). */
export const REVIEWERS = ['critic', 'pedant', 'witness', 'security-reviewer', 'silent-failure-hunter'] as const;
export type Reviewer = (typeof REVIEWERS)[number];
export const FIXER = 'minions:review-fixer';
export const agentType = (reviewer: Reviewer): string => `minions:${reviewer}`;

export interface Issue {
  severity: 'critical' | 'warning' | 'info';
  category: string;
  file: string;
  line: number | null;
  description: string;
  evidence: string;
  suggestion: string;
}

export interface ReviewOutput {
  reviewer: string;
  issues: Issue[];
  summary: { critical: number; warning: number; info: number; verdict: 'clean' | 'issues_found' };
}

/**
 * The project the flows review (committed, then changed in the working tree). Findings must be
 * grounded (the hooks check the file, the line and the quoted evidence), so issueAt() quotes it.
 */
export const COMMITTED: Record<string, string> = {
  'src/a.ts': 'export const a = 1;\n',
  'src/cart.ts': 'export const TAX = 0.2;\n',
  'README.md': '# cart\n\nA tiny cart.\n',
};
export const CHANGED: Record<string, string> = {
  'src/a.ts': 'export const a = 2;\n',
  'src/cart.ts': [
    'export const TAX = 0.2;',
    'export interface Item { price: number; qty: number }',
    'export function total(items: Item[]): number {',
    '  let sum = 0;',
    '  for (let i = 0; i <= items.length; i++) sum += items[i].price * items[i].qty;',
    '  return sum * (1 + TAX);',
    '}',
    'export function discount(amount: number, pct: number): number {',
    '  return amount - amount * pct;',
    '}',
    'export function parse(text: string): unknown {',
    '  try { return JSON.parse(text); } catch { return null; }',
    '}',
    'export function label(item: Item): string {',
    '  return "price: " + item.price;',
    '}',
    '',
  ].join('\n'),
};

/** A finding about line `line` of a fixture file, quoting that line as its evidence. */
export function issueAt(file: string, line: number, overrides: Partial<Issue> = {}): Issue {
  const text = (CHANGED[file] ?? COMMITTED[file] ?? '').split('\n')[line - 1];
  if (text === undefined || text.trim() === '') throw new Error(`the fixture ${file} has no line ${line}`);
  return {
    severity: 'warning',
    category: 'logic-error',
    file,
    line,
    description: `line ${line} of ${file} is wrong`,
    evidence: text.trim(),
    suggestion: `fix line ${line}`,
    ...overrides,
  };
}

/** The default finding: the loop in total() reads past the end (src/cart.ts:5). */
export function issue(overrides: Partial<Issue> = {}): Issue {
  return issueAt('src/cart.ts', 5, { description: 'the loop reads one item past the end', suggestion: 'use i < items.length', ...overrides });
}

export function cleanReview(reviewer: Reviewer): ReviewOutput {
  return { reviewer, issues: [], summary: { critical: 0, warning: 0, info: 0, verdict: 'clean' } };
}

/** A review listing these issues (default: one warning); the summary counts match the list. */
export function reviewWithIssues(reviewer: Reviewer, issues: Issue[] = [issue()]): ReviewOutput {
  const count = (s: Issue['severity']): number => issues.filter((i) => i.severity === s).length;
  return { reviewer, issues, summary: { critical: count('critical'), warning: count('warning'), info: count('info'), verdict: issues.length ? 'issues_found' : 'clean' } };
}

export const reviewText = (review: ReviewOutput): string => `${JSON.stringify(review, null, 2)}\n`;

/** A final assistant message that ends with the review in a ```json fence. */
export const fencedMessage = (review: ReviewOutput): string =>
  `I reviewed the change and found ${review.issues.length} issue(s).\n\n\`\`\`json\n${JSON.stringify(review, null, 2)}\n\`\`\`\n`;

export const reviewerFile = (iteration: number, reviewer: Reviewer): string => `.agents/tmp/phases/review-${iteration}/r1-${reviewer}.json`;
export const verdictFile = (iteration: number): string => `.agents/tmp/phases/review-${iteration}/r1-verdict.json`;
export const fixSummaryFile = (iteration: number): string => `.agents/tmp/phases/review-${iteration}/r2-fix-summary.md`;
export const STATE = '.agents/tmp/state.json';
export const fixAnswersFile = (iteration: number): string => `.agents/tmp/phases/review-${iteration}/r2-fix-summary.json`;
export const findingsFile = (iteration: number): string => `.agents/tmp/phases/review-${iteration}/r2-findings.json`;
