/**
 * One simple command, after quote removal and expansion: what it runs (through wrappers such as `env`,
 * `xargs`, `sudo`, shells' `-c` strings), which files it writes, which git it runs. Pure tables.
 */
import path from 'node:path';
import { hasOption, optionValues, scanOptions, type Descriptor, type OptionSpec, type PathArg, type Scanned, type ShellEffect, type Surroundings } from './effects';
import { GIT_PROGRAM_ENV, GIT_REPOSITORY_ENV, analyseGit } from './git';
import { readSedScript } from './sed';
import type { Value } from './words';

export type Stdin = { kind: 'none' } | { kind: 'pipe' } | { kind: 'code'; text: string } | { kind: 'dynamic' };

/** Absolute directories the command may run in; null when the gate cannot follow the `cd`s. */
export type Cwd = readonly string[] | null;

export interface Invocation {
  argv: Value[];
  /** Names given a value for this command only (`GIT_DIR=x git …`). */
  assigned: string[];
  cwd: Cwd;
  stdin: Stdin;
  /** What its descriptors hold (its own redirections applied): where `/dev/fd/N` leads. */
  fds: Record<number, Descriptor>;
}

export interface Runner {
  home: string | null;
  /** A variable that makes git run programs or points it at another repository, set somewhere in the command (null: none). */
  gitEnv: string | null;
  /** TMPDIR is named somewhere in the command (mktemp's directory may be the command's own choice). */
  tmpdirSet?: boolean;
  /** PWD is named somewhere in the command other than as `$PWD`: the word `$PWD` may not be the shell's directory. */
  pwdSet: boolean;
  /** The command exports variables the gate cannot name (`set -a`, `export "$n=…"`): how, or null. */
  hiddenEnv: string | null;
  hideEnv(what: string): void;
  emit(effect: ShellEffect): void;
  /** Analyses shell code this command runs; true when that code may change the running shell's directory. */
  code(source: string, cwd: Cwd): boolean;
}

/** After a `cd`: the directories the shell may be in now (null: unknown). undefined: unchanged. */
export type CwdAfter = { cwd: Cwd } | undefined;

const posix = path.posix;
const lit = (text: string): Value => ({ kind: 'literal', text });
const show = (v: Value): string => (v.kind === 'literal' ? v.text : v.kind === 'glob' ? v.pattern : v.text);
const showArgv = (argv: readonly Value[]): string => argv.map(show).join(' ');
const allLiteral = (vs: readonly Value[]): vs is { kind: 'literal'; text: string }[] => vs.every((v) => v.kind === 'literal');

/** `rm`, `/bin/rm`, `RM` (case-insensitive file systems) → `rm`. */
export const commandName = (text: string): string => posix.basename(text).toLowerCase();

/**
 * `dir/text` as one absolute path, empty and `.` segments dropped, `..` kept: the kernel follows a
 * symlink before it applies the `..` after it (`link/../x` is x beside the link's target), which only
 * the file system can tell, so the shell side resolves them (src/shell/kernel-path.ts).
 */
export const joinKeepingDots = (dir: string, text: string): string =>
  `/${[...(text.startsWith('/') ? [] : dir.split('/')), ...text.split('/')].filter((s) => s !== '' && s !== '.').join('/')}`;

/** Where a word points, for each directory the command may run in (absolute, `..` kept: see joinKeepingDots). */
export function resolvePath(v: Value, cwd: Cwd): PathArg[] {
  const text = show(v);
  if (v.kind === 'dynamic') return [{ kind: 'dynamic', text }];
  if (text === '') return [];
  const place = (p: string): PathArg => (v.kind === 'glob' ? { kind: 'glob', pattern: p } : { kind: 'path', path: p });
  if (text.startsWith('/')) return [place(joinKeepingDots('/', text))];
  if (cwd === null) return [{ kind: 'dynamic', text }];
  return cwd.map((dir) => place(joinKeepingDots(dir, text)));
}

/** `$PWD`, as a word: the directory the shell is in, unless the command sets PWD itself. */
const PWD_WORD = /^"?\$(?:PWD|\{PWD\})"?$/;

const hasDotDot = (p: string): boolean => p.split('/').includes('..');

/**
 * The directories after `cd <value>` from each of `cwd`. Bash's cd removes `..` as text (`cd -L`, its
 * default) when the directory that names exists, and otherwise, or with `cd -P` or `set -P`, goes where
 * the file system leads: both are kept, `..` unresolved in the second (see joinKeepingDots). From a
 * directory reached that way, bash's text is its real path, which only the file system knows.
 */
function chdir(cwd: Cwd, v: Value | undefined, home: string | null, pwdSet = true): Cwd {
  if (cwd === null) return null;
  if (v === undefined) return home ? [home] : null;
  if (v.kind === 'dynamic' && !pwdSet && PWD_WORD.test(v.text)) return cwd;
  if (v.kind !== 'literal' || v.text === '-' || v.text === '') return null;
  const t = v.text;
  if (hasDotDot(t) && cwd.some(hasDotDot)) return null;
  return [...new Set(cwd.flatMap((d) => [...(hasDotDot(d) ? [] : [posix.resolve(d, t)]), joinKeepingDots(d, t)]))];
}

// ── What a command writes ───────────────────────────────────────────────────────

interface Writes {
  /** Paths written (as words, relative to `base` or the command's directory). */
  targets?: { v: Value; recursive: boolean; tree?: boolean }[];
  /** The command writes paths it chooses itself. */
  unknown?: boolean;
  /** It runs a program named by an option. */
  program?: string;
  /** The command's own `-C DIR`: relative targets are relative to it. */
  base?: Value[];
}

const targetsOf = (vs: readonly Value[], recursive: boolean): Writes => ({ targets: vs.map((v) => ({ v, recursive })) });
const NONE: Writes = {};

/** Writers whose targets are all their operands. */
function operands(spec: OptionSpec, recursive: boolean | ((s: Scanned) => boolean) = true) {
  return (args: Value[]): Writes => {
    const s = scanOptions(args, spec);
    return targetsOf(s.operands, typeof recursive === 'function' ? recursive(s) : recursive);
  };
}

/** cp, install, rsync …: the last operand (or -t DIR) is written; with `all`, every operand is. */
function destination(spec: OptionSpec, all: (s: Scanned) => boolean, recursive = true) {
  return (args: Value[]): Writes => {
    const s = scanOptions(args, spec);
    const dirs = optionValues(s, 't', 'target-directory');
    if (all(s) || s.dynamic) return targetsOf([...s.operands, ...dirs], recursive);
    const last = dirs.length ? [] : s.operands.slice(-1);
    return targetsOf([...dirs, ...last], recursive);
  };
}

const LN_SPEC: OptionSpec = { short: 'St', long: ['suffix', 'target-directory'] };

/**
 * ln: every operand is written (the link, and where it points). A relative target of a symbolic link
 * is read from the link's own directory, not the command's (`ln -s ../.agents/tmp src/t` points at
 * .agents/tmp), so it is also written where it leads from there: from the directory -t names, or from
 * the last operand, which may be that directory or the link itself (both are taken). With -r, ln
 * itself makes the target relative to the link, from a path read from the command's directory.
 */
function ln(args: Value[]): Writes {
  const written = destination(LN_SPEC, () => true, false)(args);
  const s = scanOptions(args, LN_SPEC);
  if (!hasOption(s, 's', 'symbolic') || hasOption(s, 'r', 'relative') || s.dynamic) return written;
  const dirs = optionValues(s, 't', 'target-directory');
  const last = s.operands[s.operands.length - 1];
  const targets = dirs.length ? s.operands : s.operands.slice(0, -1);
  const from = dirs.length ? dirs : last?.kind === 'literal' ? [last, lit(path.posix.dirname(last.text))] : [];
  const through: Value[] = [];
  for (const t of targets) {
    if (t.kind !== 'literal' || t.text.startsWith('/')) continue;
    for (const place of from) {
      if (place.kind !== 'literal') continue;
      const to = path.posix.join(place.text, t.text);
      // Inside the last operand, as a directory: a place that directory's own write stands for (and
      // one a later write below the new link would be refused at, as computed).
      const inside = path.posix.normalize(place.text).replace(/\/+$/, '');
      if (place === last && inside !== '.' && to.startsWith(`${inside}/`)) continue;
      through.push(lit(to));
    }
  }
  return { ...written, targets: [...(written.targets ?? []), ...through.map((v) => ({ v, recursive: false }))] };
}

function sed(args: Value[]): Writes {
  const s = scanOptions(args, {
    short: 'efl',
    optional: 'i',
    long: ['expression', 'file', 'line-length'],
    known: ['in-place', 'expression', 'file', 'line-length', 'null-data', 'zero-terminated', 'quiet', 'silent', 'regexp-extended', 'separate', 'sandbox', 'unbuffered', 'posix', 'debug', 'follow-symlinks', 'help', 'version', 'binary'],
  });
  const given = optionValues(s, 'e', 'expression');
  const scriptFiles = optionValues(s, 'f', 'file');
  const scripts = given.length || scriptFiles.length ? given : s.operands.slice(0, 1);
  const files = given.length || scriptFiles.length ? s.operands : s.operands.slice(1);
  const inPlace = hasOption(s, 'i', 'in-place') || s.dynamic;
  const out: Writes = { targets: inPlace ? files.map((v) => ({ v, recursive: false })) : [] };
  if (scriptFiles.length || scripts.some((v) => v.kind !== 'literal')) return { ...out, unknown: true };
  for (const script of scripts) {
    const read = readSedScript(show(script));
    if (read.executes) return { ...out, program: 'sed e' };
    if (read.unsure) return { ...out, unknown: true };
    out.targets!.push(...read.writes.map((w) => ({ v: lit(w), recursive: false })));
  }
  return out;
}

/**
 * perl and ruby: `-i[ext]` anywhere among the switches, which end at the first operand. `valued`: the
 * switches that take a value, attached or the next word; `attached`: those whose value, if any, is only
 * the characters after them that `more` matches (perl's `-0777`, `-l012`, `-CSD`), the cluster going on
 * after it (`-0pi` is -0, -p, -i).
 */
function inPlaceInterpreter(valued: string, attached: Record<string, RegExp> = {}) {
  return (args: Value[]): Writes => {
    let inPlace = false;
    let code = false;
    const base: Value[] = [];
    let i = 0;
    for (; i < args.length; i++) {
      const a = args[i]!;
      if (a.kind !== 'literal') return { targets: args.slice(i).map((v) => ({ v, recursive: false })), base };
      const t = a.text;
      if (t === '--') {
        i++;
        break;
      }
      if (!t.startsWith('-') || t === '-') break;
      for (let j = 1; j < t.length; j++) {
        const ch = t[j]!;
        if (ch === 'i') {
          inPlace = true;
          break;
        }
        const more = Object.hasOwn(attached, ch) ? attached[ch] : undefined;
        if (more) {
          while (j + 1 < t.length && more.test(t[j + 1]!)) j++;
          continue;
        }
        if (valued.includes(ch)) {
          const value = t.slice(j + 1) ? lit(t.slice(j + 1)) : args[++i];
          if (ch === 'e' || ch === 'E') code = true;
          if (ch === 'C' && value) base.push(value);
          break;
        }
      }
    }
    if (!inPlace) return NONE;
    const rest = args.slice(i);
    return { targets: (code ? rest : rest.slice(1)).map((v) => ({ v, recursive: false })), base };
  };
}

/**
 * gawk edits its file operands in place when the inplace extension runs: `-i inplace`, or any other
 * library or extension that includes or loads it. A library's name says nothing of its content (gawk
 * searches AWKPATH, `.` first, which the command may set; a path may hold a copy of inplace.awk under
 * any name), so every `-i`/`--include`, `-l`/`--load` and `@include`/`@load` in the program makes the
 * file operands written: no library is taken as read-only. A program file (`-f`) is a script: what it
 * does is seen afterwards.
 */
function awk(args: Value[]): Writes {
  const s = scanOptions(args, { short: 'fvFiEel', long: ['file', 'assign', 'field-separator', 'include', 'exec', 'source', 'load'] });
  const hasProgram = hasOption(s, 'f', 'file', 'e', 'source', 'E', 'exec');
  const programs = hasProgram ? optionValues(s, 'e', 'source') : s.operands.slice(0, 1);
  const extended = hasOption(s, 'i', 'include', 'l', 'load') || programs.some((v) => v.kind !== 'literal' || /@\s*(?:include|load)\b/.test(v.text));
  if (!extended) return NONE;
  return targetsOf(hasProgram ? s.operands : s.operands.slice(1), false);
}

function tar(args: Value[]): Writes {
  let letters = '';
  let rest = args;
  const first = args[0];
  if (first?.kind === 'literal' && !first.text.startsWith('-')) {
    // Old style: `tar xzf archive.tar -C dir`; valued letters take the following words in order.
    letters = first.text;
    rest = args.slice(1);
    const values: Value[] = [];
    const valued = [...letters].filter((c) => 'fCTXbLNgKV'.includes(c)).length;
    values.push(...rest.slice(0, valued));
    rest = [...[...letters].filter((c) => 'fCTXbLNgKV'.includes(c)).flatMap((c, k) => (values[k] ? [lit(`-${c}`), values[k]!] : [])), ...rest.slice(valued)];
  }
  const s = scanOptions(rest, {
    short: 'fCTXbLNgKVI',
    long: ['file', 'directory', 'files-from', 'exclude-from', 'blocking-factor', 'tape-length', 'newer', 'listed-incremental', 'starting-file', 'label', 'to-command', 'use-compress-program', 'info-script', 'new-volume-script', 'checkpoint-action', 'transform', 'xform', 'owner', 'group', 'mode', 'mtime', 'exclude', 'index-file', 'volno-file', 'rsh-command'],
    // tar takes any unambiguous abbreviation of a long option (`--crea`, `--remove-fi`).
    known: ['create', 'extract', 'get', 'append', 'update', 'catenate', 'concatenate', 'delete', 'list', 'diff', 'compare', 'remove-files', 'to-stdout', 'overwrite', 'unlink-first', 'recursive-unlink', 'keep-old-files', 'keep-newer-files', 'skip-old-files', 'backup', 'verbose', 'gzip', 'bzip2', 'xz', 'zstd', 'lzma', 'auto-compress', 'checkpoint'],
  });
  const has = (letter: string, ...long: string[]): boolean => letters.includes(letter) || hasOption(s, letter, ...long);
  if (hasOption(s, 'to-command', 'use-compress-program', 'I', 'info-script', 'new-volume-script', 'rsh-command') || optionValues(s, 'checkpoint-action').some((v) => show(v).includes('exec'))) {
    return { program: 'tar' };
  }
  if (has('x', 'extract', 'get')) return { unknown: true };
  const archives = optionValues(s, 'f', 'file').filter((v) => show(v) !== '-');
  if (has('c', 'create') || has('r', 'append') || has('u', 'update') || has('A', 'catenate', 'concatenate') || hasOption(s, 'delete')) {
    const removed = hasOption(s, 'remove-files') ? s.operands : [];
    return { targets: [...archives.map((v) => ({ v, recursive: false })), ...removed.map((v) => ({ v, recursive: true }))] };
  }
  return NONE;
}

function curl(args: Value[]): Writes {
  const s = scanOptions(args, {
    short: 'oDcKbdeEFHuAxXTwrUQmyYzCtP',
    long: ['output', 'dump-header', 'cookie-jar', 'config', 'cookie', 'data', 'data-raw', 'data-binary', 'data-urlencode', 'referer', 'cert', 'form', 'header', 'user', 'user-agent', 'proxy', 'request', 'upload-file', 'write-out', 'range', 'proxy-user', 'quote', 'max-time', 'speed-limit', 'speed-time', 'time-cond', 'continue-at', 'telnet-option', 'trace', 'trace-ascii', 'stderr', 'output-dir', 'etag-save', 'hsts', 'alt-svc', 'url', 'connect-timeout', 'retry', 'max-filesize', 'resolve', 'interface', 'cacert', 'capath', 'key', 'libcurl'],
  });
  const written = optionValues(s, 'o', 'output', 'D', 'dump-header', 'c', 'cookie-jar', 'trace', 'trace-ascii', 'stderr', 'etag-save', 'hsts', 'alt-svc', 'libcurl').filter((v) => show(v) !== '-');
  return { targets: written.map((v) => ({ v, recursive: false })), unknown: hasOption(s, 'O', 'remote-name', 'remote-name-all', 'J', 'remote-header-name', 'output-dir') || s.dynamic };
}

function wget(args: Value[]): Writes {
  const s = scanOptions(args, { short: 'oaOPeiBtTwQUYlAR', long: ['output-file', 'append-output', 'output-document', 'directory-prefix', 'execute', 'input-file', 'base', 'tries', 'timeout', 'wait', 'quota', 'user-agent', 'level', 'accept', 'reject', 'header', 'post-data', 'post-file', 'save-cookies', 'load-cookies', 'user', 'password'] });
  if (hasOption(s, 'spider')) return NONE;
  const logs = optionValues(s, 'o', 'output-file', 'a', 'append-output', 'save-cookies');
  const documents = optionValues(s, 'O', 'output-document');
  const out: Writes = { targets: [...logs, ...documents.filter((v) => show(v) !== '-')].map((v) => ({ v, recursive: false })) };
  return documents.length && !s.dynamic ? out : { ...out, unknown: true };
}

function find(args: Value[]): { writes: Writes; exec: Value[][]; execdir: boolean } {
  let i = 0;
  while (i < args.length && !(args[i]!.kind === 'literal' && /^[-(!]/.test(show(args[i]!)) && show(args[i]!) !== '-')) i++;
  const starts = i ? args.slice(0, i) : [lit('.')];
  const targets: NonNullable<Writes['targets']> = [];
  const exec: Value[][] = [];
  let execdir = false;
  let unknown = false;
  for (; i < args.length; i++) {
    const a = args[i]!;
    if (a.kind !== 'literal') {
      unknown = true;
      continue;
    }
    const t = a.text;
    if (t === '-delete') targets.push(...starts.map((v) => ({ v, recursive: true, tree: true })));
    else if (t === '-fprint' || t === '-fprint0' || t === '-fls' || t === '-fprintf') {
      if (args[i + 1]) targets.push({ v: args[i + 1]!, recursive: false });
      i += t === '-fprintf' ? 2 : 1;
    } else if (t === '-exec' || t === '-execdir' || t === '-ok' || t === '-okdir') {
      const argv: Value[] = [];
      for (i++; i < args.length && !(args[i]!.kind === 'literal' && (show(args[i]!) === ';' || show(args[i]!) === '+')); i++) {
        const v = args[i]!;
        argv.push(v.kind === 'literal' && v.text.includes('{}') ? { kind: 'dynamic', text: v.text } : v);
      }
      if (t.endsWith('dir')) execdir = true;
      exec.push(argv);
    }
  }
  return { writes: { targets, unknown }, exec, execdir };
}

function gzipLike(args: Value[]): Writes {
  const s = scanOptions(args, { short: 'S', long: ['suffix'] });
  if (hasOption(s, 'c', 'stdout', 'to-stdout', 't', 'test', 'l', 'list', 'h', 'help', 'V', 'version')) return NONE;
  return targetsOf(s.operands, false);
}

/**
 * mktemp makes a file or directory: from the template, in the directory -p or --tmpdir gives, or
 * without either in $TMPDIR, which the command may have set itself (`TMPDIR=.agents mktemp`,
 * `export TMPDIR=…`): then the target is computed.
 */
function mktemp(args: Value[]): Writes {
  const s = scanOptions(args, { short: 'p', long: ['suffix'], known: ['tmpdir', 'directory', 'dry-run', 'quiet', 'suffix'] });
  if (hasOption(s, 'u', 'dry-run')) return NONE;
  const template = s.operands[0];
  const dir = optionValues(s, 'p', 'tmpdir')[0];
  const anyName = (d: Value): Value => (d.kind === 'literal' ? ({ kind: 'glob', pattern: `${d.text.replace(/\/+$/, '') || '/'}/*` } as Value) : d);
  if (dir) return template ? { targets: [{ v: template, recursive: false }], base: [dir] } : { targets: [{ v: anyName(dir), recursive: false }] };
  if (!template || hasOption(s, 't', 'tmpdir') || !(template.kind === 'literal' && template.text.includes('/'))) return { targets: [{ v: { kind: 'dynamic', text: '$TMPDIR' } as Value, recursive: false }] };
  return targetsOf([template], false);
}

/** Valgrind's tools that write `<tool>.out.<pid>` in the directory they run in, unless told another file. */
const VALGRIND_OUT_FILES = new Set(['massif', 'callgrind', 'cachegrind', 'dhat']);

/** A valgrind file name: `%p` (the pid) and `%n` (a sequence number) are any digits, `%q{VAR}` is a variable's value. */
const valgrindFile = (name: string): Value =>
  name.includes('%q') ? { kind: 'dynamic', text: name } : /%[pn]/.test(name) ? { kind: 'glob', pattern: name.replace(/%[pn]/g, '*').replace(/%%/g, '%') } : lit(name.replace(/%%/g, '%'));

/**
 * valgrind's own files (its options are `--name=value` only, before the program): the log and XML
 * files, a tool's `--<tool>-out-file`, or that tool's default out file. It reads more options from
 * ~/.valgrindrc, $VALGRIND_OPTS and ./.valgrindrc (an `--xml-file` there is written even when the
 * command line names a `--log-file`), which the command may have written or set: its writes are unknown.
 */
function valgrindWrites(args: Value[]): Writes {
  const options: string[] = [];
  for (const v of args) {
    if (v.kind !== 'literal' || !v.text.startsWith('-')) break;
    options.push(v.text);
  }
  const named = options.flatMap((o) => {
    const m = /^--(log-file|xml-file|[\w-]+-out-file)=(.*)$/s.exec(o);
    return m ? [{ option: m[1]!, v: valgrindFile(m[2]!) }] : [];
  });
  const tool = options.map((o) => /^--tool=(.*)$/s.exec(o)?.[1]).filter((t) => t !== undefined).at(-1) ?? 'memcheck';
  const defaults = VALGRIND_OUT_FILES.has(tool) && !named.some((n) => n.option === `${tool}-out-file`) ? [{ kind: 'glob', pattern: `${tool}.out.*` } as Value] : [];
  return { ...targetsOf([...named.map((n) => n.v), ...defaults], false), unknown: true };
}

/** Formatters and fixers that rewrite the files they are given unless told only to check. */
const rewritesUnless =
  (...checks: string[]) =>
  (args: Value[]): Writes =>
    args.some((v) => v.kind === 'literal' && checks.some((c) => v.text === c || v.text.startsWith(`${c}=`))) ? NONE : { unknown: true };
const rewritesWith =
  (...flags: string[]) =>
  (args: Value[]): Writes =>
    args.some((v) => v.kind !== 'literal' || flags.includes(v.text)) ? { unknown: true } : NONE;

/** The subcommand of a package manager or toolchain: the first word that is not an option (or an option's value). */
function subcommands(args: readonly Value[]): string[] {
  const words: string[] = [];
  for (let i = 0; i < args.length && words.length < 2; i++) {
    const v = args[i]!;
    if (v.kind !== 'literal') return [...words, '\0'];
    if (v.text === '--') break;
    if (/^(?:--(?:prefix|cwd|dir|filter|workspace|cache|registry|modfile|manifest-path|directory|project|python|config)|-[CwFp])$/.test(v.text)) i++;
    else if (!v.text.startsWith('-')) words.push(v.text);
  }
  return words;
}

const among =
  (subs: readonly string[], bare = false) =>
  (words: readonly string[]): boolean =>
    words.length === 0 ? bare : words[0] === '\0' || subs.includes(words[0]!);

/** Package managers and toolchains: the forms that write the project (manifests, lock files, vendored code, formatting). */
const PROJECT_WRITING: Record<string, (words: readonly string[]) => boolean> = {
  npm: among(['install', 'i', 'in', 'ins', 'inst', 'insta', 'instal', 'isnt', 'isnta', 'isntal', 'add', 'ci', 'clean-install', 'install-clean', 'install-test', 'it', 'uninstall', 'un', 'unlink', 'remove', 'rm', 'r', 'update', 'up', 'upgrade', 'udpate', 'dedupe', 'ddp', 'prune', 'link', 'ln', 'version', 'init', 'create', 'pkg', 'rebuild', 'rb', 'shrinkwrap', 'pack']),
  yarn: among(['add', 'remove', 'install', 'upgrade', 'up', 'init', 'link', 'unlink', 'set', 'dedupe', 'patch-commit', 'version', 'pack'], true),
  pnpm: among(['add', 'install', 'i', 'remove', 'rm', 'uninstall', 'un', 'update', 'up', 'upgrade', 'link', 'ln', 'unlink', 'prune', 'dedupe', 'import', 'rebuild', 'rb', 'init', 'patch-commit', 'pack', 'version']),
  bun: among(['add', 'a', 'install', 'i', 'remove', 'rm', 'update', 'link', 'unlink', 'init', 'create', 'pm', 'patch']),
  uv: among(['add', 'remove', 'sync', 'lock', 'init', 'venv', 'export', 'version']),
  poetry: among(['add', 'remove', 'install', 'update', 'lock', 'init', 'new', 'build', 'version', 'export', 'sync']),
  pipenv: among(['install', 'uninstall', 'update', 'lock', 'sync', 'clean', 'upgrade']),
  go: (w) => among(['get', 'generate', 'fmt', 'fix', 'work'])(w) || (w[0] === 'mod' && among(['tidy', 'edit', 'vendor', 'init'])(w.slice(1))),
  cargo: (w) => among(['add', 'remove', 'rm', 'update', 'fix', 'init', 'new', 'generate-lockfile', 'vendor'])(w),
  bundle: among(['install', 'update', 'add', 'remove', 'lock', 'init', 'binstubs', 'clean'], true),
  composer: among(['install', 'update', 'require', 'remove', 'init', 'create-project', 'dump-autoload', 'bump']),
  deno: among(['fmt', 'add', 'remove', 'install', 'cache', 'init']),
  ruff: among(['format']),
  terraform: among(['fmt', 'init']),
  tofu: among(['fmt', 'init']),
};

/** Read-only forms of the subcommands above, by an option. */
const CHECK_ONLY = new Set(['--check', '--diff', '-check', '--dry-run', '--frozen-lockfile', '--lockfile-only-check']);

/** `npm exec`, `pnpm dlx` …: run a package's binary. */
const EXEC_SUBCOMMANDS: Record<string, readonly string[]> = { npm: ['exec', 'x'], pnpm: ['exec', 'dlx'], yarn: ['exec', 'dlx'], bun: ['x'] };

type Writer = (args: Value[]) => Writes;

const WRITERS: Record<string, Writer> = {
  rm: operands({ known: ['force', 'interactive', 'one-file-system', 'no-preserve-root', 'preserve-root', 'recursive', 'dir', 'verbose'] }),
  rmdir: operands({}),
  unlink: operands({}),
  shred: operands({ short: 'ns', long: ['iterations', 'size', 'random-source'] }),
  srm: operands({}),
  trash: operands({}),
  'trash-put': operands({}),
  rimraf: operands({}),
  del: operands({}),
  'del-cli': operands({}),
  touch: operands({ short: 'dtr', long: ['date', 'reference', 'time'] }, false),
  fallocate: operands({ short: 'lo', long: ['length', 'offset'] }, false),
  mkswap: operands({ short: 'pLUe', long: ['pagesize', 'label', 'uuid', 'endianness', 'offset', 'size', 'file'] }, false),
  // util-linux rename FROM TO FILE…, and perl's rename EXPR FILE…: the files are renamed.
  rename: (args) => targetsOf(scanOptions(args, {}).operands.slice(1), false),
  shuf: (args) => targetsOf(optionValues(scanOptions(args, { short: 'inoe', long: ['input-range', 'head-count', 'output', 'random-source'] }), 'o', 'output'), false),
  updatedb: (args) => targetsOf(optionValues(scanOptions(args, { short: 'olUe', long: ['output', 'database-root', 'prune-bind-mounts', 'prunefs', 'prunenames', 'prunepaths'] }), 'o', 'output'), false),
  // ptx -G (the traditional form) writes its second operand.
  ptx: (args) => {
    const s = scanOptions(args, { short: 'bFgiMoSwW', long: ['break-file', 'flag-truncation', 'gap-size', 'ignore-file', 'macro-name', 'only-file', 'sentence-regexp', 'width', 'word-regexp'] });
    return hasOption(s, 'G', 'traditional') ? targetsOf(s.operands.slice(1, 2), false) : NONE;
  },
  // history -w/-a FILE writes the shell's history there.
  history: (args) => {
    const s = scanOptions(args, { short: 'd' });
    return hasOption(s, 'w', 'a') ? targetsOf(s.operands, false) : NONE;
  },

  mkdir: operands({ short: 'm', long: ['mode'] }, false),
  mkfifo: operands({ short: 'm', long: ['mode'] }, false),
  mknod: operands({ short: 'm', long: ['mode'] }, false),
  truncate: operands({ short: 'sr', long: ['size', 'reference'] }, false),
  chmod: operands({ long: ['reference'] }, (s) => hasOption(s, 'R', 'recursive')),
  chown: operands({ long: ['reference', 'from'] }, (s) => hasOption(s, 'R', 'recursive')),
  chgrp: operands({ long: ['reference'] }, (s) => hasOption(s, 'R', 'recursive')),
  chattr: operands({ short: 'vp' }, (s) => hasOption(s, 'R')),
  setfacl: operands({ short: 'mMxX', long: ['modify', 'modify-file', 'remove', 'remove-file', 'set', 'set-file'] }, (s) => hasOption(s, 'R', 'recursive')),
  ln,
  link: operands({}, false),
  sudoedit: operands({}, false),
  cp: destination({ short: 'St', long: ['suffix', 'target-directory'] }, (s) => hasOption(s, 's', 'symbolic-link', 'l', 'link')),
  mv: destination({ short: 'St', long: ['suffix', 'target-directory'] }, () => true),
  install: destination({ short: 'gmoSt', long: ['group', 'mode', 'owner', 'suffix', 'target-directory', 'strip-program'] }, (s) => hasOption(s, 'd', 'directory'), false),
  rsync: (args) => {
    const s = scanOptions(args, { short: 'efBTM', long: ['rsh', 'filter', 'exclude', 'include', 'exclude-from', 'include-from', 'files-from', 'temp-dir', 'partial-dir', 'backup-dir', 'suffix', 'log-file', 'password-file', 'out-format', 'chmod', 'chown', 'compare-dest', 'copy-dest', 'link-dest', 'max-size', 'min-size', 'bwlimit', 'timeout', 'port', 'write-batch', 'only-write-batch', 'read-batch', 'rsync-path', 'usermap', 'groupmap', 'info', 'debug', 'skip-compress', 'modify-window', 'block-size', 'checksum-choice', 'compress-choice', 'sockopts', 'address', 'contimeout', 'iconv', 'stop-after', 'stop-at', 'log-file-format', 'remote-option', 'max-delete', 'max-alloc'] });
    if (hasOption(s, 'e', 'rsh', 'rsync-path')) return { program: 'rsync -e' };
    const extra = optionValues(s, 'log-file', 'write-batch', 'only-write-batch', 'backup-dir', 'temp-dir', 'partial-dir');
    const dest = hasOption(s, 'remove-source-files') || s.dynamic ? s.operands : s.operands.slice(-1);
    return targetsOf([...dest.filter((v) => !/^[^/]*:/.test(show(v))), ...extra], true);
  },
  scp: (args) => targetsOf(scanOptions(args, { short: 'cFiJloPSDX' }).operands.slice(-1).filter((v) => v.kind !== 'literal' || !/^[^/]*:/.test(v.text)), true),
  tee: operands({}, false),
  dd: (args) => targetsOf(args.filter((v) => v.kind !== 'literal' || v.text.startsWith('of=')).map((v) => (v.kind === 'literal' ? lit(v.text.slice(3)) : v)), false),
  sed,
  gsed: sed,
  // perl's -x and -F take the rest of the cluster, -0, -l, -C, -D and -d only what they may read there.
  perl: inPlaceInterpreter('eEIMm', { '0': /[0-9a-fA-FxX]/, l: /[0-7]/, C: /[0-9IOEioeSDAaL]/, D: /[0-9]/, d: /t/, x: /./, F: /./ }),
  ruby: inPlaceInterpreter('eEIrCFxKTW0'),
  awk,
  gawk: awk,
  sort: (args) => {
    const s = scanOptions(args, { short: 'kStTo', long: ['key', 'buffer-size', 'field-separator', 'temporary-directory', 'output', 'compress-program', 'files0-from', 'random-source', 'batch-size', 'parallel', 'sort'] });
    if (hasOption(s, 'compress-program')) return { program: 'sort --compress-program' };
    return targetsOf(optionValues(s, 'o', 'output'), false);
  },
  // --group and --all-repeated take their value only attached (`--group=append`): `uniq --group in out` writes out.
  uniq: (args) => targetsOf(scanOptions(args, { short: 'fsw', long: ['skip-fields', 'skip-chars', 'check-chars'] }).operands.slice(1, 2), false),
  split: () => ({ unknown: true }),
  csplit: () => ({ unknown: true }),
  tar,
  bsdtar: tar,
  gtar: tar,
  unzip: (args) => (args.some((v) => v.kind === 'literal' && /^-[a-zA-Z]*[ltvZpcz]/.test(v.text)) ? NONE : { unknown: true }),
  '7z': (args) => (args[0]?.kind === 'literal' && ['l', 't', 'h', 'i'].includes(args[0].text) ? NONE : { unknown: true }),
  cpio: (args) => (args.some((v) => v.kind === 'literal' && /^-[a-zA-Z]*[ip]/.test(v.text)) ? { unknown: true } : NONE),
  zip: (args) => {
    const s = scanOptions(args, { short: 'bnt', long: ['temp-path', 'suffixes', 'from-date'] });
    return targetsOf(hasOption(s, 'm', 'move') ? s.operands : s.operands.slice(0, 1), hasOption(s, 'm', 'move'));
  },
  gzip: gzipLike, gunzip: gzipLike, bzip2: gzipLike, bunzip2: gzipLike, xz: gzipLike, unxz: gzipLike, lzma: gzipLike, unlzma: gzipLike,
  zstd: gzipLike, unzstd: gzipLike, lz4: gzipLike, pigz: gzipLike, compress: gzipLike, uncompress: gzipLike, brotli: gzipLike,
  patch: (args) => {
    const s = scanOptions(args, { short: 'BdDFgiopbrVYzx', long: ['prefix', 'directory', 'ifdef', 'fuzz', 'get', 'input', 'output', 'strip', 'reject-file', 'version-control', 'basename-prefix', 'suffix', 'debug', 'quoting-style', 'read-only'] });
    if (hasOption(s, 'dry-run', 'check')) return NONE;
    const named = optionValues(s, 'o', 'output', 'r', 'reject-file');
    return { targets: named.map((v) => ({ v, recursive: false })), unknown: !hasOption(s, 'o', 'output') };
  },
  curl,
  wget,
  mktemp,
  ed: () => ({ unknown: true }), ex: () => ({ unknown: true }), vi: () => ({ unknown: true }), vim: () => ({ unknown: true }),
  nvim: () => ({ unknown: true }), nano: () => ({ unknown: true }), emacs: () => ({ unknown: true }), micro: () => ({ unknown: true }),
  prettier: rewritesWith('--write', '-w'),
  gofmt: rewritesWith('-w'),
  goimports: rewritesWith('-w'),
  'clang-format': rewritesWith('-i'),
  shfmt: rewritesWith('-w', '--write'),
  autopep8: rewritesWith('-i', '--in-place'),
  yapf: rewritesWith('-i', '--in-place'),
  rubocop: rewritesWith('-a', '-A', '--autocorrect', '--autocorrect-all', '--auto-correct', '--auto-correct-all', '-x', '--fix-layout'),
  black: rewritesUnless('--check', '--diff'),
  isort: rewritesUnless('--check', '--check-only', '-c', '--diff'),
  rustfmt: rewritesUnless('--check'),
  phpcbf: () => ({ unknown: true }),
  'dprint': (args) => (args[0]?.kind === 'literal' && args[0].text === 'fmt' ? { unknown: true } : NONE),
};

/** Flags that make almost any linter or formatter rewrite files. */
const FIXING_FLAGS = /^--(?:fix|write|in-place|autocorrect|auto-correct|autocorrect-all|auto-correct-all|apply|apply-unsafe)(?:=.*)?$/;

// ── Wrappers: commands that run another command ────────────────────────────────

type Unwrapped =
  | { kind: 'run'; argv: Value[]; assigned?: string[]; base?: Value; appendDynamic?: boolean }
  /** Shell code: the words joined, or (`each`) every word a script of its own. */
  | { kind: 'code'; code: Value[]; each?: boolean }
  | { kind: 'none' }
  | { kind: 'opaque' };

const run = (argv: Value[], extra: Partial<Extract<Unwrapped, { kind: 'run' }>> = {}): Unwrapped => ({ kind: 'run', argv, ...extra });

/**
 * A wrapper whose options end at the command it runs. `shell`: without a command it runs a shell
 * (unshare, chroot DIR, nsenter, fakeroot), which reads its commands from the wrapper's input.
 */
const simpleWrapper =
  (spec: OptionSpec, skipOperands = 0, shell = false) =>
  (args: Value[]): Unwrapped => {
    const s = scanOptions(args, { ...spec, stopAtOperand: true });
    const first = s.operands.findIndex((v) => v.kind !== 'literal');
    if (first !== -1 && first <= skipOperands) return { kind: 'opaque' };
    const argv = s.operands.slice(skipOperands);
    return run(argv.length === 0 && shell ? [lit('sh')] : argv);
  };

/**
 * Leading NAME=value words (env, sudo, cross-env) are the command's environment. env takes any word
 * with `=` in it for one (`env 9=x a+=b rm y` runs rm): so does the gate, which at worst reads a
 * command the program would not run.
 */
function splitAssignments(vs: Value[]): { assigned: string[]; rest: Value[] } {
  let i = 0;
  const assigned: string[] = [];
  for (; i < vs.length; i++) {
    const m = vs[i]!.kind === 'literal' ? ASSIGNMENT_WORD.exec(show(vs[i]!)) : null;
    if (!m) break;
    assigned.push(m[1]!);
  }
  return { assigned, rest: vs.slice(i) };
}

/**
 * `setarch [ARCH] [OPTIONS] [PROGRAM [ARG…]]`, and its links named after an architecture (`linux64 -R
 * …`): its options come after the architecture, and without a program it runs a shell, which reads its
 * commands from setarch's input.
 */
const setarch =
  (named: boolean) =>
  (args: Value[]): Unwrapped => {
    const arch = !named && args[0]?.kind === 'literal' && !args[0].text.startsWith('-');
    if (!named && args[0] && args[0].kind !== 'literal') return { kind: 'opaque' };
    const s = scanOptions(arch ? args.slice(1) : args, { known: ['list', 'help', 'version'], stopAtOperand: true });
    if (hasOption(s, 'list', 'help', 'h', 'version', 'V')) return { kind: 'none' };
    if (s.operands[0] && s.operands[0].kind !== 'literal') return { kind: 'opaque' };
    return run(s.operands.length ? s.operands : [lit('sh')]);
  };

const WRAPPERS: Record<string, (args: Value[]) => Unwrapped> = {
  command: (args) => {
    const s = scanOptions(args, { stopAtOperand: true });
    return hasOption(s, 'v', 'V') ? { kind: 'none' } : run(s.operands);
  },
  builtin: (args) => run(args),
  exec: simpleWrapper({ short: 'a' }),
  nohup: simpleWrapper({}),
  setsid: simpleWrapper({}),
  time: simpleWrapper({}),
  chronic: simpleWrapper({}),
  unbuffer: simpleWrapper({}),
  // `coproc { …; }` and `coproc NAME ( … )`: the grammar reads the compound body as plain words.
  coproc: (args) => (args.slice(0, 2).some((v) => v.kind === 'literal' && /^[{(]/.test(v.text)) ? { kind: 'opaque' } : run(args)),
  nice: simpleWrapper({ short: 'n', long: ['adjustment'] }),
  ionice: simpleWrapper({ short: 'cnpPu', long: ['class', 'classdata', 'pid', 'pgid', 'uid'] }),
  stdbuf: simpleWrapper({ short: 'ioe', long: ['input', 'output', 'error'] }),
  taskset: (args) => {
    const s = scanOptions(args, { stopAtOperand: true });
    if (hasOption(s, 'p', 'pid')) return { kind: 'none' };
    return s.operands.slice(0, 1).some((v) => v.kind !== 'literal') ? { kind: 'opaque' } : run(s.operands.slice(1));
  },
  timeout: simpleWrapper({ short: 'sk', long: ['signal', 'kill-after'] }, 1),
  doas: (args) => {
    const s = scanOptions(args, { short: 'uC', stopAtOperand: true });
    return hasOption(s, 's') ? { kind: 'opaque' } : s.operands[0]?.kind === 'literal' || !s.operands.length ? run(s.operands) : { kind: 'opaque' };
  },
  sudo: (args) => {
    const s = scanOptions(args, {
      short: 'ughpCDrtUTR',
      long: ['user', 'group', 'host', 'prompt', 'close-from', 'chdir', 'role', 'type', 'other-user', 'command-timeout', 'chroot'],
      stopAtOperand: true,
    });
    const { assigned, rest } = splitAssignments(s.operands);
    if (rest[0] && rest[0].kind !== 'literal') return { kind: 'opaque' };
    if (hasOption(s, 'e', 'edit')) return run([lit('sudoedit'), ...rest]);
    return run(rest, { assigned, base: optionValues(s, 'D', 'chdir')[0] });
  },
  env: (args) => {
    // -P ALTPATH: BSD env (macOS) searches ALTPATH for the command.
    const s = scanOptions(args, { short: 'uCSP', long: ['unset', 'chdir', 'split-string'], stopAtOperand: true });
    const { assigned, rest } = splitAssignments(s.operands);
    const split = optionValues(s, 'S', 'split-string');
    if (split.length) return { kind: 'code', code: [...split, ...rest] };
    if (rest[0] && rest[0].kind !== 'literal') return { kind: 'opaque' };
    return run(rest, { assigned, base: optionValues(s, 'C', 'chdir')[0] });
  },
  'cross-env': (args) => {
    const { assigned, rest } = splitAssignments(args);
    return run(rest, { assigned });
  },
  xargs: (args) => {
    // --replace, --eof and --max-lines take a value only attached (`--replace=R`), like -i, -e and -l.
    const s = scanOptions(args, {
      short: 'adEILnPs',
      optional: 'eil',
      long: ['arg-file', 'delimiter', 'max-args', 'max-procs', 'max-chars', 'process-slot-var'],
      known: ['replace', 'eof', 'max-lines', 'null', 'no-run-if-empty', 'interactive', 'verbose', 'exit', 'open-tty', 'show-limits'],
      stopAtOperand: true,
    });
    if (s.operands[0] && s.operands[0].kind !== 'literal') return { kind: 'opaque' };
    // With -I/-i/--replace the input is put where the replace string stands: such a word is computed
    // (`xargs -I{} sh -c 'echo {}'` runs whatever the input says).
    const given = optionValues(s, 'I', 'i', 'replace')[0];
    const replace = given?.kind === 'literal' ? given.text : hasOption(s, 'I', 'i', 'replace') ? '{}' : null;
    const argv = replace ? s.operands.map((v): Value => (v.kind === 'literal' && v.text.includes(replace) ? { kind: 'dynamic', text: v.text } : v)) : s.operands;
    return run(argv.length ? argv : [lit('echo')], { appendDynamic: !replace });
  },
  busybox: (args) => (args[0]?.kind === 'literal' && !args[0].text.startsWith('-') ? run(args) : args[0] ? { kind: 'opaque' } : { kind: 'none' }),
  npx: (args) => {
    const s = scanOptions(args, { short: 'pc', long: ['package', 'call'], stopAtOperand: true });
    const code = optionValues(s, 'c', 'call');
    if (code.length) return { kind: 'code', code };
    return s.operands[0] && s.operands[0].kind !== 'literal' ? { kind: 'opaque' } : run(s.operands);
  },
  bunx: simpleWrapper({}),
  watch: (args) => {
    const s = scanOptions(args, { short: 'n', optional: 'd', long: ['interval', 'differences'], stopAtOperand: true });
    return hasOption(s, 'x', 'exec') ? run(s.operands) : { kind: 'code', code: s.operands };
  },
  flock: (args) => {
    const s = scanOptions(args, { short: 'wEc', long: ['timeout', 'conflict-exit-code', 'command'], stopAtOperand: true });
    const code = optionValues(s, 'c', 'command');
    if (code.length) return { kind: 'code', code };
    // `flock FILE -c COMMAND`: flock takes -c (or --command) right after the lock file as well.
    const [, after, command] = s.operands;
    if (after?.kind === 'literal' && (after.text === '-c' || after.text === '--command')) return command ? { kind: 'code', code: [command] } : { kind: 'none' };
    return run(s.operands.slice(1));
  },
  // Without -c, su and `runuser USER` run the user's shell with the words after the user (`su root -- -c
  // 'rm x'`), which without them reads its commands from su's input.
  su: (args) => {
    const s = scanOptions(args, { short: 'cgGsw', long: ['command', 'group', 'supp-group', 'shell', 'whitelist-environment'] });
    const code = optionValues(s, 'c', 'command');
    return code.length ? { kind: 'code', code } : run([lit('sh'), ...s.operands.slice(1)]);
  },
  runuser: (args) => {
    const s = scanOptions(args, { short: 'cgGsuw', long: ['command', 'group', 'supp-group', 'shell', 'user', 'whitelist-environment'], stopAtOperand: true });
    const code = optionValues(s, 'c', 'command');
    if (code.length) return { kind: 'code', code };
    // `runuser -u USER [--] COMMAND …` runs the command itself.
    return hasOption(s, 'u', 'user') ? run(s.operands) : run([lit('sh'), ...s.operands.slice(1)]);
  },
  script: (args) => {
    const s = scanOptions(args, { short: 'cEIOBTm', long: ['command', 'echo', 'log-in', 'log-out', 'log-io', 'log-timing', 'logging-format'] });
    const code = optionValues(s, 'c', 'command');
    return code.length ? { kind: 'code', code } : { kind: 'none' };
  },
  chroot: simpleWrapper({ long: ['userspec', 'groups'] }, 1, true),
  fakeroot: simpleWrapper({ short: 'is', long: ['lib', 'faked'] }, 0, true),
  unshare: simpleWrapper({ short: 'S', long: ['setuid', 'setgid', 'root', 'wd', 'propagation'] }, 0, true),
  'systemd-run': simpleWrapper({ short: 'pEMH', long: ['property', 'setenv', 'machine', 'host', 'unit', 'description', 'slice', 'working-directory', 'uid', 'gid', 'nice'] }),
  firejail: simpleWrapper({}),
  pkexec: simpleWrapper({ long: ['user'] }),
  // sg GROUP without a command, and newgrp, run a shell on their input.
  sg: (args) => (args.length >= 2 ? { kind: 'code', code: args.slice(1).filter((v) => !(v.kind === 'literal' && v.text === '-c')) } : run([lit('sh')])),
  newgrp: () => run([lit('sh')]),
  hyperfine: (args) => {
    const s = scanOptions(args, { short: 'wrmMpscSnuN', long: ['warmup', 'runs', 'min-runs', 'max-runs', 'prepare', 'setup', 'cleanup', 'conclude', 'reference', 'parameter-scan', 'parameter-step-size', 'parameter-list', 'shell', 'style', 'sort', 'time-unit', 'export-asciidoc', 'export-csv', 'export-json', 'export-markdown', 'export-orgmode', 'output', 'command-name'] });
    return { kind: 'code', code: [...s.operands, ...optionValues(s, 'p', 'prepare', 's', 'setup', 'c', 'cleanup', 'conclude', 'reference')], each: true };
  },
  // Programs that run the command they are given, with their options before it.
  chrt: (args) => {
    const s = scanOptions(args, { short: 'TPD', long: ['sched-runtime', 'sched-period', 'sched-deadline'], stopAtOperand: true });
    return hasOption(s, 'p', 'pid') ? { kind: 'none' } : run(s.operands.slice(1));
  },
  prlimit: (args) => {
    const s = scanOptions(args, { short: 'po', optional: 'cdefilmnqrstuvxy', long: ['pid', 'output'], stopAtOperand: true });
    return hasOption(s, 'p', 'pid') ? { kind: 'none' } : run(s.operands);
  },
  setpriv: simpleWrapper({ long: ['ruid', 'euid', 'rgid', 'egid', 'reuid', 'regid', 'groups', 'inh-caps', 'ambient-caps', 'bounding-set', 'securebits', 'pdeathsig', 'selinux-label', 'apparmor-profile', 'landlock-access', 'landlock-rule'] }),
  setarch: setarch(false),
  linux32: setarch(true),
  linux64: setarch(true),
  i386: setarch(true),
  x86_64: setarch(true),
  uname26: setarch(true),
  'ssh-agent': simpleWrapper({ short: 'aEOPt' }),
  'dbus-run-session': simpleWrapper({ long: ['config-file', 'dbus-daemon'] }),
  nsenter: simpleWrapper({ short: 'tSGwWr', optional: 'muinpUCT', long: ['target', 'setuid', 'setgid', 'wd', 'root', 'env'] }, 0, true),
  valgrind: simpleWrapper({}),
  // GNU parallel builds its commands from its input and its `:::` lists.
  parallel: (args) => (args.length ? { kind: 'opaque' } : { kind: 'none' }),
  strace: simpleWrapper({ short: 'oeEpPsSuaIbX' }),
  ltrace: simpleWrapper({ short: 'oeEpPsSuaIbX' }),
};

const SHELLS = new Set(['bash', 'sh', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'yash', 'posh', 'rbash', 'ksh93', 'pdksh']);
/** Builtins that can export a variable (run as a command: `command export …`, `builtin declare -x …`). */
const DECLARING = new Set(['export', 'declare', 'typeset', 'local', 'readonly']);

/** `set -a`, `set -ea`, `bash -a …` (an `a` among the options before the first operand or `--`), or `set $opts`. */
function exportsAll(args: readonly Value[], computed: boolean): boolean {
  for (const v of args) {
    if (v.kind !== 'literal') return computed;
    if (v.text === '--' || !v.text.startsWith('-') || v.text === '-') return false;
    if (/^-[A-Za-z]*a/.test(v.text)) return true;
  }
  return false;
}

/**
 * The first word of a declaration run as a command that may export a variable the gate cannot name, or
 * one that makes git run a program or use another repository (`command export GIT_{DIR,X}=…` expands
 * to GIT_DIR=…): a computed word, a name that is not an identifier, a nameref (`-n`). null: none.
 */
function declaredNames(args: readonly Value[]): string | null {
  for (const v of args) {
    if (v.kind !== 'literal') return show(v);
    if (/^[-+]/.test(v.text)) {
      if (/^-\w*n/.test(v.text)) return v.text;
      continue;
    }
    const declared = v.text.split('=')[0]!;
    if (!/^[A-Za-z_]\w*$/.test(declared) || GIT_PROGRAM_ENV.test(declared) || GIT_REPOSITORY_ENV.test(declared)) return v.text;
  }
  return null;
}
/**
 * A builtin that assigns the variable a computed word names (`printf -v "$v"`, `read "$v"`, `mapfile
 * "$a"`, `declare "$n=…"` run through `command`): it may be BASH_CMDS[cat] (see REBINDING in analyse.ts).
 */
function assignsComputedName(name: string, args: readonly Value[]): boolean {
  const computed = (vs: readonly (Value | null)[]): boolean => vs.some((v) => v !== null && v.kind !== 'literal');
  switch (name) {
    case 'printf':
      return computed(optionValues(scanOptions(args, { short: 'v', stopAtOperand: true }), 'v'));
    case 'read': {
      const s = scanOptions(args, { short: 'adinNptu' });
      return computed(s.operands) || computed(optionValues(s, 'a'));
    }
    case 'mapfile':
    case 'readarray':
      return computed(scanOptions(args, { short: 'dnOsuCc' }).operands);
    case 'getopts':
      return computed(args.slice(1, 2));
    default:
      return DECLARING.has(name) && args.some((v) => v.kind !== 'literal');
  }
}

/**
 * Builtins that evaluate an argument as a variable name or an arithmetic expression. An array subscript
 * in it is expanded then, quotes or not: `let 'a[$(rm x)]=1'`, `printf -v 'a[$(rm x)]' y`, `test -v …`.
 */
const EVALUATING = new Set(['let', 'declare', 'typeset', 'local', 'readonly', 'export', 'printf', 'read', 'test', '[', 'unset', 'mapfile', 'readarray', 'wait', 'getopts']);
/** Variables whose value bash runs or sources (a prompt's expansions, BASH_ENV's file), set before a command or on their own. */
export const SHELL_CODE_VARIABLES = new Set(['BASH_ENV', 'ENV', 'PROMPT_COMMAND', 'PS0', 'PS1', 'PS2', 'PS4']);
/** A subscript holding a command substitution (`a[$(…)]`, a backquote): code bash runs when it evaluates it. */
export const SUBSCRIPT_CODE = /\[[\s\S]*(?:\$\(|`)/;
/**
 * A word read as an assignment before a command's name: bash's NAME=value and NAME+=value, and any
 * other word with `=` after its first character (env's reading; to bash `9=x` would be the command, and
 * reading the next word as the command instead at worst refuses one that would not have run).
 */
const ASSIGNMENT_WORD = /^([^=]+?)\+?=/;
/** Shells whose language the gate does not parse. */
const FOREIGN_SHELLS = new Set(['fish', 'pwsh', 'powershell', 'nu', 'elvish', 'xonsh', 'tcsh', 'csh', 'rc', 'es']);
/** Paths that hand a shell code from a pipe or another process. */
const STREAM = /^\/(?:dev\/(?:stdin|fd\/(?:\d+|pipe:process-substitution))|proc\/[^/]+\/fd\/\d+)$/;

// ── One command ─────────────────────────────────────────────────────────────────

/**
 * Emits the effects of one simple command; returns the directories the shell may be in afterwards
 * when the command can change them (`cd`, `eval`, `source`).
 */
export function runInvocation(inv: Invocation, runner: Runner, depth = 0): CwdAfter {
  if (depth > 12) {
    runner.emit({ kind: 'opaque', command: showArgv(inv.argv), why: 'too-deep' });
    return undefined;
  }
  const [head, ...args] = inv.argv;
  if (!head) return undefined;
  // NAME=value and NAME+=value before the name are assignments to bash, whatever the grammar made of
  // them (tree-sitter-bash reads `_=x git stash` as a command named `_=x`): the command is the word after.
  // Here too any word with `=` counts (see ASSIGNMENT_WORD).
  const assignment = head.kind === 'literal' ? ASSIGNMENT_WORD.exec(head.text) : null;
  if (assignment) return runInvocation({ ...inv, argv: args, assigned: [...inv.assigned, assignment[1]!] }, runner, depth + 1);
  const text = showArgv(inv.argv);
  if (head.kind !== 'literal') {
    runner.emit({ kind: 'opaque', command: text, why: 'dynamic-command' });
    return undefined;
  }
  const name = commandName(head.text);
  const again = (argv: Value[], extra: Partial<Invocation> = {}): CwdAfter => runInvocation({ ...inv, argv, ...extra }, runner, depth + 1);
  const code = (words: Value[], cwd: Cwd = inv.cwd): boolean => {
    if (!allLiteral(words) || words.length === 0) {
      if (words.length) runner.emit({ kind: 'opaque', command: text, why: 'dynamic-code' });
      return false;
    }
    return runner.code(words.map((w) => w.text).join(' '), cwd);
  };

  if (name === 'script') {
    // script writes what the session shows to its file (./typescript by default) and its logs; without
    // -c it runs a shell, which reads its commands from script's own input.
    const s = scanOptions(args, { short: 'cEIOBTm', long: ['command', 'echo', 'log-in', 'log-out', 'log-io', 'log-timing', 'logging-format'] });
    emitWrites('script', targetsOf([s.operands[0] ?? lit('typescript'), ...optionValues(s, 'I', 'log-in', 'O', 'log-out', 'B', 'log-io', 'T', 'log-timing')], false), inv, runner, text);
    if (!hasOption(s, 'c', 'command') && inv.stdin.kind !== 'none') runner.emit({ kind: 'opaque', command: text, why: 'stdin-code' });
  }
  const wrapper = Object.hasOwn(WRAPPERS, name) ? WRAPPERS[name] : undefined;
  if (wrapper) {
    const u = wrapper(args);
    if (u.kind === 'none') return undefined;
    if (u.kind === 'opaque') {
      runner.emit({ kind: 'opaque', command: text, why: 'dynamic-command' });
      return undefined;
    }
    if (u.kind === 'code') {
      if (u.each) for (const word of u.code) code([word]);
      else code(u.code);
      return undefined;
    }
    if (name === 'flock') emitWrites(`flock`, targetsOf(scanOptions(args, { short: 'wEc', stopAtOperand: true }).operands.slice(0, 1), false), inv, runner);
    if (name === 'strace' || name === 'ltrace') emitWrites(name, targetsOf(optionValues(scanOptions(args, { short: 'oeEpPsSuaIbX', stopAtOperand: true }), 'o'), false), inv, runner);
    if (name === 'valgrind') emitWrites(name, valgrindWrites(args), inv, runner, text);
    if (name === 'ssh-agent') emitWrites(name, targetsOf(optionValues(scanOptions(args, { short: 'aEOPt', stopAtOperand: true }), 'a'), false), inv, runner);
    if (u.argv.length === 0) return undefined;
    const cwd = u.base ? chdir(inv.cwd, u.base, runner.home) : inv.cwd;
    const argv = u.appendDynamic ? [...u.argv, { kind: 'dynamic', text: '<input>' } as Value] : u.argv;
    // A coprocess reads what the shell writes to it later.
    const stdin: Stdin = name === 'coproc' ? { kind: 'pipe' } : inv.stdin;
    // exec, builtin and command run in this shell: a `cd` through them still moves it.
    const after = again(argv, { assigned: [...inv.assigned, ...(u.assigned ?? [])], cwd, stdin });
    return ['builtin', 'command', 'exec'].includes(name) ? after : undefined;
  }

  // A shell that sources a file or runs code from its environment first: BASH_ENV, ENV, PROMPT_COMMAND,
  // which an export the gate cannot name may have set.
  if (SHELLS.has(name) && inv.assigned.some((a) => SHELL_CODE_VARIABLES.has(a))) {
    runner.emit({ kind: 'opaque', command: text, why: 'program-option' });
    return undefined;
  }
  if (SHELLS.has(name) && runner.hiddenEnv) {
    runner.emit({ kind: 'opaque', command: `${runner.hiddenEnv} … ${text}`, why: 'hidden-environment' });
    return undefined;
  }
  // `set -a` (or `bash -a`): every variable assigned after it is exported, whatever sets it (read, for, printf -v).
  if ((name === 'set' || SHELLS.has(name)) && exportsAll(args, name === 'set')) runner.hideEnv(`${name} -a`);
  if (DECLARING.has(name)) {
    const hidden = declaredNames(args);
    if (hidden) runner.hideEnv(`${name} ${hidden}`);
  }
  if (assignsComputedName(name, args)) {
    runner.emit({ kind: 'opaque', command: text, why: 'rebinds-command' });
    return undefined;
  }
  if (EVALUATING.has(name) && args.some((v) => v.kind === 'literal' && SUBSCRIPT_CODE.test(v.text))) {
    runner.emit({ kind: 'opaque', command: text, why: 'dynamic-code' });
    return undefined;
  }
  if (SHELLS.has(name)) {
    // A shell takes its options after `+` as well (`+x`, `+o posix`, `+O extglob`; bash even `+c`).
    const plus = args.map((v): Value => (v.kind === 'literal' && /^\+[A-Za-z]/.test(v.text) ? { ...v, text: `-${v.text.slice(1)}` } : v));
    const s = scanOptions(plus, { short: 'oO', long: ['rcfile', 'init-file'], stopAtOperand: true });
    if (hasOption(s, 'c')) {
      const source = s.operands[0];
      if (source) code([source]);
      return undefined;
    }
    // `bash -` reads its commands from standard input, like `bash -s`.
    const script = s.operands[0]?.kind === 'literal' && s.operands[0].text === '-' ? undefined : s.operands[0];
    if (script && !hasOption(s, 's')) {
      if (script.kind !== 'literal' || STREAM.test(script.text)) runner.emit({ kind: 'opaque', command: text, why: script.kind === 'literal' ? 'stdin-code' : 'dynamic-code' });
      return undefined; // a script file: what it does is seen afterwards
    }
    if (inv.stdin.kind === 'code') runner.code(inv.stdin.text, inv.cwd);
    else if (inv.stdin.kind !== 'none') runner.emit({ kind: 'opaque', command: text, why: 'stdin-code' });
    return undefined;
  }
  if (FOREIGN_SHELLS.has(name)) {
    if (args.length || inv.stdin.kind !== 'none') runner.emit({ kind: 'opaque', command: text, why: 'dynamic-code' });
    return undefined;
  }

  switch (name) {
    case 'eval':
      return code(args) ? { cwd: null } : undefined;
    case 'source':
    case '.': {
      const file = args[0];
      if (file && (file.kind !== 'literal' || STREAM.test(file.text))) runner.emit({ kind: 'opaque', command: text, why: file.kind === 'literal' ? 'stdin-code' : 'dynamic-code' });
      return { cwd: null };
    }
    case 'trap': {
      const action = args[0]?.kind === 'literal' && args[0].text === '--' ? args[1] : args[0];
      if (!action || (action.kind === 'literal' && ['-p', '-l', '-', '', '--'].includes(action.text))) return undefined;
      return code([action]) ? { cwd: null } : undefined;
    }
    case 'alias':
      if (args.some((v) => v.kind !== 'literal' || v.text.includes('='))) runner.emit({ kind: 'opaque', command: text, why: 'alias' });
      return undefined;
    case 'hash':
      // `hash -p /bin/rm ls`: later `ls` runs rm.
      if (args.some((v) => v.kind !== 'literal' || /^-\w*p/.test(v.text))) runner.emit({ kind: 'opaque', command: text, why: 'rebinds-command' });
      return undefined;
    case 'enable':
      // `enable -f lib.so name` loads a builtin from a shared object: the name then runs its code.
      if (args.some((v) => v.kind !== 'literal' || /^-\w*f/.test(v.text))) runner.emit({ kind: 'opaque', command: text, why: 'rebinds-command' });
      return undefined;
    case 'mapfile':
    case 'readarray':
    case 'compgen':
    case 'complete': {
      // `mapfile -C cmd`, `complete -C cmd`: the value is code, run later.
      const s = scanOptions(args, { short: name === 'mapfile' || name === 'readarray' ? 'dnOsuCc' : 'oAGWFCXPSabcdefgjksuvp' });
      const callbacks = optionValues(s, 'C', ...(name === 'mapfile' || name === 'readarray' ? [] : ['F']));
      if (callbacks.length) code(callbacks);
      return undefined;
    }
    case 'fc':
      runner.emit({ kind: 'opaque', command: text, why: 'dynamic-code' });
      return undefined;
    case 'cd':
    case 'pushd': {
      const s = scanOptions(args, { stopAtOperand: true });
      const target = s.operands[0];
      if (name === 'pushd' && (!target || (target.kind === 'literal' && /^[+-]\d+$/.test(target.text)))) return { cwd: null };
      return { cwd: chdir(inv.cwd, target, runner.home, runner.pwdSet) };
    }
    case 'popd':
      return { cwd: null };
    case 'git':
      runGit(args, inv, runner, null);
      return undefined;
    case 'find': {
      const f = find(args);
      emitWrites('find', f.writes, inv, runner, text);
      for (const argv of f.exec) again(argv, { cwd: f.execdir ? null : inv.cwd, stdin: { kind: 'none' } });
      return undefined;
    }
  }
  if (name.startsWith('git-') && name.length > 4) {
    runGit(args, inv, runner, name.slice(4));
    return undefined;
  }
  const execSubs = (Object.hasOwn(EXEC_SUBCOMMANDS, name) ? EXEC_SUBCOMMANDS[name] : undefined);
  const sub = args[0]?.kind === 'literal' ? args[0].text : null;
  if (execSubs && sub && execSubs.includes(sub)) {
    const rest = scanOptions(args.slice(1), { short: 'pc', long: ['package', 'call'], stopAtOperand: true });
    const codeWords = optionValues(rest, 'c', 'call');
    if (codeWords.length) code(codeWords);
    else if (rest.operands.length) again(rest.operands);
    return undefined;
  }
  const writesProject = (Object.hasOwn(PROJECT_WRITING, name) ? PROJECT_WRITING[name] : undefined);
  const words = subcommands(args);
  const checking = args.some((v) => v.kind === 'literal' && CHECK_ONLY.has(v.text));
  if (writesProject?.(words) && !(checking && ['fmt', 'format'].includes(words[0] ?? ''))) runner.emit({ kind: 'write-unknown', command: text });
  if (name === 'cargo' && words[0] === 'fmt' && !checking) runner.emit({ kind: 'write-unknown', command: text });
  const writer = (Object.hasOwn(WRITERS, name) ? WRITERS[name] : undefined);
  let writes = writer?.(args);
  // mktemp in $TMPDIR: /tmp, unless the command sets TMPDIR itself.
  if (writes && name === 'mktemp' && !runner.tmpdirSet && !inv.assigned.includes('TMPDIR')) {
    writes = { ...writes, targets: (writes.targets ?? []).filter((t) => !(t.v.kind === 'dynamic' && t.v.text === '$TMPDIR')) };
  }
  if (writes) emitWrites(name, writes, inv, runner, text);
  else if (args.some((v) => v.kind === 'literal' && FIXING_FLAGS.test(v.text))) runner.emit({ kind: 'write-unknown', command: text });
  return undefined;
}

function runGit(args: Value[], inv: Invocation, runner: Runner, dashed: string | null): void {
  const result = analyseGit(args, runner.gitEnv ? [...inv.assigned, runner.gitEnv] : inv.assigned, dashed, runner.hiddenEnv);
  if (result.kind === 'refuse') {
    runner.emit(result.effect);
    return;
  }
  const cwd = result.chdir.reduce<Cwd>((c, v) => chdir(c, v, runner.home, runner.pwdSet), inv.cwd);
  const command = `git ${args.map(show).join(' ')}`;
  for (const dir of cwd ?? [null]) runner.emit({ kind: 'git-cwd', command, dir: dir === null ? { kind: 'dynamic', text: result.chdir.map(show).join(' ') || '$PWD' } : { kind: 'path', path: dir } });
  if (result.kind === 'write-unknown') runner.emit({ kind: 'write-unknown', command });
  else emitWrites('git', targetsOf(result.outputs, false), { cwd, fds: inv.fds }, runner);
}

function emitWrites(command: string, writes: Writes, at: Pick<Invocation, 'cwd' | 'fds'>, runner: Runner, text = command): void {
  if (writes.program) runner.emit({ kind: 'opaque', command: writes.program, why: 'program-option' });
  if (writes.unknown) runner.emit({ kind: 'write-unknown', command: text });
  const base = (writes.base ?? []).reduce<Cwd>((c, v) => chdir(c, v, runner.home), at.cwd);
  // A program that changes its own directory (`tar -C`) may open /proc/self/cwd there.
  const via: Surroundings = { fds: at.fds, cwd: writes.base?.length ? null : at.cwd };
  for (const t of writes.targets ?? []) {
    for (const target of resolvePath(t.v, base)) {
      runner.emit({ kind: 'write', command, target: t.tree && target.kind === 'path' ? { kind: 'tree', path: target.path } : target, recursive: t.recursive, via });
    }
  }
}
