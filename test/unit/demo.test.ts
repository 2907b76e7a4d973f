/** `npm run demo` (test/e2e/demo.ts): keeping its project, the sample's tests as a --check, findings most severe first. */
import { describe, expect, it } from 'vitest';
import { bySeverity, demoPrompt, keepFromEnv, parseArgs, SAMPLE_CHECK } from '../e2e/demo';
import { readinessText } from '../../src/report/texts';

describe('the demo', () => {
  it.each([
    [[], {}, false],
    [['--keep'], {}, true],
    [[], { MINIONS_DEMO_KEEP: '1' }, true],
    [[], { npm_config_keep: 'true' }, true],
    [[], { MINIONS_DEMO_KEEP: '0' }, false],
  ] as const)('%j with %j keeps its temp dir: %s', (argv, env, keep) => {
    expect(parseArgs([...argv], env).keep).toBe(keep);
    expect(keepFromEnv(env)).toBe(argv.length === 0 ? keep : false);
  });

  it('runs the sample project\'s own tests as the loop\'s check; a project of the user\'s keeps its own config', () => {
    expect(SAMPLE_CHECK).toBe('node --test');
    expect(demoPrompt({ maxIterations: 3, task: null, project: null }, 'review the cart')).toBe('/minions:review --max-iterations 3 --check "node --test" review the cart');
    expect(demoPrompt({ maxIterations: 2, task: null, project: '/home/me/app' }, 'x')).toBe('/minions:review --max-iterations 2');
  });

  it('lists findings most severe first, keeping the verdict\'s order within a severity', () => {
    const f = (severity: string, file: string) => ({ severity, file });
    expect(bySeverity([f('info', 'a'), f('warning', 'b'), f('critical', 'c'), f('warning', 'd'), f('critical', 'e')]).map((x) => x.file)).toEqual(['c', 'e', 'b', 'd', 'a']);
  });

  it('spells the readiness as everywhere else: NOT READY', () => {
    expect(['READY', 'ALMOST', 'NOT_READY'].map(readinessText)).toEqual(['READY', 'ALMOST', 'NOT READY']);
  });
});
