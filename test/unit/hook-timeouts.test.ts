/** The hooks that run the project's checks get the checks' whole budget from the host, plus their own time. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHECKS_BUDGET_SECONDS, HOOK_MARGIN_SECONDS, NUMERIC_OPTIONS } from '../../src/config/options';

const hooks = JSON.parse(fs.readFileSync(path.join(__dirname, '../../hooks/hooks.json'), 'utf8')).hooks as Record<string, { hooks: { command: string; timeout: number }[] }[]>;
const timeoutOf = (bundle: string): number => Object.values(hooks).flat().flatMap((g) => g.hooks).find((h) => h.command.endsWith(`/dist/launch.cjs" ${bundle}`))!.timeout;

describe('hook timeouts and the checks', () => {
  it.each(['on-prompt-submit', 'on-subagent-stop'])('%s (runs the checks) outlasts their budget plus its own work', (bundle) => {
    expect(timeoutOf(bundle)).toBeGreaterThanOrEqual(CHECKS_BUDGET_SECONDS + HOOK_MARGIN_SECONDS);
  });

  it('one check may never be given longer than the budget', () => {
    expect(NUMERIC_OPTIONS.find((o) => o.key === 'checkTimeoutSeconds')!.max).toBeLessThanOrEqual(CHECKS_BUDGET_SECONDS);
  });

  it.each(['on-task-gate', 'on-edit-gate', 'on-bash-gate'])('%s (never runs checks) keeps a short timeout', (bundle) => {
    expect(timeoutOf(bundle)).toBeLessThanOrEqual(30);
  });
});
