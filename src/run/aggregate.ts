/**
 * Several targets driven at once, added up the way the reviews do: TPS and tpmC summed, response
 * time over every transaction of every target (histograms merged, not averages averaged), the
 * spread across targets, and the process's CPU counted once.
 */
import { clientCpuFigures, type ProcessCpu } from '../metrics/client-cpu.js';
import { decodeHistogram, latencyMs, newHistogram } from '../metrics/histogram.js';
import { sharedTpm } from '../metrics/server-counter.js';
import type { RunReport } from '../results/run-file.js';
import type { AggregateSummary } from '../results/targets-file.js';
import { figuresOf, type HeadlineFigure } from '../results/figures.js';

const round = (x: number, digits = 2): number => Math.round(x * 10 ** digits) / 10 ** digits;
const sumOrNull = (xs: (number | null)[]): number | null =>
  xs.some((x) => x === null)
    ? null
    : round(
        xs.reduce<number>((a, x) => a + (x ?? 0), 0),
        1,
      );

/** `processCpu`: the process's CPU over the union of the targets' windows, measured once. */
export function aggregate(
  reports: readonly RunReport[],
  processCpu: (ProcessCpu & { seconds: number }) | null,
): AggregateSummary {
  const all = newHistogram();
  for (const r of reports)
    for (const encoded of Object.values(r.histograms)) all.add(decodeHistogram(encoded));
  const tps = reports.map((r) => r.summary.tps);
  const minTps = Math.min(...tps);
  const maxTps = Math.max(...tps);
  const transactions = reports.reduce((a, r) => a + r.summary.transactions, 0);
  return {
    targets: reports.length,
    windowSeconds: Math.max(...reports.map((r) => r.summary.windowSeconds)),
    transactions,
    tps: round(tps.reduce((a, b) => a + b, 0)),
    ...(reports.every((r) => typeof r.summary.tpmC === 'number')
      ? {
          tpmC: reports.reduce((a, r) => a + (r.summary.tpmC ?? 0), 0),
          nopm: sumOrNull(reports.map((r) => r.summary.nopm ?? null)),
        }
      : {}),
    figures: sumFigures(reports),
    tpm: serverTpm(reports),
    responseMs: latencyMs(all),
    errors: reports.reduce((a, r) => a + r.summary.errors, 0),
    spread: { minTps, maxTps, maxOverMin: minTps > 0 ? round(maxTps / minTps, 4) : null },
    clientCpu: processCpu === null ? null : clientCpuFigures(processCpu, processCpu.seconds, transactions),
  };
}

/**
 * The servers' TPM, each counter once: targets sharing a server (or, on PostgreSQL, a database)
 * each see the whole counter, so adding their TPM would count it once per target.
 */
function serverTpm(reports: readonly RunReport[]): number | null {
  const windows = reports.map((r) => r.summary.serverCounter);
  if (windows.every((w) => w !== undefined)) return sharedTpm(windows);
  return sumOrNull(reports.map((r) => r.summary.tpm));
}

/**
 * The knee of a user-count scaling curve: the last step before throughput stops growing at least
 * half as fast as the users do. Undefined while every step still scales.
 */
export function kneeOf(steps: readonly { users: number; tps: number }[]): number | undefined {
  for (let i = 1; i < steps.length; i++) {
    const prev = steps[i - 1]!;
    const cur = steps[i]!;
    if (prev.tps <= 0 || prev.users <= 0) continue;
    const userGrowth = cur.users / prev.users - 1;
    const tpsGrowth = cur.tps / prev.tps - 1;
    if (userGrowth > 0 && tpsGrowth < 0.5 * userGrowth) return prev.users;
  }
  return undefined;
}

function sumFigures(reports: readonly RunReport[]): HeadlineFigure[] {
  return figuresOf(reports[0]?.summary ?? {}).map((f) => {
    const parts = reports.map((r) => figuresOf(r.summary).find((g) => g.key === f.key));
    // The sum is named as its parts are only when they all are (the same pacing and mix).
    const agreed = new Set(parts.map((g) => g?.shownAs)).size === 1;
    const { shownAs, ...figure } = f;
    return {
      ...figure,
      value: sumOrNull(parts.map((g) => g?.value ?? null)),
      ...(agreed && shownAs !== undefined ? { shownAs } : {}),
    };
  });
}
