/**
 * From a shell command's text to what it does: every simple command wherever it stands (lists,
 * pipelines, subshells, if/for/while/case, function bodies, `$(…)`, backticks, process substitution,
 * heredocs), every redirection, and the code inside `bash -c`, `eval`, `trap`, `xargs sh -c` …, parsed
 * again. Pure: the parser is passed in.
 */
import path from 'node:path';
import { SHELL_CODE_VARIABLES, SUBSCRIPT_CODE, joinKeepingDots, resolvePath, runInvocation, type Cwd, type Invocation, type Runner, type Stdin } from './commands';
import type { Descriptor, ShellEffect } from './effects';
import { gitEnvSet } from './git';
import { plainScript, type Parse, type SyntaxNode } from './syntax';
import { GrammarMismatch, wordValues, type Value, type WordContext } from './words';

export interface AnalyseOptions {
  /** null: analyse only what needs no parser; anything else throws NeedsParser. */
  parse: Parse | null;
  /** Absolute directory the command starts in. */
  cwd: string;
  home: string | null;
  /** false: every script through `parse`, none through the plain reading (the tests compare the two). */
  plain?: boolean;
}

export class NeedsParser extends Error {
  constructor() {
    super('this command needs the shell parser');
  }
}

export const MAX_COMMAND_LENGTH = 256 * 1024;
const MAX_DEPTH = 8;

export function analyseCommand(source: string, options: AnalyseOptions): ShellEffect[] {
  const effects: ShellEffect[] = [];
  analyseScript(source, [options.cwd], 0, { ...options, gitEnv: null, hidden: { env: null }, fds: { touched: new Set(), dups: [] } }, effects);
  return throughNewLinks(effects);
}

/** Commands that can leave a symlink where they write (ln itself, and the copiers and unpackers that keep links). */
const LINKERS = new Set(['ln', 'link', 'cp', 'mv', 'rsync', 'tar', 'unzip', 'cpio', 'install', 'ditto', 'pax', 'busybox']);

/**
 * A write below a path the same command may have made a symlink (`ln -s . s; rm s/.agents/x`): where it
 * lands is decided by that link, which the hook cannot resolve before it exists. It becomes a computed
 * target (refused for the loop's agents, with what to do instead).
 */
function throughNewLinks(effects: ShellEffect[]): ShellEffect[] {
  const links = effects.flatMap((e) => (e.kind === 'write' && LINKERS.has(e.command) && e.target.kind !== 'dynamic' ? [e.target.kind === 'glob' ? e.target.pattern : e.target.path] : []));
  if (links.length === 0) return effects;
  // Paths keep their `..` (see joinKeepingDots): compared as written and as text without them.
  const forms = (p: string): string[] => [p, path.posix.normalize(p)].map((f) => f.replace(/\/+$/, ''));
  const below = (p: string): boolean => links.some((l) => forms(l).some((lf) => forms(p).some((pf) => pf.startsWith(`${lf}/`))));
  return effects.map((e) => {
    // git run in such a link, or below it, runs wherever it leads.
    if (e.kind === 'git-cwd' && e.dir.kind === 'path') {
      const dir = e.dir.path;
      return below(dir) || links.some((l) => forms(l).some((lf) => forms(dir).includes(lf))) ? { ...e, dir: { kind: 'dynamic', text: dir } } : e;
    }
    if (e.kind !== 'write' || e.target.kind === 'dynamic') return e;
    const p = e.target.kind === 'glob' ? e.target.pattern : e.target.path;
    return below(p) ? { ...e, target: { kind: 'dynamic', text: p } } : e;
  });
}

/**
 * Names that change what a command name runs, wherever they stand (quotes and backslashes removed): the
 * hash table and the aliases through their arrays (`BASH_CMDS[cat]=/bin/rm`, read under expand_aliases),
 * a function passed in the environment (`env 'BASH_FUNC_cat%%=() { …; }' bash -c cat`), a library every
 * program loads first, and an indirect assignment (`${!n:=…}`), whose name is chosen when it runs. Also
 * refused where they are only read: no command of a review needs them.
 */
const REBINDING = /\bBASH_(?:CMDS|ALIASES|FUNC_)|\b(?:LD_PRELOAD|LD_AUDIT|DYLD_INSERT_LIBRARIES)\b|\$\{![^}]*=/;

/** Text in which bash runs code the tree holds as words: a backquote, or `$(` after a single quote (literal to the grammar, not to bash in "${…}", $((…)) and the like). */
const HIDDEN_CODE = /`|'[^']*\$\(/;

/** A backslash-newline (the backslash not itself escaped) between two characters that are not blanks. */
function joinedAcrossLines(source: string): boolean {
  for (let at = source.indexOf('\\\n'); at !== -1; at = source.indexOf('\\\n', at + 1)) {
    let slashes = 0;
    while (at - slashes >= 0 && source[at - slashes] === '\\') slashes++;
    const before = source[at - slashes];
    const after = source[at + 2];
    if (slashes % 2 === 1 && before !== undefined && !/\s/.test(before) && after !== undefined && !/\s/.test(after)) return true;
  }
  return false;
}

/**
 * Options, and what one script tells the scripts analysed after it. `hidden.env` (shared by every
 * script of the command, even where HOME makes a copy): the first spelling that exports variables the
 * gate cannot name.
 */
type Context = AnalyseOptions & { gitEnv: string | null; tmpdir?: boolean; hidden: { env: string | null }; fds: FdsSeen };

/**
 * The descriptors some redirection of the command (any script of it) opens or moves: `touched`, and
 * `dups` (N, M) for `N>&M`. A descriptor 0–2 that none touches, nor copies from one touched, is the
 * tool's own stream wherever the command runs; any other is known only where the command opens it
 * itself (see descriptorsOf).
 */
interface FdsSeen {
  touched: Set<number>;
  dups: [number, number][];
}

interface Site {
  /** In the script's own sequence of statements: a `cd` here moves every later statement. */
  top: boolean;
  inFunction: boolean;
  piped: boolean;
}
type Item =
  /** `extra`: the command's arguments that the grammar files under a heredoc (`rm <<EOF file`). */
  | { kind: 'command'; node: SyntaxNode; site: Site; stdin: Stdin; extra: SyntaxNode[]; redirects: SyntaxNode[] }
  /** `before`: the redirections of the same statement bash applies before this one. */
  | { kind: 'redirect'; node: SyntaxNode; site: Site; before: SyntaxNode[] }
  /** Code bash runs that the tree holds as text: a quoted subscript in `[[ 'a[$(rm x)]' -eq 1 ]]`. */
  | { kind: 'opaque'; node: SyntaxNode; site: Site }
  /** A declaration that may export a variable the gate cannot name (`export "$n=…"`, `export GIT_{DIR,X}=…`). */
  | { kind: 'hidden-export'; node: SyntaxNode; site: Site };

/** Analyses one script; true when it may change the directory of the shell that runs it. */
function analyseScript(source: string, cwd: Cwd, depth: number, options: Context, effects: ShellEffect[]): boolean {
  if (depth > MAX_DEPTH) {
    effects.push({ kind: 'opaque', command: source.slice(0, 80), why: 'too-deep' });
    return false;
  }
  if (source.length > MAX_COMMAND_LENGTH) {
    effects.push({ kind: 'unparseable', why: `longer than ${MAX_COMMAND_LENGTH / 1024} KB` });
    return false;
  }
  // Bash joins a word across a backslash-newline (`r\⏎m x` runs rm); the grammar splits it there.
  if (joinedAcrossLines(source)) {
    effects.push({ kind: 'unparseable', why: 'a line continuation inside a word' });
    return false;
  }
  // A command that sets HOME itself moves `~` and a bare `cd` where the gate cannot follow.
  if (options.home !== null && /(?<![\w$]|\$\{)HOME(?!\w)/.test(source)) options = { ...options, home: null };
  const script = (options.plain === false ? null : plainScript(source)) ?? (options.parse ? options.parse(source) : null);
  if (!script) throw new NeedsParser();
  if (!script.complete) {
    effects.push({ kind: 'unparseable', why: script.why ?? 'not valid bash' });
    return false;
  }
  // Set for this script and every one after it: an exported variable reaches later git commands.
  options.gitEnv ??= gitEnvSet(source);
  options.tmpdir ||= /\bTMPDIR\b/.test(source);
  // What a command name runs, rebound by name (the hash table, the aliases, an exported function, a preloaded library).
  const rebinding = REBINDING.exec(source.replace(/["'\\]/g, ''));
  if (rebinding) {
    effects.push({ kind: 'opaque', command: rebinding[0], why: 'rebinds-command' });
    return false;
  }
  // `set -o allexport`, `shopt -so allexport`, SHELLOPTS=allexport: every assignment after it is exported.
  if (/\ballexport\b/.test(source)) options.hidden.env ??= 'allexport';
  const words: WordContext = { home: options.home, gitNames: depth === 0 && /merge-base|rev-parse/.test(source) && namesSafe(source, script.root) };
  try {
    const items = collect(script.root, words);
    noteDescriptors(script.root, words, options.fds);
    const runner = (into: ShellEffect[]): Runner => ({
      home: options.home,
      get gitEnv() {
        return options.gitEnv;
      },
      get tmpdirSet() {
        return options.tmpdir;
      },
      pwdSet: /(?<![\w$]|\$\{)PWD(?!\w)/.test(source),
      get hiddenEnv() {
        return options.hidden.env;
      },
      hideEnv: (what) => {
        options.hidden.env ??= what;
      },
      emit: (e) => into.push(e),
      code: (code, at) => analyseScript(code, at, depth + 1, options, into),
    });
    // Pass 1: which statements may move the shell (cd, pushd, eval "cd …", source …)?
    const scratch: ShellEffect[] = [];
    const moves = items.map((item) => item.kind === 'command' && runInvocation(invocation(item, cwd, words, options.fds), runner(scratch)) !== undefined);
    for (const item of items) if (item.kind === 'opaque') effects.push({ kind: 'opaque', command: item.node.text.slice(0, 80), why: 'dynamic-code' });
    for (const item of items) if (item.kind === 'hidden-export') options.hidden.env ??= item.node.text.slice(0, 80);
    const anyMove = moves.some(Boolean);
    // CDPATH, and `shopt -s cdable_vars` (`cd d` goes to $d), send a cd where its word does not say.
    const lost = items.some((item, k) => moves[k] && (!item.site.top || item.site.inFunction)) || (anyMove && (source.includes('CDPATH') || source.includes('cdable_vars')));
    // Pass 2: the effects, each statement in the directories it may run in.
    let here: Cwd = lost ? null : cwd;
    for (const item of items) {
      const at = item.site.inFunction ? (anyMove ? null : cwd) : here;
      if (item.kind === 'redirect') {
        redirect(item.node, at, words, effects, descriptorsOf(item.before, at, words, options.fds));
        continue;
      }
      if (item.kind !== 'command') continue;
      const after = runInvocation(invocation(item, at, words, options.fds), runner(effects));
      if (after && here !== null) here = after.cwd === null ? null : [...new Set([...here, ...after.cwd])]; // the cd may fail
    }
    // A name chosen when it runs may be BASH_CMDS[cat] or BASH_ALIASES[ls]: what a later command runs.
    // Last, so that a more telling refusal of the same command (git, a hidden export) is the one shown.
    for (const item of items) if (item.kind === 'hidden-export') effects.push({ kind: 'opaque', command: item.node.text.slice(0, 80), why: 'rebinds-command' });
    return anyMove;
  } catch (err) {
    if (!(err instanceof GrammarMismatch)) throw err;
    effects.push({ kind: 'unparseable', why: err.message });
    return false;
  }
}

// ── Object names ────────────────────────────────────────────────────────────────

/** Bash's builtins and the keywords the grammar files as a command's name. */
const BUILTINS = new Set([
  '.', ':', '[', 'alias', 'bg', 'bind', 'break', 'builtin', 'caller', 'cd', 'command', 'compgen', 'complete', 'compopt', 'continue', 'declare',
  'dirs', 'disown', 'echo', 'enable', 'eval', 'exec', 'exit', 'export', 'false', 'fc', 'fg', 'getopts', 'hash', 'help', 'history', 'jobs', 'kill',
  'let', 'local', 'logout', 'mapfile', 'popd', 'printf', 'pushd', 'pwd', 'read', 'readarray', 'readonly', 'return', 'set', 'shift', 'shopt',
  'source', 'suspend', 'test', 'times', 'trap', 'true', 'type', 'typeset', 'ulimit', 'umask', 'unalias', 'unset', 'wait', 'coproc', 'select', 'function',
]);
/** Builtins that set no variable, define nothing and change no option. */
const NAMES_SAFE_BUILTINS = new Set(['cd', 'echo', 'pwd', 'true', 'false', ':']);
/** Syntax that assigns a variable (`for`, arithmetic, `a[i]`), defines a function, or expands a parameter. */
const NAMES_UNSAFE_SYNTAX = new Set([
  'function_definition', 'variable_assignment', 'variable_assignments', 'declaration_command', 'unset_command', 'test_command', 'for_statement',
  'c_style_for_statement', 'select_statement', 'arithmetic_expansion', 'expansion', 'simple_expansion', 'subscript', 'brace_expression',
  'process_substitution', 'ansi_c_string', 'translated_string', 'extglob_pattern',
]);

/**
 * Whether the `git` of a substitution in this command is git and its output is split on blanks, so that
 * a word of them may be read as object names: the command's own text (not code it runs: an exported
 * function reaches `bash -c`), which assigns no variable (IFS, PATH, BASH_CMDS[git], BASH_ALIASES, by a
 * name it need not spell: `read`, `printf -v "${v}FS"`, `$((w))`), defines no function, and runs no
 * builtin that could do either or load one (eval, source, trap, enable, hash, shopt, command …).
 */
function namesSafe(source: string, root: SyntaxNode): boolean {
  if (/IFS|PATH|BASH_(?:ALIASES|CMDS|FUNC)|\(\s*\)|\bfunction\b/.test(source.replace(/["'\\]/g, ''))) return false;
  const safe = (n: SyntaxNode): boolean => {
    if (NAMES_UNSAFE_SYNTAX.has(n.type) || (n.type === 'compound_statement' && n.text.startsWith('(('))) return false;
    if (n.type === 'command') {
      const name = n.children.find((c) => c.field === 'name')?.text ?? '';
      if (!NAMES_SAFE_BUILTINS.has(name) && (!/^[A-Za-z0-9_./-]+$/.test(name) || BUILTINS.has(name))) return false;
    }
    return n.children.every(safe);
  };
  return safe(root);
}

// ── Walking the tree ────────────────────────────────────────────────────────────

const isPipe = (n: SyntaxNode | undefined): boolean => !!n && !n.named && (n.type === '|' || n.type === '|&');
const quotedDelimiter = (heredoc: SyntaxNode): boolean => /['"\\]/.test(heredoc.children.find((c) => c.type === 'heredoc_start')?.text ?? '');

function collect(root: SyntaxNode, words: WordContext): Item[] {
  const items: Item[] = [];
  const visit = (n: SyntaxNode, site: Site, redirects: SyntaxNode[]): void => {
    switch (n.type) {
      case 'program':
      case 'list':
        for (const c of n.children) visit(c, site, []);
        return;
      case 'redirected_statement': {
        const own = n.children.filter((c) => c.field === 'redirect' || c.type.endsWith('_redirect'));
        // `{ bash; } <<EOF`: whatever reads standard input inside the body reads the redirection.
        const input = own.some((r) => r.type !== 'file_redirect' || r.children.some((c) => !c.named && c.type.startsWith('<')));
        const body = n.children.find((c) => c.field === 'body');
        const simple = body?.type === 'command';
        // A simple command's own redirections follow those written before its name.
        const leading = simple ? body.children.filter((c) => c.field === 'redirect') : [];
        for (const c of n.children) {
          if (c.field !== 'body') visit(c, { ...site, top: false }, [...leading, ...own.slice(0, own.indexOf(c))]);
          else if (simple) visit(c, site, own);
          else visit(c, { ...site, piped: site.piped || input }, []);
        }
        return;
      }
      case 'pipeline':
        n.children.forEach((c, k) => visit(c, { ...site, top: false, piped: site.piped || isPipe(n.children[k - 1]) }, []));
        return;
      case 'command': {
        const leading = n.children.filter((c) => c.field === 'redirect');
        items.push({
          kind: 'command',
          node: n,
          site,
          stdin: stdinOf([...leading, ...redirects], site.piped, words),
          extra: redirects.filter((r) => r.type === 'heredoc_redirect').flatMap((r) => r.children.filter((c) => c.field === 'argument')),
          redirects: [...leading, ...redirects],
        });
        for (const c of n.children) visit(c, { ...site, top: false }, c.field === 'redirect' ? leading.slice(0, leading.indexOf(c)) : []);
        return;
      }
      case 'process_substitution':
        // What runs inside >(…) reads the output written to it.
        for (const c of n.children) visit(c, { ...site, top: false, piped: site.piped || n.text.startsWith('>(') }, []);
        return;
      case 'expansion':
      case 'arithmetic_expansion':
      case 'subscript':
        // "${x:-'$(rm y)'}", ${x:-`rm y`}, $(( '$(rm y)' )), ${a['$(rm y)']}, ${x@P} (a value run as a prompt).
        if (HIDDEN_CODE.test(n.text) || /@P\}$/.test(n.text)) items.push({ kind: 'opaque', node: n, site });
        for (const c of n.children) visit(c, { ...site, top: false }, []);
        return;
      case 'compound_statement':
        if (n.text.startsWith('((') && HIDDEN_CODE.test(n.text)) items.push({ kind: 'opaque', node: n, site });
        for (const c of n.children) visit(c, { ...site, top: false }, []);
        return;
      case 'variable_assignment': {
        // A value bash later runs (a prompt, PROMPT_COMMAND, BASH_ENV's file), or code kept in quotes for later.
        const name = n.children.find((c) => c.field === 'name')?.text ?? '';
        const value = n.children.find((c) => c.field === 'value');
        const kept = (v: SyntaxNode): boolean => ((v.type === 'raw_string' || v.type === 'ansi_c_string') && /`|\$\(/.test(v.text)) || (v.type === 'concatenation' && v.children.some(kept));
        if (SHELL_CODE_VARIABLES.has(name) || (value && kept(value))) items.push({ kind: 'opaque', node: n, site });
        for (const c of n.children) visit(c, { ...site, top: false }, []);
        return;
      }
      case 'test_command':
      case 'declaration_command':
      case 'unset_command':
        // Arithmetic operands of [[ … ]] are evaluated, and the names given to declare, local, export,
        // readonly and unset: a subscript in them is expanded then, quoted or not.
        if (
          n.children.some(function quoted(c: SyntaxNode): boolean {
            return ((c.type === 'raw_string' || c.type === 'string') && SUBSCRIPT_CODE.test(c.text)) || c.children.some(quoted);
          }) ||
          (n.type === 'declaration_command' && n.children.some((c) => new RegExp(`^['"]?(?:${[...SHELL_CODE_VARIABLES].join('|')})=`).test(c.text)))
        ) {
          items.push({ kind: 'opaque', node: n, site });
        }
        if (n.type === 'declaration_command' && hidesExport(n)) items.push({ kind: 'hidden-export', node: n, site });
        for (const c of n.children) visit(c, { ...site, top: false }, []);
        return;
      case 'function_definition':
        for (const c of n.children) visit(c, { ...site, top: false, inFunction: true }, []);
        return;
      case 'file_redirect':
        items.push({ kind: 'redirect', node: n, site, before: redirects });
        for (const c of n.children) visit(c, { ...site, top: false }, []);
        return;
      case 'heredoc_redirect':
        for (const c of n.children) {
          if (c.type === 'heredoc_body') {
            // Bash ends a heredoc at the first line that is its delimiter; the grammar can carry an open
            // `${…` or `$(…` past it, reading the lines after it as heredoc text, which bash runs.
            const delimiter = (n.children.find((p) => p.type === 'heredoc_start')?.text ?? '').replace(/['"\\]/g, '');
            const dash = n.children.some((p) => !p.named && p.type === '<<-');
            if (delimiter && c.text.split('\n').slice(0, -1).some((line) => (dash ? line.replace(/^\t+/, '') : line) === delimiter)) throw new GrammarMismatch(`a heredoc body holding its own delimiter line (${delimiter})`);
            if (quotedDelimiter(n)) continue; // literal text
            // The grammar leaves backticks in an unquoted heredoc as text; bash runs them.
            const texts = c.children.length ? c.children.filter((p) => p.type === 'heredoc_content').map((p) => p.text) : [c.text];
            for (const text of texts) if (/(^|[^\\])`/.test(text)) throw new GrammarMismatch(text);
          }
          visit(c, { ...site, top: false }, []);
        }
        return;
      default:
        for (const c of n.children) visit(c, { ...site, top: false }, []);
    }
  };
  visit(root, { top: true, inFunction: false, piped: false }, []);
  return items;
}

/**
 * A declaration (export, declare, typeset, local, readonly) whose words are not each a plain NAME or
 * NAME=value: a computed name (`export "$n=…"`, `declare -x GIT_$x=1`), a brace or glob in one (the
 * grammar splits `GIT_{DIR,X}=…` into two words with no blank between them), or a nameref (`-n`), whose
 * name is chosen later. Such a declaration can export any variable.
 */
function hidesExport(n: SyntaxNode): boolean {
  const words = n.children.filter((c) => c.named && c.type !== 'comment');
  const plain = (c: SyntaxNode): boolean =>
    (c.type === 'variable_name' && /^[A-Za-z_]\w*$/.test(c.text)) ||
    (c.type === 'variable_assignment' && c.children.some((p) => p.field === 'name' && p.type === 'variable_name')) ||
    (c.type === 'word' && (c.text === '--' || (/^[-+][A-Za-z]+$/.test(c.text) && !/^-\w*n/.test(c.text))));
  const spaced = (text: string): string => text.replace(/\s+/g, ' ').trim();
  const keyword = n.children.find((c) => !c.named)?.text ?? '';
  return !words.every(plain) || spaced(n.text) !== spaced([keyword, ...words.map((c) => c.text)].join(' '));
}

/** Where a command's standard input comes from, when it matters (a shell reading commands from it). */
function stdinOf(redirects: SyntaxNode[], piped: boolean, words: WordContext): Stdin {
  for (const r of redirects) {
    if (r.type === 'heredoc_redirect') {
      const body = r.children.find((c) => c.type === 'heredoc_body');
      if (!body) return { kind: 'code', text: '' };
      return quotedDelimiter(r) || body.children.every((c) => c.type === 'heredoc_content') ? { kind: 'code', text: body.text } : { kind: 'dynamic' };
    }
    if (r.type === 'herestring_redirect') {
      const value = r.children.find((c) => c.named && c.type !== 'file_descriptor');
      const vs = value ? wordValues(value, words) : [];
      return vs.length === 1 && vs[0]!.kind === 'literal' ? { kind: 'code', text: vs[0]!.text } : { kind: 'dynamic' };
    }
    if (r.type === 'file_redirect' && r.children.some((c) => !c.named && c.type.startsWith('<'))) {
      const fd = r.children.find((c) => c.field === 'descriptor');
      if (!fd || fd.text === '0') return { kind: 'dynamic' };
    }
  }
  return piped ? { kind: 'pipe' } : { kind: 'none' };
}

function invocation(item: Extract<Item, { kind: 'command' }>, cwd: Cwd, words: WordContext, seen: FdsSeen): Invocation {
  const argv: Value[] = [];
  const assigned: string[] = [];
  for (const c of item.node.children) {
    if (c.field === 'name') {
      const parts = c.children.filter((p) => p.type !== 'comment');
      argv.push(...wordValues(parts.length === 1 ? parts[0]! : { ...c, type: 'concatenation', children: parts }, words));
    } else if (c.field === 'argument') argv.push(...wordValues(c, words));
    else if (c.type === 'variable_assignment') assigned.push(c.children.find((p) => p.field === 'name')?.text ?? '');
  }
  for (const c of item.extra) argv.push(...wordValues(c, words));
  return { argv, assigned, cwd, stdin: item.stdin, fds: descriptorsOf(item.redirects, cwd, words, seen) };
}

/** Operators that open a file for writing; `>&` does too unless its target is a descriptor. */
const WRITING = new Set(['>', '>>', '>|', '&>', '&>>', '<>', '>&']);
const NOT_WRITING = new Set(['<', '<&', '>&-', '<&-', '<<', '<<-', '<<<']);

function redirect(n: SyntaxNode, cwd: Cwd, words: WordContext, effects: ShellEffect[], fds: Record<number, Descriptor>): void {
  const op = n.children.find((c) => !c.named)?.type ?? '>';
  if (NOT_WRITING.has(op)) return;
  const dest = n.children.find((c) => c.field === 'destination');
  if (!dest) return;
  const values = wordValues(dest, words);
  if (op === '>&' && values.length === 1 && values[0]!.kind === 'literal' && /^(\d+|-)$/.test(values[0]!.text)) return;
  if (!WRITING.has(op) && op !== '>&') effects.push({ kind: 'unparseable', why: `unknown redirection ${op}` });
  for (const v of values) for (const target of resolvePath(v, cwd)) effects.push({ kind: 'write', command: n.text, target, recursive: false, via: { fds, cwd } });
}

// ── Descriptors ─────────────────────────────────────────────────────────────────

const DUPLICATING = new Set(['>&', '<&']);

/** The descriptors a redirection sets (`&>` both 1 and 2), its operator and its destination's words. */
function redirection(r: SyntaxNode, words: WordContext): { fds: number[] | null; op: string; values: Value[] } {
  const op = r.children.find((c) => !c.named)?.type ?? '>';
  const given = r.children.find((c) => c.field === 'descriptor' || c.type === 'file_descriptor');
  const dest = r.children.find((c) => c.field === 'destination' || (r.type === 'herestring_redirect' && c.named && c.type !== 'file_descriptor'));
  const values = dest && r.type === 'file_redirect' ? wordValues(dest, words) : [];
  if (given) return { fds: /^\d+$/.test(given.text) ? [Number(given.text)] : null, op, values };
  if (op === '&>' || op === '&>>' || (op === '>&' && !(values.length === 1 && values[0]!.kind === 'literal' && /^(\d+|-)$/.test(values[0]!.text)))) return { fds: [1, 2], op, values };
  return { fds: [op.startsWith('<') ? 0 : 1], op, values };
}

/**
 * The descriptor a redirection copies: `N>&M`, or a path naming one of the shell's own (`>/dev/stderr`
 * reopens what 2 holds). null: none.
 */
function copiedFrom(op: string, dest: string | null): number | null {
  if (dest === null) return null;
  if (DUPLICATING.has(op)) return /^\d+$/.test(dest) ? Number(dest) : null;
  const named = /^\/(?:dev\/(?:fd\/(\d+)|(stdin|stdout|stderr))|proc\/(?:self|thread-self)\/fd\/(\d+))$/.exec(dest.replace(/\/+/g, '/'));
  if (!named) return null;
  return named[2] ? ['stdin', 'stdout', 'stderr'].indexOf(named[2]) : Number(named[1] ?? named[3]);
}

const literalText = (vs: readonly Value[]): string | null => (vs.length === 1 && vs[0]!.kind === 'literal' ? vs[0]!.text : null);

/**
 * Notes every descriptor a redirection of this script opens or moves (`{var}>` names one the gate
 * cannot number: all of 0–2 then). /dev/null, heredocs and here-strings leave a descriptor a stream;
 * `N>&M` makes N what M is.
 */
function noteDescriptors(root: SyntaxNode, words: WordContext, seen: FdsSeen): void {
  const walk = (n: SyntaxNode): void => {
    if (n.type === 'file_redirect' || n.type === 'heredoc_redirect' || n.type === 'herestring_redirect') {
      const r = redirection(n, words);
      const dest = literalText(r.values);
      if (r.fds === null) [0, 1, 2].forEach((fd) => seen.touched.add(fd));
      else if (n.type !== 'file_redirect' || dest === '/dev/null' || dest === '-') {
        // a stream, or closed
      } else if (copiedFrom(r.op, dest) !== null) for (const fd of r.fds) seen.dups.push([fd, copiedFrom(r.op, dest)!]);
      else for (const fd of r.fds) seen.touched.add(fd);
    }
    n.children.forEach(walk);
  };
  walk(root);
}

/** Whether descriptor `fd` (0–2) is, wherever the command stands, still the tool's own stream. */
function toolStream(fd: number, seen: FdsSeen): boolean {
  if (fd > 2) return false;
  const touched = new Set(seen.touched);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [to, from] of seen.dups) if (!touched.has(to) && (touched.has(from) || from > 2)) touched.add(to), (grew = true);
  }
  return !touched.has(fd);
}

/**
 * What descriptors 0–9 hold for a command whose own redirections (those bash has applied so far) are
 * `redirects`: set by them, or else the tool's stream (see toolStream), or else unknown.
 */
function descriptorsOf(redirects: readonly SyntaxNode[], cwd: Cwd, words: WordContext, seen: FdsSeen): Record<number, Descriptor> {
  const fds: Record<number, Descriptor> = {};
  for (let fd = 0; fd <= 9; fd++) fds[fd] = toolStream(fd, seen) ? { kind: 'stream' } : { kind: 'unknown' };
  for (const n of redirects) {
    const r = redirection(n, words);
    if (r.fds === null) continue; // `{var}>`: a descriptor of 10 or more, never one the gate decided
    const dest = literalText(r.values);
    let held: Descriptor;
    if (n.type !== 'file_redirect' || dest === '-') held = { kind: 'stream' };
    else if (copiedFrom(r.op, dest) !== null) held = fds[copiedFrom(r.op, dest)!] ?? { kind: 'unknown' };
    else if (cwd === null && r.values.some((v) => v.kind !== 'literal' || !v.text.startsWith('/'))) held = { kind: 'unknown' };
    else if (r.values.length !== 1 || r.values[0]!.kind !== 'literal') held = { kind: 'unknown' };
    else {
      const text = r.values[0]!.text;
      held = { kind: 'paths', paths: text.startsWith('/') ? [joinKeepingDots('/', text)] : (cwd ?? []).map((d) => joinKeepingDots(d, text)) };
    }
    for (const fd of r.fds) fds[fd] = held;
  }
  return fds;
}
