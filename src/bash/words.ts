/**
 * What a word of the syntax tree becomes when bash runs it: quote removal, tilde and brace expansion,
 * globs kept as patterns. Anything computed at run time (variables, command substitution, arithmetic)
 * is `dynamic`: the gate cannot know it.
 */
import type { SyntaxNode } from './syntax';

export type Value =
  | { kind: 'literal'; text: string }
  /** Unquoted `*`, `?` or `[` remain; quoted ones are backslash-escaped. */
  | { kind: 'glob'; pattern: string }
  /**
   * names: every field it expands to is an object name git printed (`$(git merge-base main HEAD)`,
   * `"$(git rev-parse HEAD)"...HEAD`), so none is an option: see gitNames.
   */
  | { kind: 'dynamic'; text: string; names?: true };

/** The tree holds text the grammar did not split the way bash would (an expansion inside a plain token). */
export class GrammarMismatch extends Error {
  constructor(readonly text: string) {
    super(`the parser's tree does not match bash at ${JSON.stringify(text.slice(0, 60))}`);
  }
}

export interface WordContext {
  home: string | null;
  /**
   * Whether a word of command substitutions that print object names may be read as such (Value.names):
   * only where the `git` inside is git (see namesSafe in analyse.ts).
   */
  gitNames?: boolean;
}

type Char = { c: string; q: boolean };
const DYNAMIC = Symbol('dynamic');
type Chars = Char[] | typeof DYNAMIC;

const EXPANDS_AFTER_DOLLAR = /[A-Za-z0-9_{(@*#?$!-]/;
const MAX_FIELDS = 256;

const quoted = (s: string): Char[] => [...s].map((c) => ({ c, q: true }));

/** Characters that end a word in bash: the grammar never leaves them unquoted inside one. */
const ENDS_WORD = /[\s;&|<>()]/;

function unquotedText(text: string, isWord = false): Char[] {
  const out: Char[] = [];
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '\\') {
      if (i + 1 < text.length) {
        if (text[i + 1] !== '\n') out.push({ c: text[i + 1]!, q: true });
        i++;
      } else out.push({ c: ch, q: false });
      continue;
    }
    if (ch === '`' || ch === "'" || ch === '"' || (ch === '$' && i + 1 < text.length && EXPANDS_AFTER_DOLLAR.test(text[i + 1]!))) throw new GrammarMismatch(text);
    if (isWord && ENDS_WORD.test(ch)) throw new GrammarMismatch(text);
    out.push({ c: ch, q: false });
  }
  return out;
}

/** The inside of "…": backslash escapes only $ ` " \ and newline. */
function doubleQuotedText(inner: string, whole: string): Char[] {
  const out: Char[] = [];
  for (let i = 0; i < inner.length; i++) {
    const ch = inner[i]!;
    if (ch === '\\' && i + 1 < inner.length && '$`"\\\n'.includes(inner[i + 1]!)) {
      if (inner[i + 1] !== '\n') out.push({ c: inner[i + 1]!, q: true });
      i++;
      continue;
    }
    if (ch === '`' || (ch === '$' && i + 1 < inner.length && EXPANDS_AFTER_DOLLAR.test(inner[i + 1]!))) throw new GrammarMismatch(whole);
    out.push({ c: ch, q: true });
  }
  return out;
}

/**
 * The word `<(…)` and `>(…)` become: a pipe's `/dev/fd/N`, whatever N bash picks. Written as a name no
 * file has, so that the shell side knows the word for a pipe (src/shell/kernel-path.ts).
 */
export const PROCESS_SUBSTITUTION = '/dev/fd/pipe:process-substitution';

const EXPANSIONS = new Set(['simple_expansion', 'expansion', 'command_substitution', 'arithmetic_expansion']);
const hasExpansion = (n: SyntaxNode): boolean => n.children.some((c) => EXPANSIONS.has(c.type) || hasExpansion(c));

function chars(n: SyntaxNode): Chars {
  switch (n.type) {
    case 'word':
      return unquotedText(n.text, true);
    case 'brace_expression':
    case 'extglob_pattern':
    case 'regex':
    case 'test_operator':
    case '==':
    case '=~':
      return unquotedText(n.text);
    case 'number':
      return n.children.length ? DYNAMIC : unquotedText(n.text);
    case 'raw_string':
      if (n.text.length < 2 || !n.text.startsWith("'") || !n.text.endsWith("'")) throw new GrammarMismatch(n.text);
      return quoted(n.text.slice(1, -1));
    case 'ansi_c_string':
      if (!n.text.startsWith("$'") || !n.text.endsWith("'")) throw new GrammarMismatch(n.text);
      return n.text.includes('\\') ? DYNAMIC : quoted(n.text.slice(2, -1));
    case 'string':
    case 'translated_string': {
      if (hasExpansion(n)) return DYNAMIC;
      const open = n.type === 'string' ? 1 : 2;
      if (n.text.length < open + 1 || !n.text.endsWith('"')) throw new GrammarMismatch(n.text);
      return doubleQuotedText(n.text.slice(open, -1), n.text);
    }
    case 'concatenation': {
      const out: Char[] = [];
      for (const c of n.children) {
        const part = chars(c);
        if (part === DYNAMIC) return DYNAMIC;
        out.push(...part);
      }
      return out;
    }
    case 'process_substitution':
      // Its value is a pipe's path; the command inside is analysed where it stands.
      return quoted(PROCESS_SUBSTITUTION);
    case 'simple_expansion':
    case 'expansion':
    case 'command_substitution':
    case 'arithmetic_expansion':
      return DYNAMIC;
    default:
      throw new GrammarMismatch(n.text);
  }
}

/**
 * Tilde expansion: at the start of a word, and, as bash does for any word that looks like an
 * assignment (`of=~/x`, `PATH=~/bin:~/x`), after its first `=` and after each `:`.
 */
function tilde(cs: Char[], ctx: WordContext): Chars {
  const starts = [0];
  const eq = cs.findIndex((ch) => ch.c === '=' && !ch.q);
  if (eq > 0 && /^[A-Za-z_][A-Za-z0-9_]*$/.test(cs.slice(0, eq).map((ch) => (ch.q ? '\0' : ch.c)).join(''))) {
    starts.push(eq + 1);
    for (let i = eq + 1; i < cs.length; i++) if (cs[i]!.c === ':' && !cs[i]!.q) starts.push(i + 1);
  }
  let out: Char[] = [];
  let from = 0;
  for (const at of starts) {
    if (cs[at]?.c !== '~' || cs[at]!.q || at < from) continue;
    let end = at + 1;
    while (end < cs.length && !((cs[end]!.c === '/' || (at > 0 && cs[end]!.c === ':')) && !cs[end]!.q)) end++;
    if (end !== at + 1 || ctx.home === null) return DYNAMIC; // ~user, ~+, ~-: not known here
    out = [...out, ...cs.slice(from, at), ...quoted(ctx.home)];
    from = at + 1;
  }
  return from === 0 ? cs : [...out, ...cs.slice(from)];
}

class TooMany extends Error {}

function braces(cs: Char[], budget: { left: number }): Char[][] {
  for (let i = 0; i < cs.length; i++) {
    if (cs[i]!.c !== '{' || cs[i]!.q) continue;
    let depth = 0;
    const commas: number[] = [];
    let close = -1;
    for (let j = i; j < cs.length; j++) {
      const ch = cs[j]!;
      if (ch.q) continue;
      if (ch.c === '{') depth++;
      else if (ch.c === '}' && --depth === 0) {
        close = j;
        break;
      } else if (ch.c === ',' && depth === 1) commas.push(j);
    }
    if (close === -1) continue; // an unmatched brace is literal; a later one may still expand
    const prefix = cs.slice(0, i);
    const suffix = cs.slice(close + 1);
    let alternatives: Char[][];
    if (commas.length) {
      const bounds = [i, ...commas, close];
      alternatives = bounds.slice(1).map((end, k) => cs.slice(bounds[k]! + 1, end));
    } else {
      const seq = sequence(cs.slice(i + 1, close));
      if (!seq) continue;
      alternatives = seq.map((s) => quoted(s));
    }
    const out: Char[][] = [];
    for (const alt of alternatives) {
      for (const expanded of braces([...prefix, ...alt, ...suffix], budget)) {
        if (--budget.left < 0) throw new TooMany();
        out.push(expanded);
      }
    }
    return out;
  }
  return [cs];
}

/** `{1..5}`, `{a..e}`, `{10..1..3}`; null when the text is not a sequence. */
function sequence(inner: Char[]): string[] | null {
  if (inner.some((ch) => ch.q)) return null;
  const text = inner.map((ch) => ch.c).join('');
  const m = /^(?:(-?\d+)\.\.(-?\d+)|([A-Za-z])\.\.([A-Za-z]))(?:\.\.(-?\d+))?$/.exec(text);
  if (!m) return null;
  const [from, to] = m[1] !== undefined ? [Number(m[1]), Number(m[2])] : [m[3]!.charCodeAt(0), m[4]!.charCodeAt(0)];
  const step = Math.abs(Number(m[5] ?? 1)) || 1;
  if (Math.abs(to - from) / step > MAX_FIELDS) throw new TooMany();
  const out: string[] = [];
  for (let v = from; from <= to ? v <= to : v >= to; v += from <= to ? step : -step) out.push(m[1] !== undefined ? String(v) : String.fromCharCode(v));
  return out;
}

const GLOB_CHARS = '*?[';

function toValue(cs: Char[]): Value {
  if (!cs.some((ch) => !ch.q && GLOB_CHARS.includes(ch.c))) return { kind: 'literal', text: cs.map((ch) => ch.c).join('') };
  return { kind: 'glob', pattern: cs.map((ch) => (ch.q && '*?[]\\'.includes(ch.c) ? `\\${ch.c}` : ch.c)).join('') };
}

/** Options of `git merge-base`: whatever it is given, it prints commit names only (`-h` prints its usage). */
const MERGE_BASE_OPTIONS = new Set(['-a', '--all', '--octopus', '--independent', '--is-ancestor', '--fork-point']);
/** Options of `git rev-parse` under which it prints object names; one of the first two is required (see printsNames). */
const REV_PARSE_OPTIONS = /^(?:--verify|--short(?:=\d+)?|-q|--quiet)$/;
const REV_PARSE_VERIFY = /^(?:--verify|--short(?:=\d+)?)$/;
/** A revision as one plain word: no expansion, quote, glob, brace list, tilde first or brace first. */
const REVISION = /^[A-Za-z0-9_./:^@-][A-Za-z0-9_./:^@{}~-]*$/;

/**
 * `$(git merge-base …)` or `$(git rev-parse --verify …)` of plain words: its output is object names in
 * hex, one per line, or nothing. Without --verify (or --short, which implies it) rev-parse echoes a word
 * it cannot resolve, `HEAD1--output1x` say, which IFS=1 would split into `--output x`.
 */
function printsNames(sub: SyntaxNode): boolean {
  const inner = sub.children.filter((c) => c.named);
  if (inner.length !== 1 || inner[0]!.type !== 'command') return false;
  const [name, ...args] = inner[0]!.children;
  if (name?.field !== 'name' || name.text !== 'git' || name.children[0]?.type !== 'word') return false;
  if (!args.every((a) => a.field === 'argument' && REVISION.test(a.text) && !a.text.includes(','))) return false;
  const [sub0, ...rest] = args.map((a) => a.text);
  if (sub0 === 'merge-base') return rest.every((w) => MERGE_BASE_OPTIONS.has(w) || !w.startsWith('-'));
  if (sub0 === 'rev-parse') return rest.some((w) => REV_PARSE_VERIFY.test(w)) && rest.every((w) => REV_PARSE_OPTIONS.test(w) || !w.startsWith('-'));
  return false;
}

/** Unquoted characters a literal part of such a word may hold: none that expands (glob, tilde, brace list, extglob). */
const PLAIN_CHAR = /[A-Za-z0-9_./:^@%+=,-]/;

/**
 * Whether every field of a computed word is an object name or starts with one: each expansion in it is
 * a substitution that prints names (printsNames), and no part of its literal text starts with `-` (a
 * substitution may print nothing, or a name ending in a character of IFS, and a field starts at the
 * next part) or holds an unquoted character that expands (`{--output=,x}$(…)` is `--output=<name>`).
 */
function namesOnly(n: SyntaxNode): boolean {
  const walk = (m: SyntaxNode): boolean => {
    if (m.type === 'command_substitution') return printsNames(m);
    if (m.type === 'concatenation') return m.children.every(walk);
    if (m.type === 'string') {
      for (const c of m.children) {
        if (!c.named) continue;
        if (c.type === 'string_content') {
          if (c.text.startsWith('-')) return false;
        } else if (c.type !== 'command_substitution' || !printsNames(c)) return false;
      }
      return true;
    }
    try {
      const cs = chars(m);
      return cs !== DYNAMIC && cs[0]?.c !== '-' && cs.every((ch) => ch.q || PLAIN_CHAR.test(ch.c));
    } catch {
      return false;
    }
  };
  return walk(n);
}

/** The fields one word of the tree expands to. Throws GrammarMismatch when the tree cannot be trusted. */
export function wordValues(n: SyntaxNode, ctx: WordContext): Value[] {
  const cs = chars(n);
  if (cs === DYNAMIC) return [ctx.gitNames && namesOnly(n) ? { kind: 'dynamic', text: n.text, names: true } : { kind: 'dynamic', text: n.text }];
  const home = tilde(cs, ctx);
  if (home === DYNAMIC) return [{ kind: 'dynamic', text: n.text }];
  try {
    return braces(home, { left: MAX_FIELDS }).map(toValue);
  } catch (err) {
    if (err instanceof TooMany) return [{ kind: 'dynamic', text: n.text }];
    throw err;
  }
}

/** The literal text of a value, or null. */
export const literal = (v: Value | undefined): string | null => (v?.kind === 'literal' ? v.text : null);
