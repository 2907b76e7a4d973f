/** .minions.json: validated with errors that name the key; its values are the defaults, flags override them. */
import { DEFAULT_DONE_WHEN, DEFAULT_MIN_CONFIDENCE } from '../../src/protocol/stop-rules';
import { describe, expect, it } from 'vitest';
import { parseCommand } from '../../src/core/args';
import { DEFAULT_SETTINGS, settingsFromConfig, validateConfig } from '../../src/config/project-config';

const config = (data: unknown) => validateConfig(JSON.stringify(data));

describe('validateConfig', () => {
  it('no file: an empty config, the defaults', () => {
    expect(validateConfig(null)).toEqual({ ok: true, config: {} });
    expect(settingsFromConfig({})).toEqual(DEFAULT_SETTINGS);
  });

  it('a full config', () => {
    const data = {
      $schema: './node_modules/minions/schema/minions-config.schema.json',
      checks: ['npm test', 'npx tsc --noEmit'],
      maxIterations: 3,
      maxCritical: 2,
      stuckRounds: 2,
      fixpointSimilarity: 0.9,
      checkTimeoutSeconds: 120,
      maxTokens: 2_000_000,
      base: 'origin/main',
      layer0: { disable: ['no_duplicate_headings'] },
      minConfidence: 60,
      doneWhen: 'critical',
    };
    const result = config(data);
    expect(result).toEqual({ ok: true, config: data });
    expect(settingsFromConfig(result.ok ? result.config : null)).toEqual({
      maxIterations: 3,
      maxCritical: 2,
      stuckRounds: 2,
      fixpointSimilarity: 0.9,
      checkTimeoutSeconds: 120,
      maxTokens: 2_000_000,
      checks: ['npm test', 'npx tsc --noEmit'],
      layer0Disabled: ['no_duplicate_headings'],
      base: 'origin/main',
      minConfidence: 60,
      doneWhen: 'critical',
      effort: { profile: null, models: {}, maxIterationsSet: true },
    });
  });

  it.each([
    [{ maxIteration: 3 }, 'unknown key "maxIteration" (did you mean "maxIterations"?); known keys: $schema, checks, maxIterations, maxCritical, stuckRounds, fixpointSimilarity, minConfidence, checkTimeoutSeconds, maxTokens, doneWhen, base, effort, models, layer0'],
    [{ 'max-iterations': 3 }, 'unknown key "max-iterations" (did you mean "maxIterations"?); known keys: $schema, checks, maxIterations, maxCritical, stuckRounds, fixpointSimilarity, minConfidence, checkTimeoutSeconds, maxTokens, doneWhen, base, effort, models, layer0'],
    [{ colour: 'red' }, 'unknown key "colour"; known keys: $schema, checks, maxIterations, maxCritical, stuckRounds, fixpointSimilarity, minConfidence, checkTimeoutSeconds, maxTokens, doneWhen, base, effort, models, layer0'],
    [{ maxIterations: 50 }, '"maxIterations" must be a whole number from 1 to 20, not 50'],
    [{ maxIterations: 2.5 }, '"maxIterations" must be a whole number from 1 to 20, not 2.5'],
    [{ maxIterations: '3' }, '"maxIterations" must be a whole number from 1 to 20, not "3"'],
    [{ fixpointSimilarity: 0.1 }, '"fixpointSimilarity" must be a number from 0.5 to 1, not 0.1'],
    [{ checkTimeoutSeconds: 601 }, '"checkTimeoutSeconds" must be a whole number from 1 to 600, not 601'],
    [{ maxTokens: 0 }, '"maxTokens" must be a whole number from 1 to 1000000000000, not 0'],
    [{ doneWhen: 'warn' }, '"doneWhen" must be one of "critical", "warning", "info", not "warn"'],
    [{ doneWhen: 2 }, '"doneWhen" must be one of "critical", "warning", "info", not 2'],
    [{ minConfidence: 101 }, '"minConfidence" must be a whole number from 0 to 100, not 101'],
    [{ minConfidence: 0.8 }, '"minConfidence" must be a whole number from 0 to 100, not 0.8'],
    [{ donewhen: 'info' }, 'unknown key "donewhen" (did you mean "doneWhen"?); known keys: $schema, checks, maxIterations, maxCritical, stuckRounds, fixpointSimilarity, minConfidence, checkTimeoutSeconds, maxTokens, doneWhen, base, effort, models, layer0'],
    [{ maxTokens: 'lots' }, '"maxTokens" must be a whole number from 1 to 1000000000000, not "lots"'],
    [{ checks: 'npm test' }, '"checks" must be a list of shell commands, e.g. ["npm test"], not "npm test"'],
    [{ checks: ['npm test', ''] }, '"checks[1]" must be a command of 1 to 2000 characters, not ""'],
    [{ checks: ['npm test', 3] }, '"checks[1]" must be a command of 1 to 2000 characters, not 3'],
    [{ layer0: { disable: ['no_todo'] } }, '"layer0.disable[0]": "no_todo" is not a Layer-0 check; known: no_placeholder, balanced_delimiters, json_valid, no_duplicate_headings, no_text_loop, file_size_delta, test_skipped, test_removed, assertion_removed, suppression_added, empty_catch, test_uncollected, config_weakened'],
    [{ layer0: { off: [] } }, 'unknown key "layer0.off"; known keys: disable'],
    [{ base: '' }, '"base" must be a git ref of 1 to 1000 characters that does not start with "-", e.g. "origin/main", not ""'],
    [{ base: '--output=x' }, '"base" must be a git ref of 1 to 1000 characters that does not start with "-", e.g. "origin/main", not "--output=x"'],
    [{ base: 3 }, '"base" must be a git ref of 1 to 1000 characters that does not start with "-", e.g. "origin/main", not 3'],
    [[], '"(top level)": Invalid input: expected object, received array'],
  ])('%j is refused: %s', (data, error) => {
    expect(config(data)).toEqual({ ok: false, errors: [error] });
  });

  it('every problem is named, not only the first', () => {
    expect(config({ maxIterations: 0, stuckRounds: 0 })).toEqual({
      ok: false,
      errors: ['"maxIterations" must be a whole number from 1 to 20, not 0', '"stuckRounds" must be a whole number from 1 to 20, not 0'],
    });
  });

  it('text that is not JSON', () => {
    const result = validateConfig('{ "checks": [ }');
    expect(result.ok).toBe(false);
    expect(!result.ok && result.errors[0]).toMatch(/^it is not valid JSON \(/);
  });
});

describe('flags override the config', () => {
  const settings = settingsFromConfig({ checks: ['npm test'], maxIterations: 3, stuckRounds: 2, checkTimeoutSeconds: 90, maxTokens: 500_000, layer0: { disable: ['no_text_loop'] } });

  it('the config gives the defaults', () => {
    const parsed = parseCommand('/minions:review the parser', settings);
    expect(parsed).toMatchObject({
      ok: true,
      command: { maxIterations: 3, rules: { stuckRounds: 2, maxCritical: 5, maxTokens: 500_000 }, checks: { commands: ['npm test'], timeoutSeconds: 90 }, layer0: { disabled: ['no_text_loop'] } },
    });
  });

  it('the completion policy: the config gives it, a flag wins, the defaults otherwise', () => {
    const policy = settingsFromConfig({ doneWhen: 'info', minConfidence: 40 });
    expect(parseCommand('/minions:review x', policy)).toMatchObject({ ok: true, command: { rules: { doneWhen: 'info', minConfidence: 40 } } });
    expect(parseCommand('/minions:review --done-when critical --min-confidence 90 x', policy)).toMatchObject({ ok: true, command: { rules: { doneWhen: 'critical', minConfidence: 90 } } });
    expect(parseCommand('/minions:review x', settings)).toMatchObject({ ok: true, command: { rules: { doneWhen: DEFAULT_DONE_WHEN, minConfidence: DEFAULT_MIN_CONFIDENCE } } });
  });

  it('a flag wins over the config, and --check replaces its checks', () => {
    const parsed = parseCommand('/minions:review --max-iterations 7 --max-tokens 9000 --check-timeout 30 --check "npm run lint" the parser', settings);
    expect(parsed).toMatchObject({ ok: true, command: { maxIterations: 7, rules: { stuckRounds: 2, maxTokens: 9000 }, checks: { commands: ['npm run lint'], timeoutSeconds: 30 } } });
  });
});

describe('base: .minions.json gives it, --base overrides it', () => {
  const settings = settingsFromConfig({ base: 'origin/develop' });
  it.each([
    ['/minions:review', { base: 'origin/develop', baseFrom: 'config' }],
    ['/minions:review --base origin/main', { base: 'origin/main', baseFrom: 'flag' }],
    ['/minions:review --base=v1.2 the parser', { base: 'v1.2', baseFrom: 'flag' }],
  ])('%s', (prompt, scope) => {
    expect(parseCommand(prompt, settings)).toMatchObject({ ok: true, command: { scope } });
  });
  it('without a config base, the hooks choose', () => {
    expect(parseCommand('/minions:review x')).toMatchObject({ ok: true, command: { scope: { base: null, baseFrom: 'flag' } } });
  });
});
