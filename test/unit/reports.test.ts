/** REVIEW.md and REPORT.md: snapshots of what a person reads, and the facts in them checked one by one. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chartSeries, findingsChart } from '../../src/report/chart';
import { loopFacts, type RoundFacts } from '../../src/report/facts';
import { MAX_LISTED, code, inline, plain, table } from '../../src/report/markdown';
import { thousands } from '../../src/protocol/text';
import { renderLoopReport } from '../../src/report/report-md';
import { firstInTableOrder, renderReviewReport } from '../../src/report/review-md';
import type { Verdict } from '../../src/protocol/verdict-schema';
import type { CheckStatus } from '../../src/protocol/check-runs';
import type { CheckEntry, ChecksReport } from '../../src/checks/reports';
import { NOW } from './builders';
import { policyText, replacedNote, rewrittenNote } from '../../src/report/texts';
import { F, agent, loopOf, tokens, verdictOf } from './report-builders';

const PHASES = '.agents/tmp/phases/';
const CHANGE = ' src/config.js | 4 +++-\n src/price.js  | 2 +-\n 2 files changed, 4 insertions(+), 2 deletions(-)';

/** Round 1: two warnings and an ungrounded info finding (an ungrounded critical would go to the fixer, unverified), fixed; round 2: a new critical and a placeholder left. */
function worseSecondRound() {
  return loopOf([
    {
      reports: { pedant: [F.format], critic: [F.swallowed], witness: [F.ghost] },
      fix: 'complete',
      answers: (open) => ({
        fixes: open.map((f) => (f.file === 'src/config.js' ? { fingerprint: f.fingerprint, status: 'declined' as const, reason: 'ENOENT is the only failure the shop expects' } : { fingerprint: f.fingerprint, status: 'fixed' as const })),
        patterns: [],
      }),
      cost: [agent('critic', tokens(5200, 310, 1200, 8000), 41_000), agent('pedant', tokens(5100, 290), 39_000), agent('review-fixer', null, null)],
      checks: { passed: 2, failed: 0 },
    },
    {
      reports: { pedant: [F.discount], critic: [F.discount], 'silent-failure-hunter': [F.swallowed, F.docs] },
      cost: [agent('critic', tokens(6100, 120), 30_000)],
      checks: { passed: 1, failed: 1 },
    },
  ]);
}

describe('REVIEW.md', () => {
  it('a round sent to the fixer: verdict line, findings table (open, then ungrounded), reviewers, answers pending', () => {
    const { verdicts } = worseSecondRound();
    const text = renderReviewReport({ verdict: verdicts[0]!, answers: null, fix: 'pending', checks: null });
    expect(text).toMatchSnapshot();
    expect(text).toContain('**Verdict:** 2 open findings (2 warning) · score 0.80 (accept with warnings) · 8/10 READY · next: R2: the fixer gets the open findings');
    const rows = text.split('\n').filter((l) => /^\| \d+ \|/.test(l));
    expect(rows.map((r) => r.split(' | ').slice(1, 3))).toEqual([
      ['`src/config.js:4`', 'warning'],
      ['`src/price.js:8`', 'warning'],
      ['`src/payments.js:12`', 'info'],
    ]);
    expect(rows[2]).toContain('UNGROUNDED: src/payments.js does not exist');
    expect(text).toContain('Not yet: the fixer works on the open findings next.');
  });

  it('the hooks’ notes on a review file changed before or after its recording show in the reviewers table', () => {
    const { verdicts } = worseSecondRound();
    const v = verdicts[0]!;
    const noted = { ...v, reviewers: { ...v.reviewers, critic: { ...v.reviewers.critic, notes: [replacedNote('critic')] }, pedant: { ...v.reviewers.pedant, notes: ['a note of its own', rewrittenNote()] } } };
    const rows = renderReviewReport({ verdict: noted, answers: null, fix: 'pending', checks: null }).split('\n');
    expect(rows.find((l) => l.startsWith('| critic |'))).toContain('valid; its file was changed by someone else before its stop: recorded as critic wrote it');
    expect(rows.find((l) => l.startsWith('| pedant |'))).toContain('valid; its file changed after it was recorded: the change is ignored');
    expect(rows.find((l) => l.startsWith('| pedant |'))).not.toContain('a note of its own');
    expect(rows.find((l) => l.startsWith('| witness |'))).toMatch(/^\| witness \| valid \|/);
  });

  it('the same round once the fixer answered: one row per answer, with the reason of a decline', () => {
    const { verdicts, answers } = worseSecondRound();
    const text = renderReviewReport({ verdict: verdicts[0]!, answers: answers[0]!, fix: 'complete', checks: null });
    expect(text).toMatchSnapshot();
    expect(text).toContain('| `src/config.js:4` | every failure becomes an empty config | declined | ENOENT is the only failure the shop expects |');
    expect(text).toContain('- Fix summary: `.agents/tmp/phases/review-1/r2-fix-summary.md`');
  });

  it('a final round with checks: statuses since the previous round, the checks table, no fix round', () => {
    const { verdicts } = worseSecondRound();
    const entry = (command: string, status: CheckStatus, exitCode: number | null, durationMs: number, baseline: CheckStatus, i: number): CheckEntry => ({
      command, status, exitCode, signal: null, durationMs, baseline, regressed: baseline === 'passed' && status !== 'passed', tail: '', log: `.agents/tmp/phases/review-1/check-${i}.log`, outputBytes: 0, error: null,
    });
    const checks: ChecksReport = {
      kind: 'after_fix', iteration: 1, attempt: 1, ranAt: NOW, findings: [],
      checks: [entry('npm test', 'failed', 1, 3_200, 'passed', 1), entry('npm run lint', 'passed', 0, 900, 'passed', 2), entry('npm run e2e', 'timed_out', null, 600_000, 'timed_out', 3)],
    };
    const text = renderReviewReport({ verdict: verdicts[1]!, answers: null, fix: 'pending', checks });
    expect(text).toMatchSnapshot();
    expect(text).toContain('next: STOPPED (the iteration budget is spent)');
    expect(text).toContain('| `src/price.js` | warning | FIXED | formatPrice(1234) returns "123.40" |');
    expect(text).toContain('| `npm test` | failed (passed when the loop started) | 1 | 3 s | `.agents/tmp/phases/review-1/check-1.log` |');
    expect(text).toContain('| `npm run e2e` | timed out (failing before the loop) | – | 10 min 0 s |');
    expect(text).toContain('No fix round: the loop stopped before the fixer was given these findings.');
  });

  it('model text is quoted, not interpreted: pipes, HTML, terminal escapes and backticks', () => {
    const { verdicts } = loopOf([{ reports: { critic: [{ ...F.offByOne, description: 'total() \u001b[31mskips\u001b[0m the first line | <b>bold</b> \u202eevil' }] } }]);
    const text = renderReviewReport({ verdict: verdicts[0]!, answers: null, fix: 'pending', checks: null });
    const row = text.split('\n').find((l) => l.startsWith('| 1 |'))!;
    expect(row).toContain('total() skips the first line \\| &lt;b&gt;bold&lt;/b&gt; evil |');
    expect(row).not.toMatch(/[\u001b\u202e]/);
    expect(table(['a'], [[code('x | `y`')]])).toBe('| a |\n|---|\n| `` x \\| `y` `` |');
    expect(inline('*not* _emphasis_ [link](x) #1')).toBe('\\*not\\* \\_emphasis\\_ \\[link\\](x) \\#1');
    expect(plain('a\u001b]8;;http://x\u0007link\u001b]8;;\u0007b')).toBe('alinkb');
  });
});

/** A verdict of `n` open findings: the first of `verdict`'s findings, copied to n distinct lines of one file. */
function manyFindings(verdict: Verdict, n: number): Verdict {
  const open = verdict.findings.find((f) => f.toFixer)!;
  const findings = Array.from({ length: n }, (_, i) => ({ ...open, fingerprint: `f${String(i).padStart(11, '0')}`, line: i + 1, description: `defect ${i + 1}` }));
  return { ...verdict, findings, total_issues: n };
}

describe('reports of a large round list the first findings and say where the rest are', () => {
  const { verdicts } = worseSecondRound();
  const big = manyFindings(verdicts[0]!, MAX_LISTED + 250);

  it('REVIEW.md: the first MAX_LISTED rows, most important first, and a line naming the verdict', () => {
    const text = renderReviewReport({ verdict: big, answers: null, fix: 'pending', checks: null });
    const rows = text.split('\n').filter((l) => /^\| \d+ \|/.test(l));
    expect(rows).toHaveLength(MAX_LISTED);
    expect(rows[0]).toContain('defect 1 |');
    expect(rows[MAX_LISTED - 1]).toContain(`defect ${MAX_LISTED} |`);
    expect(text).toContain('The first 200 of 450 findings (open ones first, the most severe first) are listed here; `.agents/tmp/phases/review-1/r1-verdict.json` has every one.');
    // The verdict line still counts every open finding.
    expect(text).toContain('**Verdict:** 450 open findings');
  });

  it('REVIEW.md: at most MAX_LISTED of the fixer\'s answers, and where they all are', () => {
    const answers = { fixes: big.findings.map((f) => ({ fingerprint: f.fingerprint, status: 'fixed' as const })), patterns: [] };
    const text = renderReviewReport({ verdict: big, answers, fix: 'complete', checks: null });
    const section = text.split("## The fixer's answers\n")[1]!.split('\n## ')[0]!;
    expect(section.split('\n').filter((l) => l.startsWith('| `'))).toHaveLength(MAX_LISTED);
    expect(section).toContain('The first 200 of 450 answers are listed here; `.agents/tmp/phases/review-1/r2-fix-summary.json` has every one.');
  });

  it('the table\'s first rows are those of a stable sort of every finding (group, severity, file, line)', () => {
    const base = verdicts[0]!.findings[0]!;
    const SEVERITY = { critical: 0, warning: 1, info: 2 } as const;
    const group = (f: typeof base) => (f.toFixer ? 0 : f.status === 'CONTESTED' ? 1 : 2);
    const finding = fc.record({
      severity: fc.constantFrom('critical', 'warning', 'info'),
      file: fc.constantFrom('src/a.js', 'src/b.js', 'src/B.js', 'src/ä.js', 'lib/a.js'),
      line: fc.option(fc.integer({ min: 1, max: 30 }), { nil: null }),
      toFixer: fc.boolean(),
      contested: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(finding, { maxLength: 120 }), fc.integer({ min: 0, max: 130 }), (specs, count) => {
        const findings = specs.map((s, i) => ({ ...base, severity: s.severity, file: s.file, line: s.line, toFixer: s.toFixer, status: s.contested ? ('CONTESTED' as const) : base.status, fingerprint: `f${i}` }));
        const sorted = [...findings].sort((a, b) => group(a) - group(b) || SEVERITY[a.severity] - SEVERITY[b.severity] || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) || (a.line ?? 0) - (b.line ?? 0));
        expect(firstInTableOrder(findings, count).map((f) => f.fingerprint)).toEqual(sorted.slice(0, count).map((f) => f.fingerprint));
      }),
      { numRuns: 300 },
    );
  });

  it('REVIEW.md of a round with no more than MAX_LISTED findings lists them all, with no such line', () => {
    const text = renderReviewReport({ verdict: manyFindings(verdicts[0]!, MAX_LISTED), answers: null, fix: 'pending', checks: null });
    expect(text.split('\n').filter((l) => /^\| \d+ \|/.test(l))).toHaveLength(MAX_LISTED);
    expect(text).not.toContain('are listed here');
  });

  it('an unverified critical stays visible: UNVERIFIED in REVIEW.md, marked in REPORT.md, never counted as dropped', () => {
    const loop = loopOf([{ reports: { witness: [{ ...F.ghost, severity: 'critical' }] } }]);
    const v = loop.verdicts[0]!;
    expect(v.findings).toEqual([expect.objectContaining({ unverified: true, toFixer: true })]);
    const review = renderReviewReport({ verdict: v, answers: null, fix: 'pending', checks: null });
    expect(review).toContain('UNVERIFIED (sent to the fixer to check): src/payments.js does not exist');
    expect(review).toContain('1 critical or warning finding unverified: not found in the code as quoted, so sent to the fixer to check and fix or decline');
    const report = renderLoopReport(loopFacts({ ...loop, totalChange: CHANGE, phasesDir: PHASES }));
    expect(report).toMatch(/- \*\*critical\*\* `src\/payments\.js:12` \(security, NEW, unverified: not found in the code as quoted; witness\)/);
    expect(report).not.toContain('did not match the code (ungrounded)');
  });

  it('the completion policy: below-threshold findings under a heading of their own, below-level ones marked not blocking; REPORT.md names the policy', () => {
    const v = verdictOf(1, { pedant: [F.format, { ...F.swallowed, confidence: 30 }], critic: [F.docs] }, [], { policy: { doneWhen: 'warning', minConfidence: 50 } });
    const review = renderReviewReport({ verdict: v, answers: null, fix: 'pending', checks: null });
    const [findings, below] = review.split('## Below the confidence threshold');
    expect(below).toBeDefined();
    // The low-confidence finding is listed under its heading, with its score, and not in the findings table.
    expect(below).toMatch(/\| `src\/config\.js:4` \| warning \| 30 \| error-handling \| pedant \| every failure becomes an empty config \|/);
    expect(findings).not.toContain('every failure becomes an empty config');
    expect(findings).toMatch(/\| info \| docs \| critic \| BELOW --done-when: not blocking \|/);
    expect(findings).toContain('1 finding below the completion level (--done-when): reported, not counted against DONE');
    const loop = loopOf([{ reports: {} }]);
    const report = renderLoopReport(loopFacts({ ...loop, totalChange: CHANGE, phasesDir: PHASES }));
    expect(report).toContain(`**Completion policy:** ${policyText(loop.state.rules)}.`);
    expect(policyText({ doneWhen: 'warning', minConfidence: 80 })).toBe('open critical and warning findings block DONE, lower ones are reported (--done-when warning); findings one reviewer scored below 80 are listed, not fixed (--min-confidence 80)');
    expect(policyText({ doneWhen: 'info', minConfidence: 0 })).toBe('every open finding blocks DONE (--done-when info); no confidence threshold (--min-confidence 0)');
  });

  it('REPORT.md: the first MAX_LISTED open findings, and the round verdict that has them all', () => {
    const loop = worseSecondRound();
    const verdicts = [loop.verdicts[0]!, manyFindings(loop.verdicts[1]!, MAX_LISTED + 1)];
    const text = renderLoopReport(loopFacts({ ...loop, verdicts, totalChange: CHANGE, phasesDir: PHASES }));
    const section = text.split('## Still open after round 2\n')[1]!.split('\n## ')[0]!;
    expect(section.split('\n').filter((l) => l.startsWith('- **'))).toHaveLength(MAX_LISTED);
    expect(section).toContain('The first 200 of 201 open findings are listed here; `.agents/tmp/phases/review-2/r1-verdict.json` has every one.');
  });
});

describe('Markdown helpers', () => {
  // The helpers' fast paths (text that is one line already) against the obvious versions.
  const reference = {
    flat: (t: string) => plain(t).replace(/\s+/g, ' ').trim(),
    inline(t: string, max = 240) {
      const flat = reference.flat(t);
      const cut = flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
      return cut.replace(/[\\`*_[\]<>#]/g, (c) => (c === '<' ? '&lt;' : c === '>' ? '&gt;' : `\\${c}`));
    },
    code(t: string) {
      const flat = reference.flat(t);
      const fence = '`'.repeat(Math.max(0, ...(flat.match(/`+/g) ?? []).map((r) => r.length)) + 1);
      const pad = flat.startsWith('`') || flat.endsWith('`') ? ' ' : '';
      return `${fence}${pad}${flat}${pad}${fence}`;
    },
  };
  const tricky = fc.constantFrom(' ', '  ', '\t', '\n', '\r', '\u00a0', '\u2028', '\ufeff', '\u0085', '\u001b[31m', '\u001b]8;;x\u0007', '\u202e', '\u2066', '`', '``', '*', '_', '#', '<', '>', '\\', '[', ']', '|', 'a', 'é', '😀');
  const text = fc.oneof(fc.string({ unit: 'grapheme-composite' }), fc.array(fc.oneof(tricky, fc.string()), { maxLength: 12 }).map((parts) => parts.join('')));

  it('inline and code give what the plain versions give, for any text', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 30 }), (t, max) => {
        expect(inline(t, max)).toBe(reference.inline(t, max));
        expect(inline(t)).toBe(reference.inline(t));
        expect(code(t)).toBe(reference.code(t));
      }),
      { numRuns: 2000 },
    );
  });

  it('thousands groups digits as en-US does (token counts: never negative)', () => {
    fc.assert(fc.property(fc.oneof(fc.nat(), fc.double({ min: 0, max: 1e15, noNaN: true })), (n) => {
      expect(thousands(n)).toBe(Math.round(n).toLocaleString('en-US'));
    }));
    expect(thousands(1234567)).toBe('1,234,567');
  });
});

describe('REPORT.md', () => {
  const loop = worseSecondRound();
  const facts = loopFacts({ ...loop, totalChange: CHANGE, phasesDir: PHASES });
  const text = renderLoopReport(facts);

  it('renders the whole loop', () => {
    expect(text).toMatchSnapshot();
  });

  it('names the best round and says plainly that the final tree ranks below it', () => {
    expect(text).toContain(
      '**Best attempt: round 1. The final tree (round 2) ranks below it: 1 critical more, 1 warning fewer, 1 info more open; checks passing 1 of 2 against 2 of 2; score 0.43 against 0.80. /minions:restore 1 (or `minions restore 1`) puts its files back.**',
    );
  });

  it('has one row per round with its open findings by severity, checks, score, cost and the best marker', () => {
    const rows = text.split('\n').filter((l) => l.startsWith('| [')).map((l) => l.split(' | '));
    expect(rows.map((r) => [r[0], r[1], r[2], r[3], r[4], r[6], r[7], r[10], r[12]])).toEqual([
      ['| [1](review-1/REVIEW.md)', '0', '2', '0', '2', '2/2', '0.80', '20,100 (+1 unknown)', '**best** |'],
      ['| [2](review-2/REVIEW.md)', '1', '1', '1', '3', '1/2', '0.43', '6,220', ' |'],
    ]);
  });

  it('draws the open findings by severity per round as a Mermaid xychart', () => {
    const chart = findingsChart(facts.rounds)!;
    expect(text).toContain(chart);
    expect(chart.split('\n').filter((l) => l.trim().startsWith('bar ')).map((l) => l.trim())).toEqual(['bar [2, 3]', 'bar [2, 2]', 'bar [0, 1]']);
    expect(chart).toContain('x-axis ["round 1", "round 2"]');
    expect(chart).toMatch(/^```mermaid\n---\nconfig:\n {2}themeVariables:\n {4}xyChart:\n {6}plotColorPalette: "#0969da, #bf8700, #cf222e"\n---\nxychart-beta\n/);
    expect(findingsChart([])).toBeNull();
  });

  it('lists what remains open, the total change and the cost with its unknowns', () => {
    const section = (name: string) => text.split(`## ${name}\n`)[1]!.split('\n## ')[0]!;
    expect(section('Still open after round 2').trim().split('\n')).toEqual([
      '- **critical** `src/price.js:3` (correctness, NEW; critic, pedant): discount() divides a percentage by 10: discount(1000, 10) returns 0',
      '- **warning** `src/config.js:4` (error-handling, NOT_FIXED; silent-failure-hunter): every failure becomes an empty config',
      '- **info** ``docs/a file|with #odd `chars`.md:3`` (docs, NEW; silent-failure-hunter): the notes are a placeholder',
    ]);
    expect(section('Total change')).toContain(CHANGE);
    expect(section('Cost')).toContain('26,320 tokens over 4 agent runs (1 unknown: no readable transcript): input 16,400, output 720, cache write 1,200, cache read 8,000.');
  });

  it('an escalated class: why, where, and the critic’s diagnosis', () => {
    const escalated = { ...facts, escalated: [{ class: 'c1c1c1c1c1c1', reason: 'fixer_escalated' as const, category: 'correctness', sites: ['src/price.js:3', 'src/price.js:8'], attempts: [1], fixerReason: 'same root cause as round 1', open: true, diagnosis: { class: 'c1c1c1c1c1c1', rootCause: 'prices mix cents and units.', fix: 'Keep cents everywhere.', recommend: 'structural' as const }, round: 2 }] };
    const section = renderLoopReport(escalated).split('## Escalated\n')[1]!.split('\n## ')[0]!.trim();
    expect(section).toBe(
      '- class `c1c1c1c1c1c1` (correctness, `src/price.js:3`, `src/price.js:8`): the fixer escalated it: same root cause as round 1; still open in round 2.\n' +
        "  The critic's diagnosis: prices mix cents and units. Fix: Keep cents everywhere. (structural).",
    );
  });

  it('a contested finding is offered for dismissal with the command; a dismissed one is listed with its reason', () => {
    const open = facts.open[0]!;
    const withContested = { ...facts, contested: [{ ...open, status: 'CONTESTED' as const }], dismissed: [{ ...facts.open[1]!, dismissed: 'the \u001b[31mAPI\u001b[0m is 1-based' }] };
    const text = renderLoopReport(withContested);
    const section = (name: string) => text.split(`## ${name}\n`)[1]!.split('\n## ')[0]!;
    expect(section('Contested')).toContain(`If this finding is wrong, dismiss it with a reason:`);
    expect(section('Contested')).toContain(`\`\`\`sh\nminions dismiss ${open.fingerprint} --reason "…"\n\`\`\``);
    expect(section('Dismissed')).toContain('`minions dismiss --remove <fingerprint>` takes one back.');
    expect(section('Dismissed')).toMatch(/- \*\*warning\*\* `src\/config\.js:4` .* — dismissed: the API is 1-based\n?$/);
  });

  it('a clean loop: nothing open, contested or escalated; a loop outside git says the change is unknown', () => {
    const clean = loopOf([{ reports: { pedant: [F.format] }, fix: 'complete' }, { reports: {} }]);
    const done = renderLoopReport(loopFacts({ ...clean, totalChange: null, phasesDir: PHASES }));
    expect(done).toMatch(/^# minions review loop: DONE after 2 review rounds\n/);
    expect(done).toContain('**Best attempt: round 2, the final tree.**');
    expect(done).toContain('## Still open\n\nNothing: no open finding.');
    expect(done).toContain('## Contested\n\nNothing contested.');
    expect(done).toContain('## Total change\n\nUnknown: the project is not a git repository, so no snapshots were taken.');
    expect(done).toContain('## Cost\n\nno agent runs recorded.');
  });
});

describe('table', () => {
  // The table as first written (an array of rows joined), the reference for the one built a row at a time.
  const reference = (head: readonly string[], rows: readonly (readonly string[])[]): string => {
    const cell = (text: string): string => (text.includes('|') ? text.replace(/\|/g, '\\|') : text);
    return [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`)].join('\n');
  };
  it('is the same as joining its rows, for any cells', () => {
    const cell = fc.string({ unit: fc.constantFrom('a', '|', '\\', ' ', '`', '\n', 'é'), maxLength: 8 });
    fc.assert(
      fc.property(fc.array(cell, { minLength: 1, maxLength: 4 }), fc.array(fc.array(cell, { maxLength: 5 }), { maxLength: 6 }), (head, rows) => {
        expect(table(head, rows)).toBe(reference(head, rows));
      }),
      { numRuns: 1000 },
    );
  });
});

describe('the chart when a series is empty', () => {
  const round = (n: number, critical: number, warning: number, info: number) => ({ round: n, reviewed: true, open: { critical, warning, info } }) as unknown as RoundFacts;
  const bars = (chart: string) => chart.split('\n').filter((l) => l.trim().startsWith('bar ')).map((l) => l.trim());
  const palette = (chart: string) => /plotColorPalette: "([^"]*)"/.exec(chart)![1];

  it('leaves out a severity no round had open, with its colour', () => {
    const noInfo = [round(1, 1, 2, 0), round(2, 0, 1, 0)];
    expect(chartSeries(noInfo)).toEqual(['warning', 'critical']);
    expect(bars(findingsChart(noInfo)!)).toEqual(['bar [3, 1]', 'bar [1, 0]']);
    expect(palette(findingsChart(noInfo)!)).toBe('#bf8700, #cf222e');
    const onlyInfo = [round(1, 0, 0, 2), round(2, 0, 0, 1)];
    expect(bars(findingsChart(onlyInfo)!)).toEqual(['bar [2, 1]']);
    expect(palette(findingsChart(onlyInfo)!)).toBe('#0969da');
  });

  it('draws nothing when no round had an open finding, and REPORT.md says so', () => {
    expect(findingsChart([round(1, 0, 0, 0), round(2, 0, 0, 0)])).toBeNull();
    const clean = loopOf([{ reports: {} }]);
    const text = renderLoopReport(loopFacts({ ...clean, totalChange: null, phasesDir: PHASES }));
    expect(text).not.toContain('```mermaid');
    expect(text).toContain('No round had an open finding: there is nothing to chart.');
    expect(text).not.toContain('Bars drawn over each other');
  });

  it('names in its legend only the colours it draws', () => {
    const onlyCritical = loopOf([{ reports: { critic: [F.discount] } }]);
    const text = renderLoopReport(loopFacts({ ...onlyCritical, totalChange: null, phasesDir: PHASES }));
    const chart = findingsChart(loopFacts({ ...onlyCritical, totalChange: null, phasesDir: PHASES }).rounds)!;
    expect(bars(chart)).toHaveLength(1);
    expect(text).toContain(`${chart}\n\nOpen critical findings (red, #cf222e); no other severity was open.`);
  });
});
