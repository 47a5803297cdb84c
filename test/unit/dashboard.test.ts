/**
 * The live dashboard never makes the run wait: a page that stops reading misses updates (counted
 * as dropped) while publishing stays a plain synchronous call, and a page that reads gets them.
 */
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startDashboard, type Dashboard } from '../../src/report/html/dashboard.js';

let dashboard: Dashboard | undefined;
const sockets: Socket[] = [];

afterEach(async () => {
  sockets.forEach((s) => s.destroy());
  sockets.length = 0;
  await dashboard?.close();
  dashboard = undefined;
});

/** An /events subscriber that has received the stream's first bytes. */
async function subscribe(url: string): Promise<{ socket: Socket; received: () => string }> {
  const { port } = new URL(url);
  const socket = connect(Number(port), '127.0.0.1');
  sockets.push(socket);
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
  socket.write('GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  while (!text.includes(': txbench')) await new Promise((r) => setTimeout(r, 10));
  return { socket, received: () => text };
}

describe('live dashboard', () => {
  it('drops updates for a page that stops reading, and still sends them to one that reads', async () => {
    dashboard = await startDashboard(0);
    const stalled = await subscribe(dashboard.url);
    stalled.socket.pause();
    const reader = await subscribe(dashboard.url);
    // Far more than the kernel's socket buffers hold for a reader that never reads.
    for (let i = 0; i < 100_000; i++)
      dashboard.publish({ atS: i, tps: 1000 + i, phase: 'measure', seconds: 1 });
    expect(dashboard.dropped).toBeGreaterThan(0);
    // The reader catches up (its backlog drains), so a later update reaches it.
    while (!reader.received().includes('"tps":42.5')) {
      dashboard.publish({ atS: -1, tps: 42.5, phase: 'measure', seconds: 1 });
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(reader.received()).toContain(
      'event: interval\ndata: {"atS":0,"phase":"measure","seconds":1,"tps":1000}\n\n',
    );
  });

  it('a port in use is a usage error naming the port', async () => {
    dashboard = await startDashboard(0);
    const port = Number(new URL(dashboard.url).port);
    await expect(startDashboard(port)).rejects.toThrow(
      `cannot serve the dashboard: port ${port} on 127.0.0.1 is in use; choose another --dashboard PORT (0 = any free port)`,
    );
  });
});
