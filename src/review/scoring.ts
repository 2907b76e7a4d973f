/** Deterministic scores: seed 000's 0.0–1.0 bands and seed 003's 0–10 readiness scale. Pure. */
import type { Severity } from '../protocol/reviewer-output';

export const PENALTY: Record<Severity, number> = { critical: 0.45, warning: 0.1, info: 0.02 };
export type Band = 'accept' | 'accept_with_warnings' | 'repair' | 'escalate';
export type Readiness = 'READY' | 'ALMOST' | 'NOT_READY';

const round2 = (x: number): number => Math.round(x * 100) / 100;
const clamp = (x: number): number => Math.min(1, Math.max(0, round2(x)));

/** 1.0 minus a penalty per open finding, by severity. */
export function scoreFindings(findings: readonly { severity: Severity }[]): number {
  return clamp(1 - findings.reduce((sum, f) => sum + PENALTY[f.severity], 0));
}

export function band(score: number): Band {
  if (score >= 0.9) return 'accept';
  if (score >= 0.6) return 'accept_with_warnings';
  if (score >= 0.3) return 'repair';
  return 'escalate';
}

export const scale10 = (score: number): number => Math.round(score * 10);

export function readiness(scale: number): Readiness {
  if (scale >= 7) return 'READY';
  if (scale >= 5) return 'ALMOST';
  return 'NOT_READY';
}

export interface Score {
  score: number;
  band: Band;
  scale: number;
  readiness: Readiness;
}

export function scoreOf(score: number): Score {
  const s = clamp(score);
  return { score: s, band: band(s), scale: scale10(s), readiness: readiness(scale10(s)) };
}

const REQUIRED_FIELDS = ['severity', 'category', 'file', 'description'] as const;

/**
 * Seed 000's heuristic fallback, for a review that could only be partly read: start at 1.0, subtract
 * 0.2 per missing required field, 0.1 per empty field, and the usual penalty per finding that was read.
 */
export function heuristicScore(data: unknown, salvaged: readonly { severity: Severity }[]): number {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return 0;
  const record = data as Record<string, unknown>;
  let penalty = 0;
  if (!Array.isArray(record.issues)) penalty += 0.2;
  if (typeof record.summary !== 'object' || record.summary === null) penalty += 0.2;
  for (const issue of Array.isArray(record.issues) ? record.issues : []) {
    if (typeof issue !== 'object' || issue === null) {
      penalty += 0.2;
      continue;
    }
    for (const field of REQUIRED_FIELDS) {
      const value = (issue as Record<string, unknown>)[field];
      if (value === undefined || value === null) penalty += 0.2;
      else if (typeof value === 'string' && value.trim() === '') penalty += 0.1;
    }
  }
  return clamp(1 - penalty - salvaged.reduce((sum, f) => sum + PENALTY[f.severity], 0));
}
