/**
 * The open findings by severity per round, as a Mermaid xychart that GitHub renders. xychart has no
 * stacked bars and no legend: three bar series are drawn over each other, tallest first (all open, then
 * critical + warning, then critical), which reads as one stacked bar per round. A severity no round had
 * open is not drawn, and a loop with no open finding in any round gets no chart. Pure.
 */
import type { RoundFacts } from './facts';

/** info, warning, critical: the colours of GitHub's note, warning and error annotations. */
export const CHART_COLOURS = { info: '#0969da', warning: '#bf8700', critical: '#cf222e' } as const;

type Level = keyof typeof CHART_COLOURS;
const LEVELS: readonly Level[] = ['info', 'warning', 'critical'];
/** Each series' bar: the open findings of its severity and of every more severe one. */
const height = (r: RoundFacts, level: Level): number => r.open.critical + (level !== 'critical' ? r.open.warning : 0) + (level === 'info' ? r.open.info : 0);

/**
 * The series drawn: a severity no reviewed round had open is left out (its bar would hide under the
 * next, and its colour would name nothing). Empty when no round had an open finding at all.
 */
export function chartSeries(rounds: readonly RoundFacts[]): Level[] {
  const reviewed = rounds.filter((r) => r.reviewed);
  return LEVELS.filter((level) => reviewed.some((r) => r.open[level] > 0));
}

/** null when there is nothing to draw: no reviewed round, or no open finding in any (see chartSeries). */
export function findingsChart(rounds: readonly RoundFacts[]): string | null {
  const reviewed = rounds.filter((r) => r.reviewed);
  const series = chartSeries(rounds);
  if (reviewed.length === 0 || series.length === 0) return null;
  const upper = Math.max(1, ...reviewed.map((r) => height(r, 'info')));
  return [
    '```mermaid',
    '---',
    'config:',
    '  themeVariables:',
    '    xyChart:',
    `      plotColorPalette: "${series.map((level) => CHART_COLOURS[level]).join(', ')}"`,
    '---',
    'xychart-beta',
    '  title "Open findings by severity per round"',
    `  x-axis [${reviewed.map((r) => `"round ${r.round}"`).join(', ')}]`,
    `  y-axis "open findings" 0 --> ${upper}`,
    ...series.map((level) => `  bar [${reviewed.map((r) => height(r, level)).join(', ')}]`),
    '```',
  ].join('\n');
}
