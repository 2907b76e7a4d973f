/**
 * Parses what follows a `/minions:*` command. Pure. Options come first and `--` ends them: from the
 * first word that is not an option on, everything is the task, flag-looking words included
 * (`/minions:review check that the CLI rejects --force` is a task, not a takeover).
 */
import { DEFAULT_RULES, type StopRules } from '../review/aggregate';

export type Command =
  | { kind: 'review'; task: string; maxIterations: number; force: boolean; rules: StopRules }
  | { kind: 'cancel'; force: boolean }
  | { kind: 'status' };

export type ParsedCommand = { ok: true; command: Command } | { ok: false; error: string } | { ok: true; command: null };

export const DEFAULT_MAX_ITERATIONS = 5;
export const DEFAULT_TASK = 'Review the current changes in this repository (uncommitted work against HEAD) and fix what the reviewers find.';

const COMMAND = /^\s*\/minions:(review|cancel|status)(?=\s|$)([\s\S]*)$/;

/** One line per flag: a switch, or a number with its range. */
type Flag = { kind: 'switch' } | { kind: 'number'; min: number; max: number; whole: boolean };

export const REVIEW_FLAGS = {
  force: { kind: 'switch' },
  'max-iterations': { kind: 'number', min: 1, max: 20, whole: true },
  'max-critical': { kind: 'number', min: 0, max: 1000, whole: true },
  'stuck-rounds': { kind: 'number', min: 1, max: 20, whole: true },
  'fixpoint-similarity': { kind: 'number', min: 0.5, max: 1, whole: false },
  'max-tokens': { kind: 'number', min: 1, max: 1_000_000_000_000, whole: true },
} as const satisfies Record<string, Flag>;

export const CANCEL_FLAGS = {
  force: { kind: 'switch' },
} as const satisfies Record<string, Flag>;

type Values<T extends Record<string, Flag>> = { [K in keyof T]?: T[K] extends { kind: 'switch' } ? true : number };

export type ParsedOptions<T extends Record<string, Flag>> = { ok: true; values: Values<T>; rest: string[] } | { ok: false; error: string };

/** Reads the leading options of `tokens` against a flag table; `rest` is everything from the first other word (after `--`, if given). */
export function parseOptions<T extends Record<string, Flag>>(tokens: readonly string[], flags: T): ParsedOptions<T> {
  const values: Record<string, true | number> = {};
  let i = 0;
  for (; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token === '--') {
      i++;
      break;
    }
    if (!/^--?[A-Za-z]/.test(token)) break;
    const m = /^--([A-Za-z][\w-]*)(?:=([\s\S]*))?$/.exec(token);
    const name = m?.[1];
    const flag = name !== undefined && Object.hasOwn(flags, name) ? flags[name]! : undefined;
    if (!m || !flag) return { ok: false, error: `unknown option "${token}"` };
    if (flag.kind === 'switch') {
      if (m[2] !== undefined) return { ok: false, error: `--${name} takes no value` };
      values[name!] = true;
      continue;
    }
    const value = m[2] ?? tokens[++i];
    if (value === undefined || value === '') return { ok: false, error: `--${name} needs a number` };
    if (!(flag.whole ? /^\d+$/ : /^\d+(\.\d+)?$/).test(value) || Number(value) < flag.min || Number(value) > flag.max) {
      return { ok: false, error: `--${name} must be a ${flag.whole ? 'whole number' : 'number'} from ${flag.min} to ${flag.max}, not "${value}"` };
    }
    values[name!] = Number(value);
  }
  return { ok: true, values: values as Values<T>, rest: tokens.slice(i) };
}

const words = (text: string): string[] => (text.trim().length ? text.trim().split(/\s+/) : []);

/** null command: the prompt is not one of ours. */
export function parseCommand(prompt: string): ParsedCommand {
  const match = COMMAND.exec(prompt);
  if (!match) return { ok: true, command: null };
  const [, name, rest = ''] = match;
  if (name === 'status') return { ok: true, command: { kind: 'status' } };
  if (name === 'cancel') {
    const parsed = parseCancelArgs(words(rest));
    return parsed.ok ? { ok: true, command: parsed.command } : parsed;
  }
  return parseReviewArgs(rest);
}

/** `/minions:cancel [--force]`: words after the options are ignored. */
export function parseCancelArgs(tokens: readonly string[]): { ok: true; command: Extract<Command, { kind: 'cancel' }> } | { ok: false; error: string } {
  const parsed = parseOptions(tokens, CANCEL_FLAGS);
  if (!parsed.ok) return parsed;
  return { ok: true, command: { kind: 'cancel', force: parsed.values.force === true } };
}

export function parseReviewArgs(rest: string): ParsedCommand {
  const parsed = parseOptions(words(rest), REVIEW_FLAGS);
  if (!parsed.ok) return parsed;
  const v = parsed.values;
  const task = parsed.rest.join(' ').trim() || DEFAULT_TASK;
  const rules: StopRules = {
    maxCritical: v['max-critical'] ?? DEFAULT_RULES.maxCritical,
    stuckRounds: v['stuck-rounds'] ?? DEFAULT_RULES.stuckRounds,
    similarity: v['fixpoint-similarity'] ?? DEFAULT_RULES.similarity,
    maxTokens: v['max-tokens'] ?? DEFAULT_RULES.maxTokens,
  };
  return { ok: true, command: { kind: 'review', task, maxIterations: v['max-iterations'] ?? DEFAULT_MAX_ITERATIONS, force: v.force === true, rules } };
}
