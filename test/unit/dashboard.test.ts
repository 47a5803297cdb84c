/**
 * The live dashboard never makes the run wait: a page that stops reading misses updates (counted
 * as dropped) while publishing stays a plain synchronous call, and a page that reads gets them.
 */
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { liveInterval, startDashboard, type Dashboard } from '../../src/report/html/dashboard.js';

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
      `cannot serve the dashboard: port ${port} on 127.0.0.1 is in use; choose another --dashboard PORT, or give --dashboard alone for any free port`,
    );
  });
});

describe('what an update carries', () => {
  it('what the page draws over time, rounded, and not the files’ other figures', () => {
    const disk = {
      name: 'vda',
      role: 'data+log',
      readIops: 1.23456,
      writeIops: 2,
      readMBps: 3,
      writeMBps: 4,
      readLatencyMs: null,
      writeLatencyMs: 0.1234567,
      queueDepth: 1.5,
      busyPct: 50,
    };
    const host = {
      cpuUserPct: 10.00049,
      cpuSystemPct: 2,
      cpuIowaitPct: 0,
      cpuStealPct: 0,
      txbenchCpuPct: null,
    };
    const type = { count: 3, errors: 1, avgMs: 2, p50Ms: 1.5, p90Ms: 3, p95Ms: 4, p99Ms: 5 };
    const row = {
      atS: 5,
      phase: 'measure',
      seconds: 1,
      tps: 3,
      tpmC: 40,
      target: '[vm1]',
      perType: { newOrder: type, delivery: { ...type, count: 0 } },
      devices: [disk],
      host,
      missing: ['database: unreadable'],
    };
    expect(liveInterval(row)).toEqual({
      atS: 5,
      phase: 'measure',
      seconds: 1,
      tps: 3,
      target: 'vm1',
      perType: { newOrder: { count: 3, p50Ms: 1.5, p95Ms: 4, p99Ms: 5 }, delivery: { count: 0 } },
      devices: [{ ...disk, readIops: 1.235, writeLatencyMs: 0.123, busyPct: undefined }],
      host: { ...host, cpuUserPct: 10 },
    });
    expect(liveInterval({ atS: 1, phase: 'warmup', seconds: 1, tps: 0, host: null }).host).toBeNull();
  });
});

describe('a page that connects late', () => {
  it('gets the updates sent before it connected, then the new ones', async () => {
    dashboard = await startDashboard(0);
    for (let i = 1; i <= 3; i++) dashboard.publish({ atS: i, tps: 10 * i, phase: 'measure', seconds: 1 });
    const late = await subscribe(dashboard.url);
    dashboard.publish({ atS: 4, tps: 40, phase: 'measure', seconds: 1 });
    while (!late.received().includes('"atS":4')) await new Promise((r) => setTimeout(r, 10));
    const atS = [...late.received().matchAll(/"atS":(\d+)/g)].map((m) => Number(m[1]));
    expect(atS).toEqual([1, 2, 3, 4]);
  });
});
