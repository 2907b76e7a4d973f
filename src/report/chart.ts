/**
 * The open findings by severity per round, as a Mermaid xychart that GitHub renders. xychart has no
 * stacked bars and no legend: three bar series are drawn over each other, tallest first (all open, then
 * critical + warning, then critical), which reads as one stacked bar per round. Pure.
 */
import type { RoundFacts } from './facts';

/** info, warning, critical: the colours of GitHub's note, warning and error annotations. */
export const CHART_COLOURS = { info: '#0969da', warning: '#bf8700', critical: '#cf222e' } as const;

export function findingsChart(rounds: readonly RoundFacts[]): string | null {
  const reviewed = rounds.filter((r) => r.reviewed);
  if (reviewed.length === 0) return null;
  const all = reviewed.map((r) => r.open.critical + r.open.warning + r.open.info);
  const upper = Math.max(1, ...all);
  return [
    '```mermaid',
    '---',
    'config:',
    '  themeVariables:',
    '    xyChart:',
    `      plotColorPalette: "${CHART_COLOURS.info}, ${CHART_COLOURS.warning}, ${CHART_COLOURS.critical}"`,
    '---',
    'xychart-beta',
    '  title "Open findings by severity per round"',
    `  x-axis [${reviewed.map((r) => `"round ${r.round}"`).join(', ')}]`,
    `  y-axis "open findings" 0 --> ${upper}`,
    `  bar [${all.join(', ')}]`,
    `  bar [${reviewed.map((r) => r.open.critical + r.open.warning).join(', ')}]`,
    `  bar [${reviewed.map((r) => r.open.critical).join(', ')}]`,
    '```',
  ].join('\n');
}
