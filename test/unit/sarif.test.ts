/** SARIF 2.1.0 for code scanning, validated against the official schema (draft-04, a copy in test/fixtures). */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv from 'ajv-draft-04';
import type { Log } from 'sarif';
import { describe, expect, it } from 'vitest';
import { FINGERPRINT_KEY, SARIF_SCHEMA, toSarif } from '../../src/report/sarif';
import { F, loopOf, verdictOf } from './report-builders';

const schemaFile = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'sarif-schema-2.1.0.json');
// The schema's formats, checked for real rather than ignored.
const ajv = new Ajv({
  allErrors: true,
  formats: {
    uri: (s: string) => URL.canParse(s),
    'uri-reference': (s: string) => URL.canParse(s, 'http://base.invalid/'),
    'date-time': (s: string) => !Number.isNaN(Date.parse(s)) && /^\d{4}-\d\d-\d\dT/.test(s),
  },
});
const validate = ajv.compile(JSON.parse(fs.readFileSync(schemaFile, 'utf8')));

function expectValid(log: Log): void {
  const ok = validate(log);
  expect(validate.errors ?? [], JSON.stringify(validate.errors, null, 2)).toEqual([]);
  expect(ok).toBe(true);
}

const results = (log: Log) => log.runs[0]!.results!;
const VERSION = '0.1.0';

describe('SARIF output', () => {
  it('the schema rejects what it should: the validator is not a rubber stamp', () => {
    expect(validate({ version: '2.1.0', runs: [{ tool: { driver: {} } }] })).toBe(false);
    expect(validate({ version: '2.0.0', runs: [] })).toBe(false);
    const { verdicts, answers } = loopOf([{ reports: { pedant: [F.format] } }]);
    const log = toSarif({ verdicts, answers, allRounds: false, version: VERSION }) as unknown as { runs: { results: { level: string }[] }[] };
    log.runs[0]!.results[0]!.level = 'fatal';
    expect(validate(log)).toBe(false);
  });

  it('empty results: a clean last round', () => {
    const { verdicts, answers } = loopOf([{ reports: {} }]);
    const log = toSarif({ verdicts, answers, allRounds: false, version: VERSION });
    expectValid(log);
    expect(log).toMatchObject({ $schema: SARIF_SCHEMA, version: '2.1.0', runs: [{ tool: { driver: { name: 'minions', version: VERSION, rules: [] } }, results: [] }] });
    expectValid(toSarif({ verdicts: [], answers: [], allRounds: true, version: VERSION }));
  });

  it('findings in many files: rule from the category family, level from the severity, relative location, fingerprint', () => {
    // The docs finding quotes nothing: a whole-file finding (one that quotes code takes the quote's line),
    // unquoted, and open because two reviewers report it.
    const { verdicts, answers } = loopOf([{ reports: { pedant: [F.discount, F.format], critic: [F.swallowed, F.offByOne, { ...F.docs, evidence: '' }], witness: [{ ...F.docs, evidence: '' }] } }]);
    const log = toSarif({ verdicts, answers, allRounds: false, version: VERSION, uriPrefix: 'packages/shop/' });
    expectValid(log);
    const got = results(log).map((r) => [r.ruleId, r.level, r.locations![0]!.physicalLocation!.artifactLocation!.uri, r.locations![0]!.physicalLocation!.region!.startLine]);
    expect(got).toEqual(
      expect.arrayContaining([
        ['correctness', 'error', 'packages/shop/src/price.js', 3],
        ['correctness', 'warning', 'packages/shop/src/price.js', 8],
        ['error-handling', 'warning', 'packages/shop/src/config.js', 4],
        ['correctness', 'error', 'packages/shop/src/cart.js', 3],
        ['docs', 'note', 'packages/shop/docs/a%20file%7Cwith%20%23odd%20%60chars%60.md', 1],
      ]),
    );
    expect(got).toHaveLength(5);
    const fingerprints = verdicts[0]!.findings.map((f) => f.fingerprint).sort();
    expect(results(log).map((r) => r.partialFingerprints![FINGERPRINT_KEY]).sort()).toEqual(fingerprints);
    const rules = log.runs[0]!.tool.driver.rules!;
    expect(rules.map((r) => r.id).sort()).toEqual(['correctness', 'docs', 'error-handling']);
    for (const r of results(log)) expect(rules[r.ruleIndex!]!.id).toBe(r.ruleId);
    const docs = results(log).find((r) => r.ruleId === 'docs')!;
    expect(docs.properties).toMatchObject({ wholeFile: true, severity: 'info', status: 'NEW', reporters: ['critic', 'witness'], grounding: 'unquoted' });
    expect(results(log).find((r) => r.level === 'error' && r.locations![0]!.physicalLocation!.artifactLocation!.uri!.endsWith('price.js'))?.message.text).toBe(
      'discount() divides a percentage by 10: discount(1000, 10) returns 0\nSuggestion: Divide by 100.',
    );
  });

  it('findings held back by the completion policy are notes, with held and confidence properties', () => {
    const v = verdictOf(1, { pedant: [F.format, { ...F.swallowed, confidence: 30 }], critic: [{ ...F.discount, confidence: 95 }, F.docs] }, [], { policy: { doneWhen: 'warning', minConfidence: 50 } });
    const log = toSarif({ verdicts: [v], answers: [null], allRounds: false, version: VERSION });
    expectValid(log);
    const byRule = (file: string) => results(log).find((r) => r.locations![0]!.physicalLocation!.artifactLocation!.uri!.startsWith(file))!;
    expect(byRule('src/config.js')).toMatchObject({ level: 'note', properties: { severity: 'warning', held: 'confidence', confidence: 30 } });
    expect(byRule('docs/')).toMatchObject({ level: 'note', properties: { severity: 'info', held: 'level' } });
    expect(byRule('src/price.js').properties).not.toHaveProperty('held');
    expect(results(log).filter((r) => r.properties!.held === undefined).map((r) => r.level).sort()).toEqual(['error', 'warning']);
    expect(results(log).find((r) => r.properties!.confidence === 95)).toMatchObject({ level: 'error' });
    // An ungrounded finding stays out, held or not.
    const ghost = verdictOf(1, { witness: [F.ghost] }, [], { policy: { doneWhen: 'warning', minConfidence: 50 } });
    expect(ghost.findings[0]).toMatchObject({ held: 'level', grounding: expect.objectContaining({ status: 'ungrounded' }) });
    expect(results(toSarif({ verdicts: [ghost], answers: [null], allRounds: false, version: VERSION }))).toEqual([]);
  });

  it('ungrounded findings are left out (counted in the run’s properties); contested ones are suppressions under review', () => {
    const fp = verdictOf(1, { pedant: [F.format] }).findings[0]!.fingerprint;
    const { verdicts, answers } = loopOf([
      { reports: { pedant: [F.format] }, fix: 'complete', answers: (open) => ({ fixes: open.map((f) => ({ fingerprint: f.fingerprint, status: 'declined' as const, reason: 'two decimals is the house style' })), patterns: [] }) },
      { reports: { pedant: [F.format], witness: [F.ghost], critic: [F.discount] }, declines: { [fp]: 2 } },
    ]);
    const log = toSarif({ verdicts, answers, allRounds: false, version: VERSION });
    expectValid(log);
    expect(results(log)).toHaveLength(2);
    expect(results(log).some((r) => r.locations![0]!.physicalLocation!.artifactLocation!.uri === 'src/payments.js')).toBe(false);
    expect(log.runs[0]!.properties).toEqual({ rounds: [1, 2], ungrounded: 1, unquoted: 0 });
    const contested = results(log).find((r) => r.partialFingerprints![FINGERPRINT_KEY] === fp)!;
    expect(contested.suppressions).toEqual([{ kind: 'external', status: 'underReview', justification: 'declined by the fixer twice: two decimals is the house style' }]);
    expect(contested.properties!.status).toBe('CONTESTED');
    const open = results(log).find((r) => r !== contested)!;
    expect(open).toMatchObject({ level: 'error', baselineState: 'new' });
    expect(open.suppressions).toBeUndefined();
  });

  it('--all-rounds adds what earlier rounds had open and the last does not, as absent; a finding open throughout is unchanged', () => {
    const { verdicts, answers } = loopOf([
      { reports: { pedant: [F.format, F.swallowed] }, fix: 'complete' },
      { reports: { pedant: [F.swallowed], critic: [F.discount] }, fix: 'complete' },
      { reports: { pedant: [F.swallowed] } },
    ]);
    const last = toSarif({ verdicts, answers, allRounds: false, version: VERSION });
    const all = toSarif({ verdicts, answers, allRounds: true, version: VERSION });
    expectValid(last);
    expectValid(all);
    const view = (log: Log) => results(log).map((r) => [r.locations![0]!.physicalLocation!.region!.startLine, r.baselineState, r.properties?.round]);
    expect(view(last)).toEqual([[4, 'unchanged', 3]]);
    expect(view(all)).toEqual([
      [4, 'unchanged', 3],
      [3, 'absent', 2],
      [8, 'absent', 1],
    ]);
  });
});
