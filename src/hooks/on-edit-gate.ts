/**
 * PreToolUse on Edit|Write|MultiEdit|NotebookEdit: which file may be written in this phase, by whom.
 * The plugin's own files are allowed outright (no permission prompt); project files are left to the user.
 */
import path from 'node:path';
import { editGate, type Target } from '../core/gates';
import { PreToolUsePayload } from '../shell/payloads';
import { realpathLoose, relativeInside } from '../shell/project';
import { isUnder, protectedPlaces } from '../shell/protected-places';
import { runHook } from '../shell/run-hook';
import { stateOf } from '../core/loop-state';

void runHook({
  name: 'on-edit-gate',
  event: 'PreToolUse',
  payload: PreToolUsePayload,
  handle(payload, ctx) {
    const raw = payload.tool_input.file_path ?? payload.tool_input.notebook_path;
    if (typeof raw !== 'string' || raw.length === 0) return [];
    const resolved = realpathLoose(path.resolve(payload.cwd ?? ctx.root, raw));
    const rel = relativeInside(ctx.root, resolved);
    const places = protectedPlaces(ctx.root);
    const guarded = isUnder(resolved, places.hooks) ? 'hooks' : isUnder(resolved, places.protected) ? 'protected' : null;
    const target: Target = { ...(rel === null ? { inside: false as const } : { inside: true as const, rel }), guarded, abs: resolved };
    const loaded = ctx.load();
    const decision = editGate(stateOf(loaded), payload.session_id, payload.agent_type ?? null, target);
    return decision.kind === 'pass' ? [] : [{ type: decision.kind, reason: decision.reason }];
  },
});
