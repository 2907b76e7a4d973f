/** The Bash gate at the unit level: the real parser (loaded once), a project at a fixed path, no file system. */
import path from 'node:path';
import { bashGate, type BashEffect, type BashPlaces, type GateDecision, type WriteTarget } from '../../src/core/gates';
import { analyseCommand } from '../../src/bash/analyse';
import type { PathArg, ShellEffect } from '../../src/bash/effects';
import type { State } from '../../src/state/schema';
import { loadBashParser } from '../../src/shell/bash-parser';
import { OWNER } from './builders';

export const ROOT = '/work/shop';
export const HOME = '/home/me';
export const PLUGIN_ROOT = '/home/me/.claude/plugins/minions';
export const PLACES: BashPlaces = { root: ROOT, protected: [`${ROOT}/.git`, `${HOME}/.gitconfig`, `${HOME}/.config/git`, '/etc/gitconfig', PLUGIN_ROOT, '/var/minions-data'] };

export const parse = await loadBashParser();

export const analyse = (command: string, cwd = ROOT): ShellEffect[] => analyseCommand(command, { parse, cwd, home: HOME });
/** As analyse, with every script read by the parser (none by the plain fast path). */
export const analyseParsed = (command: string, cwd = ROOT): ShellEffect[] => analyseCommand(command, { parse, cwd, home: HOME, plain: false });

/** What the shell hands the gate when no path is a symlink (then the kernel takes `..` as text). */
const asTarget = (t: PathArg): WriteTarget => (t.kind === 'dynamic' ? t : { kind: t.kind, abs: path.posix.normalize(t.kind === 'glob' ? t.pattern : t.path) });
export const asGateEffects = (effects: readonly ShellEffect[]): BashEffect[] =>
  effects.map((e) => (e.kind === 'write' ? { ...e, target: asTarget(e.target) } : e.kind === 'git-cwd' ? { ...e, dir: asTarget(e.dir) } : e));

export function decide(state: State, who: string | null, command: string, cwd = ROOT): GateDecision {
  return bashGate(state, OWNER, who, asGateEffects(analyse(command, cwd)), PLACES);
}

export type Outcome = 'allow' | 'git' | 'hooks' | 'protected' | 'unparseable' | 'opaque' | 'dynamic' | 'agents' | 'write';

/** A refusal, by the rule that made it (each rule has its own text in src/core/refusals.ts). */
export function outcomeOf(d: GateDecision): Outcome {
  if (d.allow) return 'allow';
  const r = d.reason;
  const rules: [Outcome, RegExp][] = [
    ['git', /may not run "git /],
    ['hooks', /belong to the hooks/],
    ['protected', /the git directory and git's configuration, the plugin's own files and its records/],
    ['unparseable', /could not read this command/],
    ['opaque', /so the gate cannot check it/],
    ['dynamic', /cannot tell which file/],
    ['agents', /the fixer's shell may not write under \.agents\//],
    ['write', /is read-only; shell commands that write|project files are changed only by|the fixer runs only in R2/],
  ];
  const found = rules.find(([, re]) => re.test(r));
  if (!found) throw new Error(`a refusal no rule explains: ${r}`);
  return found[0];
}

/** The written targets of a command, as paths relative to the project (or absolute outside it). */
export function writes(command: string, cwd = ROOT): string[] {
  const shown = analyse(command, cwd).flatMap((e) => {
    if (e.kind === 'write-unknown') return [`?${e.command}`];
    if (e.kind !== 'write') return [];
    const t = e.target;
    const p = t.kind === 'dynamic' ? `$${t.text}` : path.posix.normalize(t.kind === 'glob' ? t.pattern : t.path);
    const shown = p.startsWith(`${ROOT}/`) ? p.slice(ROOT.length + 1) : p === ROOT ? '.' : p;
    return [`${t.kind === 'tree' ? 'tree:' : ''}${shown}${e.recursive && t.kind !== 'tree' ? ' (recursive)' : ''}`];
  });
  return [...new Set(shown)];
}
