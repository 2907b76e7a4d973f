/**
 * The findings as SARIF 2.1.0, for GitHub code scanning and other SARIF viewers: the last round's open
 * findings (its findings held back by the completion policy as notes, with `held` and `confidence` properties; its contested ones, as suppressions under review; the ones the user dismissed, as accepted suppressions), or with allRounds also the findings
 * earlier rounds had open that the last round no longer has (baselineState "absent"). Pure.
 */
import type { Log, ReportingDescriptor, Result } from 'sarif';
import type { FixSummary, MergedFinding, Verdict } from '../protocol/verdict-schema';

export const SARIF_SCHEMA = 'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json';
/** The key of the finding's fingerprint in partialFingerprints: stable across line shifts and rewording. */
export const FINGERPRINT_KEY = 'minionsFindingHash/v1';

export interface SarifInput {
  /** Every round's verdict, oldest first (null where unreadable). */
  verdicts: readonly (Verdict | null)[];
  answers: readonly (FixSummary | null)[];
  allRounds: boolean;
  version: string;
  /** The project's folder inside its repository ('' or ending in '/'): code scanning wants repository paths. */
  uriPrefix?: string;
}

const LEVEL = { critical: 'error', warning: 'warning', info: 'note' } as const;

const uriOf = (prefix: string, file: string): string => `${prefix}${file}`.split('/').map(encodeURIComponent).join('/');

const isOpen = (f: MergedFinding): boolean => f.toFixer;

export function toSarif(input: SarifInput): Log {
  const rounds = input.verdicts.flatMap((v) => (v ? [v] : []));
  const last = rounds[rounds.length - 1] ?? null;
  const earlier = rounds.slice(0, -1);
  const openBefore = new Set(earlier.flatMap((v) => v.findings.filter(isOpen).map((f) => f.fingerprint)));
  const declined = new Map<string, string>();
  for (const summary of input.answers) for (const a of summary?.fixes ?? []) if (a.status === 'declined' && a.reason) declined.set(a.fingerprint, a.reason);

  const rules: ReportingDescriptor[] = [];
  const ruleIndex = (family: string): number => {
    let i = rules.findIndex((r) => r.id === family);
    if (i < 0) {
      i = rules.length;
      rules.push({ id: family, name: family, shortDescription: { text: `minions reviewers: ${family}` } });
    }
    return i;
  };

  const result = (f: MergedFinding, round: number, baselineState: Result.baselineState | null): Result => ({
    ruleId: f.category,
    ruleIndex: ruleIndex(f.category),
    // Held back by the completion policy (below --done-when or --min-confidence): reported, never above a note.
    level: f.held ? 'note' : LEVEL[f.severity],
    message: { text: f.suggestion.trim() ? `${f.description.trim()}\nSuggestion: ${f.suggestion.trim()}` : f.description.trim() },
    locations: [
      {
        physicalLocation: {
          artifactLocation: { uri: uriOf(input.uriPrefix ?? '', f.file), uriBaseId: '%SRCROOT%' },
          // Code scanning needs a line; a whole-file finding is shown on the first.
          region: { startLine: f.line ?? 1 },
        },
      },
    ],
    partialFingerprints: { [FINGERPRINT_KEY]: f.fingerprint },
    ...(baselineState ? { baselineState } : {}),
    ...(f.dismissed !== null
      ? { suppressions: [{ kind: 'external' as const, status: 'accepted' as const, justification: `dismissed: ${f.dismissed}` }] }
      : f.status === 'CONTESTED'
      ? { suppressions: [{ kind: 'external' as const, status: 'underReview' as const, justification: `declined by the fixer twice${declined.has(f.fingerprint) ? `: ${declined.get(f.fingerprint)}` : ''}` }] }
      : {}),
    properties: {
      round,
      severity: f.severity,
      status: f.status,
      reporters: f.reporters,
      categories: f.categories,
      wholeFile: f.line === null,
      grounding: f.grounding.status,
      ...(f.confidence !== null ? { confidence: f.confidence } : {}),
      ...(f.held ? { held: f.held } : {}),
    },
  });

  const results: Result[] = [];
  const seen = new Set<string>();
  if (last) {
    for (const f of last.findings) {
      const held = f.held !== null && f.grounding.status !== 'ungrounded';
      if (!isOpen(f) && f.status !== 'CONTESTED' && f.dismissed === null && !held) continue;
      seen.add(f.fingerprint);
      results.push(result(f, last.iteration, earlier.length ? (openBefore.has(f.fingerprint) ? 'unchanged' : 'new') : null));
    }
  }
  if (input.allRounds) {
    // Latest first, so a finding open in several earlier rounds is reported as its last round had it.
    for (const v of [...earlier].reverse()) {
      for (const f of v.findings) {
        if (!isOpen(f) || seen.has(f.fingerprint)) continue;
        seen.add(f.fingerprint);
        results.push(result(f, v.iteration, 'absent'));
      }
    }
  }
  return {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: 'minions', version: input.version, rules } },
        results,
        columnKind: 'utf16CodeUnits',
        properties: {
          rounds: rounds.map((v) => v.iteration),
          ungrounded: last ? last.findings.filter((f) => f.grounding.status === 'ungrounded').length : 0,
          unquoted: last ? last.findings.filter((f) => f.grounding.status === 'unquoted').length : 0,
        },
      },
    ],
  };
}
