/**
 * `txbench merge`: one run report from the run reports of its shards (each driven from its own
 * load machine with --shard I/N), which reports, listings and comparisons read like any other.
 * Counts are added and response times come from the shards' histograms added together (exact);
 * what the database counts (NOPM, TPM) is read once, from the reference shard, since its
 * readings at its window's edges already count every shard's work.
 */
import { encodeHistogram, latencyMs, newHistogram, type Histogram } from '../metrics/histogram.js';
import { pct, round, type TypeSummary } from '../metrics/window-summary.js';
import { figuresOf } from '../results/figures.js';
import type { Counters, ErrorClass } from '../engine/types.js';
import { mergeDrain } from '../engine/drain.js';
import { mergeStatus } from '../engine/merge.js';
import type { HeadlineFigure, MergedShardFigures, Workload } from '../workloads/workload.js';
import { readShardHistograms } from './shard-histograms.js';
import { alignIntervals, partialReason, partialShards, windowOf, type ShardSetCheck } from './shard-merge.js';
import type { RunReport, RunSummary } from '../results/run-file.js';

/** run.json's `config.mergedFrom`: the shards a merged run was made of. */
export interface MergedShard {
  index: number;
  host: string;
  dir: string;
  clockOffsetMs: number | null;
  windowStartedAt: string | null;
  windowEndedAt: string | null;
}

const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);

function addRecords(records: readonly Readonly<Record<string, number>>[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of records) for (const [k, v] of Object.entries(r)) out[k] = (out[k] ?? 0) + v;
  return out;
}

export function mergeShardReports(set: ShardSetCheck, workload: Workload | undefined): RunReport {
  const reports = set.shards.map((s) => s.report);
  // Shard 1 when present: its database readings bracket its window; otherwise the lowest given.
  const ref = reports[0]!;
  const keys = Object.keys(ref.config.typeNames ?? ref.transactions);
  const histograms = new Map<string, Histogram>(keys.map((k) => [k, newHistogram()]));
  // Only histograms that hold every transaction their shard counted (checkShardSet named the rest).
  for (const s of set.shards)
    for (const [k, h] of readShardHistograms(s).histograms) histograms.get(k)?.add(h);
  const all = newHistogram();
  for (const h of histograms.values()) all.add(h);

  const counts = keys.map((k) => sum(reports.map((r) => r.transactions[k]?.count ?? 0)));
  const errorsPerType = keys.map((k) => sum(reports.map((r) => r.transactions[k]?.errors ?? 0)));
  const total = sum(counts);
  const transactions: Record<string, TypeSummary> = {};
  keys.forEach((k, i) => {
    const base = ref.transactions[k]!;
    const responseMs = latencyMs(histograms.get(k)!);
    const extras = addRecords(reports.map((r) => numericExtras(r.transactions[k] ?? base)));
    transactions[k] = {
      ...extras,
      name: base.name,
      count: counts[i]!,
      errors: errorsPerType[i]!,
      retries: sum(reports.map((r) => r.transactions[k]?.retries ?? 0)),
      mixPct: pct(counts[i]!, total),
      responseMs,
      ...(base.p90LimitMs === undefined
        ? {}
        : { p90LimitMs: base.p90LimitMs, p90Pass: responseMs.p90 <= base.p90LimitMs }),
    };
  });

  const terminals = sum(reports.map((r) => r.config.terminals));
  const connections = sum(reports.map((r) => r.config.connections));
  const { shard, ...refConfig } = ref.config;
  const config = {
    ...refConfig,
    terminals,
    connections,
    mergedFrom: set.shards.map((s): MergedShard => ({
      index: s.report.config.shard!.index,
      host: s.report.config.shard!.host,
      dir: s.dir,
      clockOffsetMs: s.report.config.shard!.clockOffsetMs,
      windowStartedAt: s.report.summary.windowStartedAt ?? null,
      windowEndedAt: s.report.summary.windowEndedAt ?? null,
    })),
    shards: {
      count: set.count,
      totalTerminals: shard?.totalTerminals ?? terminals,
      startAt: shard?.startAt ?? null,
      referenceShard: shard?.index ?? 1,
      partial: !set.complete,
      missing: set.missing,
      outOfLine: set.outOfLine,
    },
  };

  const basis = reports.map((r) => r.shardBasis);
  const windowSeconds = ref.shardBasis?.windowSeconds ?? ref.summary.windowSeconds;
  const measurement = {
    windowSeconds,
    counts,
    errors: errorsPerType,
    counters: addRecords(basis.map((b) => b?.counters ?? {})) as Counters,
    terminals,
    deck: ref.config.deck,
    thinkScale: ref.config.thinkScale,
    windowCounters: ref.shardBasis?.windowCounters ?? undefined,
  };
  const merged: MergedShardFigures =
    workload?.mergeShards?.({
      config,
      measurement,
      tallies: addRecords(basis.map((b) => b?.runTallies ?? {})),
      bases: basis.map((b) => b?.audit ?? {}),
      summaries: reports.map((r): Readonly<Record<string, unknown>> => ({ ...r.summary })),
    }) ?? withoutWorkloadMerge(reports);

  const partial = partialReason(set);
  const windows = reports.map(windowOf).filter((w) => w !== undefined);
  const lateness = reports.map((r) => r.summary.schedulerLatenessMs).filter((l) => l != null);
  const summary: RunSummary = {
    windowSeconds: ref.summary.windowSeconds,
    transactions: total,
    // Each shard's rate over its own window, added: the windows line up, their lengths differ by ms.
    tps: round(sum(reports.map((r) => r.summary.tps))),
    responseMs: latencyMs(all),
    errors: sum(reports.map((r) => r.summary.errors)),
    retries: sum(reports.map((r) => r.summary.retries)),
    // Several processes on several machines: each shard's own CPU figures are in its run directory.
    clientCpu: null,
    // The latest any shard's scheduler was (the worst of the shards).
    schedulerLatenessMs:
      lateness.length === 0
        ? null
        : {
            p50: Math.max(...lateness.map((l) => l.p50)),
            p99: Math.max(...lateness.map((l) => l.p99)),
            max: Math.max(...lateness.map((l) => l.max)),
          },
    ...merged.summary,
    // Read once from the database: the reference shard's counters count every shard's commits.
    tpm: ref.summary.tpm,
    figures: merged.figures,
    ...(windows.length > 0
      ? {
          windowStartedAt: new Date(Math.min(...windows.map((w) => w.start))).toISOString(),
          windowEndedAt: new Date(Math.max(...windows.map((w) => w.end))).toISOString(),
        }
      : {}),
    ...(ref.summary.devices !== undefined ? { devices: ref.summary.devices } : {}),
    ...(ref.summary.host !== undefined ? { host: ref.summary.host } : {}),
    ...(ref.summary.database !== undefined ? { database: ref.summary.database } : {}),
    ...(ref.summary.monitor !== undefined ? { monitor: ref.summary.monitor } : {}),
    ...(partial !== undefined ? { partial: { reason: partial, shards: partialShards(set) } } : {}),
  };

  const errors = addRecords(reports.map((r) => r.errors)) as Record<ErrorClass, number>;
  const failed = sum(reports.map((r) => r.faults.failed));
  const finished = failed + total;
  const outages = reports
    .flatMap((r) => r.outages.map((o) => ({ ...o, shard: r.config.shard!.index })))
    .sort((a, b) => a.startedAt.localeCompare(b.startedAt));
  const status = mergeStatus(reports.map((r) => r.status));
  return {
    schemaVersion: ref.schemaVersion,
    kind: 'run',
    tool: ref.tool,
    workload: ref.workload,
    disclaimer: ref.disclaimer,
    status,
    ...(status !== 'completed'
      ? { failure: reports.map((r) => r.failure).find((f) => f !== undefined) ?? `a shard ended ${status}` }
      : {}),
    startedAt: reports.map((r) => r.startedAt).sort()[0]!,
    endedAt: reports
      .map((r) => r.endedAt)
      .sort()
      .at(-1)!,
    config,
    environment: ref.environment,
    summary,
    drain: mergeDrain(reports.map((r) => r.drain)),
    outages,
    faults: {
      ...ref.faults,
      reconnects: sum(reports.map((r) => r.faults.reconnects)),
      reconnectFailures: sum(reports.map((r) => r.faults.reconnectFailures)),
      cancelled: sum(reports.map((r) => r.faults.cancelled)),
      abandoned: sum(reports.map((r) => r.faults.abandoned)),
      failed,
      errorRatePct: finished > 0 ? Math.round((failed / finished) * 1e6) / 1e4 : 0,
      exceeded: reports.map((r) => r.faults.exceeded).find((e) => e !== null) ?? null,
    },
    transactions,
    audit: { ...merged.audit, pass: merged.audit.checks.every((c) => c.pass !== false) },
    errors,
    intervals: alignIntervals(set.shards[0]!, set.shards.slice(1)),
    histograms: Object.fromEntries([...histograms].map(([k, h]) => [k, encodeHistogram(h)])),
  };
}

const TYPE_FIXED: ReadonlySet<string> = new Set([
  'name',
  'count',
  'errors',
  'retries',
  'mixPct',
  'responseMs',
  'p90LimitMs',
  'p90Pass',
]);

/** A type summary's workload-specific counts (TPC-C: New-Order's intended rollbacks). */
function numericExtras(t: TypeSummary): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(t)) if (!TYPE_FIXED.has(k) && typeof v === 'number') out[k] = v;
  return out;
}

/** Without the workload's own merge: each headline figure summed over the shards (rates add up). */
function withoutWorkloadMerge(reports: readonly RunReport[]): MergedShardFigures {
  const figures: HeadlineFigure[] = figuresOf(reports[0]!.summary).map((f) => {
    const values = reports.map((r) => figuresOf(r.summary).find((g) => g.key === f.key)?.value ?? null);
    return { ...f, value: values.some((v) => v === null) ? null : round(sum(values as number[]), 2) };
  });
  return {
    summary: Object.fromEntries(figures.map((f) => [f.key, f.value])),
    figures,
    audit: { checks: [], note: 'the workload does not reconcile merged shards; no checks' },
  };
}
