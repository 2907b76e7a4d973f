/**
 * The project's review rules (REVIEW.md at the root, or .minions/rules.md), split per reviewer: a section
 * headed with a reviewer's name (`## security-reviewer`, `## minions:critic`, `## Critic`) goes to that
 * reviewer only, the rest to every reviewer. Pure; the shell reads the file, capped.
 */
import { REVIEWERS, type Reviewer } from '../protocol/agents';

/** The rules text given to the reviewers at most (the rest is cut, and the cut is said). */
export const MAX_RULES_BYTES = 16 * 1024;
/** Where the hooks look for the rules, first found wins. */
export const RULES_FILES = ['REVIEW.md', '.minions/rules.md'] as const;

export interface ProjectRules {
  /** Project-relative path of the file read. */
  file: string;
  /** Its text, cut at MAX_RULES_BYTES. */
  text: string;
  truncated: boolean;
}

const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;

/** The reviewer a heading names (its text, without `minions:` and case), or null. */
export function headingReviewer(heading: string): Reviewer | null {
  const name = heading.trim().toLowerCase().replace(/^minions:/, '').replace(/[`*_]/g, '').trim();
  return (REVIEWERS as readonly string[]).includes(name) ? (name as Reviewer) : null;
}

/** Each reviewer's rules: the file without the sections headed with another reviewer's name. */
export function rulesFor(rules: ProjectRules): Record<Reviewer, string> {
  const lines = rules.text.split('\n');
  const owner: (Reviewer | null)[] = [];
  let section: { reviewer: Reviewer; level: number } | null = null;
  let fence = false;
  for (const line of lines) {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    const m = fence ? null : HEADING.exec(line);
    if (m) {
      const level = m[1]!.length;
      if (section && level <= section.level) section = null;
      const reviewer = headingReviewer(m[2]!);
      if (reviewer) section = { reviewer, level };
    }
    owner.push(section?.reviewer ?? null);
  }
  const out = {} as Record<Reviewer, string>;
  const cut = rules.truncated ? `\n\n(The rules are cut at ${MAX_RULES_BYTES / 1024} KB; the whole file is ${rules.file}.)\n` : '\n';
  for (const r of REVIEWERS) {
    const kept = lines.filter((_, i) => owner[i] === null || owner[i] === r).join('\n').trim();
    out[r] = `# The project's review rules (from ${rules.file}), for ${r}\n\n${kept}${cut}`;
  }
  return out;
}
