/**
 * A run's headline figures as the reports show them: the workload's own (run.json summary.figures),
 * or, for files written before workloads said so, TPC-C's tpmC and NOPM fields. A figure marked
 * `pacedSpec` is called by its spec name only when the run was paced with a standard mix
 * (new-order-rate.ts decides); otherwise by its unit, with why.
 */
import type { HeadlineFigure } from '../workloads/workload.js';
import { qualifiedRateLabel, type RateConditions } from './new-order-rate.js';

export type { HeadlineFigure };

interface WithFigures {
  figures?: readonly HeadlineFigure[] | undefined;
  tpmC?: number | null | undefined;
  nopm?: number | null | undefined;
}

/** The figures of a summary, best first. */
export function figuresOf(summary: WithFigures): readonly HeadlineFigure[] {
  if (summary.figures !== undefined) return summary.figures;
  const legacy: HeadlineFigure[] = [];
  if (summary.tpmC !== undefined)
    legacy.push({ key: 'tpmC', label: 'tpmC', value: summary.tpmC, unit: 'New-Orders/min', pacedSpec: true });
  if (summary.nopm !== undefined)
    legacy.push({ key: 'nopm', label: 'NOPM', value: summary.nopm, unit: 'committed New-Orders/min' });
  return legacy;
}

/** What a figure may be called under these conditions: `tpmC`, `New-Orders/min (paced ×0.25)`, `(unpaced)`. */
export function figureLabel(
  figure: Pick<HeadlineFigure, 'label' | 'unit' | 'pacedSpec'>,
  c: RateConditions,
): string {
  return figure.pacedSpec === true ? qualifiedRateLabel(figure.label, figure.unit, c) : figure.label;
}

/** `newOrder` → `New-Order`: a transaction key as the reports name it. */
export function typeNameOf(key: string): string {
  return key
    .split(/(?=[A-Z])/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('-');
}
