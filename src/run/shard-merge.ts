/**
 * The pure part of `txbench merge`: whether run reports are shards of one run (and which are
 * missing or out of line), and how their intervals line up on wall-clock time.
 */
import { UsageError } from '../errors.js';
import { histogramGaps, type HistogramGap } from './shard-histograms.js';
import type { IntervalRecord } from '../results/interval.js';
import type { RunReport } from '../results/run-file.js';

/** One shard's run directory as read. */
export interface ShardRun {
  /** Where it was read from (a run directory or a run.json). */
  dir: string;
  report: RunReport;
  /** Why its histograms could not be read (histograms.json missing or not JSON), when they could not. */
  histogramsUnread?: string | undefined;
}

export interface ShardSetCheck {
  /** The shards, in shard order. */
  shards: ShardRun[];
  count: number;
  /** Shard numbers (1-based) given no directory. */
  missing: number[];
  /** Shard numbers whose measured window does not overlap the others'. */
  outOfLine: number[];
  /** Shards' transaction types whose response times are not in a histogram that holds them all. */
  histogramGaps: HistogramGap[];
  /** Every shard present, all windows overlapping, every transaction in a histogram. */
  complete: boolean;
}

/** What must be the same in every shard of one run, by a name for messages. */
const SAME_IN_EVERY_SHARD: readonly [string, (r: RunReport) => unknown][] = [
  ['workload', (r) => r.config.workload],
  ['workload options', (r) => r.config.workloadOptions],
  ['shard count N', (r) => r.config.shard?.count],
  ['seed', (r) => r.config.seed],
  ['total terminals', (r) => r.config.shard?.totalTerminals],
  ['target', (r) => r.config.target],
  ['scale', (r) => r.config.scale],
  ['mix', (r) => r.config.deck],
  ['think-scale', (r) => r.config.thinkScale],
  ['warm-up', (r) => r.config.warmupS],
  ['duration', (r) => r.config.durationS],
  ['interval', (r) => r.config.intervalS],
  ['--start-at', (r) => r.config.shard?.startAt],
];

/**
 * A shard's measured window on the database server's clock (its own clock's times less its
 * clockOffsetMs, so load machines whose clocks differ still line up), ms since the epoch;
 * undefined when the shard measured none.
 */
export function windowOf(r: RunReport): { start: number; end: number } | undefined {
  const { windowStartedAt, windowEndedAt } = r.summary;
  if (windowStartedAt === undefined || windowEndedAt === undefined) return undefined;
  const offset = r.config.shard?.clockOffsetMs ?? 0;
  return { start: Date.parse(windowStartedAt) - offset, end: Date.parse(windowEndedAt) - offset };
}

const overlaps = (a: { start: number; end: number }, b: { start: number; end: number }): boolean =>
  a.start < b.end && b.start < a.end;

/**
 * Checks that `runs` are shards of one run: refuses (UsageError, one line) files that are not
 * shards, shards of different runs and a shard given twice; names the missing shards, those
 * whose window does not overlap the others' and those whose histograms do not hold every
 * transaction they counted (their response times would drop out of the merged percentiles while
 * their counts stay in), and refuses them too unless `allowPartial`.
 */
export function checkShardSet(runs: readonly ShardRun[], allowPartial: boolean): ShardSetCheck {
  if (runs.length === 0) throw new UsageError('give the shards’ run directories to merge');
  for (const r of runs) {
    if (r.report.kind !== 'run' || r.report.config?.shard === undefined) {
      throw new UsageError(
        `${r.dir} is not one shard of a run (run it with --shard I/N); merge shards of one run only`,
      );
    }
  }
  const shards = [...runs].sort((a, b) => a.report.config.shard!.index - b.report.config.shard!.index);
  const first = shards[0]!;
  for (const [what, get] of SAME_IN_EVERY_SHARD) {
    const want = JSON.stringify(get(first.report));
    const other = shards.find((s) => JSON.stringify(get(s.report)) !== want);
    if (other !== undefined) {
      throw new UsageError(
        `${other.dir} is not a shard of the same run as ${first.dir}: its ${what} differs (${JSON.stringify(get(other.report))} vs ${want}); merge shards of one run only`,
      );
    }
  }
  const seen = new Map<number, string>();
  for (const s of shards) {
    const index = s.report.config.shard!.index;
    const twice = seen.get(index);
    if (twice !== undefined)
      throw new UsageError(`shard ${index} is given twice (${twice} and ${s.dir}); give each shard once`);
    seen.set(index, s.dir);
  }
  const count = first.report.config.shard!.count;
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !seen.has(i));
  const outOfLine = outOfLineShards(shards);
  const gaps = shards.flatMap(histogramGaps);
  const complete = missing.length === 0 && outOfLine.length === 0 && gaps.length === 0;
  if (!complete && !allowPartial) {
    const problems = [
      ...(missing.length > 0
        ? [`shard${missing.length > 1 ? 's' : ''} ${missing.join(', ')} of ${count} missing`]
        : []),
      ...(outOfLine.length > 0
        ? [
            `the measured window of shard${outOfLine.length > 1 ? 's' : ''} ${outOfLine.join(', ')} does not overlap the others'`,
          ]
        : []),
      ...(gaps.length > 0 ? [gapProblem(gaps)] : []),
    ];
    throw new UsageError(
      `${problems.join('; ')}; give every shard's run directory${gaps.length > 0 ? ' with its histograms.json' : ''}, or merge what there is with --allow-partial`,
    );
  }
  return { shards, count, missing, outOfLine, histogramGaps: gaps, complete };
}

/** The first gap, named for the user: the shard, where it was read, what is wrong. */
function gapProblem(gaps: readonly HistogramGap[]): string {
  const g = gaps[0]!;
  const others = new Set(gaps.map((x) => x.shard)).size - 1;
  return `shard ${g.shard} (${g.dir}): ${g.why}, so its ${g.count} ${g.name} transactions would drop out of the merged percentiles${others > 0 ? ` (and ${others} other shard${others > 1 ? 's' : ''} likewise)` : ''}`;
}

/**
 * What a merged run lacks, in one line (run.json's `summary.partial.reason`, the reports'
 * marker), or undefined when it lacks nothing.
 */
export function partialReason(set: ShardSetCheck): string | undefined {
  if (set.complete) return undefined;
  const plural = (xs: readonly number[]): string => `shard${xs.length > 1 ? 's' : ''} ${xs.join(', ')}`;
  const withoutTimes = [...new Set(set.histogramGaps.map((g) => g.shard))];
  return [
    ...(set.missing.length > 0 ? [`${plural(set.missing)} of ${set.count} missing`] : []),
    ...(set.outOfLine.length > 0 ? [`${plural(set.outOfLine)} out of line`] : []),
    ...(withoutTimes.length > 0
      ? [
          `${plural(withoutTimes)} without readable histograms (${set.histogramGaps[0]!.why}): response times from the other shards only, counts from all`,
        ]
      : []),
  ].join('; ');
}

/** Shard numbers a merged run lacks in whole or in part. */
export function partialShards(set: ShardSetCheck): number[] {
  return [...new Set([...set.missing, ...set.outOfLine, ...set.histogramGaps.map((g) => g.shard)])].sort(
    (a, b) => a - b,
  );
}

/**
 * Shards (by number) whose window does not overlap the window most others overlap: the
 * reference is the shard overlapping the most others (the lowest numbered of those tied). A
 * shard that measured no window is out of line too.
 */
export function outOfLineShards(shards: readonly ShardRun[]): number[] {
  const windows = shards.map((s) => windowOf(s.report));
  let reference = -1;
  let best = -1;
  windows.forEach((w, i) => {
    if (w === undefined) return;
    const n = windows.filter((v, j) => j !== i && v !== undefined && overlaps(w, v)).length;
    if (n > best) {
      best = n;
      reference = i;
    }
  });
  const ref = windows[reference];
  return shards
    .filter(
      (_, i) =>
        i !== reference && (ref === undefined || windows[i] === undefined || !overlaps(ref, windows[i]!)),
    )
    .map((s) => s.report.config.shard!.index);
}

/**
 * The shards' measured intervals on one time line. The reference shard's intervals are the
 * slots; every other shard's interval k (which ends at its windowStartedAt plus the seconds of
 * its intervals 0..k) goes to the slot that holds its midpoint, the first or last slot when it
 * falls before or after them all, so that the slots keep every transaction. A slot adds up the
 * counts, errors and workload rates (in proportion to the time they cover) of the intervals placed in it, with TPS over the slot's
 * seconds; its average response time is the count-weighted mean (exact), its percentiles the
 * largest of the intervals' (an upper bound: the intervals' histograms are not kept). Monitoring
 * figures are the reference shard's.
 */
export function alignIntervals(reference: ShardRun, others: readonly ShardRun[]): IntervalRecord[] {
  const refStart = windowOf(reference.report)?.start ?? 0;
  const slots = reference.report.intervals.map((i) => structuredClone(i));
  const edges: number[] = [];
  let at = refStart;
  for (const slot of slots) edges.push((at += slot.seconds * 1000));
  const weights = slots.map((slot) => weightsOf(slot));
  for (const shard of others) {
    let t = windowOf(shard.report)?.start ?? refStart;
    for (const interval of shard.report.intervals) {
      const mid = t + (interval.seconds * 1000) / 2;
      t += interval.seconds * 1000;
      const k = slotOf(edges, mid);
      if (k < 0) continue;
      addInto(slots[k]!, weights[k]!, interval);
    }
  }
  return slots;
}

/** The slot holding time `t` (slot k ends at edges[k]); clamped to the first and last. */
function slotOf(edges: readonly number[], t: number): number {
  if (edges.length === 0) return -1;
  const k = edges.findIndex((end) => t < end);
  return k < 0 ? edges.length - 1 : k;
}

const LATENCY_KEYS = ['p50Ms', 'p90Ms', 'p95Ms', 'p99Ms'] as const;
const FIXED_KEYS: ReadonlySet<string> = new Set([
  'atS',
  'phase',
  'seconds',
  'tps',
  'perType',
  'errorsByClass',
  'target',
]);

/** Each type's response-time sum (ms x count), to keep a count-weighted average while adding. */
type Weights = Record<string, number>;

function weightsOf(slot: IntervalRecord): Weights {
  const w: Weights = {};
  for (const [key, t] of Object.entries(slot.perType)) w[key] = (t.avgMs ?? 0) * t.count;
  return w;
}

function addInto(slot: IntervalRecord, weights: Weights, interval: IntervalRecord): void {
  for (const [key, t] of Object.entries(interval.perType)) {
    const s = (slot.perType[key] ??= {
      count: 0,
      errors: 0,
      avgMs: 0,
      p50Ms: 0,
      p90Ms: 0,
      p95Ms: 0,
      p99Ms: 0,
    });
    weights[key] = (weights[key] ?? 0) + (t.avgMs ?? 0) * t.count;
    s.count += t.count;
    s.errors = (s.errors ?? 0) + (t.errors ?? 0);
    s.avgMs = s.count > 0 ? Math.round((weights[key]! / s.count) * 1000) / 1000 : 0;
    for (const p of LATENCY_KEYS) s[p] = Math.max(s[p] ?? 0, t[p] ?? 0);
  }
  for (const [cls, n] of Object.entries(interval.errorsByClass ?? {}))
    slot.errorsByClass[cls as keyof IntervalRecord['errorsByClass']] =
      (slot.errorsByClass[cls as keyof IntervalRecord['errorsByClass']] ?? 0) + n;
  for (const [key, value] of Object.entries(interval)) {
    if (FIXED_KEYS.has(key) || typeof value !== 'number') continue;
    // Interval figures are rates (New-Orders/min): added in proportion to the time they cover.
    const mine = slot[key];
    const share = slot.seconds > 0 ? interval.seconds / slot.seconds : 1;
    slot[key] = Math.round((typeof mine === 'number' ? mine : 0) + value * share);
  }
  const count = Object.values(slot.perType).reduce((a, t) => a + t.count, 0);
  slot.tps = slot.seconds > 0 ? Math.round((count / slot.seconds) * 100) / 100 : 0;
}

/** A several-target shard's run.json, as far as the merge reads it. */
export interface TargetsShardFile {
  kind: 'targets';
  targets: { label: string; report: RunReport }[];
}

/**
 * Several-target shards split by target: each target's reports from every shard, in the order
 * the first shard lists the targets. Refuses shards whose targets differ (one line).
 */
export function splitByTarget(
  files: readonly { dir: string; file: TargetsShardFile }[],
): { label: string; runs: ShardRun[] }[] {
  const first = files[0]!;
  const labels = first.file.targets.map((t) => t.label);
  for (const f of files) {
    const mine = f.file.targets.map((t) => t.label);
    if (JSON.stringify(mine) !== JSON.stringify(labels)) {
      throw new UsageError(
        `${f.dir} is not a shard of the same run as ${first.dir}: its targets differ (${mine.join(', ')} vs ${labels.join(', ')}); merge shards of one run only`,
      );
    }
  }
  return labels.map((label, i) => ({
    label,
    runs: files.map((f) => ({ dir: f.dir, report: f.file.targets[i]!.report })),
  }));
}
