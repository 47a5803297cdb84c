/**
 * What an outage that lasted to the end of the run can say of its cause from this machine: how
 * full the data directory's file system is (a database whose disk filled up crashes or refuses
 * writes, and a low TPS must not read as the device's speed), and the last PANIC or FATAL line of
 * the server's own log where it is here (txbench's embedded server logs to its data directory).
 */
import { readdir, readFile, statfs, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Outage } from '../engine/outages.js';

/** Below this share of the file system free, it is called full (ext4 keeps 5% for root). */
const FULL_SHARE = 0.02;
/** How much of the newest log file is read for its last PANIC/FATAL line. */
const LOG_TAIL_BYTES = 64 * 1024;

/** The file system under `dir`: its free bytes (for an unprivileged server) and its size. */
export async function diskOf(dir: string): Promise<NonNullable<Outage['disk']> | undefined> {
  try {
    const s = await statfs(dir);
    const freeBytes = s.bavail * s.bsize;
    const totalBytes = s.blocks * s.bsize;
    return { path: dir, freeBytes, totalBytes, full: freeBytes <= totalBytes * FULL_SHARE };
  } catch {
    return undefined;
  }
}

/**
 * The last PANIC or FATAL line of the newest file in `logDir` logged since `sinceMs` (lines
 * without a readable time are taken), without its time prefix.
 */
export async function lastServerFailure(logDir: string, sinceMs = 0): Promise<string | undefined> {
  try {
    const names = await readdir(logDir);
    const files = await Promise.all(
      names.map(async (n) => ({
        file: path.join(logDir, n),
        mtimeMs: (await stat(path.join(logDir, n))).mtimeMs,
      })),
    );
    const newest = files.sort((a, b) => b.mtimeMs - a.mtimeMs)[0];
    if (newest === undefined) return undefined;
    const text = (await readFile(newest.file)).subarray(-LOG_TAIL_BYTES).toString('utf8');
    const lines = text.split('\n').filter((l) => /\b(PANIC|FATAL):/.test(l) && !(loggedAt(l) < sinceMs));
    // The first PANIC says why; a FATAL after it is often only the shutdown it caused.
    const line = lines.find((l) => /\bPANIC:/.test(l)) ?? lines.at(-1);
    return line?.replace(/^.*?\b(PANIC|FATAL):\s*/, '$1: ').trim();
  } catch {
    return undefined;
  }
}

/** The time a PostgreSQL log line starts with ("2026-12-04 13:43:27.158 UTC"), NaN when none. */
function loggedAt(line: string): number {
  const m = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d(?:\.\d+)?) (UTC|GMT)\b/.exec(line);
  return m ? Date.parse(`${m[1]}T${m[2]}Z`) : NaN;
}

/**
 * The outages still open at the end, with what this machine can say of them: `dataDir` is the
 * data directory where it is local, `logDir` the server's log directory where txbench knows it.
 */
export async function explainOutages(
  outages: Outage[],
  dataDir: string | undefined,
  logDir: string | undefined,
): Promise<void> {
  const open = outages.filter((o) => !o.recovered);
  if (open.length === 0) return;
  const disk = dataDir === undefined ? undefined : await diskOf(dataDir);
  // A PANIC may come a little before the clients hear of it; older lines are another run's.
  const since = Math.min(...open.map((o) => Date.parse(o.startedAt))) - 60_000;
  const serverLog = logDir === undefined ? undefined : await lastServerFailure(logDir, since);
  for (const o of open) {
    if (disk !== undefined) o.disk = disk;
    if (serverLog !== undefined) o.serverLog = serverLog;
  }
}
