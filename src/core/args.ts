/** Parses what follows a `/minions:*` command. Pure. */
import { DEFAULT_RULES, type StopRules } from '../review/aggregate';

export type Command =
  | { kind: 'review'; task: string; maxIterations: number; force: boolean; rules: StopRules }
  | { kind: 'cancel'; force: boolean }
  | { kind: 'status' };

export type ParsedCommand = { ok: true; command: Command } | { ok: false; error: string } | { ok: true; command: null };

export const DEFAULT_MAX_ITERATIONS = 5;
export const DEFAULT_TASK = 'Review the current changes in this repository (uncommitted work against HEAD) and fix what the reviewers find.';

const COMMAND = /^\s*\/minions:(review|cancel|status)(?=\s|$)([\s\S]*)$/;

/** null command: the prompt is not one of ours. */
export function parseCommand(prompt: string): ParsedCommand {
  const match = COMMAND.exec(prompt);
  if (!match) return { ok: true, command: null };
  const [, name, rest = ''] = match;
  if (name === 'status') return { ok: true, command: { kind: 'status' } };
  if (name === 'cancel') return { ok: true, command: { kind: 'cancel', force: /(^|\s)--force(\s|$)/.test(rest) } };
  return parseReviewArgs(rest);
}

/** Numeric flags: name → [min, max, whole number?]. */
const NUMERIC = {
  'max-iterations': [1, 20, true],
  'max-critical': [0, 1000, true],
  'stuck-rounds': [1, 20, true],
  'fixpoint-similarity': [0.5, 1, false],
} as const;
type NumericFlag = keyof typeof NUMERIC;

export function parseReviewArgs(rest: string): ParsedCommand {
  const tokens = rest.trim().length ? rest.trim().split(/\s+/) : [];
  const values: Partial<Record<NumericFlag, number>> = {};
  let force = false;
  const taskTokens: string[] = [];
  let leading = true;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (leading && token === '--') {
      // Everything after "--" is the task, flags included.
      taskTokens.push(...tokens.slice(i + 1));
      break;
    }
    const flag = /^--(max-iterations|max-critical|stuck-rounds|fixpoint-similarity)(?:=(.*))?$/.exec(token);
    if (flag) {
      const name = flag[1] as NumericFlag;
      const value = flag[2] ?? tokens[++i];
      if (value === undefined || value === '') return { ok: false, error: `--${name} needs a number` };
      const [min, max, whole] = NUMERIC[name];
      if (!(whole ? /^\d+$/ : /^\d+(\.\d+)?$/).test(value) || Number(value) < min || Number(value) > max) {
        return { ok: false, error: `--${name} must be a ${whole ? 'whole number' : 'number'} from ${min} to ${max}, not "${value}"` };
      }
      values[name] = Number(value);
      continue;
    }
    if (token === '--force') {
      force = true;
      continue;
    }
    if (leading && /^--?[A-Za-z]/.test(token)) return { ok: false, error: `unknown option "${token}"` };
    leading = false;
    taskTokens.push(token);
  }
  const task = taskTokens.join(' ').trim() || DEFAULT_TASK;
  const rules: StopRules = {
    maxCritical: values['max-critical'] ?? DEFAULT_RULES.maxCritical,
    stuckRounds: values['stuck-rounds'] ?? DEFAULT_RULES.stuckRounds,
    similarity: values['fixpoint-similarity'] ?? DEFAULT_RULES.similarity,
  };
  return { ok: true, command: { kind: 'review', task, maxIterations: values['max-iterations'] ?? DEFAULT_MAX_ITERATIONS, force, rules } };
}
