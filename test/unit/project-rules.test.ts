/** The project's review rules, split per reviewer: a section headed with a reviewer's name reaches that reviewer only. */
import { describe, expect, it } from 'vitest';
import { headingReviewer, rulesFor, MAX_RULES_BYTES } from '../../src/core/project-rules';
import { REVIEWERS } from '../../src/protocol/agents';

const rules = (text: string, truncated = false) => rulesFor({ file: 'REVIEW.md', text, truncated });

describe('headingReviewer', () => {
  it.each([
    ['security-reviewer', 'security-reviewer'],
    ['minions:critic', 'critic'],
    ['Pedant', 'pedant'],
    ['`witness`', 'witness'],
    ['**silent-failure-hunter**', 'silent-failure-hunter'],
    ['Security', null],
    ['critic notes', null],
    ['General', null],
  ])('%s → %s', (heading, reviewer) => {
    expect(headingReviewer(heading)).toBe(reviewer);
  });
});

describe('rulesFor', () => {
  const text = [
    '# Review rules',
    'Every public function has a test.',
    '## security-reviewer',
    'Treat every SQL string built by concatenation as critical.',
    '### Details',
    'Still the security section.',
    '## Style',
    'Prefer early returns.',
    '## minions:critic',
    '```md',
    '## pedant',
    '```',
    'Question every new dependency.',
  ].join('\n');

  it('the general rules reach every reviewer, a section only its own', () => {
    const split = rules(text);
    for (const r of REVIEWERS) {
      expect(split[r]).toContain('Every public function has a test.');
      expect(split[r]).toContain('Prefer early returns.');
      expect(split[r]).toContain(`from REVIEW.md), for ${r}`);
      expect(split[r].includes('SQL string')).toBe(r === 'security-reviewer');
      expect(split[r].includes('Still the security section.')).toBe(r === 'security-reviewer');
      // A heading inside a code fence is text, not a section.
      expect(split[r].includes('Question every new dependency.')).toBe(r === 'critic');
    }
  });

  it('a cut file says so, and where the whole one is', () => {
    expect(rules('x', true).critic).toContain(`cut at ${MAX_RULES_BYTES / 1024} KB; the whole file is REVIEW.md`);
    expect(rules('x').critic).not.toContain('cut at');
  });
});
