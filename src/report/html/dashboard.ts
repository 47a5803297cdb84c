/**
 * The live dashboard (`--dashboard [PORT]`): the report page served on 127.0.0.1 while the run
 * goes on, each interval pushed to the open pages as a Server-Sent Event, and the final report
 * sent when the run ends. It never slows the run: publishing is one JSON encoding per interval and
 * a synchronous write of about a kilobyte per page, and a page whose socket has not drained its
 * last update (a slow or stalled browser) misses updates instead of queueing them.
 */
import { createServer, type ServerResponse } from 'node:http';
import { readFile } from 'node:fs/promises';
import { UsageError } from '../../errors.js';
import type { Output } from '../../results/run-events.js';
import { loadRunDir } from './load.js';
import { targetLabel, type IntervalRow, type IntervalTypeRow } from './model.js';
import { renderReportHtml } from './page.js';
import { reportInput } from './report.js';

export const EVENTS_PATH = '/events';

export interface Dashboard {
  url: string;
  /** The run directory the page is drawn from (intervals.ndjson as it grows). */
  setRunDir(dir: string): void;
  /** One interval's charted figures to every open page; dropped for a page still busy. */
  publish(interval: IntervalRow): void;
  /** Sends the final report (report.html) to every open page and serves it from now on. */
  finish(reportFile: string): Promise<void>;
  /** Updates not sent because a page had not taken the previous one. */
  readonly dropped: number;
  close(): Promise<void>;
}

/** Updates kept for pages that connect later: ten minutes at one a second, about 1 MB. */
const RECENT_UPDATES = 600;

/** Unsent bytes a page may hold before it misses updates. */
const BACKLOG_BYTES = 16 * 1024;

export async function startDashboard(port: number, host = '127.0.0.1'): Promise<Dashboard> {
  const clients = new Set<ServerResponse>();
  let runDir: string | undefined;
  let finalHtml: string | undefined;
  let dropped = 0;
  /**
   * The last updates sent, replayed to a page when it connects: a page drawn from the files
   * connects a moment later (seconds, on a busy machine), and would miss what came in between.
   */
  const recent: string[] = [];

  const livePage = async (): Promise<string> => {
    const runs = runDir === undefined ? [] : [await loadRunDir(runDir)];
    // A run in progress has no run.json yet: that is not damage.
    for (const run of runs) run.missing = [];
    return renderReportHtml(reportInput(runs), { live: { eventsPath: EVENTS_PATH } });
  };

  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (req.method === 'GET' && path === EVENTS_PATH) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
      res.write(': txbench\n\n');
      // The intervals since the page was drawn from the files: the page skips those it has.
      for (const data of recent) res.write(`event: interval\ndata: ${data}\n\n`);
      clients.add(res);
      res.on('close', () => clients.delete(res));
      return;
    }
    if (req.method !== 'GET' || path !== '/') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('txbench serves / and /events\n');
      return;
    }
    (finalHtml !== undefined ? Promise.resolve(finalHtml) : livePage()).then(
      (html) =>
        res
          .writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
          .end(html),
      (err: unknown) =>
        res
          .writeHead(500, { 'content-type': 'text/plain' })
          .end(`${err instanceof Error ? err.message : String(err)}\n`),
    );
  });

  const send = (event: string, data: string, always: boolean): void => {
    for (const res of clients) {
      if (!always && (res.writableNeedDrain || res.writableLength > BACKLOG_BYTES)) {
        dropped++;
        continue;
      }
      res.write(`event: ${event}\ndata: ${data}\n\n`);
    }
  };

  const bound = await new Promise<number>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        err.code === 'EADDRINUSE' || err.code === 'EACCES'
          ? new UsageError(
              `cannot serve the dashboard: port ${port} on ${host} is ${err.code === 'EADDRINUSE' ? 'in use' : 'not allowed'}; choose another --dashboard PORT, or give --dashboard alone for any free port`,
            )
          : err,
      ),
    );
    server.listen(port, host, () => {
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : port);
    });
  });

  return {
    url: `http://${host}:${bound}/`,
    get dropped() {
      return dropped;
    },
    setRunDir: (dir) => {
      runDir = dir;
    },
    publish: (interval) => {
      // Encoded once for every page, and kept for a page that connects later.
      const data = JSON.stringify(liveInterval(interval));
      recent.push(data);
      if (recent.length > RECENT_UPDATES) recent.splice(0, recent.length - RECENT_UPDATES);
      send('interval', data, false);
    },
    finish: async (reportFile) => {
      finalHtml = await readFile(reportFile, 'utf8');
      // The final page goes to every page however busy: it is the one that matters.
      send('final', JSON.stringify(finalHtml), true);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of clients) res.end();
        server.close(() => resolve());
        server.closeIdleConnections();
        // A page that does not hang up must not hold the process open.
        setTimeout(() => server.closeAllConnections(), 2000).unref();
      }),
  };
}

/** Three decimals are more than a chart's pixels show, and keep the update small. */
const round = (x: number): number => Math.round(x * 1000) / 1000;
const roundOrNull = (x: number | null): number | null => (x === null ? null : round(x));

/**
 * What a page draws of an interval, and no more: each type's count and p50/p95/p99 (the average
 * and p90 are in the files), the disks and the host; not the database counters or the notes.
 */
export function liveInterval(row: IntervalRow): IntervalRow {
  const out: IntervalRow = { atS: row.atS, phase: row.phase, seconds: row.seconds, tps: row.tps };
  if (row.target !== undefined) out.target = targetLabel(row.target);
  if (row.perType !== undefined) {
    const perType: Record<string, IntervalTypeRow> = {};
    for (const [key, t] of Object.entries(row.perType)) {
      perType[key] =
        t.count > 0 ? { count: t.count, p50Ms: t.p50Ms, p95Ms: t.p95Ms, p99Ms: t.p99Ms } : { count: 0 };
    }
    out.perType = perType;
  }
  if (row.devices !== undefined) {
    out.devices = row.devices.map((d) => ({
      name: d.name,
      role: d.role,
      readIops: round(d.readIops),
      writeIops: round(d.writeIops),
      readMBps: round(d.readMBps),
      writeMBps: round(d.writeMBps),
      readLatencyMs: roundOrNull(d.readLatencyMs),
      writeLatencyMs: roundOrNull(d.writeLatencyMs),
      queueDepth: round(d.queueDepth),
    }));
  }
  if (row.host !== undefined) {
    out.host = row.host && {
      cpuUserPct: round(row.host.cpuUserPct),
      cpuSystemPct: round(row.host.cpuSystemPct),
      cpuIowaitPct: round(row.host.cpuIowaitPct),
      cpuStealPct: round(row.host.cpuStealPct),
      txbenchCpuPct: roundOrNull(row.host.txbenchCpuPct),
    };
  }
  return out;
}

/**
 * The dashboard as a run's output: each interval published as it comes. `prefix` is the run's
 * label in a run of several (`[pg] `, `[4 users] `), empty for a single run.
 */
export function dashboardOutput(dashboard: Dashboard, prefix: string): Output {
  return {
    name: 'dashboard',
    event: (event) => {
      if (event.kind !== 'interval') return;
      const { interval } = event;
      dashboard.publish(prefix ? { target: prefix.trim(), ...interval } : interval);
    },
  };
}
