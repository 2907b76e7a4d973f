import * as z from 'zod';

/**
 * What `minions restore` did for one run, `.agents/tmp/restores/<runId>.json` (written by the CLI alone):
 * each restore's saved "before" tree, so that it can be undone, and the tree it left.
 */
export const RestoreEntry = z.object({
  at: z.string(),
  /** "1", "2" … for a round, "undo" for an undo. */
  target: z.string(),
  /** The project's tree just before the restore: `minions restore undo` brings it back. */
  from: z.string(),
  /** The tree whose files were written. */
  to: z.string(),
  paths: z.array(z.string()),
});
export type RestoreEntry = z.infer<typeof RestoreEntry>;

export const RestoreLog = z.object({ runId: z.string(), restores: z.array(RestoreEntry) });
export type RestoreLog = z.infer<typeof RestoreLog>;
