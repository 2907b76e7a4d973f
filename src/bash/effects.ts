/** What a shell command does, as far as the Bash gate can tell from its text: plain data for the policy. */
import type { Value } from './words';

/** A path a command writes. Paths and patterns are absolute and normalised. */
export type PathArg =
  | { kind: 'path'; path: string }
  /** Unquoted glob characters kept (bash's defaults: `*` never matches a leading dot or a slash). */
  | { kind: 'glob'; pattern: string }
  /** Any path under this one, hidden files included (what `find DIR -exec … {}` touches). */
  | { kind: 'tree'; path: string }
  /** Computed when the command runs ($VAR, $(…), a relative path after a `cd` the gate cannot follow). */
  | { kind: 'dynamic'; text: string };

/** Why the gate cannot see what a command runs. */
export type OpaqueReason =
  | 'dynamic-command' // the command name is computed: `$CMD x`, `$(echo rm) x`
  | 'dynamic-code' // code in a variable or substitution: `eval "$x"`, `bash -c "$(…)"`
  | 'stdin-code' // a shell reading its commands from a pipe or a file descriptor
  | 'alias' // `alias x=…`: later lines may run it
  | 'program-option' // an option that names a program to run (`git -c core.pager=…`, `sort --compress-program`)
  | 'other-repository' // git pointed at a git dir, index or work tree the command chooses (`GIT_DIR=…`, `--git-dir`)
  | 'hidden-environment' // variables exported under names the gate cannot read (`set -a`, `export "$n=…"`), then git or a shell
  | 'too-deep' // code inside code inside code …
  | 'rebinds-command'; // changes what a command name runs: BASH_CMDS, BASH_ALIASES, BASH_FUNC_*%%, enable -f, a computed variable name

/**
 * What one of the command's descriptors holds when it runs, as far as its text tells: a file the command
 * opens itself (`3<.git`, absolute paths with `..` kept), a stream (a pipe, a heredoc, the tool's own
 * output), or something the gate cannot know (opened by an earlier `exec`, around a compound command …).
 */
export type Descriptor = { kind: 'paths'; paths: string[] } | { kind: 'stream' } | { kind: 'unknown' };

/**
 * What `/dev/fd/N`, `/dev/stdin`, `/proc/self/fd/N` and `/proc/self/cwd` mean to the process that opens
 * a written path: its descriptors (those not listed are unknown) and the directories it may run in.
 */
export interface Surroundings {
  fds: Record<number, Descriptor>;
  cwd: readonly string[] | null;
}

export type ShellEffect =
  | { kind: 'write'; command: string; target: PathArg; recursive: boolean; via?: Surroundings }
  /** The command chooses the paths itself (patch, tar -x, npm install, a formatter's --write). */
  | { kind: 'write-unknown'; command: string }
  /** A git subcommand that is not known to be read-only; `via` names the alias that led to it. */
  | { kind: 'git'; sub: string; known: boolean; via: string | null }
  | { kind: 'opaque'; command: string; why: OpaqueReason }
  /**
   * A git command that may run (read-only, or `git apply`) and the directory it runs in, its own `-C`
   * applied: a repository found there that is not the project's (a bare one is any directory holding
   * HEAD, objects/ and refs/) brings a configuration of the command's choosing.
   */
  | { kind: 'git-cwd'; command: string; dir: PathArg }
  | { kind: 'unparseable'; why: string };

/** An option as a command's own parser would read it. */
export interface Option {
  name: string;
  /** The option's argument when it takes one (attached or the next word). */
  value: Value | null;
}

export interface Scanned {
  options: Option[];
  operands: Value[];
  /** A computed word stood where an option could be: the command's options are not known. */
  dynamic: boolean;
}

export interface OptionSpec {
  /** Short options that take an argument: "tS" for `-t DIR`, `-S SUFFIX`. */
  short?: string;
  /** Short options whose argument, if any, is attached (`-i.bak`, `-l80`): the next word is not theirs. */
  optional?: string;
  /** Long options that take an argument (`--target-directory DIR`); `--name=value` is always read. */
  long?: readonly string[];
  /** Every long option the command knows, so an abbreviation (`--in-pl`) is read as getopt reads it. */
  known?: readonly string[];
  /** Options end at the first operand (wrappers, POSIX) instead of anywhere (GNU's permutation). */
  stopAtOperand?: boolean;
}

/** Reads options the way getopt does: clusters (`-rf`), attached values (`-tDIR`, `--x=y`), `--`. */
export function scanOptions(args: readonly Value[], spec: OptionSpec = {}): Scanned {
  const options: Option[] = [];
  const operands: Value[] = [];
  let dynamic = false;
  const valued = new Set(spec.long ?? []);
  const known = [...new Set([...(spec.known ?? []), ...valued])];
  const expand = (given: string): string => {
    if (known.includes(given)) return given;
    const matches = known.filter((k) => k.startsWith(given));
    return matches.length === 1 ? matches[0]! : given;
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a.kind !== 'literal') {
      dynamic = true;
      operands.push(a);
      if (spec.stopAtOperand) {
        operands.push(...args.slice(i + 1));
        break;
      }
      continue;
    }
    const t = a.text;
    if (t === '--') {
      operands.push(...args.slice(i + 1));
      break;
    }
    if (t.startsWith('--')) {
      const eq = t.indexOf('=');
      const name = expand(eq === -1 ? t.slice(2) : t.slice(2, eq));
      if (eq !== -1) options.push({ name, value: { kind: 'literal', text: t.slice(eq + 1) } });
      else if (valued.has(name)) options.push({ name, value: args[++i] ?? null });
      else options.push({ name, value: null });
      continue;
    }
    if (t.startsWith('-') && t.length > 1) {
      for (let j = 1; j < t.length; j++) {
        const ch = t[j]!;
        if (spec.optional?.includes(ch)) {
          const rest = t.slice(j + 1);
          options.push({ name: ch, value: rest ? { kind: 'literal', text: rest } : null });
          break;
        }
        if (spec.short?.includes(ch)) {
          const rest = t.slice(j + 1);
          options.push({ name: ch, value: rest ? { kind: 'literal', text: rest } : (args[++i] ?? null) });
          break;
        }
        options.push({ name: ch, value: null });
      }
      continue;
    }
    operands.push(a);
    if (spec.stopAtOperand) {
      operands.push(...args.slice(i + 1));
      break;
    }
  }
  return { options, operands, dynamic };
}

export const hasOption = (s: Scanned, ...names: string[]): boolean => s.options.some((o) => names.includes(o.name));
export const optionValues = (s: Scanned, ...names: string[]): Value[] =>
  s.options.filter((o) => names.includes(o.name) && o.value !== null).map((o) => o.value!);
