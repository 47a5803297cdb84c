/**
 * What the live dashboard costs txbench: CPU per interval pushed to open pages (Server-Sent Events
 * read by real HTTP clients on 127.0.0.1), and what that comes to at one update a second, the
 * shortest --interval a reviewer would use with a page open.
 */
import { get, type IncomingMessage } from 'node:http';
import { startDashboard, EVENTS_PATH } from '../report/html/dashboard.js';
import type { IntervalRow } from '../report/html/model.js';

/**
 * An interval as a TPC-C run pushes it: five types with their percentiles, two disks and the
 * host (the live page's charts over time are all redrawn from these).
 */
function sampleInterval(i: number): IntervalRow {
  const type = (count: number, ms: number) => ({
    count,
    errors: 0,
    avgMs: ms,
    p50Ms: ms * 0.8,
    p90Ms: ms * 1.9,
    p95Ms: ms * 2.4,
    p99Ms: ms * 4.1,
  });
  const disk = (name: string, role: string) => ({
    name,
    role,
    readIops: 812.3456 + (i % 13),
    writeIops: 2401.98765,
    readMBps: 6.3456789,
    writeMBps: 41.2345678,
    readLatencyMs: 0.2345678,
    writeLatencyMs: 1.0456789,
    queueDepth: 3.456789,
    busyPct: 71.23456,
  });
  return {
    atS: i,
    phase: 'measure',
    seconds: 1,
    tps: 1000 + (i % 7),
    tpmC: 27_000.5,
    perType: {
      newOrder: type(450, 3.1234),
      payment: type(430, 2.0123),
      orderStatus: type(40, 1.0345),
      delivery: type(40, 9.7654),
      stockLevel: type(40, 4.3456),
    },
    devices: [disk('nvme0n1', 'data'), disk('nvme1n1', 'log')],
    host: {
      cpuUserPct: 35.4321,
      cpuSystemPct: 9.8765,
      cpuIowaitPct: 1.2345,
      cpuStealPct: 0,
      txbenchCpuPct: 42.123,
    },
  };
}

export interface DashboardCost {
  pages: number;
  updates: number;
  /** The process's user + system CPU per update pushed to every page. */
  cpuUsPerUpdate: number;
  /** One update's size on the wire (the event's data). */
  bytesPerUpdate: number;
  /** Updates a page missed because it had not taken the previous one (should be 0 here). */
  dropped: number;
  /** CPU at one update a second, as a percentage of one core (the target: under 1). */
  pctOfOneCoreAt1s: number;
}

export async function measureDashboardCost(
  options: { pages?: number; updates?: number } = {},
): Promise<DashboardCost> {
  const pages = options.pages ?? 3;
  const updates = options.updates ?? 2000;
  const dashboard = await startDashboard(0);
  const responses: IncomingMessage[] = [];
  let received = 0;
  try {
    const url = new URL(EVENTS_PATH, dashboard.url);
    for (let i = 0; i < pages; i++) {
      responses.push(
        await new Promise<IncomingMessage>((resolve, reject) => {
          get(url, (res) => {
            res.on('data', (chunk: Buffer) => (received += chunk.length));
            resolve(res);
          }).on('error', reject);
        }),
      );
    }
    const publish = async (n: number): Promise<void> => {
      for (let i = 0; i < n; i++) {
        dashboard.publish(sampleInterval(i));
        // Let the sockets drain between updates, as ten seconds between intervals would.
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    await publish(100);
    const before = received;
    const cpu = process.cpuUsage();
    await publish(updates);
    const used = process.cpuUsage(cpu);
    // Settle, so every page has its bytes (the CPU is counted above).
    await new Promise((resolve) => setTimeout(resolve, 100));
    const bytesPerUpdate = Math.round((received - before) / pages / updates);
    const cpuUsPerUpdate = (used.user + used.system) / updates;
    return {
      pages,
      updates,
      cpuUsPerUpdate: Math.round(cpuUsPerUpdate),
      bytesPerUpdate,
      dropped: dashboard.dropped,
      pctOfOneCoreAt1s: Math.round((cpuUsPerUpdate / 1e6) * 100 * 1000) / 1000,
    };
  } finally {
    for (const r of responses) r.destroy();
    await dashboard.close();
  }
}
