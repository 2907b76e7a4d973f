/**
 * Loads tree-sitter-bash (WebAssembly) and turns its trees into plain SyntaxNodes. Imported lazily by
 * the Bash gate, only for a command that needs deciding: the idle path and plain commands never load it.
 *
 * The two .wasm files sit next to the bundle (scripts/build.ts copies them into dist/), so the plugin
 * runs from its committed files; from src/ (tests) they are found in node_modules.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import type { Parse, Script, SyntaxNode } from '../bash/syntax';

export const PARSER_WASM = ['web-tree-sitter.wasm', 'tree-sitter-bash.wasm'] as const;

function wasmFile(name: (typeof PARSER_WASM)[number]): string {
  const beside = path.join(path.dirname(fileURLToPath(import.meta.url)), name);
  if (fs.existsSync(beside)) return beside;
  const require = createRequire(import.meta.url);
  return name === 'web-tree-sitter.wasm' ? require.resolve('web-tree-sitter/web-tree-sitter.wasm') : path.join(path.dirname(require.resolve('tree-sitter-bash/package.json')), name);
}

type TsNode = {
  type: string;
  isNamed: boolean;
  isMissing: boolean;
  text: string;
  startIndex: number;
  endIndex: number;
  childCount: number;
  child(i: number): TsNode | null;
  fieldNameForChild(i: number): string | null;
};

/** Fields that hold a command's words: two of them with nothing between are one word to bash. */
const WORD_FIELDS = new Set(['name', 'argument']);

function convert(n: TsNode, field: string | null, flaw: { found: boolean; why?: string }): SyntaxNode {
  if (n.type === 'ERROR' || n.isMissing) flaw.found = true;
  const children: SyntaxNode[] = [];
  let previous: { end: number; field: string | null; last: string | null } | null = null;
  for (let i = 0; i < n.childCount; i++) {
    const c = n.child(i);
    if (!c) continue;
    const childField = n.fieldNameForChild(i);
    // tree-sitter-bash 0.25 reads `cp a b 0<.git` as the argument 0 and `<.git`; bash reads the
    // redirection of descriptor 0 (and the command's last operand is b).
    if (previous?.field === 'body' && childField === 'redirect' && previous.end === c.startIndex && previous.last === 'number') {
      flaw.found = true;
      flaw.why ??= `the parser reads the descriptor of ${JSON.stringify(n.text.slice(0, 60))} as a word`;
    }
    // tree-sitter-bash 0.25 splits `--output=`…`z` after `=`; bash reads one word there.
    if (previous && WORD_FIELDS.has(previous.field ?? '') && childField === 'argument' && previous.end === c.startIndex) {
      flaw.found = true;
      flaw.why ??= `the parser splits ${JSON.stringify(n.text.slice(0, 60))} inside a word`;
    }
    previous = { end: c.endIndex, field: childField, last: c.childCount > 0 ? (c.child(c.childCount - 1)?.type ?? null) : null };
    children.push(convert(c, childField, flaw));
  }
  return { type: n.type, named: n.isNamed, field, text: n.text, children };
}

let loading: Promise<Parse> | null = null;

/** The parser, loaded once per process. */
export function loadBashParser(): Promise<Parse> {
  loading ??= (async () => {
    // A hook parses one short command and exits: V8's optimising compiler would spend ~6× a bare node
    // start compiling 1.5 MB of WebAssembly that runs for a millisecond. The baseline compiler alone costs
    // about half a node start (bench/parser.bench.ts). Set before the first WebAssembly module is compiled.
    v8.setFlagsFromString('--liftoff-only');
    const { Parser, Language } = await import('web-tree-sitter');
    await Parser.init({ wasmBinary: fs.readFileSync(wasmFile('web-tree-sitter.wasm')) });
    const bash = await Language.load(fs.readFileSync(wasmFile('tree-sitter-bash.wasm')));
    const parser = new Parser();
    parser.setLanguage(bash);
    return (source: string): Script => {
      // tree-sitter-bash 0.25 lexes a newline followed by a backslash as the start of a word, joining
      // `echo a⏎\\git stash` into one command. A blank between them reads the same to bash (outside
      // quotes; inside them only text after a line break changes, and no protected path has one).
      const tree = parser.parse(source.replace(/\n(?=\\)/g, '\n '));
      if (!tree) return { root: { type: 'ERROR', named: true, field: null, text: source, children: [] }, complete: false };
      try {
        const flaw: { found: boolean; why?: string } = { found: false };
        const root = convert(tree.rootNode as unknown as TsNode, null, flaw);
        return flaw.why ? { root, complete: false, why: flaw.why } : { root, complete: !flaw.found };
      } finally {
        tree.delete();
      }
    };
  })();
  return loading;
}
