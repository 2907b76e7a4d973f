/** The plugin's agents, as the host names them in `subagent_type` and `agent_type`. */
export const PLUGIN = 'minions';
export const REVIEWERS = ['critic', 'pedant', 'witness', 'security-reviewer', 'silent-failure-hunter'] as const;
export type Reviewer = (typeof REVIEWERS)[number];
/** Reporters that are not models: the hooks' Layer-0 checks and the project's own checks. */
export const MACHINE_REPORTERS = ['layer0', 'checks'] as const;
export type MachineReporter = (typeof MACHINE_REPORTERS)[number];
/** Everyone a merged finding may name as its reporter. */
export const REPORTERS = [...REVIEWERS, ...MACHINE_REPORTERS] as const;
export type Reporter = (typeof REPORTERS)[number];
export const FIXER = 'review-fixer';

export const agentType = (name: string): string => `${PLUGIN}:${name}`;
export const FIXER_TYPE = agentType(FIXER);

/** `minions:critic` → `critic`; anything else → null. */
export function reviewerOf(type: string | undefined | null): Reviewer | null {
  if (!type?.startsWith(`${PLUGIN}:`)) return null;
  const name = type.slice(PLUGIN.length + 1);
  return (REVIEWERS as readonly string[]).includes(name) ? (name as Reviewer) : null;
}

export const isFixer = (type: string | undefined | null): boolean => type === FIXER_TYPE;
export const isPluginAgent = (type: string | undefined | null): boolean => !!type?.startsWith(`${PLUGIN}:`);
