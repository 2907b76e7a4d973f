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
}

export type Parse = (source: string) => Script;

const node = (type: string, text: string, field: string | null, children: SyntaxNode[] = [], named = true): SyntaxNode => ({ type, named, field, text, children });

/** Characters with no meaning to the shell: a word made of these is exactly its text. */
const PLAIN = /^[A-Za-z0-9_./:=,+@%\t -]*$/;
const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/;
/** Words the grammar reads as something other than a command name when they come first. */
const SPECIAL_FIRST = new Set([
  'if', 'then', 'else', 'elif', 'fi', 'case', 'esac', 'for', 'select', 'while', 'until', 'do', 'done', 'in', 'function', 'time',
  'coproc', 'export', 'declare', 'typeset', 'local', 'readonly', 'unset', 'unsetenv',
]);

/**
 * The tree of a command that uses no shell syntax at all (one simple command, words of plain characters
 * separated by blanks), built without the parser; null for anything else. For such a command bash does
 * no quoting, expansion, globbing or redirection, so splitting on blanks is exactly what it runs. The
 * Bash gate uses it to skip loading the parser for `git status`, `ls -la src`, `npm test` and the like.
 */
export function plainScript(source: string): Script | null {
  if (!PLAIN.test(source)) return null;
  const words = source.split(/[\t ]+/).filter(Boolean);
  let i = 0;
  const children: SyntaxNode[] = [];
  for (; i < words.length; i++) {
    const m = ASSIGNMENT.exec(words[i]!);
    if (!m) break;
    children.push(node('variable_assignment', words[i]!, null, [node('variable_name', m[1]!, 'name'), node('=', '=', null, [], false), ...(m[2] ? [node('word', m[2], 'value')] : [])]));
  }
  if (i === words.length || SPECIAL_FIRST.has(words[i]!)) return null;
  children.push(node('command_name', words[i]!, 'name', [node('word', words[i]!, null)]));
  for (const w of words.slice(i + 1)) children.push(node('word', w, 'argument'));
  return { root: node('program', source, null, [node('command', source.trim(), null, children)]), complete: true };
}
