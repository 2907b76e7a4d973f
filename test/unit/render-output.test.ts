/** renderOutput: the one place effects become each event's output shape (here: PreToolUse answers). */
import { describe, expect, it } from 'vitest';
import { renderOutput } from '../../src/shell/io';

describe('renderOutput for PreToolUse', () => {
  it.each([
    ['no answer: the user\'s permission mode decides', [], null],
    ['allow', [{ type: 'allow', reason: 'own file' }], { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', permissionDecisionReason: 'own file' } }],
    ['deny', [{ type: 'deny', reason: 'no' }], { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'no' } }],
    ['a deny wins over an allow', [{ type: 'allow', reason: 'own file' }, { type: 'deny', reason: 'no' }], { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'no' } }],
  ] as const)('%s', (_label, effects, output) => {
    expect(renderOutput('PreToolUse', effects)).toEqual(output);
  });

  it('an allow is not an answer on other events', () => {
    expect(renderOutput('Stop', [{ type: 'allow', reason: 'own file' }])).toBeNull();
  });
});
