/** Parses what follows a `/minions:*` command. Pure. */
export type Command =
  | { kind: 'review'; task: string; maxIterations: number; force: boolean }
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

export function parseReviewArgs(rest: string): ParsedCommand {
  const tokens = rest.trim().length ? rest.trim().split(/\s+/) : [];
  let maxIterations = DEFAULT_MAX_ITERATIONS;
  let force = false;
  const taskTokens: string[] = [];
  let leading = true;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    const flag = /^--max-iterations(?:=(.*))?$/.exec(token);
    if (flag) {
      const value = flag[1] ?? tokens[++i];
      if (value === undefined || value === '') return { ok: false, error: '--max-iterations needs a number' };
      if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 20) {
        return { ok: false, error: `--max-iterations must be a whole number from 1 to 20, not "${value}"` };
      }
      maxIterations = Number(value);
      continue;
    }
    if (token === '--force') {
      force = true;
      continue;
    }
    if (leading && token === '--') {
      leading = false;
      continue;
    }
    if (leading && /^--?[A-Za-z]/.test(token)) return { ok: false, error: `unknown option "${token}"` };
    leading = false;
    taskTokens.push(token);
  }
  const task = taskTokens.join(' ').trim() || DEFAULT_TASK;
  return { ok: true, command: { kind: 'review', task, maxIterations, force } };
}
