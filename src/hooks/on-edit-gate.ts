/**
 * PreToolUse on Edit|Write|MultiEdit|NotebookEdit|apply_patch: which file may be written in this phase, by whom.
 * The plugin's own files are allowed outright (no permission prompt); project files are left to the user.
 */
import path from 'node:path';
import { editGate, type EditDecision, type Target } from '../core/gates';
import { PreToolUsePayload } from '../shell/payloads';
import { resolveLikeKernel } from '../shell/kernel-path';
import { realpathLoose, relativeInside } from '../shell/project';
import { hardLinksOf, isUnder, linkPlaces, protectedPlaces } from '../shell/protected-places';
import { runHook } from '../shell/run-hook';
import { stateOf } from '../core/loop-state';

void runHook({
  name: 'on-edit-gate',
  event: 'PreToolUse',
  payload: PreToolUsePayload,
  handle(payload, ctx) {
    // Every path the input names, under any key: a bogus file_path must not hide a notebook_path, and an
    // apply_patch names each of its files (file_paths, from the runner's host adapter).
    const listed = Array.isArray(payload.tool_input.file_paths) ? (payload.tool_input.file_paths as unknown[]) : [];
    const raws = [payload.tool_input.file_path, payload.tool_input.notebook_path, ...listed].filter((p): p is string => typeof p === 'string' && p.length > 0);
    if (raws.length === 0) return [];
    const places = protectedPlaces(ctx.root);
    const state = stateOf(ctx.load());
    const judge = (real: string): EditDecision => {
      // A hard link to one of the hooks' files (or the git dir's) is judged as that file.
      const links = hardLinksOf(real, linkPlaces(ctx.root, places));
      const resolved = links.twin ?? real;
      const rel = relativeInside(ctx.root, resolved);
      const guarded = isUnder(resolved, places.hooks) ? 'hooks' : isUnder(resolved, places.protected) ? 'protected' : null;
      const target: Target = { ...(rel === null ? { inside: false as const } : { inside: true as const, rel }), guarded, abs: resolved, linked: links.linked };
      return editGate(state, payload.session_id, payload.agent_type ?? null, target);
    };
    // Resolved as the kernel will when the host opens the path: each symlink before the `..` after it. A path
    // through /proc/self, /dev/fd or /dev/std* would be read in the host's own process, which the gate cannot
    // see into: undecided, and refused while a loop runs.
    const decisions = raws.flatMap((raw): EditDecision[] =>
      resolveLikeKernel(raw.startsWith('/') ? raw : `${payload.cwd ?? ctx.root}/${raw}`, { fds: {}, cwd: null }).flatMap((lead) =>
        lead.kind === 'path'
          ? [judge(realpathLoose(lead.abs))]
          : [
              // Where the hook's own process would land too: the hooks' files stay theirs even with no loop running.
              judge(realpathLoose(path.resolve(payload.cwd ?? ctx.root, raw))),
              editGate(state, payload.session_id, payload.agent_type ?? null, { inside: false, abs: raw, undecided: lead.kind === 'stream' ? 'a stream, not a file' : lead.why }),
            ],
      ),
    );
    // The stricter answer holds: any refusal, else no answer unless every path is the plugin's own.
    const decision = decisions.find((d) => d.kind === 'deny') ?? decisions.find((d) => d.kind === 'pass') ?? decisions[0]!;
    return decision.kind === 'pass' ? [] : [{ type: decision.kind, reason: decision.reason }];
  },
});
