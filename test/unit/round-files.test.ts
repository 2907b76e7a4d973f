/** The files a round starts with (diff.patch, fix-delta.patch, escalation.json) and the fixer's new answers, through transition: pure tables. */
import { describe, expect, it } from 'vitest';
import { REVIEWERS } from '../../src/protocol/agents';
import type { PatchText, RoundPatches } from '../../src/core/events';
import { transition, type Effect, type Event } from '../../src/core/transition';
import { DEFAULT_RULES } from '../../src/protocol/stop-rules';
import type { Verdict } from '../../src/protocol/verdict-schema';
import type { ClassNote } from '../../src/state/schema';
import { LATER, OWNER, fixerStop, noFiles, reviewJson, reviewerStop, stateBuilder, throughRound } from './builders';

const writes = (effects: Effect[]) => Object.fromEntries(effects.flatMap((e) => (e.type === 'write' ? [[e.path, e.content]] : [])));

const patch = (files: string[], text: string, truncated = false): PatchText => ({ files, text, truncated, limit: 256 * 1024 });
const CHANGE = patch(['src/a.ts', 'logo.png'], 'diff --git a/src/a.ts b/src/a.ts\n-a\n+b\nBinary files a/logo.png and b/logo.png differ\n');
const DELTA = patch(['src/a.ts'], 'diff --git a/src/a.ts b/src/a.ts\n-b\n+c\n');
const start = (patches?: RoundPatches, root: string | null = '/home/me/shop'): Event => ({
  kind: 'command',
  sessionId: OWNER,
  now: LATER,
  head: '0123456789abcdef0123',
  changedFiles: ['src/a.ts'],
  root,
  tree: patches ? 'f'.repeat(40) : null,
  ...(patches ? { patches } : {}),
  command: { kind: 'review', task: 'check a', maxIterations: 5, force: false, rules: DEFAULT_RULES, checks: { commands: [], timeoutSeconds: 300 }, layer0: { disabled: [] } },
});

describe('diff.patch at the start of the loop', () => {
  it('is written with a header, recorded in the iteration, and named (absolute) by the R1 prompt', () => {
    const out = transition({ kind: 'none' }, start({ diff: CHANGE, fixDelta: null }));
    const files = writes(out.effects);
    expect(files['.agents/tmp/phases/review-1/diff.patch']).toBe(
      "# minions: the change under review in iteration 1: the loop's base 0123456789ab → the tree this review starts from, untracked files included.\n" +
        '# 2 files changed, 4 patch lines. Binary files are named, not shown. Read a long patch in parts (Read with offset and limit).\n' +
        CHANGE.text,
    );
    expect(Object.keys(files)).not.toContain('.agents/tmp/phases/review-1/fix-delta.patch');
    expect(out.state!.iterations[0]!.patches).toEqual({ diff: { count: 2, files: ['src/a.ts', 'logo.png'], truncated: false }, fixDelta: null });
    const prompt = out.effects.find((e) => e.type === 'context')!;
    expect(prompt.type === 'context' && prompt.text).toContain(
      "The change under review, from the loop's base 0123456789ab to the tree this review starts from (untracked files included): /home/me/shop/.agents/tmp/phases/review-1/diff.patch (2 files: src/a.ts, logo.png).",
    );
  });

  it('a cut patch says so and lists every file in its header', () => {
    const files = Array.from({ length: 30 }, (_, i) => `src/f${i}.ts`);
    const out = transition({ kind: 'none' }, start({ diff: patch(files, 'diff --git a/src/f0.ts b/src/f0.ts\n', true), fixDelta: null }));
    const text = writes(out.effects)['.agents/tmp/phases/review-1/diff.patch']!;
    expect(text).toContain('# Cut at 256 KiB: the patch below stops early. Every changed file:\n#   src/f0.ts\n');
    expect(text).toContain('#   src/f29.ts\n');
    expect(out.state!.iterations[0]!.patches.diff).toEqual({ count: 30, files: files.slice(0, 20), truncated: true });
    const prompt = out.effects.find((e) => e.type === 'context');
    expect(prompt?.type === 'context' && prompt.text).toMatch(/\(30 files: src\/f0\.ts, .*, …; cut at the size limit, its header lists every file\)/);
  });

  it('outside git: no patch, and the prompt says so', () => {
    const out = transition({ kind: 'none' }, start(undefined, null));
    expect(Object.keys(writes(out.effects))).toEqual(['.agents/tmp/phases/run.json']);
    const prompt = out.effects.find((e) => e.type === 'context');
    expect(prompt?.type === 'context' && prompt.text).toContain('No diff is available (no git snapshot of the project): review the changed files listed above.');
  });
});

/** Round `n` in R2, the fixer running, with these classes in the verdict summary. */
function fixing(classes: ClassNote[] = [], open = ['fp0', 'fp1']) {
  const b = stateBuilder({ root: '/home/me/shop' });
  b.inR2();
  return b.nextRound().inR2(open.length).classes(classes).r2({ status: 'running', dispatches: 1 }).trees({ reviewEnd: 'e'.repeat(40) });
}
const AUDIT: ClassNote = { id: 'c1c1c1c1c1c1', category: 'error-handling', fingerprints: ['fp0'], sites: ['src/a.ts:3'], rung: 'audit', attempts: [1] };
const fixes = (entries: object[], patterns: object[] = []) => JSON.stringify({ fixes: entries, patterns });
const stopFixer = (json: string, over: Partial<Extract<Event, { kind: 'fixer-stop' }>> = {}): Event => ({ ...fixerStop('- [fixed] a\n- [fixed] b', json), ...over });

describe('the fixer stops: the next round’s patches', () => {
  it('fix-delta.patch holds the fixer’s change and diff.patch the whole change; the R1 prompt checks the delta first', () => {
    const out = transition(fixing().loaded(), stopFixer(fixes([{ fingerprint: 'fp0', status: 'fixed', kind: 'patch' }, { fingerprint: 'fp1', status: 'fixed', kind: 'structural' }]), { patches: { diff: CHANGE, fixDelta: DELTA } }));
    expect(out.state).toMatchObject({ iteration: 3, currentPhase: 'R1' });
    const files = writes(out.effects);
    expect(files['.agents/tmp/phases/review-3/fix-delta.patch']).toBe(
      '# minions: what the fixer changed in round 2: the tree review 2 ended on → the tree the fixer left.\n' +
        '# 1 file changed, 3 patch lines. Binary files are named, not shown. Read a long patch in parts (Read with offset and limit).\n' +
        DELTA.text,
    );
    expect(files['.agents/tmp/phases/review-3/diff.patch']).toContain(CHANGE.text);
    expect(out.state!.iterations[2]!.patches).toEqual({ diff: { count: 2, files: ['src/a.ts', 'logo.png'], truncated: false }, fixDelta: { count: 1, files: ['src/a.ts'], truncated: false } });
    const prompt = transition({ kind: 'ok', state: out.state! }, { kind: 'stop', sessionId: OWNER, now: LATER, running: [] }).effects.find((e) => e.type === 'block');
    expect(prompt?.type === 'block' && prompt.reason).toMatch(
      /^Previous round — verify it first: what the fixer changed in round 2, \/home\/me\/shop\/\.agents\/tmp\/phases\/review-3\/fix-delta\.patch \(1 file: src\/a\.ts; fixes introduce regressions\); the findings it was given, \/home\/me\/shop\/\.agents\/tmp\/phases\/review-2\/r2-findings\.json/m,
    );
  });

  it('a fixer that changed nothing: an empty fix delta, said so', () => {
    const out = transition(fixing([], ['fp0']).loaded(), stopFixer(fixes([{ fingerprint: 'fp0', status: 'declined', reason: 'the code is right' }]), { patches: { diff: CHANGE, fixDelta: patch([], '') } }));
    expect(writes(out.effects)['.agents/tmp/phases/review-3/fix-delta.patch']).toMatch(/# 0 files changed, 0 patch lines\.[^\n]*\n# No changes\.\n$/);
  });
});

describe('the fixer’s answers', () => {
  it.each([
    ['a fixed entry with a template kind', [{ fingerprint: 'fp0', status: 'fixed', kind: 'patch|structural' }, { fingerprint: 'fp1', status: 'fixed', kind: 'patch' }], /fixes\[0\]\.kind is "patch\|structural": write "patch" or "structural"/],
    ['an escalate without a reason', [{ fingerprint: 'fp0', status: 'escalate' }, { fingerprint: 'fp1', status: 'fixed', kind: 'patch' }], /fixes\[0\]\.reason: a declined, could_not_fix or escalate entry needs a reason/],
    ['an unknown kind', [{ fingerprint: 'fp0', status: 'fixed', kind: 'quick' }, { fingerprint: 'fp1', status: 'fixed', kind: 'patch' }], /fixes\[0\]\.kind is "quick": write "patch" or "structural"/],
  ])('%s: the fixer is continued with what is wrong', (_, entries, problem) => {
    const out = transition(fixing().loaded(), stopFixer(fixes(entries)));
    const block = out.effects.find((e) => e.type === 'block');
    expect(block?.type === 'block' && block.reason).toMatch(problem);
    expect(out.state!.currentPhase).toBe('R2');
  });

  it('a fixed entry without kind is read as a patch, noted, and written back as read', () => {
    const out = transition(fixing().loaded(), stopFixer(fixes([{ fingerprint: 'fp0', status: 'FIXED' }, { fingerprint: 'fp1', status: 'fixed', kind: 'patch' }])));
    expect(out.effects.find((e) => e.type === 'block')).toBeUndefined();
    const written = out.effects.find((e) => e.type === 'write' && e.path.endsWith('r2-fix-summary.json'));
    expect(written?.type === 'write' && JSON.parse(written.content)).toEqual({ fixes: [{ fingerprint: 'fp0', status: 'fixed', kind: 'patch' }, { fingerprint: 'fp1', status: 'fixed', kind: 'patch' }], patterns: [] });
  });

  it('an audit-first class needs its pattern; with it the round goes on and the class is escalated to the next critic', () => {
    const answered = [{ fingerprint: 'fp0', status: 'fixed', kind: 'structural' }, { fingerprint: 'fp1', status: 'fixed', kind: 'patch' }];
    const missing = transition(fixing([AUDIT]).loaded(), stopFixer(fixes(answered)));
    const block = missing.effects.find((e) => e.type === 'block');
    expect(block?.type === 'block' && block.reason).toContain('r2-fix-summary.json has no "patterns" entry for the audit-first class c1c1c1c1c1c1');
    expect(block?.type === 'block' && block.reason).toContain('/home/me/shop/.agents/tmp/phases/review-2/r2-fix-summary.json');

    const pattern = { class: AUDIT.id, pattern: 'every loader swallows read errors', sites: ['src/a.ts:3', 'src/b.ts:9'] };
    const out = transition(fixing([AUDIT]).loaded(), stopFixer(fixes(answered, [pattern])));
    expect(out.state).toMatchObject({ iteration: 3, currentPhase: 'R1' });
    expect(out.state!.iterations[2]!.escalated).toEqual([{ class: AUDIT.id, reason: 'repeated' }]);
    const escalation = JSON.parse(writes(out.effects)['.agents/tmp/phases/review-3/escalation.json']!);
    expect(escalation).toMatchObject({ iteration: 3, file: '/home/me/shop/.agents/tmp/phases/review-3/escalation.json', answerFormat: { diagnosis: [expect.objectContaining({ class: '<id>' })] } });
    expect(escalation.classes).toEqual([
      expect.objectContaining({
        class: AUDIT.id,
        reason: 'repeated',
        pattern,
        attempts: [
          expect.objectContaining({
            iteration: 2,
            fingerprints: ['fp0'],
            answers: [{ fingerprint: 'fp0', status: 'fixed', kind: 'structural', reason: null }],
            files: {
              summary: '/home/me/shop/.agents/tmp/phases/review-2/r2-fix-summary.md',
              answers: '/home/me/shop/.agents/tmp/phases/review-2/r2-fix-summary.json',
              delta: '/home/me/shop/.agents/tmp/phases/review-3/fix-delta.patch',
            },
            outcome: 'this review decides',
          }),
        ],
      }),
    ]);
    const notes = out.effects.flatMap((e) => (e.type === 'notify' ? [e.text] : []));
    expect(notes).toEqual([
      'minions: fix round 2 done (2 fixed) → R1, Iteration 3/3',
      'minions: finding class c1c1c1c1c1c1 back after two fix rounds → the critic of review 3 gives a structural diagnosis; if the class is still there, the loop stops and asks you: structural, patch or halt',
    ]);
    const prompt = transition({ kind: 'ok', state: out.state! }, { kind: 'stop', sessionId: OWNER, now: LATER, running: [] }).effects.find((e) => e.type === 'block');
    expect(prompt?.type === 'block' && prompt.reason).toMatch(/^Escalation — for minions:critic only: \/home\/me\/shop\/\.agents\/tmp\/phases\/review-3\/escalation\.json holds the full history of 1 finding class: c1c1c1c1c1c1 \(two fix rounds did not remove\)\./m);
    expect(prompt?.type === 'block' && prompt.reason).toContain('The escalation file goes to minions:critic only.');
  });

  it('the escalation keeps the earlier attempts from the verdict, oldest first', () => {
    const verdict = {
      findings: [{ fingerprint: 'fp0', class: AUDIT.id, toFixer: true, severity: 'warning', category: 'error-handling', file: 'src/b.ts', line: 9, description: 'd', evidence: 'e', suggestion: 's', reporters: ['critic'] }],
      classes: [{ ...AUDIT, attempts: [{ iteration: 1, fingerprints: ['fpX'], sites: ['src/a.ts:3'], answers: [{ fingerprint: 'fpX', status: 'fixed', kind: 'patch', reason: null }] }] }],
    } as unknown as Verdict;
    const answered = [{ fingerprint: 'fp0', status: 'fixed', kind: 'patch' }, { fingerprint: 'fp1', status: 'fixed', kind: 'patch' }];
    const out = transition(fixing([AUDIT]).loaded(), stopFixer(fixes(answered, [{ class: AUDIT.id, pattern: 'p', sites: ['src/b.ts:9'] }]), { verdict }));
    const [cls] = JSON.parse(writes(out.effects)['.agents/tmp/phases/review-3/escalation.json']!).classes;
    expect(cls.findings).toEqual([expect.objectContaining({ fingerprint: 'fp0', file: 'src/b.ts', line: 9 })]);
    expect(cls.attempts.map((a: { iteration: number; outcome: string; files: { delta: string } }) => [a.iteration, a.outcome, a.files.delta])).toEqual([
      [1, 'still open at the next review', '/home/me/shop/.agents/tmp/phases/review-2/fix-delta.patch'],
      [2, 'this review decides', '/home/me/shop/.agents/tmp/phases/review-3/fix-delta.patch'],
    ]);
  });

  it('an escalate answer goes to the critic, even when the summary repeats the previous one', () => {
    const text = '- [escalate] src/a.ts:3 — same root cause\nTests run: none';
    const json = fixes([{ fingerprint: 'fp0', status: 'escalate', reason: 'same root cause, no new fix' }, { fingerprint: 'fp1', status: 'fixed', kind: 'patch' }]);
    const builder = fixing();
    const state = builder.build();
    // Round 1 had the same findings open, so a repeated summary would otherwise be the fixpoint (no_progress).
    state.iterations[0] = { ...state.iterations[0]!, verdict: { ...state.iterations[0]!.verdict!, open: ['fp0', 'fp1'] } };
    const out = transition({ kind: 'ok', state }, { ...fixerStop(text, json, text) });
    expect(out.state).toMatchObject({ currentPhase: 'R1', iteration: 3 });
    expect(out.state!.iterations[2]!.escalated).toEqual([{ class: 'fp0', reason: 'fixer_escalated' }]);
    const notes = out.effects.flatMap((e) => (e.type === 'notify' ? [e.text] : []));
    expect(notes).toEqual([
      'minions: fix round 2 done (1 fixed, 1 escalated) → R1, Iteration 3/3',
      'minions: finding class fp0 escalated by the fixer → the critic of review 3 gives a structural diagnosis; then the loop stops and asks you: structural, patch or halt',
    ]);
  });
});

describe('a round that goes straight to another review', () => {
  it('writes the next diff.patch and no fix delta; the prompt says no fix round ran', () => {
    let b = stateBuilder({ root: '/r' }).dispatched().reviewer('critic', { status: 'invalid', dispatches: 1, error: 'not valid JSON' });
    for (const r of REVIEWERS.slice(1, 4)) b = b.reviewer(r, { status: 'valid', dispatches: 1 });
    const files = { ...noFiles(), ...Object.fromEntries(REVIEWERS.slice(1).map((r) => [r, reviewJson()])), critic: '{bad' };
    const out = throughRound(b.loaded(), reviewerStop('silent-failure-hunter', files), files, { tree: 'a'.repeat(40), patches: { diff: CHANGE, fixDelta: DELTA } });
    expect(out.state).toMatchObject({ iteration: 2, currentPhase: 'R1' });
    const written = writes(out.effects);
    expect(written['.agents/tmp/phases/review-2/diff.patch']).toContain(CHANGE.text);
    expect(Object.keys(written)).not.toContain('.agents/tmp/phases/review-2/fix-delta.patch');
    const prompt = transition({ kind: 'ok', state: out.state! }, { kind: 'stop', sessionId: OWNER, now: LATER, running: [] }).effects.find((e) => e.type === 'block');
    expect(prompt?.type === 'block' && prompt.reason).toContain('No fix round ran after review 1: it sent no finding to the fixer.');
    expect(prompt?.type === 'block' && prompt.reason).not.toContain('Previous round — verify it first');
  });
});

describe('r2-findings.json groups the findings by class', () => {
  it('two copies of one mistake in round 1 are one class to fix together; the R2 prompt says so', () => {
    const copy = (file: string) => ({ severity: 'warning' as const, category: 'docs', file, line: 1, description: `${file}: the sentence is wrong`, evidence: 'Prices are in euros and include tax.', suggestion: 'say cents, without tax' });
    const sources = { 'README.md': { kind: 'file' as const, text: 'Prices are in euros and include tax.\n' }, 'docs/guide.md': { kind: 'file' as const, text: 'Prices are in euros and include tax.\n' } };
    let b = stateBuilder({ root: '/r' }).dispatched();
    for (const r of REVIEWERS.slice(0, 4)) b = b.reviewer(r, { status: 'valid', dispatches: 1 });
    const files = { ...Object.fromEntries(REVIEWERS.map((r) => [r, reviewJson()])), pedant: reviewJson([copy('README.md'), copy('docs/guide.md')]) } as ReturnType<typeof noFiles>;
    const out = throughRound(b.loaded(), reviewerStop('silent-failure-hunter', files, null, OWNER, { sources }), files, { sources });
    expect(out.state!.currentPhase).toBe('R2');
    const brief = JSON.parse(writes(out.effects)['.agents/tmp/phases/review-1/r2-findings.json']!);
    expect(brief.findings).toHaveLength(2);
    expect(brief.findings[0].class).toBe(brief.findings[1].class);
    expect(brief.classes).toEqual([
      { class: brief.findings[0].class, category: 'docs', fingerprints: brief.findings.map((f: { fingerprint: string }) => f.fingerprint), sites: ['README.md:1', 'docs/guide.md:1'], instruction: 'fix_together', attempts: [] },
    ]);
    expect(out.state!.iterations[0]!.verdict!.classes).toEqual([expect.objectContaining({ id: brief.findings[0].class, rung: 'new' })]);
    const prompt = transition({ kind: 'ok', state: out.state! }, { kind: 'stop', sessionId: OWNER, now: LATER, running: [] }).effects.find((e) => e.type === 'block');
    expect(prompt?.type === 'block' && prompt.reason).toContain(
      `Findings of one class (one defect pattern at several sites) are grouped under "classes" in the findings file: fix each class together, in one change that covers every site (${brief.findings[0].class}: README.md:1, docs/guide.md:1).`,
    );
  });
});
