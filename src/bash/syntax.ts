/**
 * A shell script's concrete syntax tree as plain data: the shape tree-sitter-bash produces (node types
 * and field names as in its grammar), so the policy over it is pure and needs no parser to be tested.
 */
export interface SyntaxNode {
  /** The grammar's node type; an anonymous token's type is its text (">", "&&", "|"). */
  type: string;
  named: boolean;
  /** The field this node fills in its parent (name, argument, redirect, destination, body …). */
  field: string | null;
  text: string;
  children: SyntaxNode[];
}

/** `complete` is false when the parser had to recover (ERROR or MISSING nodes): the tree is not what bash runs. */
export interface Script {
  root: SyntaxNode;
  complete: boolean;
  /** Why the tree is not what bash runs, when the parser knows more than "it had to recover". */
  why?: string;
}

export type Parse = (source: string) => Script;

const node = (type: string, text: string, field: string | null, children: SyntaxNode[] = [], named = true): SyntaxNode => ({ type, named, field, text, children });

/** Characters with no meaning to the shell: a word made of these is exactly its text (\x01 marks a quoted word, see quotedWords). */
const PLAIN = /^[A-Za-z0-9_./:=,+@%\t\x01 -]*$/;
const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/;
/** Words the grammar reads as something other than a command name when they come first. */
const SPECIAL_FIRST = new Set([
  'if', 'then', 'else', 'elif', 'fi', 'case', 'esac', 'for', 'select', 'while', 'until', 'do', 'done', 'in', 'function', 'time',
  'coproc', 'export', 'declare', 'typeset', 'local', 'readonly', 'unset', 'unsetenv',
]);

/** The words of one simple command as the grammar has them; null when they are not a plain command (none, only assignments, a keyword first). */
function plainCommand(text: string): SyntaxNode | null {
  const words = text.split(/[\t ]+/).filter(Boolean);
  let i = 0;
  const children: SyntaxNode[] = [];
  for (; i < words.length; i++) {
    const m = ASSIGNMENT.exec(words[i]!);
    if (!m) break;
    // The grammar reads `_=x` as a command's name (bash: an assignment); the two trees would differ.
    if (m[1] === '_') return null;
    children.push(node('variable_assignment', words[i]!, null, [node('variable_name', m[1]!, 'name'), node('=', '=', null, [], false), ...(m[2] ? [node('word', m[2], 'value')] : [])]));
  }
  // A name with `=` in it (`a+=b`, `9=x`, `--a="x"`) or a lone `-`: the grammar and bash read those
  // differently from a plain command name (an assignment, a dropped word), so they are left to the parser.
  if (i === words.length || SPECIAL_FIRST.has(words[i]!) || words[i]!.includes('=') || words[i] === '-') return null;
  children.push(node('command_name', words[i]!, 'name', [node('word', words[i]!, null)]));
  for (const w of words.slice(i + 1)) children.push(node('word', w, 'argument'));
  return node('command', text.trim(), null, children);
}

/** Plain words and the four operators the fast path reads: `;` `&&` `||` `|` (one token each, blanks around them optional), and `>` of a redirection. */
const PLAIN_LIST = /^[A-Za-z0-9_./:=,+@%\t\x01 ;&|>-]*$/;
/** The redirections the fast path reads, each one blank-separated word: standard output or error to /dev/null, or one onto the other. */
const REDIRECT = /^([12]?)(>&)([12])$|^([12]?)(>)(\/dev\/null)$/;
const OPERATOR = /;|&&|\|\||\|/g;
const LIST_WORDS = /^[A-Za-z0-9_./,:\t\x01 -]*$/;

type Token = { kind: 'words'; text: string } | { kind: 'op'; text: ';' | '&&' | '||' | '|' };

/** `a | b` → pipeline, left to right; `a && b || c` → lists nested to the left; `;` separates statements. */
function joined(type: 'pipeline' | 'list', parts: SyntaxNode[], ops: string[]): SyntaxNode {
  if (type === 'pipeline') return node('pipeline', '', null, parts.flatMap((p, k) => (k === 0 ? [p] : [node(ops[k - 1]!, ops[k - 1]!, null, [], false), p])));
  return parts.slice(1).reduce((left, right, k) => node('list', '', null, [left, node(ops[k]!, ops[k]!, null, [], false), right]), parts[0]!);
}

/**
 * The tree of a command that uses no shell syntax but plain words, the operators `;`, `&&`, `||` and
 * `|` between simple commands, and a few redirections ending a statement's first command (`2>&1`,
 * `>/dev/null`, `2>/dev/null`), built without the parser; null for anything else (quotes, expansions,
 * other redirections, `&`, `|&`, a newline, a keyword, an empty command). For such a command bash does
 * no quoting, expansion or globbing, so splitting at the operators and then on blanks is exactly what
 * it runs. The Bash gate uses it to skip loading the parser for `git status`, `ls -la src`,
 * `git status && git diff`, `npm test 2>&1 | tail -20` and the like. The tree is the one tree-sitter-bash
 * builds, quirks included (test/unit/bash-spellings.test.ts holds the two to each other); where the
 * grammar reads such a command differently from bash, the command is left to the parser.
 */
export function plainScript(source: string): Script | null {
  if (!source.includes("'") && !source.includes('"')) return unquotedScript(source);
  const quoted = quotedWords(source);
  if (!quoted) return null;
  const script = unquotedScript(quoted.masked);
  return script && withQuotedWords(script, quoted.words);
}

/**
 * A whole word in quotes, as bash and the grammar read it alike: '…' of printable ASCII (bash takes it
 * as it stands), or "…" of characters that are literal inside double quotes (no `$`, backquote, `\`,
 * `"` or `!`), after an option's plain start or not (`--include="*.ts"`, `--format='%h %s'`, `-e'x'`).
 * Whole: between blanks, operators, the start and the end; a quote joined to other text (`a"b"`,
 * `'a'b`), and everything else quoted, is left to the parser.
 */
const QUOTED_WORD = /(?<=^|[\t ;&|])(?:-[A-Za-z0-9_./:=,-]*)?(?:'[\t\x20-\x26\x28-\x7e]*'|"[A-Za-z0-9_./:=,+@%\t #&'()*;<>?[\]^{|}~-]*")(?=$|[\t ;&|])/g;
const MARK = /\x01(\d+)\x01/g;
const WHOLE_MARK = /^\x01(\d+)\x01$/;

/**
 * The source with each whole quoted word put as a mark (\x01, its index, \x01), which the plain reading
 * takes as one plain word; null when a quote is left over or the source holds \x01 itself.
 */
function quotedWords(source: string): { masked: string; words: string[] } | null {
  if (source.includes('\x01')) return null;
  const words: string[] = [];
  // The grammar reads "…" of blanks alone as no content, its blanks in the closing quote: left to it.
  const masked = source.replace(QUOTED_WORD, (word) => (/^[^'"]*"[\t ]+"$/.test(word) ? word : `\x01${words.push(word) - 1}\x01`));
  return masked.includes("'") || masked.includes('"') ? null : { masked, words };
}

/**
 * The grammar's node for a quoted word: `raw_string` for '…', `string` (its quotes and its content) for
 * "…", and a `concatenation` of the option's start (a word) and the quoted part for `--include="*.ts"`.
 */
function quotedNode(word: string, field: string | null): SyntaxNode {
  const at = word.search(/['"]/);
  if (at > 0) return node('concatenation', word, field, [node('word', word.slice(0, at), null), quotedNode(word.slice(at), null)]);
  if (word.startsWith("'")) return node('raw_string', word, field);
  const inner = word.slice(1, -1);
  const quote = (): SyntaxNode => node('"', '"', null, [], false);
  return node('string', word, field, [quote(), ...(inner ? [node('string_content', inner, null)] : []), quote()]);
}

/**
 * The plain reading of the masked source, each mark that stands for a whole word turned into that
 * word's node and every text given back its quotes; null when a mark stands inside another word (an
 * assignment's value, a redirection's target), which is left to the parser.
 */
function withQuotedWords(script: Script, words: readonly string[]): Script | null {
  const unmask = (text: string): string => text.replace(MARK, (_, i: string) => words[Number(i)]!);
  const restore = (n: SyntaxNode): SyntaxNode | null => {
    const whole = WHOLE_MARK.exec(n.text);
    if (whole && n.type === 'word') {
      const word = words[Number(whole[1])]!;
      // First, `--a="x"` is to the grammar an assignment to a variable named `--a` (bash runs `--a=x`).
      if (!/^['"]/.test(word) && n.field !== 'argument') return null;
      return quotedNode(word, n.field);
    }
    if (n.children.length === 0 && n.text.includes('\x01')) return null;
    const children: SyntaxNode[] = [];
    for (const c of n.children) {
      const restored = restore(c);
      if (!restored) return null;
      children.push(restored);
    }
    return { ...n, text: unmask(n.text), children };
  };
  const root = restore(script.root);
  return root && { root, complete: script.complete };
}

/** plainScript for a source without quotes. */
function unquotedScript(source: string): Script | null {
  if (!PLAIN_LIST.test(source)) return null;
  if (PLAIN.test(source)) {
    const command = plainCommand(source);
    return command && { root: node('program', source, null, [command]), complete: true };
  }
  // Tokens: the words between operators, and the operators.
  const tokens: Token[] = [];
  let at = 0;
  for (const m of source.matchAll(OPERATOR)) {
    tokens.push({ kind: 'words', text: source.slice(at, m.index) }, { kind: 'op', text: m[0] as ';' | '&&' | '||' | '|' });
    at = m.index! + m[0].length;
  }
  tokens.push({ kind: 'words', text: source.slice(at) });
  // A lone `&` (background, `&>`) is not one of the four. Between operators the words keep to the
  // characters on which the grammar never stumbles (it fails on some spellings with `%`, `@`, `==`, `+:`
  // or `=` before an operator, which bash reads as words): the gate refuses what the parser cannot read,
  // and the fast path must not read more than the parser does.
  if (tokens.some((t) => t.kind === 'words' && !LIST_WORDS.test(t.text.split(/[\t ]+/).filter((w) => !REDIRECT.test(w)).join(' ')))) return null;
  const statements: SyntaxNode[] = [];
  let parts: SyntaxNode[] = [];
  let ops: string[] = [];
  let pipe: SyntaxNode[] = [];
  let pipeOps: string[] = [];
  for (let k = 0; k < tokens.length; k += 2) {
    const words = tokens[k]!.text;
    const op = tokens[k + 1]?.text;
    const last = k === tokens.length - 1;
    // Only a statement's closing `;` (or the end) may follow nothing, and only after something.
    if (words.trim() === '') {
      if (last && statements.length > 0 && parts.length === 0 && pipe.length === 0) break;
      return null;
    }
    const command = redirectedCommand(words);
    if (!command) return null;
    // The grammar hangs a redirection of any but a statement's first command on the list or pipeline
    // before it (bash: on that command alone): those are left to the parser.
    if (command.type === 'redirected_statement' && (pipe.length > 0 || parts.length > 0)) return null;
    pipe.push(command);
    if (op === '|') {
      pipeOps.push(op);
      continue;
    }
    // The grammar reads `a | b | c || d` as a pipeline ending in a list (bash: a list starting with the
    // pipeline). Left to the parser, so that the two readings never differ.
    if (pipe.length > 2 && (op === '&&' || op === '||' || parts.length > 0)) return null;
    parts.push(pipe.length === 1 ? pipe[0]! : joined('pipeline', pipe, pipeOps));
    pipe = [];
    pipeOps = [];
    if (op === '&&' || op === '||') {
      ops.push(op);
      continue;
    }
    statements.push(parts.length === 1 ? parts[0]! : joined('list', parts, ops));
    parts = [];
    ops = [];
  }
  const children = statements.flatMap((st, k) => (k === 0 ? [st] : [node(';', ';', null, [], false), st]));
  // The separators a script ends with: one more `;` when the source has as many as statements.
  if ((source.match(/;/g) ?? []).length === statements.length) children.push(node(';', ';', null, [], false));
  const root = node('program', source, null, children);
  withTexts(root, source);
  return { root, complete: true };
}

/** A simple command and the redirections that end it (none: the command itself). */
function redirectedCommand(text: string): SyntaxNode | null {
  const words = text.split(/[\t ]+/).filter(Boolean);
  let end = words.length;
  while (end > 0 && REDIRECT.test(words[end - 1]!)) end--;
  // A redirection before a word, or a word that is not plain: left to the parser.
  if (words.slice(0, end).some((w) => w.includes('>'))) return null;
  const command = plainCommand(words.slice(0, end).join(' '));
  if (!command || end === words.length) return command && { ...command, text: text.trim() };
  // The grammar drops a word `-` before a redirection, and reads `-x 2>&1` first as a redirection without its command.
  if (words[0]!.startsWith('-') || words.includes('-')) return null;
  const redirects = words.slice(end).map((w) => {
    const m = REDIRECT.exec(w)!;
    const [fd, op, to] = m[2] ? [m[1]!, m[2], m[3]!] : [m[4]!, m[5]!, m[6]!];
    return node('file_redirect', w, 'redirect', [
      ...(fd ? [node('file_descriptor', fd, 'descriptor')] : []),
      node(op, op, null, [], false),
      node(op === '>&' ? 'number' : 'word', to, 'destination'),
    ]);
  });
  return node('redirected_statement', '', null, [{ ...command, field: 'body', text: '' }, ...redirects]);
}

/** Fills in the texts of the nodes made of others (lists, pipelines, redirected commands): the source they span. */
function withTexts(root: SyntaxNode, source: string): void {
  let from = 0;
  const place = (n: SyntaxNode): [number, number] => {
    if ((n.type === 'command' && n.text !== '') || !n.named || n.children.length === 0) {
      const start = source.indexOf(n.text, from);
      from = start + n.text.length;
      return [start, from];
    }
    const spans = n.children.map(place);
    const span: [number, number] = [spans[0]![0], spans[spans.length - 1]![1]];
    if (n.type !== 'program') n.text = source.slice(span[0], span[1]);
    return span;
  };
  place(root);
}
