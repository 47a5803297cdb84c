/** Minimal run.json contents and run directories for the results-store, compare and CLI tests. */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

export interface FixtureRun {
  target?: string;
  status?: string;
  startedAt?: string;
  tps?: number;
  tpmC?: number | null;
  avg?: number;
  p90?: number;
  p99?: number;
}

/** A summary with the figures the readers use (and a few they ignore). */
export function summary(f: FixtureRun = {}): Record<string, unknown> {
  return {
    windowSeconds: 60,
    transactions: Math.round((f.tps ?? 100) * 60),
    tps: f.tps ?? 100,
    tpmC: f.tpmC === undefined ? 2000 : f.tpmC,
    nopm: null,
    responseMs: { avg: f.avg ?? 5, p50: 4, p90: f.p90 ?? 9, p95: 11, p99: f.p99 ?? 20, max: 50 },
  };
}

/** A schemaVersion 1 run.json object. */
export function runJson(f: FixtureRun = {}, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    schemaVersion: 1,
    status: f.status ?? 'completed',
    startedAt: f.startedAt ?? '2024-05-01T12:00:00.000Z',
    config: { target: f.target ?? 'embedded', warehouses: 1 },
    summary: summary(f),
    ...extra,
  };
}

/** Writes `parent/id/run.json` (text as given, or the object as JSON); returns the run directory. */
export async function writeRun(parent: string, id: string, run: object | string): Promise<string> {
  const dir = path.join(parent, id);
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'run.json'), typeof run === 'string' ? run : JSON.stringify(run, null, 2));
  return dir;
}
