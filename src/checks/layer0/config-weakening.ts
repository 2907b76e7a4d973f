/**
 * A fix that makes a tool pass by asking less of it: a test script that runs fewer tests or cannot fail,
 * collection globs narrowed or ignores widened, strictness turned off, lint rules lowered to off or
 * warn. A table of tools to extend: each row names the config files it reads and what weakens them.
 * Only config files are read (a handful of small files per fix). Pure.
 */
import { allValues, valuesOf } from './config-values';
import type { Layer0Hit } from './hit';
import { introducedLines, linesOf, lineAround, matchLines, pattern, type Pattern, type Region } from './text';

export interface ConfigRule {
  tool: string;
  /** The config files it applies to, by path. */
  files: RegExp;
  /** Lines that weaken the tool: each one the fix introduced is a hit. */
  lines?: Pattern;
  /** Keys whose listed values say what runs or is checked: a value the fix removed narrows it. */
  lost?: readonly string[];
  /** Keys whose listed values say what is skipped or ignored: a value the fix added widens it. */
  gained?: readonly string[];
  /** Where the rule's keys are read from: the text from this pattern's first match on (absent: all). */
  scope?: RegExp;
  /** The test scripts of package.json. */
  scripts?: true;
  /** An example line of `lines`, which a unit test checks it finds. */
  example?: string;
}

const lines = (re: RegExp): Pattern => pattern(re, null);
/** A lint rule set to off or warn: "rule": "off" | 0 | 1 | ["warn", …]. */
const RULE_LOWERED = /["']?[@\w/-]+["']?\s*:\s*(?:["'](?:off|warn)["']|[01]\b|\[\s*(?:["'](?:off|warn)["']|[01]\b))/gm;
const PY_LINT = /(?:^|\/)(?:pyproject\.toml|setup\.cfg|tox\.ini|\.flake8|\.?ruff\.toml|mypy\.ini|\.mypy\.ini|\.?pylintrc|pyrightconfig\.json)$/;

export const CONFIG_RULES: readonly ConfigRule[] = [
  { tool: 'package.json scripts', files: /(?:^|\/)package\.json$/, scripts: true },
  {
    tool: 'TypeScript',
    files: /(?:^|\/)[jt]sconfig[\w.-]*\.json$/,
    lines: lines(
      /"(?:strict|noImplicitAny|strictNullChecks|strictFunctionTypes|strictBindCallApply|strictPropertyInitialization|strictBuiltinIteratorReturn|noImplicitThis|noImplicitReturns|noImplicitOverride|alwaysStrict|useUnknownInCatchVariables|noUncheckedIndexedAccess|exactOptionalPropertyTypes|noFallthroughCasesInSwitch|noUnusedLocals|noUnusedParameters|noPropertyAccessFromIndexSignature|checkJs)"\s*:\s*false\b|"(?:skipLibCheck|skipDefaultLibCheck|suppressImplicitAnyIndexErrors|suppressExcessPropertyErrors|noStrictGenericChecks)"\s*:\s*true\b/gm,
    ),
    lost: ['include', 'files'],
    gained: ['exclude'],
    example: '    "strict": false,',
  },
  { tool: 'ESLint', files: /(?:^|\/)(?:\.eslintrc(?:\.\w+)?|eslint\.config\.\w+)$/, lines: lines(RULE_LOWERED), gained: ['ignores', 'ignorePatterns'], example: "    'no-explicit-any': 'off'," },
  {
    tool: 'Biome/oxlint/Deno lint',
    files: /(?:^|\/)(?:biome\.jsonc?|\.oxlintrc\.json|deno\.jsonc?)$/,
    lines: lines(new RegExp(`${RULE_LOWERED.source}|"(?:enabled|recommended)"\\s*:\\s*false\\b`, 'gm')),
    gained: ['ignore', 'exclude'],
    example: '        "noExplicitAny": "off"',
  },
  {
    tool: 'Jest',
    files: /(?:^|\/)(?:jest\.config\.\w+|package\.json)$/,
    lines: lines(/["']?passWithNoTests["']?\s*:\s*true\b/gm),
    lost: ['testMatch', 'roots'],
    gained: ['testPathIgnorePatterns', 'modulePathIgnorePatterns', 'coveragePathIgnorePatterns'],
    example: '  passWithNoTests: true,',
  },
  {
    tool: 'Vitest',
    files: /(?:^|\/)(?:vitest|vite)\.(?:config|workspace)\.\w+$/,
    lines: lines(/\b(?:passWithNoTests|allowOnly)\s*:\s*true\b/gm),
    scope: /\btest\s*:\s*\{/,
    lost: ['include'],
    gained: ['exclude'],
    example: '    passWithNoTests: true,',
  },
  {
    tool: 'Mocha',
    files: /(?:^|\/)\.mocharc\.\w+$/,
    lines: lines(/["']?(?:grep|fgrep)["']?\s*:|["']?forbid-?[oO]nly["']?\s*:\s*false\b/gm),
    lost: ['spec'],
    gained: ['ignore', 'exclude'],
    example: '  "grep": "cart",',
  },
  {
    tool: 'pytest',
    files: /(?:^|\/)(?:pytest\.ini|tox\.ini|setup\.cfg|pyproject\.toml)$/,
    lines: lines(/(?:^|[\s"'=])(?:-k|--deselect|--ignore(?:-glob)?|--lf|--last-failed|--sw|--stepwise|--co|--collect-only|--continue-on-collection-errors)(?=[\s="']|$)|(?:^|[\s"'=])-m\s+["']?not\b|\bxfail_strict\s*=\s*(?:false|False)\b/gm),
    lost: ['testpaths', 'python_files', 'python_functions', 'python_classes'],
    gained: ['norecursedirs'],
    example: 'addopts = -q --deselect tests/test_cart.py::test_total',
  },
  {
    tool: 'Python linters and type checkers (ruff, flake8, pylint, mypy, pyright)',
    files: PY_LINT,
    lines: lines(
      /\b(?:strict|disallow_[a-z_]+|warn_[a-z_]+|check_untyped_defs|strict_optional|strict_equality|no_implicit_optional)\s*=\s*(?:false|False)\b|\b(?:ignore_errors|ignore_missing_imports)\s*=\s*(?:true|True)\b|["']?typeCheckingMode["']?\s*[:=]\s*["'](?:off|basic)["']|["']?report\w+["']?\s*[:=]\s*["']?(?:none|false|warning|information)\b/gm,
    ),
    lost: ['select', 'extend-select'],
    gained: ['ignore', 'extend-ignore', 'extend_ignore', 'per-file-ignores', 'disable', 'extend-exclude'],
    example: 'disallow_untyped_defs = false',
  },
  {
    tool: 'golangci-lint',
    files: /(?:^|\/)\.golangci\.(?:ya?ml|toml|json)$/,
    lines: lines(/\bdisable-all\s*:\s*true\b|\bdefault\s*:\s*none\b|\bnew\s*:\s*true\b|\bnew-from-(?:rev|patch)\s*:/gm),
    lost: ['enable'],
    gained: ['disable', 'skip-dirs', 'skip-files', 'exclude-dirs', 'exclude-files', 'exclude', 'exclude-rules'],
    example: '  disable-all: true',
  },
  {
    tool: 'Cargo/Clippy',
    files: /(?:^|\/)(?:Cargo\.toml|\.?clippy\.toml|\.cargo\/config(?:\.toml)?)$/,
    lines: lines(/^[ \t]*[\w:-]+\s*=\s*(?:["']allow["']|\{[^}\n]*\blevel\s*=\s*["']allow["'])|["']-A\s*[\w:]+["']|--cap-lints/gm),
    example: 'dead_code = "allow"',
  },
  {
    tool: 'RuboCop/RSpec',
    files: /(?:^|\/)(?:\.rubocop(?:_todo)?\.yml|\.rspec)$/,
    lines: lines(/\bEnabled\s*:\s*false\b|--tag\s+~|--exclude-pattern\b/gm),
    gained: ['Exclude'],
    example: '  Enabled: false',
  },
  {
    tool: 'Maven/Gradle',
    files: /(?:^|\/)(?:pom\.xml|build\.gradle(?:\.kts)?)$/,
    lines: lines(/<(?:skipTests|skipITs|maven\.test\.skip|testFailureIgnore|skip)>\s*true\b|-DskipTests\b|\bignoreFailures\s*=\s*true\b|<fail(?:OnViolation|sOnError|OnError)>\s*false\b|<exclude>[^<\n]*Test|\bexclude\s*\(?\s*["'][^"'\n]*Test/gm),
    example: '        <skipTests>true</skipTests>',
  },
  { tool: 'CI workflow', files: /(?:^|\/)\.github\/workflows\/[^/]+\.ya?ml$/, lines: lines(/\bcontinue-on-error\s*:\s*true\b/gm), example: '        continue-on-error: true' },
];

// ── package.json scripts ───────────────────────────────────────────────────────

/** The scripts that run the project's tests, lint or type checks. */
const CHECK_SCRIPT = /^(?:test|tests|lint|typecheck|type-check|check|ci|verify)(?::[\w:.-]+)?$/;
/** What makes a script run fewer tests or unable to fail. */
const SCRIPT_WEAKENERS: readonly [RegExp, string][] = [
  [/\|\|\s*(?:true\b|:(?!\S)|exit\s+0\b)|;\s*true\s*$|\bexit\s+0\b/, 'cannot fail'],
  [/--passWithNoTests\b|--pass-with-no-tests\b|--no-error-on-unmatched-pattern\b/, 'passes with no tests'],
  [/(?:^|\s)(?:-t|-k|--testNamePattern|--testPathPattern|--testPathIgnorePatterns|--grep|--fgrep|--exclude|--ignore|--deselect|--onlyChanged|--changed|--lf|--findRelatedTests|--shard)(?=[\s=]|$)/, 'runs fewer tests'],
];
const NO_OP = /^\s*(?:echo\b[^&|;]*|true|:|exit\s+0)?\s*$/;

function scriptsOf(text: string | null): Map<string, string> {
  if (text === null) return new Map();
  try {
    const scripts = (JSON.parse(text) as { scripts?: unknown }).scripts;
    if (typeof scripts !== 'object' || scripts === null) return new Map();
    return new Map(Object.entries(scripts).filter((e): e is [string, string] => typeof e[1] === 'string' && CHECK_SCRIPT.test(e[0])));
  } catch {
    return new Map();
  }
}

/** How a check script got weaker, or null. */
export function scriptWeakened(before: string, after: string | undefined): string | null {
  if (after === undefined) return 'was removed';
  if (after.trim() === before.trim()) return null;
  if (NO_OP.test(after) && !NO_OP.test(before)) return 'no longer runs anything';
  for (const [re, what] of SCRIPT_WEAKENERS) if (re.test(after) && !re.test(before)) return what;
  // The same command, given paths or filters: runs fewer tests.
  const rest = after.trim().startsWith(before.trim()) ? after.trim().slice(before.trim().length) : '';
  if (/^\s+[^-\s&|;]/.test(rest)) return 'runs fewer tests';
  return null;
}

const lineOfKey = (text: string, key: string): number | null => {
  const at = text.search(new RegExp(`["']${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}["']\\s*:`));
  return at === -1 ? null : at;
};

function scriptHits(path: string, tool: string, before: string | null, after: string): Layer0Hit[] {
  const was = scriptsOf(before);
  const now = scriptsOf(after);
  const hits: Layer0Hit[] = [];
  for (const [name, script] of was) {
    const how = scriptWeakened(script, now.get(name));
    if (how === null) continue;
    const at = now.has(name) ? lineOfKey(after, name) : null;
    hits.push({
      check: 'config_weakened',
      path,
      line: at === null ? null : linesOf(after).lineAt(at),
      evidence: at === null ? `"${name}": ${JSON.stringify(script)} removed` : lineAround(after, at),
      detail: { tool, change: `the "${name}" script ${how}` },
    });
  }
  return hits;
}

// ── Listed values narrowed or widened ──────────────────────────────────────────

const counted = (values: readonly string[]): Map<string, number> => {
  const m = new Map<string, number>();
  for (const v of values) m.set(v, (m.get(v) ?? 0) + 1);
  return m;
};
/** Values of `from` that `than` does not have as many times. */
const beyond = (from: readonly string[], than: readonly string[]): string[] => {
  const left = counted(than);
  return from.filter((v) => {
    const n = left.get(v) ?? 0;
    if (n > 0) left.set(v, n - 1);
    return n === 0;
  });
};

/** Folders no tool is asked to check: ignoring one more of them weakens nothing. */
const OUTPUT_DIRS = new Set(['node_modules', 'dist', 'build', 'out', 'coverage', '.git', '.next', '.nuxt', '.svelte-kit', 'target', 'vendor', 'tmp', '.cache', '__pycache__', '.venv', 'venv', '.tox', '.mypy_cache', '.pytest_cache']);
const onlyOutput = (value: string): boolean => {
  const parts = value.split('/').filter((p) => p !== '' && p !== '.' && !/^[*?]+$/.test(p) && !/^<rootDir>$/.test(p));
  return parts.length > 0 && parts.every((p) => OUTPUT_DIRS.has(p));
};

function listHits(path: string, rule: ConfigRule, before: string, after: string): Layer0Hit[] {
  const scoped = (text: string): string => {
    if (!rule.scope) return text;
    const at = text.search(rule.scope);
    return at === -1 ? '' : text.slice(at);
  };
  const [b, a] = [scoped(before), scoped(after)];
  const offset = after.length - a.length;
  const hits: Layer0Hit[] = [];
  const hit = (key: string, verb: string, value: string): void => {
    // The line that holds the value (added) or the key (a value removed), when it is there.
    const places = valuesOf(a, key);
    const quoted = verb === 'gained' ? a.indexOf(value, places[0]?.index ?? 0) : -1;
    const at = quoted !== -1 ? offset + quoted : places[0] ? offset + places[0].index : null;
    hits.push({
      check: 'config_weakened',
      path,
      line: at === null ? null : linesOf(after).lineAt(at),
      evidence: at === null ? `${key} ${verb} ${JSON.stringify(value)}` : lineAround(after, at),
      detail: { tool: rule.tool, change: `${key} ${verb} ${JSON.stringify(value)}` },
    });
  };
  for (const key of rule.lost ?? []) {
    const was = allValues(b, key);
    // A key removed entirely falls back to the tool's default: not read as narrowed.
    if (was.length === 0 || valuesOf(a, key).length === 0) continue;
    for (const v of beyond(was, allValues(a, key))) hit(key, 'lost', v);
  }
  for (const key of rule.gained ?? []) for (const v of beyond(allValues(a, key), allValues(b, key))) if (!onlyOutput(v)) hit(key, 'gained', v);
  return hits;
}

/** The rules that apply to a path (none for most files: only config files are read). */
export const configRulesFor = (path: string): ConfigRule[] => CONFIG_RULES.filter((r) => r.files.test(path));

/** What the fix weakened in a changed config file: its introduced weakening lines, lists narrowed or widened, test scripts. */
export function configWeakened(path: string, before: string | null, after: string, region?: Region): Layer0Hit[] {
  const hits: Layer0Hit[] = [];
  for (const rule of configRulesFor(path)) {
    if (rule.scripts) {
      hits.push(...scriptHits(path, rule.tool, before, after));
      continue;
    }
    if (rule.lines) {
      const { re } = rule.lines;
      const setting = (line: string): string => {
        re.lastIndex = 0;
        const found = re.exec(line)?.[0].trim() ?? line;
        re.lastIndex = 0;
        return found;
      };
      const introduced = introducedLines(rule.lines, before, after, region);
      // A setting that was there already, on a line that only changed around it (a comma, a move), is not new.
      const had = counted(introduced.length && before !== null ? matchLines(rule.lines, before).map((m) => setting(m.evidence)) : []);
      for (const m of introduced) {
        const found = setting(m.evidence);
        const n = had.get(found) ?? 0;
        if (n > 0) {
          had.set(found, n - 1);
          continue;
        }
        hits.push({ check: 'config_weakened', path, line: m.line, evidence: m.evidence, detail: { tool: rule.tool, change: found } });
      }
    }
    if (before !== null) hits.push(...listHits(path, rule, before, after));
  }
  return hits;
}
