/**
 * What a git invocation may do. Read-only subcommands are listed (with the arguments that keep them
 * read-only); everything else, including an alias or a subcommand this list does not know, is refused:
 * an allowlist cannot be spelled around.
 */
import { hasOption as hasExactly, scanOptions, type OptionSpec, type Scanned, type ShellEffect } from './effects';
import type { Value } from './words';

export type GitResult =
  | { kind: 'read'; chdir: Value[]; outputs: Value[] }
  | { kind: 'refuse'; effect: ShellEffect }
  /** `git apply` without --index: writes the working tree, where the patch says. */
  | { kind: 'write-unknown'; chdir: Value[] };

const lit = (text: string): Value => ({ kind: 'literal', text });

/** Options of git itself (before the subcommand) that take a separate value. */
const GLOBAL_VALUED = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--super-prefix', '--list-cmds', '--attr-source']);
const GLOBAL_FLAGS = new Set([
  '-p', '--paginate', '-P', '--no-pager', '--bare', '--no-replace-objects', '--no-lazy-fetch', '--no-optional-locks', '--no-advice',
  '--literal-pathspecs', '--glob-pathspecs', '--noglob-pathspecs', '--icase-pathspecs', '--html-path', '--man-path', '--info-path',
  '--version', '-v', '--help', '-h', '--exec-path',
]);

/** Configuration that cannot make a read-only command run a program or read more configuration. */
const HARMLESS_CONFIG =
  /^(?:(?:color|user|author|committer|advice|i18n|pretty|column|grep|status|blame|log|init|safe|format)\.[^\s]+|core\.(?:quotepath|abbrev|autocrlf|safecrlf|commentchar|commentstring|ignorecase|precomposeunicode|filemode|whitespace|eol|pager-disabled)|diff\.(?:noprefix|mnemonicprefix|renames|renamelimit|algorithm|context|interhunkcontext|relative|indentheuristic|suppressblankempty|colormoved|colormovedws|wserrorhighlight|statgraphwidth|statnamewidth|ignoresubmodules|dirstat))$/i;

/**
 * Environment that makes git run a program, read other configuration (HOME: ~/.gitconfig) or write a
 * trace file; GIT_TEST_FSMONITOR names a program as core.fsmonitor does, the other test knobs write files.
 */
const PROGRAM_ENV = 'GIT_(?:CONFIG\\w*|EXTERNAL_DIFF|PAGER|SSH\\w*|ASKPASS|PROXY_COMMAND|EXEC_PATH|TRACE\\w*|TEST_\\w*|EDITOR|SEQUENCE_EDITOR|TEMPLATE_DIR|DIFF_OPTS)|SSH_ASKPASS|HOME|XDG_CONFIG_HOME|PAGER|MANPAGER|LESSOPEN|LESSCLOSE|EDITOR|VISUAL';
export const GIT_PROGRAM_ENV = new RegExp(`^(?:${PROGRAM_ENV})$`);
/**
 * Environment that points git at a git directory, index or work tree of the command's choosing: that
 * directory's config (core.fsmonitor) runs a program under `git status`, GIT_INDEX_FILE is rewritten
 * where it says. Such a git is refused unless it is refused already as a mutation.
 */
const REPOSITORY_ENV = 'GIT_(?:DIR|WORK_TREE|COMMON_DIR|INDEX_FILE|OBJECT_DIRECTORY|ALTERNATE_OBJECT_DIRECTORIES)';
export const GIT_REPOSITORY_ENV = new RegExp(`^(?:${REPOSITORY_ENV})$`);
const GIT_ENV = `(${PROGRAM_ENV}|${REPOSITORY_ENV})`;
/** Either kind given a value anywhere in a script's text: `export GIT_EXTERNAL_DIFF=…; git diff`, `: ${GIT_DIR:=…}`. */
const GIT_ENV_ASSIGNED = new RegExp(`(?<![\\w$])${GIT_ENV}\\s*[+:]?=`);
/** Or named by a declaration without one (`read GIT_DIR; export GIT_DIR`). */
const GIT_ENV_DECLARED = new RegExp(`\\b(?:export|declare|typeset|readonly|local)\\b[^;&|\\n]*?(?<![\\w$])${GIT_ENV}(?!\\w)`);

/** The first such name a script sets, read with its quotes and backslashes taken out (`export GIT_"DIR"=…`). */
export function gitEnvSet(source: string): string | null {
  const text = source.replace(/\$(?=['"])|["'\\]/g, '');
  return (GIT_ENV_ASSIGNED.exec(text) ?? GIT_ENV_DECLARED.exec(text))?.[1] ?? null;
}

const READ_ONLY = new Set([
  'status', 'diff', 'log', 'show', 'blame', 'annotate', 'grep', 'shortlog', 'describe', 'rev-parse', 'rev-list', 'ls-files', 'ls-tree',
  'ls-remote', 'cat-file', 'diff-tree', 'diff-files', 'diff-index', 'merge-base', 'name-rev', 'for-each-ref', 'show-ref', 'show-branch',
  'whatchanged', 'range-diff', 'cherry', 'count-objects', 'verify-commit', 'verify-tag', 'check-ignore', 'check-attr', 'check-ref-format',
  'check-mailmap', 'var', 'version', 'help', 'patch-id', 'stripspace', 'get-tar-commit-id', 'column',
]);

/** Subcommands that are read-only in some forms: true when this form is. */
const SOMETIMES: Record<string, (s: Scanned, args: readonly Value[]) => boolean> = {
  branch: (s) => {
    if (hasOption(s, 'd', 'D', 'delete', 'm', 'M', 'move', 'c', 'C', 'copy', 'f', 'force', 'u', 'set-upstream-to', 'unset-upstream', 'edit-description', 't', 'track', 'no-track', 'create-reflog', 'set-upstream')) return false;
    return s.operands.length === 0 || hasOption(s, 'l', 'list') || hasOption(s, 'show-current');
  },
  tag: (s) => {
    if (hasOption(s, 'a', 'annotate', 's', 'sign', 'u', 'local-user', 'f', 'force', 'd', 'delete', 'm', 'message', 'F', 'file', 'e', 'edit', 'create-reflog', 'no-sign')) return false;
    return s.operands.length === 0 || hasOption(s, 'l', 'list', 'v', 'verify');
  },
  remote: (s) => s.operands.length === 0 || ['show', 'get-url'].includes(firstText(s)),
  config: (s) => {
    if (hasOption(s, 'e', 'edit', 'unset', 'unset-all', 'add', 'replace-all', 'rename-section', 'remove-section', 'fixed-value')) return false;
    if (hasOption(s, 'get', 'get-all', 'get-regexp', 'get-urlmatch', 'get-color', 'get-colorbool', 'l', 'list')) return true;
    // `git config user.name` reads; `git config user.name x` writes; `git config get|list …` (git 2.46) read.
    return ['get', 'list'].includes(firstText(s)) || s.operands.length === 1;
  },
  stash: (s) => ['list', 'show'].includes(firstText(s)),
  worktree: (s) => firstText(s) === 'list',
  submodule: (s) => s.operands.length === 0 || ['status', 'summary'].includes(firstText(s)),
  notes: (s) => s.operands.length === 0 || ['list', 'show'].includes(firstText(s)),
  reflog: (s) => !['expire', 'delete', 'drop'].includes(firstText(s)),
  bisect: (s) => firstText(s) === 'log',
  'hash-object': (s) => !hasOption(s, 'w'),
  fsck: (s) => !hasOption(s, 'lost-found'),
  archive: () => true,
  // `git merge-tree --write-tree` writes the merged trees into the object store.
  'merge-tree': (s) => !hasOption(s, 'write-tree'),
};

/**
 * Whether an option was given, as git's parse-options reads it: a long option by any prefix of two
 * characters or more (`--lost` is --lost-found, `--write` --write-tree, `--unset-up` --unset-upstream).
 */
const hasOption = (s: Scanned, ...names: string[]): boolean =>
  hasExactly(s, ...names) || s.options.some((o) => o.name.length >= 2 && names.some((n) => n.length > o.name.length && n.startsWith(o.name)));

const firstText = (s: Scanned): string => (s.operands[0]?.kind === 'literal' ? s.operands[0].text : '');

/** Per-subcommand option specs: which options take a value, so operands are told apart from values. */
const SPECS: Record<string, OptionSpec> = {
  branch: { long: ['contains', 'no-contains', 'merged', 'no-merged', 'points-at', 'sort', 'format', 'set-upstream-to'], short: 'u' },
  tag: { long: ['contains', 'no-contains', 'merged', 'no-merged', 'points-at', 'sort', 'format', 'message', 'file', 'local-user', 'cleanup'], short: 'mFun' },
  config: { long: ['file', 'blob', 'type', 'default', 'comment'], short: 'f' },
  archive: { long: ['output', 'format', 'prefix', 'remote', 'exec', 'add-file', 'add-virtual-file'], short: 'o' },
  'ls-remote': { long: ['upload-pack', 'sort', 'server-option'], short: 'uo' },
  grep: { short: 'efABCm', long: ['open-files-in-pager', 'max-depth', 'threads', 'context', 'after-context', 'before-context', 'max-count'] },
  notes: { long: ['ref'] },
};
/**
 * Subcommands that write `--output=<file>` or `--output <file>`: the diff and log family, and everything
 * that reads revision options (rev-list, blame, annotate, shortlog, reflog, stash show), checked in git 2.39.
 */
const OUTPUT_OPTION = new Set(['diff', 'log', 'show', 'whatchanged', 'diff-tree', 'diff-files', 'diff-index', 'range-diff', 'format-patch', 'rev-list', 'blame', 'annotate', 'shortlog', 'reflog', 'stash']);
for (const sub of OUTPUT_OPTION) SPECS[sub] = { long: ['output'] };

/** Read-only subcommands with an option that runs a program. */
const PROGRAM_OPTIONS = new Set(['grep', 'ls-remote', 'archive', 'fsck']);

/** Splits an alias's value as git does (quotes group words). */
function aliasWords(value: string): string[] {
  const words: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (const m of value.matchAll(re)) words.push(m[1] ?? m[2] ?? m[3]!);
  return words;
}

/**
 * `args` are git's arguments (after the command name); `assigned` the environment names set for it.
 * `dashed` is the subcommand of a `git-<sub>` spelling; `hidden` how the command exports variables the
 * gate cannot name (any of those above, then).
 */
export function analyseGit(args: readonly Value[], assigned: readonly string[], dashed: string | null = null, hidden: string | null = null): GitResult {
  const refuse = (effect: ShellEffect): GitResult => ({ kind: 'refuse', effect });
  const program = (what: string): GitResult => refuse({ kind: 'opaque', command: what, why: 'program-option' });
  const env = assigned.find((name) => GIT_PROGRAM_ENV.test(name));
  if (env) return program(`${env}=… git`);
  // A git directory, index or work tree the command names (or `--bare`, which makes the directory it runs
  // in the git dir): refused once the subcommand is known, so a mutation is still refused as one.
  const repository = assigned.find((name) => GIT_REPOSITORY_ENV.test(name));
  let elsewhere: string | null = repository ? `${repository}=… git` : null;
  const aliases = new Map<string, string>();
  const chdir: Value[] = [];
  let i = 0;
  let sub: string | null = dashed;
  while (sub === null && i < args.length) {
    const a = args[i]!;
    if (a.kind !== 'literal') return refuse({ kind: 'opaque', command: `git ${a.kind === 'dynamic' ? a.text : a.pattern}`, why: 'dynamic-command' });
    const t = a.text;
    const eq = t.indexOf('=');
    const name = t.startsWith('--') && eq !== -1 ? t.slice(0, eq) : t;
    const value: Value | undefined = t.startsWith('--') && eq !== -1 ? lit(t.slice(eq + 1)) : GLOBAL_VALUED.has(t) ? args[i + 1] : undefined;
    if (name === '-c' || name === '--config-env') {
      if (value?.kind !== 'literal') return program(`git ${t} …`);
      const [key = '', ...rest] = value.text.split('=');
      if (/^alias\./i.test(key) && name === '-c') aliases.set(key.slice(6).toLowerCase(), rest.join('='));
      else if (!HARMLESS_CONFIG.test(key)) return program(`git ${name} ${value.text}`);
      i += t.startsWith('--') && eq !== -1 ? 1 : 2;
      continue;
    }
    if (name === '--exec-path' && eq !== -1) return program(`git ${t}`);
    if (name === '--git-dir' || name === '--work-tree' || name === '--bare') elsewhere ??= `git ${name}`;
    if (GLOBAL_VALUED.has(name)) {
      if (name === '-C') {
        if (!value) return { kind: 'read', chdir, outputs: [] };
        chdir.push(value);
      }
      i += eq !== -1 ? 1 : 2;
      continue;
    }
    if (GLOBAL_FLAGS.has(name)) {
      i++;
      continue;
    }
    if (t.startsWith('-')) return refuse({ kind: 'git', sub: t, known: false, via: null });
    sub = t;
    i++;
  }
  if (sub === null) return { kind: 'read', chdir, outputs: [] }; // `git --version`, `git -C x`
  const rest: Value[] = args.slice(i);
  // Git prefers its own commands to aliases of the same name; any other name given an alias by `-c` is
  // refused, whatever the alias stands for: it is named in the refusal.
  const alias = aliases.get(sub.toLowerCase());
  if (alias !== undefined && !READ_ONLY.has(sub) && !(sub in SOMETIMES) && !KNOWN_MUTATIONS.has(sub)) {
    return refuse({ kind: 'git', sub: alias.startsWith('!') ? alias : (aliasWords(alias)[0] ?? alias), known: !alias.startsWith('!'), via: sub });
  }
  // A computed argument may be any option: harmless for most read-only commands, not where an option
  // writes a file or runs a program (diff --output, grep -O, ls-remote --upload-pack) or changes the form.
  // Object names printed by git (`git diff $(git merge-base main HEAD)`) are no option.
  if (rest.some((v) => v.kind === 'dynamic' && !v.names) && (!READ_ONLY.has(sub) || OUTPUT_OPTION.has(sub) || PROGRAM_OPTIONS.has(sub))) {
    return refuse({ kind: 'opaque', command: `git ${sub} ${rest.map((v) => (v.kind === 'dynamic' ? v.text : v.kind === 'glob' ? v.pattern : v.text)).join(' ')}`.trim(), why: 'dynamic-command' });
  }
  const scanned = scanOptions(rest, (Object.hasOwn(SPECS, sub) ? SPECS[sub] : undefined) ?? {});
  const readOnly = READ_ONLY.has(sub) || ((Object.hasOwn(SOMETIMES, sub) ? SOMETIMES[sub] : undefined)?.(scanned, rest) ?? false);
  if (sub === 'apply' && hasOption(scanned, 'index', 'cached', '3', '3way', 'intent-to-add', 'N')) return refuse({ kind: 'git', sub: 'apply --index', known: true, via: null });
  if (!readOnly && sub !== 'apply') return refuse({ kind: 'git', sub, known: KNOWN_MUTATIONS.has(sub) || sub in SOMETIMES, via: null });
  if (elsewhere) return refuse({ kind: 'opaque', command: elsewhere, why: 'other-repository' });
  if (hidden) return refuse({ kind: 'opaque', command: `${hidden} … git`, why: 'hidden-environment' });
  if (sub === 'apply') {
    if (hasOption(scanned, 'check', 'stat', 'numstat', 'summary') && !hasOption(scanned, 'apply')) return { kind: 'read', chdir, outputs: [] };
    return { kind: 'write-unknown', chdir };
  }
  if (sub === 'grep' && hasOption(scanned, 'O', 'open-files-in-pager')) return program('git grep --open-files-in-pager');
  if (sub === 'ls-remote' && hasOption(scanned, 'u', 'upload-pack')) return program('git ls-remote --upload-pack');
  if (sub === 'archive' && hasOption(scanned, 'exec')) return program('git archive --exec');
  const outputs = [
    ...(OUTPUT_OPTION.has(sub) ? scanned.options.filter((o) => o.name.length >= 2 && 'output'.startsWith(o.name) && o.value).map((o) => o.value!) : []),
    ...(sub === 'archive' ? scanned.options.filter((o) => (o.name === 'output' || o.name === 'o') && o.value).map((o) => o.value!) : []),
  ];
  return { kind: 'read', chdir, outputs };
}

/** Subcommands that change history, the index, refs, the checkout or the repository (for the refusal's wording). */
const KNOWN_MUTATIONS = new Set([
  'commit', 'push', 'pull', 'reset', 'checkout', 'switch', 'restore', 'rebase', 'merge', 'cherry-pick', 'revert', 'stash', 'add', 'rm', 'mv',
  'am', 'clean', 'tag', 'update-ref', 'update-index', 'symbolic-ref', 'read-tree', 'write-tree', 'commit-tree', 'filter-branch', 'filter-repo',
  'replace', 'notes', 'gc', 'prune', 'worktree', 'submodule', 'init', 'clone', 'fetch', 'bisect', 'checkout-index', 'config', 'branch',
  'remote', 'reflog', 'repack', 'pack-refs', 'maintenance', 'sparse-checkout', 'format-patch', 'mergetool', 'difftool', 'rerere', 'lfs',
  'hash-object', 'fast-import', 'unpack-objects', 'prune-packed', 'update-server-info', 'apply',
]);
