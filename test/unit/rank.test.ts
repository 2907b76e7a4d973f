import { describe, expect, it } from 'vitest';
import { bestStanding, compareStandings, gapBelow, weightOf, type Standing } from '../../src/report/rank';

const standing = (round: number, open: Partial<Standing['open']> = {}, score = 1, checks: Standing['checks'] = null): Standing => ({
  round,
  open: { critical: 0, warning: 0, info: 0, ...open },
  score,
  checks,
});

describe('ranking a round', () => {
  it.each([
    ['more checks passing wins over fewer findings', standing(1, { critical: 2 }, 0.1, { passed: 3, failed: 0 }), standing(2, {}, 1, { passed: 2, failed: 1 }), 1],
    ['checks are neutral when one round has none', standing(1, { warning: 1 }, 0.9, null), standing(2, {}, 1, { passed: 0, failed: 3 }), -1],
    ['equal checks fall through to the findings', standing(1, { warning: 1 }, 0.9, { passed: 2, failed: 0 }), standing(2, { critical: 1 }, 0.55, { passed: 2, failed: 0 }), 1],
    ['one critical outweighs four warnings', standing(1, { warning: 4 }, 0.6), standing(2, { critical: 1 }, 0.55), 1],
    ['five warnings outweigh one critical', standing(1, { warning: 5 }, 0.5), standing(2, { critical: 1 }, 0.55), -1],
    ['infos weigh least', standing(1, { info: 4 }, 0.92), standing(2, { warning: 1 }, 0.9), 1],
    ['the score breaks a tie of weights', standing(1, { warning: 1 }, 0.9), standing(2, { info: 5 }, 0.8), 1],
    ['all equal is a tie', standing(1, { warning: 1 }, 0.9), standing(2, { warning: 1 }, 0.9), 0],
  ] as const)('%s', (_, a, b, sign) => {
    expect(Math.sign(compareStandings(a, b))).toBe(sign);
    expect(Math.sign(compareStandings(b, a))).toBe(sign === 0 ? 0 : -sign);
  });

  it('weights are seed 000’s penalties', () => {
    expect(weightOf({ critical: 1, warning: 2, info: 3 })).toBe(45 + 20 + 6);
  });
});

describe('the best round', () => {
  it('is the highest ranked; a tie goes to the later round', () => {
    expect(bestStanding([])).toBeNull();
    expect(bestStanding([standing(1, { warning: 1 }, 0.9), standing(2, { critical: 1 }, 0.55), standing(3, { warning: 2 }, 0.8)])?.round).toBe(1);
    expect(bestStanding([standing(1, { warning: 1 }, 0.9), standing(2, { warning: 1 }, 0.9)])?.round).toBe(2);
  });

  it('a round whose checks broke ranks below one with fewer passing findings but green checks', () => {
    const rounds = [standing(1, { critical: 1 }, 0.55, { passed: 4, failed: 0 }), standing(2, {}, 1, { passed: 3, failed: 1 })];
    expect(bestStanding(rounds)?.round).toBe(1);
  });
});

describe('the gap below the best round', () => {
  it('names the difference in open findings, checks and score', () => {
    const best = standing(1, { warning: 1 }, 0.9, { passed: 3, failed: 0 });
    const final = standing(2, { critical: 1 }, 0.55, { passed: 2, failed: 1 });
    expect(gapBelow(final, best)).toEqual({
      round: 2,
      best: 1,
      findings: { critical: 1, warning: -1, info: 0 },
      checks: { round: { passed: 2, failed: 1 }, best: { passed: 3, failed: 0 } },
      score: { round: 0.55, best: 0.9 },
    });
  });

  it('leaves the checks out when both trees have the same results', () => {
    const same = { passed: 1, failed: 1 };
    expect(gapBelow(standing(2, { critical: 1 }, 0.55, same), standing(1, { warning: 1 }, 0.9, same))).toMatchObject({ round: 2, best: 1, checks: null });
  });

  it('is null for the best round itself and for a round that ties it', () => {
    const best = standing(1, { warning: 1 }, 0.9);
    expect(gapBelow(best, best)).toBeNull();
    expect(gapBelow(standing(2, { warning: 1 }, 0.9), best)).toBeNull();
  });
});
