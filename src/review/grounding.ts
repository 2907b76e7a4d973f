/** Filesystem grounding (seed 000), made mechanical: is a finding about code that is really there? Pure. */
import { flatten, normaliseCode, normaliseFile } from './fingerprint';

/** What the shell saw of each file a finding names. */
/** rel: the file's path relative to the project root, for a finding that named it another way. */
export type Source = { kind: 'file'; text: string; rel?: string } | { kind: 'missing' } | { kind: 'outside' } | { kind: 'not-a-file' };
export type Sources = Record<string, Source>;

export type Grounding =
  | { status: 'grounded'; reason: null; line: number | null }
  /** The evidence is in the file, but not near the cited line: kept, with the line corrected. */
  | { status: 'relocated'; reason: string; line: number }
  | { status: 'ungrounded'; reason: string; line: number | null };

/** "Within a few lines" of the cited line. */
export const EVIDENCE_WINDOW = 5;

/** Witness evidence is a command and its output, not code: it is not looked for in the file. */
export const isCommandEvidence = (evidence: string): boolean => /^\s*\$\s/.test(evidence);

export function ground(finding: { file: string; line: number | null; evidence: string }, sources: Sources): Grounding {
  const file = normaliseFile(finding.file);
  const source = sources[file] ?? { kind: 'missing' };
  if (source.kind === 'outside') return { status: 'ungrounded', reason: `${file} is outside the project`, line: finding.line };
  if (source.kind === 'missing') return { status: 'ungrounded', reason: `${file} does not exist`, line: finding.line };
  if (source.kind === 'not-a-file') return { status: 'ungrounded', reason: `${file} is not a file`, line: finding.line };

  const lines = source.text.split(/\r?\n/);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  if (finding.line !== null && finding.line > lines.length) {
    return { status: 'ungrounded', reason: `line ${finding.line} is past the end of ${file} (${lines.length} lines)`, line: finding.line };
  }
  const wanted = normaliseCode(finding.evidence);
  if (!wanted || isCommandEvidence(finding.evidence)) return { status: 'grounded', reason: null, line: finding.line };

  const found = (from: number, to: number): boolean => flatten(lines.slice(Math.max(0, from), Math.min(lines.length, to)).join('\n')).includes(wanted);
  if (finding.line === null) {
    return found(0, lines.length) ? { status: 'grounded', reason: null, line: null } : absent(file, finding.line);
  }
  const at = finding.line - 1;
  if (found(at - EVIDENCE_WINDOW, at + EVIDENCE_WINDOW + 1)) return { status: 'grounded', reason: null, line: finding.line };
  const elsewhere = locate(lines, wanted);
  if (elsewhere !== null) {
    return { status: 'relocated', reason: `the evidence is at line ${elsewhere}, not ${finding.line}`, line: elsewhere };
  }
  return absent(file, finding.line);
}

const absent = (file: string, line: number | null): Grounding => ({ status: 'ungrounded', reason: `the quoted evidence does not occur in ${file}`, line });

/** The line at which the normalised evidence starts, if it occurs in the file at all. */
function locate(lines: string[], wanted: string): number | null {
  const flat = lines.map(flatten);
  const at = flat.join('').indexOf(wanted);
  if (at < 0) return null;
  let offset = 0;
  for (let i = 0; i < flat.length; i++) {
    offset += flat[i]!.length;
    if (offset > at) return i + 1;
  }
  return null;
}

/** The code around a line, normalised: a finding's identity when it quotes no evidence. */
export function codeAround(sources: Sources, file: string, line: number | null): string {
  const source = sources[normaliseFile(file)];
  if (!source || source.kind !== 'file' || line === null) return '';
  const lines = source.text.split(/\r?\n/);
  return flatten(lines.slice(Math.max(0, line - 2), line + 1).join('\n'));
}
