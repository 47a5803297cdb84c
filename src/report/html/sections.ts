/**
 * What each run's part of the HTML report shows, as data for the templates: summary cards, the
 * charts for its kind, tables, the environment and the command line.
 */
import { deviceTotals, type DeviceRates } from '../device-totals.js';
import { figureLabel, figuresOf, type HeadlineFigure } from '../../results/figures.js';
import { millis, orNa, twoDecimals, whole } from '../numbers.js';
import { chartedIntervals, comparisonChart, distributionChart, stepsChart, sweepCharts } from './charts.js';
import type { SteadyStateReport } from '../../metrics/steady-state.js';
import { formatSteadyState } from '../steady-state-line.js';
import { fidelityParts } from './fidelity-section.js';
import type { LoadedRun } from './load.js';
import type { ChartSpec, TimeSeriesKind, TimeSeriesSource } from './model.js';
import { devicesIn, timeSeriesCharts } from './time-charts.js';

export interface Card {
  /** Stable name for tests and styles. */
  key: string;
  label: string;
  value: string;
}

export interface Table {
  title: string;
  columns: string[];
  rows: string[][];
}

export interface RunSection {
  /** The anchor: `run-<id>`. */
  anchor: string;
  id: string;
  kind: string;
  status: string;
  startedAt: string;
  label: string;
  missing: string[];
  notes: string[];
  cards: Card[];
  charts: ChartSpec[];
  tables: Table[];
  environment: [string, string][];
  commandLine: string | undefined;
  /** What the charts over time are drawn from (a live page redraws them from it). */
  timeSeries: TimeSeriesSource;
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined;
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const list = (v: unknown): Json[] =>
  Array.isArray(v) ? v.map(obj).filter((x): x is Json => x !== undefined) : [];

/**
 * What a run's New-Order rate may be called depends on its pacing and mix; a `targets` run records
 * them per target (config.targets), and its sum is paced as its targets are when they all agree.
 */
function rateConditions(config: Json | undefined): {
  thinkScale: number | undefined;
  nonstandardMix: boolean;
} {
  const own = { thinkScale: num(config?.thinkScale), nonstandardMix: config?.nonstandardMix === true };
  const each = list(config?.targets).map(rateConditions);
  if (own.thinkScale !== undefined || each.length === 0) return own;
  const first = each[0]!;
  const agree = each.every(
    (c) => c.thinkScale === first.thinkScale && c.nonstandardMix === first.nonstandardMix,
  );
  return agree ? first : own;
}

/** The summary cards of one summary (run.json `summary` and its per-type `transactions`). */
export function summaryCards(
  summary: Json,
  config: Json | undefined,
  transactions: Json | undefined,
): Card[] {
  const response = obj(summary.responseMs);
  const cpu = obj(summary.clientCpu);
  const rollbacks = Object.values(transactions ?? {})
    .map((t) => num(obj(t)?.rollbacks))
    .filter((x): x is number => x !== undefined);
  const conditions = rateConditions(config);
  // The workload's own headline figures (TPC-C: the New-Order rate and NOPM; sysbench: QPS and
  // its reads, writes and other), each called what it may be called under the run's conditions.
  const figures = figuresOf({
    figures: Array.isArray(summary.figures) ? (summary.figures as HeadlineFigure[]) : undefined,
    tpmC: summary.tpmC === null ? null : num(summary.tpmC),
    nopm: summary.nopm === null ? null : num(summary.nopm),
  });
  const ci = obj(summary.ci95);
  const cards: Card[] = [
    { key: 'tps', label: 'TPS', value: plusMinus(num(summary.tps), obj(ci?.tps), twoDecimals) },
    ...figures.map((f) => ({
      key: f.key,
      label: figureLabel(f, conditions),
      value: plusMinus(f.value ?? undefined, obj(obj(ci?.figures)?.[f.key]), whole),
    })),
    { key: 'tpm', label: 'TPM', value: orNa(num(summary.tpm), whole) },
    {
      key: 'avg',
      label: 'avg response ms',
      value: plusMinus(num(response?.avg), obj(obj(ci?.responseMs)?.avg), millis),
    },
    {
      key: 'p99',
      label: 'p99 response ms',
      value: plusMinus(num(response?.p99), obj(obj(ci?.responseMs)?.p99), millis),
    },
    // Only a workload that has rollbacks by design (TPC-C's New-Order) says how many.
    ...(rollbacks.length === 0
      ? []
      : [{ key: 'rollbacks', label: 'rollbacks', value: whole(rollbacks.reduce((a, b) => a + b, 0)) }]),
    { key: 'errors', label: 'errors', value: orNa(num(summary.errors), whole) },
    {
      key: 'cpu',
      label: 'txbench CPU',
      value:
        cpu === undefined
          ? 'n/a'
          : `${orNa(num(cpu.coresUsed), twoDecimals)} cores, ${orNa(num(cpu.usPerTransaction), (x) => x.toFixed(0))} µs/tx`,
    },
  ];
  return cards;
}

/** Host, database, settings and device, as name/value rows. */
export function environmentRows(environment: Json | undefined): [string, string][] {
  if (environment === undefined) return [];
  const rows: [string, string][] = [];
  const host = obj(environment.host);
  if (host) {
    const mem = num(host.memoryBytes);
    rows.push([
      'host',
      [
        str(host.hostname),
        str(host.cpuModel),
        num(host.cores) !== undefined ? `${host.cores} cores` : undefined,
        mem !== undefined ? `${(mem / 2 ** 30).toFixed(1)} GiB` : undefined,
        str(host.os),
        str(host.kernel),
      ]
        .filter(Boolean)
        .join(', '),
    ]);
  }
  const db = obj(environment.database);
  if (db) {
    rows.push(['database', `${str(db.product) ?? '?'} ${str(db.version) ?? ''}`.trim()]);
    for (const [k, v] of Object.entries(obj(db.settings) ?? {})) rows.push([`setting ${k}`, String(v)]);
  }
  const device = obj(environment.device);
  if (device) {
    rows.push([
      'device',
      Object.entries(device)
        .filter(([, v]) => typeof v !== 'object')
        .map(([k, v]) => `${k} ${String(v)}`)
        .join(', '),
    ]);
  }
  if (str(environment.dataDirectory)) rows.push(['data directory', str(environment.dataDirectory)!]);
  return rows;
}

/** The type names the run used (`newOrder` → `New-Order`), from its figures or, while it runs, its config. */
function typeNames(transactions: Json | undefined, config: Json | undefined): Record<string, string> {
  const names: Record<string, string> = {};
  for (const [key, name] of Object.entries(obj(config?.typeNames) ?? {}))
    if (str(name)) names[key] = str(name)!;
  for (const [key, t] of Object.entries(transactions ?? {}))
    names[key] = str(obj(t)?.name) ?? names[key] ?? key;
  return names;
}

export function runSection(loaded: LoadedRun): RunSection {
  const run = { ...loaded, intervals: chartedIntervals(loaded.intervals) };
  const raw = run.raw;
  const kind = run.record?.kind ?? (run.intervals.some((r) => r.target !== undefined) ? 'targets' : 'run');
  const anchor = `run-${run.id}`;
  const summary = obj(raw?.summary);
  const transactions = obj(raw?.transactions);
  const charts: ChartSpec[] = [];
  const tables: Table[] = [];
  const notes: string[] = [];
  const entries = [...list(raw?.targets), ...list(raw?.steps), ...list(raw?.sweep)];
  const firstReport = obj(entries[0]?.report);
  const config = obj(raw?.config) ?? obj(firstReport?.config);
  const names = typeNames(transactions, config);

  // The labels the intervals carry: the target's, or the progress prefix of a step or a value.
  const labelOf = (e: Json): string | undefined => {
    if (kind === 'targets') return str(e.label);
    if (kind === 'steps') return num(e.users) === undefined ? undefined : `${num(e.users)} users`;
    return str(e.setting) === undefined ? undefined : `${str(e.setting)}=${String(e.value)}`;
  };
  const labels = entries.map(labelOf).filter((l): l is string => l !== undefined);
  const timeSeries: TimeSeriesSource = {
    kind: isTimeSeriesKind(kind) ? kind : 'run',
    names,
    labels,
    // As written: the live page tells the intervals it is sent again from new ones by these.
    rows: loaded.intervals,
  };
  const time = timeSeriesCharts(anchor, timeSeries);
  if (kind === 'run') addNoiseLevels(time.head, anchor, obj(summary?.ci95), run.intervals);
  // Without run.json (a live run, or one killed early) the throughput chart is there to be filled.
  if ((kind === 'run' && (run.intervals.length > 0 || run.record === undefined)) || kind === 'targets')
    charts.push(...time.head);
  if (kind === 'targets') {
    const tps = list(raw?.targets).map((t) => ({
      label: str(t.label) ?? '?',
      tps: num(obj(t.summary)?.tps) ?? 0,
    }));
    if (tps.length > 0) {
      const min = Math.min(...tps.map((t) => t.tps));
      const max = Math.max(...tps.map((t) => t.tps));
      tables.push({
        title: 'Targets and their spread',
        columns: ['target', 'TPS', 'avg response ms'],
        rows: [
          ...list(raw?.targets).map((t) => [
            str(t.label) ?? '?',
            orNa(num(obj(t.summary)?.tps), twoDecimals),
            orNa(num(obj(obj(t.summary)?.responseMs)?.avg), millis),
          ]),
          ['spread: min / max TPS', `${twoDecimals(min)} / ${twoDecimals(max)}`, ''],
          ['spread: max/min', min > 0 ? `${(max / min).toFixed(2)}×` : 'n/a', ''],
        ],
      });
    }
  }
  if (kind === 'steps') {
    const steps = list(raw?.steps).map((s) => ({
      users: num(s.users) ?? 0,
      tps: num(obj(s.summary)?.tps) ?? 0,
      avgMs: num(obj(obj(s.summary)?.responseMs)?.avg) ?? 0,
    }));
    const knee = num(raw?.knee);
    charts.push(stepsChart(`${anchor}-steps`, steps, knee));
    notes.push(
      knee === undefined
        ? 'knee: none within these steps (throughput still grows at least half as fast as users)'
        : `knee: ${knee} users (beyond it, throughput grows less than half as fast as users)`,
    );
  }
  if (kind === 'sweep') {
    const sweep = list(raw?.sweep);
    const setting = str(sweep[0]?.setting) ?? 'setting';
    charts.push(
      ...sweepCharts(
        `${anchor}-sweep`,
        setting,
        sweep.map((s) => {
          const sum = obj(s.summary);
          const totals = deviceTotals(
            Array.isArray(sum?.devices) ? (sum.devices as DeviceRates[]) : undefined,
          );
          return {
            value: String(s.value),
            tps: num(sum?.tps) ?? 0,
            avgMs: num(obj(sum?.responseMs)?.avg) ?? 0,
            deviceMBps: totals === null ? null : totals.mbps,
          };
        }),
      ),
    );
  }
  // Steps and values one after another: their own figures first, then each one over time.
  if (kind === 'steps' || kind === 'sweep') charts.push(...time.head);
  if (kind === 'run' && run.histograms !== undefined) {
    charts.push(distributionChart(`${anchor}-percentiles`, run.histograms, names));
  }
  charts.push(...time.monitor);
  if (
    (kind === 'run' || kind === 'targets') &&
    run.intervals.length > 0 &&
    devicesIn(run.intervals).length === 0
  ) {
    const why = [...new Set(run.intervals.flatMap((r) => r.missing ?? []))];
    notes.push(`no device figures${why.length > 0 ? `: ${why.join('; ')}` : ''}`);
  }
  const partial = [summary, ...entries.map((e) => obj(e.summary))].map((s) => str(obj(s?.partial)?.reason));
  for (const reason of new Set(partial)) if (reason !== undefined) notes.push(`PARTIAL: ${reason}`);
  notes.push(...steadyStateNotes(raw, entries, labelOf));
  const fidelity = fidelityParts(raw, anchor);
  notes.push(...fidelity.notes);
  tables.push(...fidelity.tables);
  charts.push(...fidelity.charts);
  return {
    anchor,
    id: run.id,
    kind,
    status: run.record?.status ?? 'unknown (no run.json)',
    startedAt: run.record?.startedAt ?? '',
    label: run.record?.label ?? '',
    missing: run.missing,
    notes,
    cards: summary ? summaryCards(summary, config, transactions) : [],
    charts,
    tables,
    environment: environmentRows(obj(raw?.environment) ?? obj(firstReport?.environment)),
    commandLine: str(raw?.commandLine),
    timeSeries,
  };
}

/**
 * The 95% intervals of summary.ci95 drawn as bands over the measured window: TPS on the throughput
 * chart, each type's p99 on its response-time chart (around the mean of the intervals' values, the
 * line the band sits behind). Runs without ci95, or with too few intervals, get none.
 */
function addNoiseLevels(
  charts: ChartSpec[],
  anchor: string,
  ci95: Json | undefined,
  intervals: readonly { atS: number; seconds: number; phase: string }[],
): void {
  const measured = intervals.filter((r) => r.phase === 'measure');
  if (ci95 === undefined || measured.length === 0) return;
  const x0 = measured[0]!.atS - measured[0]!.seconds;
  const x1 = measured[measured.length - 1]!.atS;
  const level = (ci: Json | undefined, what: string): NonNullable<ChartSpec['levels']> => {
    const mean = num(ci?.mean);
    const h = num(ci?.halfWidth);
    if (mean === undefined || h === undefined) return [];
    return [{ from: mean - h, to: mean + h, x0, x1, label: `${what} 95% CI (batch means)` }];
  };
  for (const chart of charts) {
    if (chart.id === `${anchor}-tps`) chart.levels = level(obj(ci95.tps), 'TPS');
    const type = chart.id.startsWith(`${anchor}-response-`)
      ? chart.id.slice(`${anchor}-response-`.length)
      : '';
    const p99 = obj(obj(obj(ci95.transactions)?.[type])?.p99);
    if (type !== '' && chart.series.some((s) => s.label === 'p99')) chart.levels = level(p99, 'p99');
  }
}

/** `1,638.20 ± 41.03` from a figure and its ci95 entry; the bare figure without a half width. */
function plusMinus(value: number | undefined, ci: Json | undefined, format: (x: number) => string): string {
  const h = num(ci?.halfWidth);
  return value === undefined ? 'n/a' : h === undefined ? format(value) : `${format(value)} ± ${format(h)}`;
}

/** When each warm-up (and preconditioning) became steady, for runs that waited for it (--warmup auto). */
function steadyStateNotes(
  raw: Json | undefined,
  entries: readonly Json[],
  labelOf: (e: Json) => string | undefined,
): string[] {
  const notesOf = (report: Json | undefined, prefix: string): string[] => {
    const pre = obj(obj(report?.precondition)?.steadyState);
    const warm = obj(obj(report?.summary)?.steadyState);
    return [
      ...(pre
        ? [`${prefix}${formatSteadyState(pre as unknown as SteadyStateReport, 'preconditioning')}`]
        : []),
      ...(warm ? [`${prefix}${formatSteadyState(warm as unknown as SteadyStateReport, 'warm-up')}`] : []),
    ];
  };
  if (entries.length === 0) return notesOf(raw, '');
  return entries.flatMap((e) => notesOf(obj(e.report), `${labelOf(e) ?? '?'}: `));
}

function isTimeSeriesKind(kind: string): kind is TimeSeriesKind {
  return kind === 'run' || kind === 'targets' || kind === 'steps' || kind === 'sweep';
}

export { comparisonChart };
