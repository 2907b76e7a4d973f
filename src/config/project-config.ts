/**
 * `.minions.json` at the project root: the project's checks and its defaults for every flag of
 * /minions:review. One zod schema (schema/minions-config.schema.json is generated from it);
 * validateConfig returns the config or every problem, each naming its key, and never throws.
 */
import * as z from 'zod/mini';
import { LAYER0_CHECKS, type Layer0Check } from '../checks/layer0/names';
import { described } from '../protocol/zod';
import { DEFAULT_DONE_WHEN } from '../protocol/stop-rules';
import { DONE_WHEN_DESCRIPTION, DONE_WHEN_LEVELS, MAX_CHECKS, MAX_CHECK_LENGTH, MAX_TOKENS, NUMERIC_DEFAULTS, NUMERIC_OPTIONS, type NumericKey, type NumericOption, type NumericSettings } from './options';
import { EFFORTS, EFFORT_PROFILES, MODELS, MODEL_AGENTS, type Effort, type ModelOverrides } from '../protocol/effort';

export const CONFIG_FILE = '.minions.json';

const numeric = (o: NumericOption) =>
  described(
    z.optional((o.whole ? z.int() : z.number()).check(z.minimum(o.min), z.maximum(o.max))),
    `${o.description}; --${o.flag} overrides it (default ${o.default}, ${o.min}–${o.max})`,
  );

/** Built on first use: only /minions:review reads the config, and building it cost every prompt hook about 2 % of a node start. */
const buildProjectConfig = () =>
  z.strictObject({
    $schema: described(z.optional(z.string()), 'the JSON Schema of this file, for editors'),
    checks: described(
      z.optional(z.array(z.string().check(z.trim(), z.minLength(1), z.maxLength(MAX_CHECK_LENGTH))).check(z.maxLength(MAX_CHECKS))),
      'shell commands run in the project root when the loop starts and after every fix round, e.g. ["npm test", "npx tsc --noEmit"]; --check replaces them',
    ),
    ...(Object.fromEntries(NUMERIC_OPTIONS.map((o) => [o.key, numeric(o)])) as Record<NumericKey, ReturnType<typeof numeric>>),
    maxTokens: described(
      z.optional(z.int().check(z.minimum(1), z.maximum(MAX_TOKENS))),
      `the token budget: once the agents have used this many tokens no fix round and no new review starts (stop reason budget); --max-tokens overrides it (default: no budget, 1–${MAX_TOKENS})`,
    ),
    doneWhen: described(z.optional(z.enum(DONE_WHEN_LEVELS)), `${DONE_WHEN_DESCRIPTION}; --done-when overrides it`),
    base: described(
      z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(1000), z.regex(/^[^-]/))),
      'the git ref a review is measured from (the merge base of it and HEAD to the working tree), e.g. "origin/main"; --base overrides it (default: uncommitted work against HEAD, or on a clean branch its upstream or default branch)',
    ),
    effort: described(
      z.optional(z.enum(EFFORTS)),
      `the cost profile: quick (${EFFORT_PROFILES.quick.reviewers.join(', ')}; ${EFFORT_PROFILES.quick.maxIterations} rounds), standard (all five reviewers on the session's model; ${EFFORT_PROFILES.standard.maxIterations} rounds) or deep (all five on opus; ${EFFORT_PROFILES.deep.maxIterations} rounds); --effort overrides it (default standard)`,
    ),
    models: described(
      z.optional(z.strictObject(Object.fromEntries(MODEL_AGENTS.map((a) => [a, z.optional(z.enum(MODELS))])) as Record<(typeof MODEL_AGENTS)[number], z.ZodMiniOptional<z.ZodMiniEnum<{ [M in (typeof MODELS)[number]]: M }>>>)),
      `the model asked of an agent, over the effort profile's, e.g. {"critic": "haiku"}; one of ${MODELS.join(', ')} (inherit: the session's model)`,
    ),
    layer0: described(
      z.optional(z.strictObject({ disable: described(z._default(z.array(z.enum(LAYER0_CHECKS)), []), 'Layer-0 checks that do not fit this project') })),
      "the hooks' token-free checks on what each fix round changed",
    ),
  });
let built: ReturnType<typeof buildProjectConfig> | undefined;
const projectConfig = (): ReturnType<typeof buildProjectConfig> => (built ??= buildProjectConfig());
export const ProjectConfig = z.lazy(projectConfig);
const knownKeys = (): string[] => Object.keys(projectConfig().shape);
export type ProjectConfig = z.infer<typeof ProjectConfig>;

/** Everything a loop is started with: the table's numbers, the checks, the Layer-0 checks left out. */
export interface Settings extends NumericSettings {
  /** null: no token budget. */
  maxTokens: number | null;
  checks: string[];
  layer0Disabled: Layer0Check[];
  /** The ref to review against; null: the hooks choose. */
  base: string | null;
  doneWhen: (typeof DONE_WHEN_LEVELS)[number];
  effort: EffortSettings;
}
/** .minions.json's profile (null: not named), its model overrides, and whether it named maxIterations (which then beats any profile's). */
export interface EffortSettings {
  profile: Effort | null;
  models: ModelOverrides;
  maxIterationsSet: boolean;
}
const NO_EFFORT: EffortSettings = { profile: null, models: {}, maxIterationsSet: false };
export const DEFAULT_SETTINGS: Settings = { ...NUMERIC_DEFAULTS, maxTokens: null, checks: [], layer0Disabled: [], base: null, doneWhen: DEFAULT_DONE_WHEN, effort: NO_EFFORT };

/** The config's values over the defaults (flags go over these). */
export function settingsFromConfig(config: ProjectConfig | null): Settings {
  if (!config) return DEFAULT_SETTINGS;
  const numbers = Object.fromEntries(NUMERIC_OPTIONS.map((o) => [o.key, (config as Record<string, unknown>)[o.key] ?? o.default])) as NumericSettings;
  const effort: EffortSettings = { profile: config.effort ?? null, models: config.models ?? {}, maxIterationsSet: config.maxIterations !== undefined };
  if (!effort.maxIterationsSet && effort.profile) numbers.maxIterations = EFFORT_PROFILES[effort.profile].maxIterations;
  return { ...numbers, maxTokens: config.maxTokens ?? null, checks: config.checks ?? [], layer0Disabled: config.layer0?.disable ?? [], base: config.base ?? null, doneWhen: config.doneWhen ?? DEFAULT_DONE_WHEN, effort };
}

export type ConfigResult = { ok: true; config: ProjectConfig } | { ok: false; errors: string[] };

/** Validates the file's text (null: there is no file). */
export function validateConfig(text: string | null): ConfigResult {
  if (text === null) return { ok: true, config: {} };
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    return { ok: false, errors: [`it is not valid JSON (${(err as Error).message})`] };
  }
  const parsed = ProjectConfig.safeParse(data);
  if (parsed.success) return { ok: true, config: parsed.data };
  // One problem a line: a value that breaks two checks of one key (empty, and not a ref) is named once.
  return { ok: false, errors: [...new Set(parsed.error.issues.slice(0, 8).flatMap((issue) => describeIssue(issue, data)))] };
}

function describeIssue(issue: z.core.$ZodIssue, data: unknown): string[] {
  const where = issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('').replace(/^\./, '');
  if (issue.code === 'unrecognized_keys') {
    const inside = where ? `${where}.` : '';
    return issue.keys.map((key) => {
      const near = where ? null : nearestKey(key);
      return `unknown key "${inside}${key}"${near ? ` (did you mean "${near}"?)` : ''}; known keys: ${(where === 'models' ? MODEL_AGENTS : where ? ['disable'] : knownKeys()).join(', ')}`;
    });
  }
  const value = valueAt(data, issue.path);
  const option = NUMERIC_OPTIONS.find((o) => o.key === issue.path[0]);
  if (option && issue.path.length === 1) {
    return [`"${option.key}" must be ${option.whole ? 'a whole number' : 'a number'} from ${option.min} to ${option.max}, not ${JSON.stringify(value)}`];
  }
  if (issue.path[0] === 'maxTokens' && issue.path.length === 1) return [`"maxTokens" must be a whole number from 1 to ${MAX_TOKENS}, not ${JSON.stringify(value)}`];
  if (issue.path[0] === 'checks') {
    if (issue.path.length === 1) {
      return [issue.code === 'too_big' ? `"checks" may list at most ${MAX_CHECKS} commands` : `"checks" must be a list of shell commands, e.g. ["npm test"], not ${JSON.stringify(value)}`];
    }
    return [`"${where}" must be a command of 1 to ${MAX_CHECK_LENGTH} characters, not ${JSON.stringify(value)}`];
  }
  if (issue.path[0] === 'doneWhen' && issue.path.length === 1) return [`"doneWhen" must be one of ${DONE_WHEN_LEVELS.map((l) => `"${l}"`).join(', ')}, not ${JSON.stringify(value)}`];
  if (issue.path[0] === 'base' && issue.path.length === 1) return [`"base" must be a git ref of 1 to 1000 characters that does not start with "-", e.g. "origin/main", not ${JSON.stringify(value)}`];
  if (issue.path[0] === 'effort' && issue.path.length === 1) return [`"effort" must be one of ${EFFORTS.join(', ')}, not ${JSON.stringify(value)}`];
  if (issue.path[0] === 'models') {
    return [issue.path.length === 1 ? `"models" must be an object of agent names to models, e.g. {"critic": "haiku"}, not ${JSON.stringify(value)}` : `"${where}" must be one of ${MODELS.join(', ')}, not ${JSON.stringify(value)}`];
  }
  if (issue.path[0] === 'layer0' && issue.path.length === 3) {
    return [`"${where}": ${JSON.stringify(value)} is not a Layer-0 check; known: ${LAYER0_CHECKS.join(', ')}`];
  }
  return [`"${where || '(top level)'}": ${issue.message}`];
}

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let value = data;
  for (const key of path) value = value !== null && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  return value;
}

/** The known key a misspelt one most likely meant: the same letters in another case or spelling, or two edits away. */
function nearestKey(key: string): string | null {
  const flat = (s: string) => s.toLowerCase().replace(/[-_\s]/g, '');
  const known = knownKeys();
  const same = known.find((k) => flat(k) === flat(key));
  if (same) return same;
  let best: string | null = null;
  let bestDistance = 3;
  for (const k of known) {
    const d = editDistance(flat(k), flat(key));
    if (d < bestDistance) [best, bestDistance] = [k, d];
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}
