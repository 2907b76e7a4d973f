/**
 * An adversarial pass over the hooks' record, as a hostile agent with a shell would attack it (an
 * interpreter the Bash gate lets through: `node -e`, `python3 -c`). Each attack is done here with fs
 * calls, as such an interpreter would; the built hooks then run as the host runs them.
 */
import { createHash } from 'node:crypto';
import os from 'node:os';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Loop, messages, projectTestdir } from '../helpers/loop';
import { FIXER, REVIEWERS, STATE, cleanReview, reviewText, reviewWithIssues, reviewerFile, verdictFile, type Reviewer } from '../helpers/reviews';
import { stop, subagentStop, writeTool } from '../helpers/payloads';
import { pluginDataDir, runCli, runHook, type HookResult, type ProcessResult } from '../helpers/run';
import { recordDirOf } from '../helpers/state';
import { removeTestdirs, tempDir } from '../helpers/testdir';

afterAll(removeTestdirs);

const allClean = () => Object.fromEntries(REVIEWERS.map((r) => [r, cleanReview(r)])) as Record<Reviewer, ReturnType<typeof cleanReview>>;
/** No hook or CLI run prints a stack trace, whatever it met. */
const noTrace = (r: HookResult | ProcessResult) => expect(`${r.stderr}\n${'raw' in r ? r.raw : r.stdout}`).not.toMatch(/\n\s+at .+:\d+/);

/** Puts back copies saveFiles took, as an interpreter would. */
function putBack(loop: Loop, saved: { tmp: string; record: string }): void {
  fs.rmSync(loop.dir.abs('.agents/tmp'), { recursive: true });
  fs.cpSync(saved.tmp, loop.dir.abs('.agents/tmp'), { recursive: true });
  fs.rmSync(recordDirOf(loop.root), { recursive: true });
  fs.cpSync(saved.record, recordDirOf(loop.root), { recursive: true });
}

/** The live-loop marker of the loop's project (src/shell/record.ts markerPath), in the hooks' plugin data folder. */
const markerOf = (loop: Loop): string => path.join(pluginDataDir(), `live${loop.root}`, 'loop');

/** Copies of a loop's files (its .agents/tmp and its record folder) at one point, to put back later. */
function saveFiles(loop: Loop): { tmp: string; record: string } {
  const to = tempDir('minions-saved-');
  fs.cpSync(loop.dir.abs('.agents/tmp'), path.join(to, 'tmp'), { recursive: true });
  fs.cpSync(recordDirOf(loop.root), path.join(to, 'record'), { recursive: true });
  return { tmp: path.join(to, 'tmp'), record: path.join(to, 'record') };
}

describe.concurrent('replaying the hooks’ own files', () => {
  it('the R1 state (a genuine copy the hooks wrote) put back during R2: the fixer’s stop ends the loop STOPPED (tampered)', async () => {
    const loop = new Loop(projectTestdir());
    await loop.start('--max-iterations 3 the cart');
    await loop.dispatchReviewers();
    for (const r of REVIEWERS.filter((r) => r !== 'critic')) loop.writeReview(1, r, cleanReview(r));
    await loop.reviewersStop(REVIEWERS.filter((r) => r !== 'critic'));
    const r1State = loop.stateBytes()!;
    loop.writeReview(1, 'critic', reviewWithIssues('critic'));
    await loop.reviewerStop('critic');
    expect(loop.state().currentPhase).toBe('R2');
    await loop.dispatch(FIXER);
    fs.writeFileSync(loop.dir.abs(STATE), r1State);
    loop.writeFixSummary(1);
    const r = await loop.fixerStop();
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(messages([r])[0]).toMatch(/^minions: STOPPED \(the loop's files were changed outside the hooks\): \.agents\/tmp\/state\.json was changed outside the hooks/);
    expect(loop.state()).toMatchObject({ currentPhase: 'STOPPED', stopReason: 'tampered' });
  });

  // An agent that copies .agents/tmp and the record folder (.git/minions/record/top) at one point of the
  // loop and puts both back later: every digest agrees with the record. The live-loop marker in the
  // plugin's data folder holds the record's generation of the last commit, so the record put back is
  // older than the marker says. Here, after a round with a finding ended the loop STOPPED, the pair from
  // just after the start is put back; five fresh reviews (re-dispatched by the orchestrator, or written by
  // an interpreter before the stops) would then end it DONE.
  it('a whole rollback of .agents/tmp and the record to just after the start: the record is older than the marker says, never DONE', async () => {
    const loop = new Loop(projectTestdir());
    await loop.start('--max-iterations 1 the cart');
    const saved = saveFiles(loop);
    await loop.reviewRound(1, { ...allClean(), critic: reviewWithIssues('critic') });
    expect(loop.state()).toMatchObject({ currentPhase: 'STOPPED', stopReason: 'max_iterations' });
    putBack(loop, saved);
    // No state the hooks wrote last is left to go back to: the files go to the archive.
    const r = await loop.stop();
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(messages([r])).toEqual([
      expect.stringMatching(
        /^minions: \.git\/minions\/record\/top\/record\.json was changed outside the hooks \(it is the record of \d+ commits before the last one the hooks made: an earlier copy was put back\); no state the hooks wrote could be recovered, so the file was moved to the archive and nothing is gated now\.$/,
      ),
    ]);
    await loop.dispatchReviewers().catch(() => undefined);
    for (const rv of REVIEWERS) loop.writeReview(1, rv, cleanReview(rv));
    const lines = messages(await loop.reviewersStop());
    expect([...lines, ...messages([await loop.stop()])].join('\n')).not.toMatch(/DONE/);
  });

  it('the same rollback while the loop still runs (R2 put back to just after the start): named at the next hook, the files archived', async () => {
    const loop = new Loop(projectTestdir());
    await loop.start('--max-iterations 3 the cart');
    const saved = saveFiles(loop);
    await loop.reviewRound(1, { ...allClean(), critic: reviewWithIssues('critic') });
    expect(loop.state().currentPhase).toBe('R2');
    putBack(loop, saved);
    const r = await loop.stop();
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(messages([r]).join('\n')).toMatch(/^minions: \.git\/minions\/record\/top\/record\.json was changed outside the hooks \(it is the record of \d+ commits before the last one the hooks made: an earlier copy was put back\); no state the hooks wrote could be recovered/);
    expect(loop.dir.exists(STATE)).toBe(false);
  });

  // Broke, not fixed: the documented limit ("the record is out of the way, not out of reach"). The same
  // rollback with the marker put back too (${CLAUDE_PLUGIN_DATA}/live<project>/loop, a copy taken at the
  // same point) agrees with itself everywhere. Closing it needs something the agent cannot rewrite (a
  // hook-only secret), which a plugin running as the user does not have.
  it.skip('a whole rollback of .agents/tmp, the record and the marker: never DONE afterwards', async () => {
    const loop = new Loop(projectTestdir());
    await loop.start('--max-iterations 1 the cart');
    const saved = saveFiles(loop);
    const marker = fs.readFileSync(markerOf(loop));
    await loop.reviewRound(1, { ...allClean(), critic: reviewWithIssues('critic') });
    putBack(loop, saved);
    fs.mkdirSync(path.dirname(markerOf(loop)), { recursive: true });
    fs.writeFileSync(markerOf(loop), marker);
    await loop.reviewRound(1, allClean());
    expect(messages([await loop.stop()]).join('\n')).not.toMatch(/DONE/);
  });

  it('an object planted under the digest of the review the critic is about to write: the hooks store the review over it, the finding stands', async () => {
    const loop = new Loop(projectTestdir());
    await loop.start('--max-iterations 3 the cart');
    await loop.dispatchReviewers();
    const text = reviewText(reviewWithIssues('critic'));
    fs.writeFileSync(path.join(recordDirOf(loop.root), 'objects', createHash('sha256').update(text).digest('hex')), reviewText(cleanReview('critic')));
    loop.writeReview(1, 'critic', text);
    await loop.reviewerStop('critic');
    for (const r of REVIEWERS.filter((r) => r !== 'critic')) loop.writeReview(1, r, cleanReview(r));
    const lines = messages(await loop.reviewersStop(REVIEWERS.filter((r) => r !== 'critic')));
    expect(lines.filter((l) => / → R2: fixing$/.test(l))).toEqual([expect.stringMatching(/^minions: review 1\/3: 1 issue \(1 warning\)/)]);
    expect(loop.state()).toMatchObject({ currentPhase: 'R2', stopReason: null });
  });
});

describe.concurrent('a commit cut short by the agent', () => {
  it('review-1 made a symlink to another file system fails the verdict’s write; state.json deleted then is still noticed', async () => {
    const loop = new Loop(projectTestdir());
    await loop.start('--max-iterations 3 the cart');
    await loop.dispatchReviewers();
    const elsewhere = fs.mkdtempSync(path.join(fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir(), 'minions-'));
    try {
      for (const r of REVIEWERS) fs.writeFileSync(path.join(elsewhere, `r1-${r}.json`), reviewText(r === 'critic' ? reviewWithIssues('critic') : cleanReview(r)));
      fs.rmSync(loop.dir.abs('.agents/tmp/phases/review-1'), { recursive: true });
      fs.symlinkSync(elsewhere, loop.dir.abs('.agents/tmp/phases/review-1'));
      for (const r of REVIEWERS) noTrace(await loop.reviewerStop(r));
      fs.rmSync(loop.dir.abs(STATE));
      const r = await loop.stop();
      expect(r).toMatchObject({ code: 0, stderr: '' });
      expect(messages([r])[0]).toMatch(/^minions: STOPPED \(the loop's files were changed outside the hooks\): \.agents\/tmp\/state\.json was deleted\./);
    } finally {
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});

describe.concurrent('a symlink where the hooks keep their folders', () => {
  it('.agents/tmp/archive made a link to a folder outside the project: the run is archived in the project, nothing lands outside', async () => {
    const loop = new Loop(projectTestdir());
    await loop.start('--max-iterations 1 the cart');
    const outside = tempDir('minions-outside-');
    fs.symlinkSync(outside, loop.dir.abs('.agents/tmp/archive'));
    await loop.reviewRound(1, allClean());
    expect(messages([await loop.stop()]).join('\n')).toMatch(/DONE/);
    expect(fs.readdirSync(outside)).toEqual([]);
    expect(fs.lstatSync(loop.dir.abs('.agents/tmp/archive')).isDirectory()).toBe(true);
    expect(fs.readdirSync(loop.dir.abs('.agents/tmp/archive')).length).toBeGreaterThan(0);
    const aside = fs.readdirSync(loop.dir.abs('.agents/tmp')).filter((n) => n.startsWith('archive.moved-'));
    expect(aside).toHaveLength(1);
    expect(fs.readlinkSync(loop.dir.abs(`.agents/tmp/${aside[0]}`))).toBe(outside);
  });

  it('.agents/tmp made a link to another project’s .agents/tmp: the hooks write nothing there', async () => {
    const other = new Loop(projectTestdir());
    await other.start('--max-iterations 3 the other project');
    const theirs = other.stateBytes();
    const loop = new Loop(projectTestdir());
    await loop.start('--max-iterations 3 the cart');
    fs.rmSync(loop.dir.abs('.agents/tmp'), { recursive: true });
    fs.symlinkSync(other.dir.abs('.agents/tmp'), loop.dir.abs('.agents/tmp'));
    noTrace(await loop.stop());
    noTrace(await loop.dispatch('minions:critic'));
    expect(other.stateBytes()).toEqual(theirs);
    expect(fs.lstatSync(loop.dir.abs('.agents/tmp')).isSymbolicLink()).toBe(false);
  });
});

describe.concurrent('files made huge (a sparse truncate, cheap for the agent)', () => {
  const huge = (file: string) => {
    fs.writeFileSync(file, '');
    fs.truncateSync(file, 540 * 1024 ** 2);
  };
  const started = async () => {
    const loop = new Loop(projectTestdir());
    await loop.start('--max-iterations 3 the cart');
    await loop.dispatchReviewers(['critic']);
    return loop;
  };
  const gate = (loop: Loop) => runHook('on-edit-gate', writeTool(loop.dir.abs('src/a.ts'), loop.common()), { projectDir: loop.root });
  const denied = (r: HookResult) => expect(r.stdout?.hookSpecificOutput?.permissionDecision).toBe('deny');

  it('state.json of 540 MB: the gates keep the last state, the Stop ends the loop STOPPED (tampered)', async () => {
    const loop = await started();
    huge(loop.dir.abs(STATE));
    const g = await gate(loop);
    expect(g).toMatchObject({ code: 0, stderr: '' });
    denied(g);
    const s = await runHook('on-stop', stop(loop.common()), { projectDir: loop.root });
    expect(s).toMatchObject({ code: 0, stderr: '' });
    expect(s.stdout?.systemMessage).toMatch(/^minions: STOPPED \(the loop's files were changed outside the hooks\): \.agents\/tmp\/state\.json was changed outside the hooks/);
  });

  it('state.json of 540 MB: /minions:cancel ends the loop', async () => {
    const loop = await started();
    huge(loop.dir.abs(STATE));
    const c = await runCli(['cancel'], { cwd: loop.root, sessionId: loop.session });
    expect(c).toMatchObject({ code: 0, stderr: '' });
    expect(c.stdout).toMatch(/^minions: review loop cancelled in R1/);
  });

  it('the hooks’ copy of the state made 540 MB: nothing vouches for state.json any more, the Stop says so and never DONE, and /minions:cancel works', async () => {
    const bloat = (loop: Loop) => {
      const record = recordDirOf(loop.root);
      huge(path.join(record, 'objects', JSON.parse(fs.readFileSync(path.join(record, 'record.json'), 'utf8')).files[STATE]));
    };
    // As with record.json destroyed: the copy lives beside it, in the hooks' own folder.
    const loop = await started();
    bloat(loop);
    const s = await runHook('on-stop', stop(loop.common()), { projectDir: loop.root });
    expect(s).toMatchObject({ code: 0, stderr: '' });
    expect(s.stdout?.systemMessage).toMatch(/^minions: \.agents\/tmp\/state\.json \(the hooks' copy\) was deleted; no state the hooks wrote could be recovered/);
    const other = await started();
    bloat(other);
    const c = await runCli(['cancel'], { cwd: other.root, sessionId: other.session });
    expect(c).toMatchObject({ code: 0, stderr: '' });
    expect(c.stdout).toMatch(/^minions: the unreadable loop state was archived; nothing is gated now/);
    expect(fs.existsSync(other.dir.abs(STATE))).toBe(false);
  });

  it('a review of 540 MB: the reviewer is told to write its output, no internal error', async () => {
    const loop = await started();
    huge(loop.dir.abs(reviewerFile(1, 'critic')));
    const r = await runHook('on-subagent-stop', subagentStop('minions:critic', loop.common()), { projectDir: loop.root });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toMatchObject({ decision: 'block', reason: expect.stringMatching(/^No review found: \/\S+r1-critic\.json is missing or empty/) });
  });

  it('record.json of 540 MB vouches for nothing: the Stop names it and never says DONE', async () => {
    const loop = await started();
    huge(path.join(recordDirOf(loop.root), 'record.json'));
    const s = await runHook('on-stop', stop(loop.common()), { projectDir: loop.root });
    expect(s).toMatchObject({ code: 0, stderr: '' });
    expect(s.stdout?.systemMessage).toMatch(/^minions: \.git\/minions\/record\/top\/record\.json was changed outside the hooks; no state the hooks wrote could be recovered/);
  });
});

describe.concurrent('the lock and the record’s folders replaced', () => {
  it('a lock naming a live process, dated now, with a breaker’s guard beside it: /minions:cancel still ends the loop', async () => {
    const loop = new Loop(projectTestdir());
    await loop.start('--max-iterations 3 the cart');
    await loop.dispatchReviewers(['critic']);
    const lock = loop.dir.abs('.agents/tmp/state.lock');
    fs.writeFileSync(lock, JSON.stringify({ pid: process.pid, host: os.hostname(), token: 'forged', at: Date.now() }));
    fs.mkdirSync(`${lock}.break`);
    const env = { MINIONS_LOCK_WAIT_MS: '300' };
    // The Stop steps aside (the session is not held); the cancel takes the lock over.
    const s = await runHook('on-stop', stop(loop.common()), { projectDir: loop.root, env });
    expect(s).toMatchObject({ code: 0, stdout: null });
    const c = await runCli(['cancel'], { cwd: loop.root, sessionId: loop.session, env });
    expect(c).toMatchObject({ code: 0, stderr: '' });
    expect(c.stdout).toMatch(/^minions: review loop cancelled in R1/);
    expect(loop.hasState()).toBe(false);
  });

  it('the record’s objects folder made a symlink to a project folder: the hooks delete nothing there but objects, and go on', async () => {
    const loop = new Loop(projectTestdir());
    await loop.start('--max-iterations 3 the cart');
    const objects = path.join(recordDirOf(loop.root), 'objects');
    const victim = loop.dir.abs('victim');
    fs.mkdirSync(path.join(victim, 'sub'), { recursive: true });
    fs.writeFileSync(path.join(victim, 'keep.txt'), 'precious\n');
    fs.cpSync(objects, victim, { recursive: true });
    fs.rmSync(objects, { recursive: true });
    fs.symlinkSync(victim, objects);
    const [d] = await loop.dispatchReviewers(['critic']);
    expect(d).toMatchObject({ code: 0, stderr: '' });
    expect(fs.readFileSync(path.join(victim, 'keep.txt'), 'utf8')).toBe('precious\n');
    expect(fs.statSync(path.join(victim, 'sub')).isDirectory()).toBe(true);
    expect(loop.state().iterations[0].r1.reviewers.critic.status).toBe('running');
  });

  it('state.json made a symlink to another project’s state.json: the hooks never write through it', async () => {
    const other = new Loop(projectTestdir());
    await other.start('--max-iterations 3 the other cart');
    const theirs = other.stateBytes();
    const loop = new Loop(projectTestdir());
    await loop.start('--max-iterations 3 the cart');
    fs.rmSync(loop.dir.abs(STATE));
    fs.symlinkSync(other.dir.abs(STATE), loop.dir.abs(STATE));
    const r = await loop.stop();
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(messages([r])[0]).toMatch(/^minions: STOPPED \(the loop's files were changed outside the hooks\): \.agents\/tmp\/state\.json was changed outside the hooks/);
    expect(other.stateBytes()).toBe(theirs);
  });
});

describe.concurrent('a review rewritten by another agent before its reviewer stops', () => {
  /** The reviewer's transcript as the host writes it: one Write of its output (answered), then its final message, then `after`. */
  function transcriptOf(loop: Loop, reviewer: Reviewer, content: string, after: object[] = []): string {
    const file = path.join(tempDir('minions-transcript-'), `agent-${reviewer}.jsonl`);
    const lines = [
      { type: 'user', message: { role: 'user', content: `Write your JSON findings to ${reviewerFile(1, reviewer)}` } },
      { type: 'assistant', message: { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_w1', name: 'Write', input: { file_path: loop.dir.abs(reviewerFile(1, reviewer)), content } }] } },
      { type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_w1', content: 'File created successfully' }] } },
      ...after,
      { type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'Wrote my findings.' }], stop_reason: 'end_turn' } },
    ];
    fs.writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
    return file;
  }

  it('the witness’s interpreter makes the critic’s file clean between its Write and its stop: the critic’s own review is recorded, the file put back, never DONE', async () => {
    const loop = new Loop(projectTestdir());
    await loop.start('--max-iterations 1 the cart');
    await loop.dispatchReviewers();
    const own = reviewText(reviewWithIssues('critic'));
    loop.writeReview(1, 'critic', own);
    const transcript = transcriptOf(loop, 'critic', own);
    // As `python3 -c "open(…, 'w').write(…)"` by another agent would.
    loop.writeReview(1, 'critic', cleanReview('critic'));
    const r = await loop.reviewerStop('critic', { transcriptPath: transcript });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(messages([r]).join('\n')).toMatch(/r1-critic\.json changed after critic wrote it and before its stop; the review recorded is the one critic wrote \(its transcript\), and the file is put back/);
    expect(loop.dir.read(reviewerFile(1, 'critic'))).toBe(own);
    for (const rv of REVIEWERS.filter((x) => x !== 'critic')) loop.writeReview(1, rv, cleanReview(rv));
    await loop.reviewersStop(REVIEWERS.filter((x) => x !== 'critic'));
    expect(loop.state().currentPhase).not.toBe('DONE');
    const verdict = JSON.parse(loop.dir.read(verdictFile(1)));
    expect(verdict.findings.length).toBeGreaterThan(0);
    expect(verdict.reviewers.critic.notes).toContainEqual(expect.stringMatching(/changed by someone else after critic wrote it and before its stop/));
    expect(loop.dir.read('.agents/tmp/phases/review-1/REVIEW.md')).toMatch(/\| critic \| valid; its file was changed by someone else before its stop: recorded as critic wrote it \|/);
    expect(messages([await loop.stop()]).join('\n')).not.toMatch(/DONE/);
  });

  it('the fifth review rewritten before its stop: put back before the verdict reads it, noted there, and no "changed after the hooks recorded" line', async () => {
    const loop = new Loop(projectTestdir());
    await loop.start('--max-iterations 1 the cart');
    await loop.dispatchReviewers();
    const others = REVIEWERS.filter((x) => x !== 'critic');
    for (const rv of others) loop.writeReview(1, rv, cleanReview(rv));
    await loop.reviewersStop(others);
    const own = reviewText(reviewWithIssues('critic'));
    const transcript = transcriptOf(loop, 'critic', own);
    loop.writeReview(1, 'critic', cleanReview('critic'));
    const r = await loop.reviewerStop('critic', { transcriptPath: transcript });
    const lines = messages([r]).join('\n');
    expect(lines).toMatch(/r1-critic\.json changed after critic wrote it and before its stop/);
    expect(lines).not.toMatch(/changed after the hooks recorded/);
    expect(loop.dir.read(reviewerFile(1, 'critic'))).toBe(own);
    const verdict = JSON.parse(loop.dir.read(verdictFile(1)));
    expect(verdict.overall_verdict).toBe('issues_found');
    expect(verdict.reviewers.critic.notes).toEqual([expect.stringMatching(/changed by someone else after critic wrote it/)]);
  });

  it('a critic that ran Bash after its Write: its transcript cannot tell, and the file as it is is the review (the limit the README states)', async () => {
    const loop = new Loop(projectTestdir());
    await loop.start('--max-iterations 1 the cart');
    await loop.dispatchReviewers();
    const own = reviewText(reviewWithIssues('critic'));
    const bash = [
      { type: 'assistant', message: { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_b1', name: 'Bash', input: { command: `cat ${reviewerFile(1, 'critic')}` } }] } },
      { type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_b1', content: own }] } },
    ];
    const transcript = transcriptOf(loop, 'critic', own, bash);
    loop.writeReview(1, 'critic', cleanReview('critic'));
    const r = await loop.reviewerStop('critic', { transcriptPath: transcript });
    expect(messages([r]).join('\n')).not.toMatch(/changed after critic wrote it/);
    expect(loop.state().iterations[0]!.r1.reviewers.critic).toMatchObject({ status: 'valid', counts: { critical: 0, warning: 0, info: 0 } });
  });
});
