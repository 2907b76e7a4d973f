/**
 * Which files a test runner collects: the pattern the project declares (vitest `include`, jest
 * `testMatch`/`testRegex`, mocha `spec`, pytest `python_files`), else the runner's default. A test file
 * renamed out of its runner's pattern (x.test.js → x.tests.js, test_x.py → x_check.py) no longer runs:
 * that is not a move. Pure.
 */
import { allValues } from './config-values';
import type { Layer0Hit } from './hit';
import { TEST_CASE } from './anti-gaming';
import { matchLines, textOf, type FileChange } from './text';

/** The config files (at the project's root) the runners' patterns are read from; the shell reads them at the fix's end. */
export const RUNNER_CONFIG_FILES = [
  'package.json',
  ...['vitest', 'vite'].flatMap((n) => ['ts', 'mts', 'cts', 'js', 'mjs', 'cjs'].map((x) => `${n}.config.${x}`)),
  ...['ts', 'js', 'mjs', 'cjs', 'json'].map((x) => `jest.config.${x}`),
  ...['js', 'cjs', 'json', 'jsonc', 'yml', 'yaml'].map((x) => `.mocharc.${x}`),
  'pytest.ini',
  'pyproject.toml',
  'setup.cfg',
  'tox.ini',
] as const;

/** A glob (micromatch's and fnmatch's common ground: **, *, ?, [..], {a,b}, ?(..), +(..), *(..), @(..), !(..)) as an anchored regex. */
export function globToRegExp(glob: string): RegExp {
  const g = glob.replace(/^!?(?:<rootDir>\/|\.\/)+/, '');
  let out = '';
  const stack: string[] = [];
  for (let i = 0; i < g.length; i++) {
    const c = g[i]!;
    const next = g[i + 1];
    if ('?+*@!'.includes(c) && next === '(') {
      stack.push(c === '!' ? '!' : c === '@' ? '' : c);
      out += c === '!' ? '(?:(?!(?:' : '(?:';
      i += 1;
    } else if (c === '*' && next === '*') {
      const slash = g[i + 2] === '/';
      out += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '{') {
      stack.push('}');
      out += '(?:';
    } else if (c === ',' && stack.at(-1) === '}') out += '|';
    else if (c === '}' && stack.at(-1) === '}') {
      stack.pop();
      out += ')';
    } else if (c === '|' && stack.length > 0) out += '|';
    else if (c === ')' && stack.length > 0 && stack.at(-1) !== '}') {
      const kind = stack.pop()!;
      out += kind === '!' ? '))[^/]*?)' : `)${kind}`;
    } else if (c === '[') {
      const end = g.indexOf(']', i + 2);
      if (end === -1) out += '\\[';
      else {
        out += `[${g.slice(i + 1, end).replace(/^!/, '^').replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else out += c.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  try {
    return new RegExp(`^(?:${out})$`);
  } catch {
    return /$^/;
  }
}

interface Matcher {
  test(path: string): boolean;
}
const globs = (patterns: readonly string[]): Matcher => {
  const res = patterns.filter((p) => !p.startsWith('!')).map((p) => [p.includes('/'), globToRegExp(p)] as const);
  return { test: (path) => res.some(([full, re]) => re.test(full ? path : (path.split('/').at(-1) ?? path))) };
};
const regexes = (sources: readonly string[]): Matcher => {
  const res = sources.flatMap((s) => {
    try {
      return [new RegExp(s)];
    } catch {
      return [];
    }
  });
  return { test: (path) => res.some((re) => re.test(path)) };
};
const any = (matchers: readonly Matcher[]): Matcher => ({ test: (path) => matchers.some((m) => m.test(path)) });

const DEFAULTS = {
  vitest: ['**/*.{test,spec}.?(c|m)[jt]s?(x)'],
  jest: ['**/__tests__/**/*.?([mc])[jt]s?(x)', '**/?(*.)+(spec|test).?([mc])[jt]s?(x)'],
  mocha: ['test/*.{js,cjs,mjs}'],
  node: ['**/*.test.?(c|m)js', '**/*-test.?(c|m)js', '**/*_test.?(c|m)js', '**/test-*.?(c|m)js', '**/test.?(c|m)js', '**/test/**/*.?(c|m)js'],
  python: ['test_*.py', '*_test.py', 'test*.py'],
};

const first = (configs: ReadonlyMap<string, string>, names: readonly string[]): string | null => {
  for (const n of names) {
    const t = configs.get(n);
    if (t !== undefined) return t;
  }
  return null;
};
const named = (prefix: string): string[] => RUNNER_CONFIG_FILES.filter((f) => f.startsWith(prefix));

/** The JS runners the project uses (by their config files and package.json), each with what it collects. */
function jsRunners(configs: ReadonlyMap<string, string>): Matcher {
  const pkg = configs.get('package.json') ?? '';
  const found: Matcher[] = [];
  const vitest = first(configs, [...named('vitest.config'), ...named('vite.config')]);
  if (vitest !== null || /"vitest"\s*:/.test(pkg)) {
    const scope = vitest === null ? '' : vitest.slice(Math.max(0, vitest.search(/\btest\s*:\s*\{/)));
    const include = /\btest\s*:\s*\{/.test(vitest ?? '') ? allValues(scope, 'include') : [];
    found.push(globs(include.length ? include : DEFAULTS.vitest));
  }
  const jest = first(configs, named('jest.config'));
  const jestInPkg = /"jest"\s*:/.test(pkg);
  if (jest !== null || jestInPkg) {
    const text = jest ?? pkg;
    const testMatch = allValues(text, 'testMatch');
    const testRegex = allValues(text, 'testRegex');
    found.push(testMatch.length ? globs(testMatch) : testRegex.length ? regexes(testRegex) : globs(DEFAULTS.jest));
  }
  const mocha = first(configs, named('.mocharc'));
  if (mocha !== null || /"mocha"\s*:/.test(pkg)) {
    const spec = mocha === null ? [] : allValues(mocha, 'spec');
    found.push(globs(spec.length ? spec : DEFAULTS.mocha));
  }
  if (/\bnode\s+(?:[^"\n]*\s)?--test\b/.test(pkg)) found.push(globs(DEFAULTS.node));
  return found.length ? any(found) : globs([...DEFAULTS.vitest, ...DEFAULTS.jest]);
}

const JS = /\.[cm]?[jt]sx?$/;
/**
 * Whether the runner of a file's kind collects it: true or false, null when no runner of this kind is
 * known (that file's kind is then never counted as uncollected).
 */
export function collects(configs: ReadonlyMap<string, string>): (path: string) => boolean | null {
  let js: Matcher | null = null;
  let py: Matcher | null = null;
  return (path) => {
    const base = path.split('/').at(-1) ?? path;
    if (JS.test(path)) return (js ??= jsRunners(configs)).test(path);
    if (/\.py$/.test(path)) {
      if (!py) {
        const declared = ['pytest.ini', 'pyproject.toml', 'setup.cfg', 'tox.ini'].flatMap((f) => allValues(configs.get(f) ?? '', 'python_files'));
        py = globs(declared.length ? declared : DEFAULTS.python);
      }
      return py.test(base);
    }
    if (/\.go$/.test(path)) return base.endsWith('_test.go');
    if (/\.rb$/.test(path)) return /(?:_spec|_test)\.rb$|^test_.*\.rb$/.test(base);
    if (/\.(?:java|kt|groovy|scala)$/.test(path)) return /^(?:Test\w*|\w*(?:Test|Tests|TestCase|IT|Spec))\.\w+$/.test(base);
    return null;
  };
}

const casesOf = (text: string): string[] => matchLines(TEST_CASE, text).map((m) => m.evidence);

const renameEvidence = (from: string, to: string): string => `renamed test file ${from} to ${to}`;

/** The path a test_uncollected finding's file was renamed from (its evidence names it), or null. */
export function renamedFrom(file: string, evidence: string): string | null {
  const [head, tail] = renameEvidence('\0', file).split('\0') as [string, string];
  return evidence.startsWith(head) && evidence.endsWith(tail) && evidence.length > head.length + tail.length ? evidence.slice(head.length, evidence.length - tail.length) : null;
}

/**
 * Test files renamed out of their runner's collection: a file the runner collected is gone, and a new
 * file the runner does not collect holds its text or all its test cases. `pairs`: both sides of each
 * such rename (the removals leave them to this check).
 */
export function uncollectedTests(changes: readonly FileChange[], configs: ReadonlyMap<string, string>): { hits: Layer0Hit[]; pairs: Set<FileChange> } {
  const hits: Layer0Hit[] = [];
  const pairs = new Set<FileChange>();
  const gone = changes.filter((c) => c.before.kind === 'text' && c.after.kind === 'absent');
  const added = changes.filter((c) => c.before.kind === 'absent' && c.after.kind === 'text');
  if (gone.length === 0 || added.length === 0) return { hits, pairs };
  const collected = collects(configs);
  for (const d of gone) {
    if (collected(d.path) !== true) continue;
    const text = textOf(d.before)!;
    const cases = casesOf(text);
    const a = added.find((c) => {
      if (pairs.has(c) || collected(c.path) !== false) return false;
      const now = textOf(c.after)!;
      if (now.trim() === text.trim()) return true;
      const there = new Set(casesOf(now));
      return cases.length > 0 && cases.every((line) => there.has(line));
    });
    if (!a) continue;
    pairs.add(d).add(a);
    hits.push({ check: 'test_uncollected', path: a.path, line: null, evidence: renameEvidence(d.path, a.path), detail: { from: d.path, tests: cases.length } });
  }
  return { hits, pairs };
}
