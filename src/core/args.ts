/**
 * Parses what follows a `/minions:*` command. Pure. Options come first and `--` ends them: from the
 * first word that is not an option on, everything is the task, flag-looking words included
 * (`/minions:review check that the CLI rejects --force` is a task, not a takeover). A command option's
 * value is one shell word, quotes honoured (`--check "npm test"`); the task's words are kept as typed.
 */
import type { StopRules } from '../protocol/stop-rules';
import type { Layer0Check } from '../checks/layer0/names';
import { DEFAULT_SETTINGS, type Settings } from '../config/project-config';
import { DONE_WHEN_LEVELS, MAX_CHECKS, MAX_CHECK_LENGTH, MAX_TOKENS, NUMERIC_OPTIONS, type NumericKey } from '../config/options';
import { DEFAULT_EFFORT, EFFORTS, EFFORT_PROFILES, isEffort, resolveEffort, type EffortChoice } from '../protocol/effort';

export interface CheckSettings {
  /** Shell commands, named by the user (flags or .minions.json), never by model text. */
  commands: string[];
  timeoutSeconds: number;
}

/** What the loop reviews and whether it fixes: `--base`, `--no-fix`, `--sarif`. */
export interface ScopeSettings {
  /** The ref whose merge base with HEAD the change is measured from; null: the hooks choose (shell/base.ts). */
  base: string | null;
  /** Where base came from: the flag or .minions.json. */
  baseFrom: 'flag' | 'config';
  /** One review round, no fixer: the loop ends `reviewed`. */
  reviewOnly: boolean;
  /** Where the loop's end writes its findings as SARIF 2.1.0 (as typed; the shell resolves it). */
  sarif: string | null;
  /** False when the user named no task (the default task stands in). */
  taskGiven: boolean;
}

export type Command =
  | { kind: 'review'; task: string; maxIterations: number; force: boolean; rules: StopRules; checks: CheckSettings; layer0: { disabled: Layer0Check[] }; scope?: ScopeSettings; effort?: EffortChoice }
  | { kind: 'cancel'; force: boolean }
  | { kind: 'status' };

/** A command built without one (tests, older callers): uncommitted work, fixed, no SARIF. */
export const DEFAULT_SCOPE: ScopeSettings = { base: null, baseFrom: 'flag', reviewOnly: false, sarif: null, taskGiven: true };

export type ParsedCommand = { ok: true; command: Command } | { ok: false; error: string } | { ok: true; command: null };

export const DEFAULT_MAX_ITERATIONS = DEFAULT_SETTINGS.maxIterations;
export const DEFAULT_TASK = "Review the change in this repository, from the loop's base to the working tree (diff.patch), and fix what the reviewers find.";
export const DEFAULT_REVIEW_ONLY_TASK = "Review the change in this repository, from the loop's base to the working tree (diff.patch), and report what the reviewers find (a review-only pass: nothing is fixed).";

const COMMAND = /^\s*\/minions:(review|cancel|status)(?=\s|$)([\s\S]*)$/;

/** One line per flag: a switch, a number with its range, or a shell command (repeatable). */
type Flag = { kind: 'switch' } | { kind: 'number'; min: number; max: number; whole: boolean } | { kind: 'command' } | { kind: 'word'; what: string } | { kind: 'choice'; values: readonly string[] };

type NumericFlags = { [O in (typeof NUMERIC_OPTIONS)[number] as O['flag']]: { kind: 'number'; min: number; max: number; whole: boolean } };

/** The numbers come from the settings table (src/config/options.ts), which .minions.json is built from too. */
export const REVIEW_FLAGS = {
  force: { kind: 'switch' },
  ...(Object.fromEntries(NUMERIC_OPTIONS.map((o) => [o.flag, { kind: 'number', min: o.min, max: o.max, whole: o.whole }])) as NumericFlags),
  /** The token budget (seed 000's repair budget); .minions.json's maxTokens is its default. */
  'max-tokens': { kind: 'number', min: 1, max: MAX_TOKENS, whole: true },
  check: { kind: 'command' },
  base: { kind: 'word', what: 'a git ref, e.g. --base origin/main' },
  'no-fix': { kind: 'switch' },
  sarif: { kind: 'word', what: 'a file name, e.g. --sarif minions.sarif' },
  'done-when': { kind: 'choice', values: DONE_WHEN_LEVELS },
  /** The cost profile (src/protocol/effort.ts); .minions.json's effort is its default. */
  effort: { kind: 'word', what: `one of ${EFFORTS.join(', ')}, e.g. --effort quick` },
} as const satisfies Record<string, Flag>;

/** A ref or a file name given to a flag: this long at most. */
export const MAX_WORD_LENGTH = 1000;

export const CANCEL_FLAGS = {
  force: { kind: 'switch' },
} as const satisfies Record<string, Flag>;

type Values<T extends Record<string, Flag>> = {
  [K in keyof T]?: T[K] extends { kind: 'switch' } ? true : T[K] extends { kind: 'command' } ? string[] : T[K] extends { kind: 'word' } ? string : T[K] extends { kind: 'choice'; values: readonly (infer V)[] } ? V : number;
};

export type ParsedOptions<T extends Record<string, Flag>> = { ok: true; values: Values<T>; rest: string[] } | { ok: false; error: string };

/**
 * Reads the leading options of the argument text (or of words) against a flag table; `rest` is every word
 * from the first other one (after `--`, if given), as typed.
 */
export function parseOptions<T extends Record<string, Flag>>(input: string | readonly string[], flags: T): ParsedOptions<T> {
  const text = typeof input === 'string' ? input : input.join(' ');
  const cursor = new Cursor(text);
  const values: Record<string, true | number | string | string[]> = {};
  while (!cursor.done()) {
    const at = cursor.pos;
    const token = cursor.word();
    if (token === '--') break;
    if (!/^--?[A-Za-z]/.test(token)) {
      cursor.pos = at;
      break;
    }
    const m = /^--([A-Za-z][\w-]*)(?:=([\s\S]*))?$/.exec(token);
    const name = m?.[1];
    const flag = name !== undefined && Object.hasOwn(flags, name) ? flags[name]! : undefined;
    if (!m || !flag) return { ok: false, error: `unknown option "${token}"` };
    if (flag.kind === 'switch') {
      if (m[2] !== undefined) return { ok: false, error: `--${name} takes no value` };
      values[name!] = true;
      continue;
    }
    if (flag.kind === 'word') {
      cursor.pos = at + name!.length + 2;
      if (text[cursor.pos] === '=') cursor.pos += 1;
      else cursor.skipSpace();
      const word = cursor.shellWord();
      if (!word.ok) return { ok: false, error: `--${name}: ${word.error}` };
      const value = word.value.trim();
      if (value === '' || value.startsWith('-')) return { ok: false, error: `--${name} needs ${flag.what}` };
      if (value.length > MAX_WORD_LENGTH) return { ok: false, error: `--${name}: at most ${MAX_WORD_LENGTH} characters` };
      if (values[name!] !== undefined) return { ok: false, error: `--${name} may be given once` };
      values[name!] = value;
      continue;
    }
    if (flag.kind === 'command') {
      // One shell word: --check "npm test", --check='npx tsc --noEmit', --check make.
      cursor.pos = at + name!.length + 2;
      if (text[cursor.pos] === '=') cursor.pos += 1;
      else cursor.skipSpace();
      const word = cursor.shellWord();
      if (!word.ok) return { ok: false, error: `--${name}: ${word.error}` };
      const command = word.value.trim();
      if (command === '') return { ok: false, error: `--${name} needs a command, quoted when it has spaces: --${name} "npm test"` };
      if (command.length > MAX_CHECK_LENGTH) return { ok: false, error: `--${name}: a command may have at most ${MAX_CHECK_LENGTH} characters` };
      const list = (values[name!] as string[] | undefined) ?? [];
      if (list.length >= MAX_CHECKS) return { ok: false, error: `--${name} may be given at most ${MAX_CHECKS} times` };
      values[name!] = [...list, command];
      continue;
    }
    const value = m[2] ?? (cursor.done() ? undefined : cursor.word());
    if (flag.kind === 'choice') {
      const allowed = flag.values.join(', ');
      if (value === undefined || value === '') return { ok: false, error: `--${name} needs one of ${allowed}` };
      if (!flag.values.includes(value)) return { ok: false, error: `--${name} must be one of ${allowed}, not "${value}"` };
      values[name!] = value;
      continue;
    }
    if (value === undefined || value === '') return { ok: false, error: `--${name} needs a number` };
    if (!(flag.whole ? /^\d+$/ : /^\d+(\.\d+)?$/).test(value) || Number(value) < flag.min || Number(value) > flag.max) {
      return { ok: false, error: `--${name} must be a ${flag.whole ? 'whole number' : 'number'} from ${flag.min} to ${flag.max}, not "${value}"` };
    }
    values[name!] = Number(value);
  }
  const rest: string[] = [];
  while (!cursor.done()) rest.push(cursor.word());
  return { ok: true, values: values as Values<T>, rest };
}

/** True for a /minions:review prompt: the hook reads the project's config only then. */
export const isReviewPrompt = (prompt: string): boolean => COMMAND.exec(prompt)?.[1] === 'review';

/** null command: the prompt is not one of ours. `defaults` are the project's (.minions.json); flags override them. */
export function parseCommand(prompt: string, defaults: Settings = DEFAULT_SETTINGS): ParsedCommand {
  const match = COMMAND.exec(prompt);
  if (!match) return { ok: true, command: null };
  const [, name, rest = ''] = match;
  if (name === 'status') return { ok: true, command: { kind: 'status' } };
  if (name === 'cancel') {
    const parsed = parseCancelArgs(rest);
    return parsed.ok ? { ok: true, command: parsed.command } : parsed;
  }
  return parseReviewArgs(rest, defaults);
}

/** `/minions:cancel [--force]`: words after the options are ignored. */
export function parseCancelArgs(input: string | readonly string[]): { ok: true; command: Extract<Command, { kind: 'cancel' }> } | { ok: false; error: string } {
  const parsed = parseOptions(input, CANCEL_FLAGS);
  if (!parsed.ok) return parsed;
  return { ok: true, command: { kind: 'cancel', force: parsed.values.force === true } };
}

export function parseReviewArgs(rest: string, defaults: Settings = DEFAULT_SETTINGS): ParsedCommand {
  const parsed = parseOptions(rest, REVIEW_FLAGS);
  if (!parsed.ok) return parsed;
  const v = parsed.values as Values<typeof REVIEW_FLAGS> & Partial<Record<string, number>>;
  const setting = (key: NumericKey): number => v[NUMERIC_OPTIONS.find((o) => o.key === key)!.flag] ?? defaults[key];
  if (v.effort !== undefined && !isEffort(v.effort)) return { ok: false, error: `--effort must be one of ${EFFORTS.join(', ')}, not "${v.effort}"` };
  const profile = v.effort ?? defaults.effort.profile ?? DEFAULT_EFFORT;
  // An explicit budget (the flag, or .minions.json's maxIterations) beats the profile's.
  const maxIterations = v['max-iterations'] ?? (defaults.effort.maxIterationsSet ? defaults.maxIterations : EFFORT_PROFILES[profile].maxIterations);
  const typed = parsed.rest.join(' ').trim();
  const task = typed || (v['no-fix'] === true ? DEFAULT_REVIEW_ONLY_TASK : DEFAULT_TASK);
  const rules: StopRules = {
    maxCritical: setting('maxCritical'),
    stuckRounds: setting('stuckRounds'),
    similarity: setting('fixpointSimilarity'),
    maxTokens: v['max-tokens'] ?? defaults.maxTokens,
    doneWhen: v['done-when'] ?? defaults.doneWhen,
    minConfidence: setting('minConfidence'),
  };
  return {
    ok: true,
    command: {
      kind: 'review',
      task,
      maxIterations,
      force: v.force === true,
      rules,
      checks: { commands: v.check ?? defaults.checks, timeoutSeconds: setting('checkTimeoutSeconds') },
      layer0: { disabled: defaults.layer0Disabled },
      scope: { base: v.base ?? defaults.base, baseFrom: v.base === undefined && defaults.base !== null ? 'config' : 'flag', reviewOnly: v['no-fix'] === true, sarif: v.sarif ?? null, taskGiven: typed !== '' },
      effort: resolveEffort(profile, defaults.effort.models),
    },
  };
}

/** Reads the argument text word by word; a command option's value is read as one shell word. */
class Cursor {
  pos = 0;
  constructor(private readonly text: string) {}

  skipSpace(): void {
    while (this.pos < this.text.length && /\s/.test(this.text[this.pos]!)) this.pos += 1;
  }

  done(): boolean {
    this.skipSpace();
    return this.pos >= this.text.length;
  }

  /** The raw text up to the next whitespace. */
  word(): string {
    this.skipSpace();
    const start = this.pos;
    while (this.pos < this.text.length && !/\s/.test(this.text[this.pos]!)) this.pos += 1;
    return this.text.slice(start, this.pos);
  }

  /** One word as a POSIX shell reads it: '…' literal, "…" with \" \\ \$ \` escapes, \x outside quotes. */
  shellWord(): { ok: true; value: string } | { ok: false; error: string } {
    let value = '';
    const text = this.text;
    while (this.pos < text.length && !/\s/.test(text[this.pos]!)) {
      const c = text[this.pos]!;
      if (c === "'") {
        const end = text.indexOf("'", this.pos + 1);
        if (end < 0) return { ok: false, error: `the quote ' opened at "${text.slice(this.pos, this.pos + 20)}" is not closed` };
        value += text.slice(this.pos + 1, end);
        this.pos = end + 1;
      } else if (c === '"') {
        let i = this.pos + 1;
        for (; i < text.length && text[i] !== '"'; i++) {
          if (text[i] === '\\' && i + 1 < text.length && '"\\$`'.includes(text[i + 1]!)) i += 1;
          value += text[i];
        }
        if (i >= text.length) return { ok: false, error: `the quote " opened at "${text.slice(this.pos, this.pos + 20)}" is not closed` };
        this.pos = i + 1;
      } else if (c === '\\' && this.pos + 1 < text.length) {
        value += text[this.pos + 1];
        this.pos += 2;
      } else {
        value += c;
        this.pos += 1;
      }
    }
    return { ok: true, value };
  }
}
