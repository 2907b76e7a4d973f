/**
 * What a key lists in a tool's config, read from its text without a parser for each format: JSON, JS
 * objects, TOML, INI and YAML spell a list differently, and a config is small. Best effort: a value the
 * reading misses is a check that does not fire, never one that fires on text that is not there.
 */

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const STRING = /'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"|`([^`]*)`/g;
const unquote = (s: string): string => s.trim().replace(/^(['"`])(.*)\1$/, '$2');

/** The string literals in text (quotes removed), or its bare comma/blank-separated words when it holds none. */
function itemsOf(text: string): string[] {
  const quoted = [...text.matchAll(STRING)].map((m) => m[1] ?? m[2] ?? m[3] ?? '');
  if (quoted.length > 0) return quoted;
  return text
    .split(/[\s,]+/)
    .map(unquote)
    .filter((w) => w !== '' && w !== '[' && w !== ']');
}

/** The text of a bracketed list that starts at `at` (a `[`), up to its matching `]`, strings skipped. */
function bracketed(text: string, at: number): string {
  let depth = 0;
  for (let i = at; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"' || c === "'" || c === '`') {
      const end = text.indexOf(c, i + 1);
      if (end === -1) break;
      i = end;
    } else if (c === '[') depth += 1;
    else if (c === ']' && --depth === 0) return text.slice(at + 1, i);
  }
  return text.slice(at + 1);
}

export interface KeyValues {
  /** Where the key is (its line's start). */
  index: number;
  values: string[];
}

/**
 * Each place `key` is given a value in text, with the values listed: a [list], a quoted string, a /regex/,
 * a YAML block list or INI continuation lines below it, or the rest of its line.
 */
export function valuesOf(text: string, key: string): KeyValues[] {
  const out: KeyValues[] = [];
  const re = new RegExp(`(^|[\\s{,])(["']?)${escapeRe(key)}\\2[ \\t]*[:=](?!=)[ \\t]*`, 'gm');
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const lineStart = text.lastIndexOf('\n', m.index + m[1]!.length - 1) + 1;
    const at = m.index + m[0].length;
    const c = text[at];
    const eol = text.indexOf('\n', at) === -1 ? text.length : text.indexOf('\n', at);
    let values: string[];
    if (c === '[') values = itemsOf(bracketed(text, at));
    else if (c === '"' || c === "'" || c === '`') values = itemsOf(text.slice(at, eol)).slice(0, 1);
    else if (c === '/') values = [/^\/((?:[^/\\\n]|\\.)*)\//.exec(text.slice(at, eol))?.[1] ?? ''];
    else {
      values = itemsOf(text.slice(at, eol).replace(/\s[#;].*$/, ''));
      if (values.length === 0) {
        // A YAML block list or INI continuation lines: the lines below, indented deeper than the key.
        const indent = at - lineStart - text.slice(lineStart, at).trimStart().length;
        for (let i = eol + 1; i < text.length; ) {
          const end = text.indexOf('\n', i) === -1 ? text.length : text.indexOf('\n', i);
          const line = text.slice(i, end);
          const deeper = line.length - line.trimStart().length > indent;
          if (line.trim() !== '' && !deeper) break;
          const item = line.trim().replace(/^-\s*/, '').replace(/\s#.*$/, '');
          if (item !== '') values.push(...itemsOf(item));
          i = end + 1;
        }
      }
    }
    out.push({ index: lineStart, values });
  }
  return out;
}

/** All values listed under key, anywhere in text. */
export const allValues = (text: string, key: string): string[] => valuesOf(text, key).flatMap((v) => v.values);
