/**
 * Cost profiles (`--effort`, `.minions.json` `effort`): which reviewers run, the model each agent is asked
 * to use, the default iteration budget. `standard` is the loop as it was before profiles: five reviewers,
 * every agent on the session's model (`inherit`), five rounds. The figures behind the other two are the
 * simulator's (sim/effort.ts, docs/convergence.md).
 */
import { FIXER, REVIEWERS, type Reviewer } from './agents';

export const EFFORTS = ['quick', 'standard', 'deep'] as const;
export type Effort = (typeof EFFORTS)[number];
export const DEFAULT_EFFORT: Effort = 'standard';

/** What Claude Code's Agent tool and agent frontmatter take; `inherit` is the session's own model. */
export const MODELS = ['inherit', 'haiku', 'sonnet', 'opus'] as const;
export type Model = (typeof MODELS)[number];

/** The agents a model is asked of: the reviewers and the fixer. */
export const MODEL_AGENTS = [...REVIEWERS, FIXER] as const;
export type ModelAgent = (typeof MODEL_AGENTS)[number];
export type AgentModels = Record<ModelAgent, Model>;
/** `.minions.json` `models`: some agents' models over the profile's. */
export type ModelOverrides = Partial<AgentModels>;

export interface EffortProfile {
  reviewers: readonly Reviewer[];
  models: AgentModels;
  maxIterations: number;
  /** One line for the docs and the README. */
  why: string;
}

const all = (model: Model, fixer: Model = model): AgentModels => ({ ...(Object.fromEntries(REVIEWERS.map((r) => [r, model])) as Record<Reviewer, Model>), [FIXER]: fixer });

export const EFFORT_PROFILES: Record<Effort, EffortProfile> = {
  quick: {
    reviewers: ['critic', 'witness', 'security-reviewer'],
    models: all('sonnet'),
    maxIterations: 4,
    why: 'three reviewers (correctness, the tests run, security) on sonnet; four rounds, the most a simulated loop fits in 2.5 M tokens',
  },
  standard: {
    reviewers: REVIEWERS,
    models: all('inherit'),
    maxIterations: 5,
    why: "all five reviewers on the session's model; five rounds (the loop as it was before profiles), the most a simulated loop fits in 6 M tokens",
  },
  deep: {
    reviewers: REVIEWERS,
    models: all('opus'),
    maxIterations: 6,
    why: 'all five reviewers and the fixer on opus; six rounds, the most a simulated loop fits in 8 M tokens',
  },
};

/** What a loop records of its profile: the reviewers that run and the model asked of each agent. */
export interface EffortChoice {
  profile: Effort;
  reviewers: Reviewer[];
  models: AgentModels;
}

/** The profile's reviewers (in REVIEWERS order) and its models with the project's overrides over them. */
export function resolveEffort(profile: Effort, overrides: ModelOverrides = {}): EffortChoice {
  const p = EFFORT_PROFILES[profile];
  const models = { ...p.models };
  for (const agent of MODEL_AGENTS) {
    const model = overrides[agent];
    if (model !== undefined) models[agent] = model;
  }
  return { profile, reviewers: REVIEWERS.filter((r) => p.reviewers.includes(r)), models };
}

export const STANDARD_EFFORT: EffortChoice = resolveEffort(DEFAULT_EFFORT);

export const isEffort = (value: string): value is Effort => (EFFORTS as readonly string[]).includes(value);
