/**
 * What the live dashboard costs txbench: CPU per interval pushed to open pages (Server-Sent Events
 * read by real HTTP clients on 127.0.0.1), and what that comes to at one update a second, the
 * shortest --interval a reviewer would use with a page open.
 */
import { get, type IncomingMessage } from 'node:http';
import { startDashboard, EVENTS_PATH } from '../report/html/dashboard.js';

export interface DashboardCost {
  pages: number;
  updates: number;
  /** The process's user + system CPU per update pushed to every page. */
  cpuUsPerUpdate: number;
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
        dashboard.publish({ atS: i, tps: 1000 + (i % 7), phase: 'measure' });
        // Let the sockets drain between updates, as ten seconds between intervals would.
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    await publish(100);
    const cpu = process.cpuUsage();
    await publish(updates);
    const used = process.cpuUsage(cpu);
    const cpuUsPerUpdate = (used.user + used.system) / updates;
    return {
      pages,
      updates,
      cpuUsPerUpdate: Math.round(cpuUsPerUpdate),
      dropped: dashboard.dropped,
      pctOfOneCoreAt1s: Math.round((cpuUsPerUpdate / 1e6) * 100 * 1000) / 1000,
    };
  } finally {
    for (const r of responses) r.destroy();
    await dashboard.close();
    void received;
  }
}
