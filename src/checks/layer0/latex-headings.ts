/**
 * LaTeX's sectioning commands (\part … \subparagraph, starred or not) as headings: the same title twice
 * under the same parents, more often than before the fix, is a section written twice. Comments and
 * verbatim-like environments are not told apart: a title in them counts too. Pure, O(n).
 */
import type { Layer0Hit } from './hit';
import { lineAround, linesOf } from './text';

const LEVELS = ['part', 'chapter', 'section', 'subsection', 'subsubsection', 'paragraph', 'subparagraph'];
const SECTION = /^[ \t]*\\(part|chapter|section|subsection|subsubsection|paragraph|subparagraph)\*?[ \t]*(?:\[[^\]\n]*\])?[ \t]*\{([^\n]*)\}/gm;

interface LatexHeading {
  key: string;
  title: string;
  index: number;
}

/** Each sectioning command of a text, keyed by its level, its title and its parents' titles. */
export function latexHeadings(text: string): LatexHeading[] {
  if (!text.includes('\\')) return [];
  const out: LatexHeading[] = [];
  const parents: string[] = [];
  for (const m of text.matchAll(SECTION)) {
    const level = LEVELS.indexOf(m[1]!);
    // The braces' content up to the brace that closes the first one.
    let depth = 0;
    let end = 0;
    const body = m[2]!;
    for (; end < body.length; end++) {
      const c = body[end];
      if (c === '{') depth += 1;
      else if (c === '}') {
        if (depth === 0) break;
        depth -= 1;
      }
    }
    const title = body.slice(0, end).replace(/\s+/g, ' ').trim();
    const lower = title.toLowerCase();
    parents.length = Math.min(parents.length, level);
    while (parents.length < level) parents.push('');
    out.push({ key: `${parents.join('\u0001')}\u0000${level}\u0000${lower}`, title, index: m.index! + m[0].indexOf('\\') });
    parents.push(lower);
  }
  return out;
}

export const isLatex = (path: string): boolean => /\.(?:tex|ltx|latex)$/i.test(path);

/** The sections the fix made repeat (the first five, by their second heading), as no_duplicate_headings hits. */
export function noDuplicateLatexHeadings(path: string, before: string | null, after: string): Layer0Hit[] {
  const groups = new Map<string, LatexHeading[]>();
  for (const h of latexHeadings(after)) {
    const same = groups.get(h.key);
    if (same) same.push(h);
    else groups.set(h.key, [h]);
  }
  const repeated = [...groups.values()].filter((hs) => hs.length > 1);
  if (repeated.length === 0) return [];
  const then = new Map<string, number>();
  for (const h of before === null ? [] : latexHeadings(before)) then.set(h.key, (then.get(h.key) ?? 0) + 1);
  const lines = linesOf(after);
  return repeated
    .filter((hs) => hs.length > (then.get(hs[0]!.key) ?? 0))
    .sort((a, b) => a[1]!.index - b[1]!.index)
    .slice(0, 5)
    .map((hs) => {
      const last = hs[hs.length - 1]!;
      return { check: 'no_duplicate_headings' as const, path, line: lines.lineAt(last.index), evidence: lineAround(after, last.index), detail: { heading: last.title, count: hs.length, firstLine: lines.lineAt(hs[0]!.index) } };
    });
}
