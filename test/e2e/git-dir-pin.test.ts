/**
 * A write into the git dir during the loop, end to end: the real Claude Code CLI runs `/minions:review`
 * with the shipped plugin against a scripted model on loopback. A reviewer plants `core.fsmonitor` in
 * .git/config through an interpreter (a write the Bash gate does not refuse today); five clean reviews do
 * not end DONE: the loop ends STOPPED, the file named in the progress line, the verdict, REVIEW.md and
 * REPORT.md.
 */
import { describe, expect, test } from 'vitest';
import { paced } from '../helpers/pace';
import { copyShippedPluginForFile } from './plugin-copy';
import { runLoop, sampleScenario, type LoopReport, explain } from './scenarios';

const RUN_TIMEOUT_MS = paced(300_000);
let pluginDir: string;
copyShippedPluginForFile((dir) => (pluginDir = dir));

describe('the git dir, pinned (real CLI)', () => {
  test("a reviewer's interpreter plants core.fsmonitor in .git/config during R1: named, STOPPED, never DONE", async () => {
    // The witness has Bash; python's open() of .git/config is not a redirection the gate reads.
    const plant = `python3 -c "open('.git/config','a').write('[core]\\n\\tfsmonitor = .planted-fsmonitor\\n')"`;
    const scenario = sampleScenario({ name: 'git-dir-write', maxIterations: 2, findings: (reviewer) => (reviewer === 'witness' ? { shellFirst: plant, findings: [] } : []) });
    const r = await runLoop(scenario, { pluginDir, timeoutMs: RUN_TIMEOUT_MS });
    explain(r, () => {
      expect(r.run.timedOut, 'the CLI run timed out').toBe(false);
      expect(r.run.exitCode).toBe(0);
      const refused = r.hooks.some((h) => h.permissionDecision === 'deny' && /\.git/.test(h.reason ?? ''));
      const planted = (r.read('.git/config') ?? '').includes('fsmonitor = .planted-fsmonitor');
      // Refused (a gate that reads interpreters) or written and named: either way, never DONE.
      expect(refused || planted, 'the write was neither refused nor made').toBe(true);
      const lines = r.systemMessages.flatMap((m) => m.split('\n'));
      expect(lines.filter((l) => /^minions: DONE/.test(l))).toEqual([]);
      expect((r.state as { currentPhase: string }).currentPhase).not.toBe('DONE');
      if (!planted) return;
      expect(r.state).toMatchObject({ currentPhase: 'STOPPED', stopReason: 'git_dir_changed' });
      expect((r.state as { stopDetail: string }).stopDetail).toMatch(/^\.git\/config was changed since the loop started/);
      const verdict = JSON.parse(r.readPhase('review-1/r1-verdict.json') ?? 'null') as { overall_verdict: string; next: string; stopReason: string };
      expect(verdict).toMatchObject({ overall_verdict: 'clean', next: 'STOPPED', stopReason: 'git_dir_changed' });
      expect(lines).toContainEqual(expect.stringMatching(/^minions: review 1\/2: no issues.*→ STOPPED \(the repository's git configuration or hooks changed during the loop\)$/));
      expect(r.systemMessages.at(-1)).toMatch(/^minions: STOPPED — the repository's git configuration or hooks changed during the loop: \.git\/config was changed/);
      expect(r.readPhase('review-1/REVIEW.md')).toContain('.git/config was changed');
      expect(r.readPhase('REPORT.md') ?? r.read(`.agents/tmp/archive/${(r.state as { runId: string }).runId}/phases/REPORT.md`)).toContain('git/config was changed');
      for (const h of r.run.events.filter((e) => e.type === 'system' && e.subtype === 'hook_response')) {
        expect({ hook: h.hook_name, exit: Number(h.exit_code), stderr: h.stderr }).toEqual({ hook: h.hook_name, exit: 0, stderr: '' });
      }
    });
  });
});
