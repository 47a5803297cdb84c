/**
 * The figures of `--repeat N`: each measurement's headline figures gathered over the repetitions,
 * as the mean with Student's t 95% interval over the N repetition values (each repetition is one
 * independent value: its own warm-up, and with --reload its own fresh database), their range, and
 * each value. Pure, so the arithmetic is unit-tested.
 */
import { meanInterval } from '../metrics/confidence.js';
import type { RepeatedFigure, RepeatedGroup } from '../results/repeat-file.js';

/** What one measurement of a repetition gives: the fields of its run report that are aggregated. */
export interface MeasuredFigures {
  summary: {
    tps: number;
    responseMs: { avg: number; p99: number };
    figures?:
      | readonly {
          key: string;
          label: string;
          unit: string;
          value: number | null;
          pacedSpec?: boolean | undefined;
        }[]
      | undefined;
  };
  transactions: Readonly<Record<string, { name: string; responseMs: { avg: number; p99: number } }>>;
}

/** One measurement of one repetition, named as its group: the run, a step, a sweep value. */
export interface MeasuredEntry {
  label: string;
  users?: number | undefined;
  setting?: string | undefined;
  value?: string | undefined;
  figures: MeasuredFigures;
}

interface FigureValue {
  key: string;
  label: string;
  unit: string;
  pacedSpec?: boolean | undefined;
  value: number | null;
}

/** TPS, the workload's headline figures, avg and p99 response overall and per type, in that order. */
export function figureValuesOf(m: MeasuredFigures): FigureValue[] {
  const out: FigureValue[] = [{ key: 'tps', label: 'TPS', unit: 'transactions/s', value: m.summary.tps }];
  // A workload whose headline figure is TPS itself (sysbench) has it once, as TPS.
  for (const f of (m.summary.figures ?? []).filter((f) => f.key !== 'tps')) {
    out.push({
      key: `figure:${f.key}`,
      label: f.label,
      unit: f.unit,
      value: f.value,
      pacedSpec: f.pacedSpec,
    });
  }
  out.push(
    { key: 'avgMs', label: 'avg response ms', unit: 'ms', value: m.summary.responseMs.avg },
    { key: 'p99Ms', label: 'p99 response ms', unit: 'ms', value: m.summary.responseMs.p99 },
  );
  for (const [key, t] of Object.entries(m.transactions)) {
    out.push(
      { key: `type:${key}:avgMs`, label: `${t.name} avg ms`, unit: 'ms', value: t.responseMs.avg },
      { key: `type:${key}:p99Ms`, label: `${t.name} p99 ms`, unit: 'ms', value: t.responseMs.p99 },
    );
  }
  return out;
}

/**
 * Groups each repetition's measurements by label (in the order they first appear) and takes each
 * figure over the repetitions. `repetitions[i]` is repetition i+1's measurements; a repetition
 * that lacks a group or a figure (it stopped early) has null there and is left out of its mean.
 */
export function aggregateRepetitions(repetitions: readonly (readonly MeasuredEntry[])[]): RepeatedGroup[] {
  const labels: string[] = [];
  const first = new Map<string, MeasuredEntry>();
  for (const rep of repetitions) {
    for (const e of rep) {
      if (first.has(e.label)) continue;
      first.set(e.label, e);
      labels.push(e.label);
    }
  }
  return labels.map((label) => {
    const head = first.get(label)!;
    const perRep = repetitions.map((rep) => {
      const entry = rep.find((e) => e.label === label);
      return entry === undefined ? undefined : figureValuesOf(entry.figures);
    });
    const keys: FigureValue[] = [];
    for (const values of perRep) {
      for (const v of values ?? []) if (!keys.some((k) => k.key === v.key)) keys.push(v);
    }
    const figures = keys
      .map((k) =>
        repeatedFigure(
          k,
          perRep.map((values) => values?.find((v) => v.key === k.key)?.value ?? null),
        ),
      )
      .filter((f): f is RepeatedFigure => f !== undefined);
    return {
      label,
      ...(head.users === undefined ? {} : { users: head.users }),
      ...(head.setting === undefined ? {} : { setting: head.setting, value: head.value }),
      figures,
    };
  });
}

/** One figure over the repetitions; undefined when no repetition has a value for it. */
export function repeatedFigure(
  what: Pick<FigureValue, 'key' | 'label' | 'unit' | 'pacedSpec'>,
  values: readonly (number | null)[],
): RepeatedFigure | undefined {
  const present = values.filter((v): v is number => v !== null && Number.isFinite(v));
  if (present.length === 0) return undefined;
  const interval = meanInterval(present);
  return {
    key: what.key,
    label: what.label,
    unit: what.unit,
    ...(what.pacedSpec === undefined ? {} : { pacedSpec: what.pacedSpec }),
    mean: interval.mean,
    halfWidth: interval.halfWidth,
    min: Math.min(...present),
    max: Math.max(...present),
    values: [...values],
  };
}
