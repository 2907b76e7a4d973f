/**
 * The fixer's answers (r2-fix-summary.json) as models commonly write them, each labelled like the
 * review variants: the meaning an accepted one keeps is each open fingerprint's status (and kind).
 */
export const OPEN = ['3f9c2a1b7d40', 'a81e0c55d2f9'] as const;
const [F1, F2] = OPEN;

export interface FixMeaning {
  fingerprint: string;
  status: 'fixed' | 'declined' | 'could_not_fix' | 'escalate';
  kind?: 'patch' | 'structural';
}
export interface FixVariant {
  name: string;
  text: string;
  label: 'accept' | 'sendback' | 'either';
  meaning?: FixMeaning[];
  says?: RegExp;
  /** The round's open fingerprints, when not OPEN. */
  open?: readonly string[];
}

const pretty = (v: unknown): string => JSON.stringify(v, null, 2);
const reason = 'the catch rethrows everything but ENOENT (line 32)';
const CANONICAL = { fixes: [{ fingerprint: F1, status: 'fixed', kind: 'patch' }, { fingerprint: F2, status: 'declined', reason }] };
const MEANING: FixMeaning[] = [{ fingerprint: F1, status: 'fixed', kind: 'patch' }, { fingerprint: F2, status: 'declined' }];
const withFirst = (entry: Record<string, unknown>): string => pretty({ fixes: [{ fingerprint: F1, kind: 'patch', ...entry }, CANONICAL.fixes[1]] });
const statusOf = (status: string, meant: FixMeaning['status'], extra: Record<string, unknown> = {}): FixVariant => ({
  name: `status ${JSON.stringify(status)}`,
  text: withFirst({ status, reason: 'see the summary', ...extra }),
  label: 'accept',
  meaning: [{ fingerprint: F1, status: meant, ...(meant === 'fixed' ? { kind: 'patch' as const } : {}) }, MEANING[1]!],
});

export const FIX_VARIANTS: FixVariant[] = [
  { name: 'as the contract writes it', text: pretty(CANONICAL), label: 'accept', meaning: MEANING },
  { name: 'in a json fence', text: `\`\`\`json\n${pretty(CANONICAL)}\n\`\`\``, label: 'accept', meaning: MEANING },
  { name: 'between prose', text: `Answers:\n${pretty(CANONICAL)}\nDone.`, label: 'accept', meaning: MEANING },
  { name: 'with a trailing comma', text: pretty(CANONICAL).replace(`"kind": "patch"`, `"kind": "patch",`), label: 'accept', meaning: MEANING },
  { name: 'with a comment', text: `// round 1\n${pretty(CANONICAL)}`, label: 'accept', meaning: MEANING },
  { name: 'with a BOM', text: `\uFEFF${pretty(CANONICAL)}`, label: 'accept', meaning: MEANING },
  statusOf('FIXED', 'fixed'),
  statusOf('Fixed', 'fixed'),
  statusOf('done', 'fixed'),
  statusOf('resolved', 'fixed'),
  statusOf('Fixed.', 'fixed'),
  statusOf('✅ fixed', 'fixed'),
  statusOf("won't fix", 'declined'),
  statusOf('false positive', 'declined'),
  statusOf('DECLINED', 'declined'),
  statusOf('could not fix', 'could_not_fix'),
  statusOf('could-not-fix', 'could_not_fix'),
  statusOf('blocked', 'could_not_fix'),
  statusOf('escalated', 'escalate'),
  { name: 'a fixed answer without kind', text: pretty({ fixes: [{ fingerprint: F1, status: 'fixed' }, CANONICAL.fixes[1]] }), label: 'accept', meaning: MEANING },
  { name: 'kind "local"', text: withFirst({ status: 'fixed', kind: 'local' }), label: 'accept', meaning: MEANING },
  { name: 'kind "root-cause"', text: withFirst({ status: 'fixed', kind: 'root-cause' }), label: 'accept', meaning: [{ ...MEANING[0]!, kind: 'structural' }, MEANING[1]!] },
  { name: 'note for reason', text: pretty({ fixes: [CANONICAL.fixes[0], { fingerprint: F2, status: 'declined', note: reason }] }), label: 'accept', meaning: MEANING },
  { name: 'a top-level array', text: pretty(CANONICAL.fixes), label: 'accept', meaning: MEANING },
  { name: 'under `answers`', text: pretty({ answers: CANONICAL.fixes }), label: 'accept', meaning: MEANING },
  { name: 'in a wrapper', text: pretty({ summary: CANONICAL }), label: 'accept', meaning: MEANING },
  { name: 'a map by fingerprint', text: pretty({ fixes: { [F1]: { status: 'fixed', kind: 'patch' }, [F2]: { status: 'declined', reason } } }), label: 'accept', meaning: MEANING },
  { name: 'a top-level map of statuses', text: pretty({ [F1]: 'fixed', [F2]: { status: 'declined', reason } }), label: 'accept', meaning: MEANING },
  { name: 'fingerprints in upper case', text: pretty({ fixes: [{ ...CANONICAL.fixes[0], fingerprint: F1.toUpperCase() }, CANONICAL.fixes[1]] }), label: 'accept', meaning: MEANING },
  { name: 'fingerprint prefixes', text: pretty({ fixes: [{ ...CANONICAL.fixes[0], fingerprint: F1.slice(0, 8) }, { ...CANONICAL.fixes[1], fingerprint: F2.slice(0, 7) }] }), label: 'accept', meaning: MEANING },
  { name: 'id for fingerprint', text: pretty({ fixes: [{ id: F1, status: 'fixed', kind: 'patch' }, { id: F2, status: 'declined', reason }] }), label: 'accept', meaning: MEANING },
  // Ambiguous or incomplete: sent back.
  { name: 'partially_fixed', text: withFirst({ status: 'partially_fixed' }), label: 'sendback', says: /fixes\[0\]\.status is "partially_fixed": write one of .*a partial fix is "could_not_fix"/ },
  { name: 'the template status', text: withFirst({ status: 'fixed|declined|could_not_fix|escalate' }), label: 'sendback', says: /copied from the template/ },
  { name: 'a status missing', text: pretty({ fixes: [{ fingerprint: F1 }, CANONICAL.fixes[1]] }), label: 'sendback', says: /fixes\[0\] has no status/ },
  { name: 'a fingerprint missing', text: pretty({ fixes: [{ status: 'fixed', kind: 'patch' }, CANONICAL.fixes[1]] }), label: 'sendback', says: /fixes\[0\] has no fingerprint/ },
  { name: 'a decline without a reason', text: pretty({ fixes: [CANONICAL.fixes[0], { fingerprint: F2, status: 'declined' }] }), label: 'sendback', says: /fixes\[1\]\.reason: a declined, could_not_fix or escalate entry needs a reason/ },
  { name: 'an unknown kind', text: withFirst({ status: 'fixed', kind: 'quick' }), label: 'sendback', says: /fixes\[0\]\.kind is "quick"/ },
  {
    name: 'a prefix of two open findings',
    text: pretty({ fixes: [{ ...CANONICAL.fixes[0], fingerprint: '3f9c2a' }, CANONICAL.fixes[1]] }),
    open: [F1, '3f9c2a00aaaa', F2],
    label: 'sendback',
    says: /the fingerprint "3f9c2a" starts 2 open findings/,
  },
  { name: 'two JSON blocks', text: `\`\`\`json\n${pretty(CANONICAL)}\n\`\`\`\n\`\`\`json\n${pretty(CANONICAL)}\n\`\`\``, label: 'sendback', says: /found 2 JSON blocks/ },
  { name: 'a syntax error', text: pretty(CANONICAL).replace(`"status": "fixed",`, `"status": "fixed"`), label: 'sendback', says: /line \d+: a comma is missing before "kind"/ },
  { name: 'the answers as bare strings', text: pretty({ fixes: [`${F1} fixed`, `${F2} declined`] }), label: 'sendback', says: /fixes\[0\] is a string/ },
];
