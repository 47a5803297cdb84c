/**
 * One line on a phase that ended on steady state (--warmup auto, --precondition auto): when it
 * settled, by which rule, or that it never did and was measured anyway.
 */
import { formatDuration } from '../config/duration.js';
import type { SteadyFigure, SteadyStateReport } from '../metrics/steady-state.js';

const FIGURE_NAMES: Record<SteadyFigure, string> = { tps: 'TPS', response: 'response time' };

const pct = (x: number | null | undefined): string =>
  typeof x === 'number' && Number.isFinite(x) ? `${x.toFixed(1)}%` : 'n/a';

export function formatSteadyState(s: SteadyStateReport, phase: 'warm-up' | 'preconditioning'): string {
  const figures = s.figures.map((f) => FIGURE_NAMES[f]).join(' and ');
  const rule = `${figures} within ${s.rangePct}% range, ${s.slopePct}% slope over ${s.window} intervals of ${formatDuration(s.intervalS * 1000)}`;
  if (s.reached && s.atSeconds !== null)
    return `Steady state reached after ${formatDuration(s.atSeconds * 1000)} of ${phase} (${rule})`;
  const last = s.figures
    .map((f) => `${FIGURE_NAMES[f]} range ${pct(s.last[f]?.rangePct)}, slope ${pct(s.last[f]?.slopePct)}`)
    .join('; ');
  return (
    `Steady state NOT reached within ${formatDuration(s.maxSeconds * 1000)} of ${phase}: measured anyway ` +
    `(${rule}; last window: ${last || 'fewer intervals than the window'})`
  );
}
