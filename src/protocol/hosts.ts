/** The agent hosts the hooks run under. The state records which one started a loop; nothing else in the core reads it. */
export const HOSTS = ['claude-code', 'copilot', 'codex'] as const;
export type Host = (typeof HOSTS)[number];

/** How the user knows each host, for messages. */
export const HOST_NAMES: Record<Host, string> = {
  'claude-code': 'Claude Code',
  copilot: 'GitHub Copilot CLI',
  codex: 'Codex CLI',
};
