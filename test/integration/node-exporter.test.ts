/**
 * The node_exporter path against Debian's real prometheus-node-exporter, started here on
 * 127.0.0.1 with only the collectors txbench reads: its disk counters for this machine's disk lie
 * between /proc/diskstats read just before and just after the scrape, CPU and memory are there,
 * and an exporter that is gone, answers with an error or with something else gives one line.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { copyFile, open, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watchedDevicesFor } from '../../dist/monitor/block-devices.js';
import { checkDeviceOnExporter } from '../../dist/run/open-targets.js';
import { LocalSource } from '../../dist/monitor/local-source.js';
import { NodeExporterSource } from '../../dist/monitor/node-exporter.js';
import { Sampler } from '../../dist/monitor/sampler.js';
import type { DiskCounters } from '../../dist/monitor/types.js';
import { makeTempDir, removeDir, runCli } from './helpers.js';
import { attachLoop, mountExt4, undoAll } from './loop-device.js';
import { freePort } from '../free-port.js';

/** Writes `bytes` to a file and waits until they are on the disk. */
async function writeSynced(file: string, bytes: number): Promise<void> {
  const handle = await open(file, 'w');
  try {
    await handle.write(Buffer.alloc(bytes, 1));
    await handle.sync();
  } finally {
    await handle.close();
  }
}

const NODE_EXPORTER = process.env.TXBENCH_NODE_EXPORTER ?? '/usr/bin/prometheus-node-exporter';

/** Starts the exporter on 127.0.0.1 with `extraArgs`; `headers` are what a scrape needs to get in. */
async function startNodeExporter(
  extraArgs: readonly string[] = [],
  headers: Record<string, string> = {},
): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(
    NODE_EXPORTER,
    [
      `--web.listen-address=127.0.0.1:${port}`,
      '--collector.disable-defaults',
      '--collector.diskstats',
      '--collector.cpu',
      '--collector.meminfo',
      ...extraArgs,
    ],
    { stdio: 'ignore' },
  );
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${NODE_EXPORTER} exited with ${child.exitCode}`);
    const up = await fetch(`${url}/metrics`, { headers }).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return { url, child };
    if (Date.now() > deadline) throw new Error(`${NODE_EXPORTER} did not answer on ${url} within 15 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** /proc/diskstats's counters for one device, in DiskCounters' units. */
async function procDiskstats(device: string): Promise<DiskCounters> {
  const line = (await readFile('/proc/diskstats', 'utf8'))
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .find((fields) => fields[2] === device);
  if (line === undefined) throw new Error(`${device} is not in /proc/diskstats`);
  const c = line.slice(3).map(Number);
  return {
    readsCompleted: c[0]!,
    readBytes: c[2]! * 512,
    readMs: c[3]!,
    writesCompleted: c[4]!,
    writtenBytes: c[6]! * 512,
    writeMs: c[7]!,
    inFlight: c[8]!,
    busyMs: c[9]!,
    weightedMs: c[10]!,
  };
}

const CUMULATIVE: readonly (keyof DiskCounters)[] = [
  'readsCompleted',
  'readBytes',
  'readMs',
  'writesCompleted',
  'writtenBytes',
  'writeMs',
  'busyMs',
  'weightedMs',
];

describe('node_exporter, the real one', () => {
  let exporter: { url: string; child: ChildProcess };
  let disk: string;
  let scratch: string;

  beforeAll(async () => {
    exporter = await startNodeExporter();
    scratch = await makeTempDir('txbench-node-exporter-');
    const found = await watchedDevicesFor([{ role: 'data', path: scratch }]);
    expect(found.devices.length, found.notes.join('; ')).toBeGreaterThan(0);
    // The whole disk (node_exporter lists disks, not partitions): a partition's member.
    disk = found.devices[0]!.members?.[0] ?? found.devices[0]!.name;
  });

  afterAll(async () => {
    if (exporter?.child.exitCode === null) exporter.child.kill('SIGTERM');
    await removeDir(scratch);
  });

  it('its counters for this machine’s disk are those /proc/diskstats gives at the same moment', async () => {
    const source = new NodeExporterSource(exporter.url);
    const before = await procDiskstats(disk);
    const snapshot = await source.snapshot();
    const after = await procDiskstats(disk);
    const scraped = snapshot.disks.get(disk);
    expect(scraped, `${disk} in ${[...snapshot.disks.keys()].join(', ')}`).toBeDefined();
    // Counters only grow: what node_exporter read lies between the two reads around the scrape.
    for (const field of CUMULATIVE) {
      expect(scraped![field], field).toBeGreaterThanOrEqual(before[field]);
      expect(scraped![field], field).toBeLessThanOrEqual(after[field]);
    }
    expect(Number.isInteger(scraped!.inFlight) && scraped!.inFlight >= 0).toBe(true);
  });

  it('lists only whole disks that /proc/diskstats has, and sees the writes to this one', async () => {
    const source = new NodeExporterSource(`${exporter.url}/metrics`, { timeoutMs: 5000 });
    const first = await source.snapshot();
    await writeSynced(path.join(scratch, 'busy'), 8 * 1024 * 1024);
    const second = await source.snapshot();
    const proc = await readFile('/proc/diskstats', 'utf8');
    for (const name of second.disks.keys()) expect(proc).toMatch(new RegExp(`\\s${name}\\s`));
    expect(second.atMs).toBeGreaterThan(first.atMs);
    expect(second.disks.get(disk)!.writtenBytes).toBeGreaterThanOrEqual(
      first.disks.get(disk)!.writtenBytes + 8 * 1024 * 1024,
    );
  });

  it('gives the same device figures as the local /proc path for the same disk, within 10%', async () => {
    const devices = [{ name: disk, role: 'data' as const }];
    const local = new Sampler({ source: new LocalSource(), devices, measureOwnCpu: false, periodMs: 1000 });
    const remote = new Sampler({
      source: new NodeExporterSource(exporter.url),
      devices,
      measureOwnCpu: false,
      periodMs: 1000,
    });
    await Promise.all([local.start(), remote.start()]);
    await Promise.all([local.openWindow(), remote.openWindow()]);
    // Durable writes well inside both windows, so the edges (sampled a few ms apart) see little.
    await new Promise((r) => setTimeout(r, 700));
    const file = await open(path.join(scratch, 'agree'), 'w');
    try {
      for (let i = 0; i < 300; i++) {
        await file.write(Buffer.alloc(64 * 1024, 7));
        await file.datasync();
      }
    } finally {
      await file.close();
    }
    await new Promise((r) => setTimeout(r, 700));
    const [ours, theirs] = await Promise.all([local.closeWindow(), remote.closeWindow()]);
    await Promise.all([local.stop(), remote.stop()]);
    const a = ours.devices.find((d) => d.name === disk);
    const b = theirs.devices.find((d) => d.name === disk);
    expect(a, ours.missing.join('; ')).toBeDefined();
    expect(b, theirs.missing.join('; ')).toBeDefined();
    console.log(`${disk}: /proc ${JSON.stringify(a)}\nnode_exporter ${JSON.stringify(b)}`);
    const within10 = (x: number | null, y: number | null, what: string): void => {
      expect(x, what).not.toBeNull();
      expect(Math.abs(x! / y! - 1), `${what}: /proc ${x} vs node_exporter ${y}`).toBeLessThan(0.1);
    };
    expect(a!.writeIops).toBeGreaterThan(50);
    within10(a!.writeIops, b!.writeIops, 'write IOPS');
    within10(a!.writeMBps, b!.writeMBps, 'write MB/s');
    within10(a!.writeLatencyMs, b!.writeLatencyMs, 'write latency ms');
    within10(a!.busyPct, b!.busyPct, 'busy %');
  });

  it('refuses a --device the exporter does not list, before anything starts', async () => {
    const spec = {
      kind: 'url' as const,
      url: 'postgres://x@db1/tpcc',
      label: 'db1',
      nodeExporter: exporter.url,
    };
    await expect(checkDeviceOnExporter({ ...spec, device: 'nosuch0' })).rejects.toThrow(
      /--device nosuch0: node_exporter .* lists no such disk; it lists .*\b/,
    );
    await expect(checkDeviceOnExporter({ ...spec, device: disk })).resolves.toBeUndefined();
  });

  it('has the CPU and memory of this machine', async () => {
    const snapshot = await new NodeExporterSource(exporter.url).snapshot();
    expect(snapshot.cpus).toBe(os.cpus().length);
    expect(snapshot.cpu!.user).toBeGreaterThan(0);
    expect(snapshot.cpu!.idle).toBeGreaterThan(0);
    expect(snapshot.memory!.usedMB).toBeGreaterThan(0);
    expect(snapshot.memory!.usedMB).toBeLessThan(os.totalmem() / 1e6);
    expect(snapshot.memory!.pageCacheMB).toBeGreaterThanOrEqual(0);
  });
});

describe('node_exporter that cannot give a snapshot', () => {
  let server: Server;
  let base: string;

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/metrics')
        res.writeHead(200, { 'content-type': 'text/plain' }).end('<html>hello</html>\n');
      else if (req.url === '/slow/metrics') setTimeout(() => res.end('node_load1 1\n'), 2000);
      else res.writeHead(404, 'Not Found').end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('nothing listening: one line saying it is unreachable and why', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const failure = new NodeExporterSource(url).snapshot();
    await expect(failure).rejects.toThrow(
      new RegExp(`^node_exporter at ${url}/metrics is unreachable: connect ECONNREFUSED [^\\n]*$`),
    );
  });

  it('no answer in time: one line with the timeout', async () => {
    const failure = new NodeExporterSource(`${base}/slow/metrics`, { timeoutMs: 200 }).snapshot();
    await expect(failure).rejects.toThrow(
      `node_exporter at ${base}/slow/metrics is unreachable: no answer within 200 ms`,
    );
  });

  it('an HTTP error or a page without node_exporter’s metrics: one line each', async () => {
    await expect(new NodeExporterSource(`${base}/nothing`).snapshot()).rejects.toThrow(
      `node_exporter at ${base}/nothing answered HTTP 404 Not Found`,
    );
    await expect(new NodeExporterSource(base).snapshot()).rejects.toThrow(
      `${base}/metrics sent no node_disk_*, node_cpu_seconds_total or node_memory_* metrics: is it a node_exporter?`,
    );
  });
});

describe('node_exporter behind basic auth (--web.config.file), the real one', () => {
  const user = 'txbench';
  const password = 's3cret:p@ss';
  let exporter: { url: string; child: ChildProcess };
  let scratch: string;
  let withCredentials: string;

  beforeAll(async () => {
    scratch = await makeTempDir('txbench-node-exporter-auth-');
    // htpasswd (apache2-utils) makes the bcrypt hash node_exporter's basic_auth_users wants.
    const hash = execFileSync('htpasswd', ['-nbB', user, password], { encoding: 'utf8' })
      .trim()
      .slice(user.length + 1);
    const config = path.join(scratch, 'web.yml');
    await writeFile(config, `basic_auth_users:\n  ${user}: '${hash}'\n`);
    const basic = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    exporter = await startNodeExporter([`--web.config.file=${config}`], { authorization: basic });
    withCredentials = exporter.url.replace('//', `//${user}:${encodeURIComponent(password)}@`);
  });

  afterAll(async () => {
    if (exporter?.child.exitCode === null) exporter.child.kill('SIGTERM');
    await removeDir(scratch);
  });

  it('scrapes with the user and password of the URL, and never shows the password', async () => {
    const source = new NodeExporterSource(withCredentials);
    const snapshot = await source.snapshot();
    expect(snapshot.disks.size).toBeGreaterThan(0);
    expect(source.description).toBe(`node_exporter ${exporter.url}/metrics`);
  });

  it('a wrong password is one line naming the refusal, without the password', async () => {
    const wrong = exporter.url.replace('//', `//${user}:not-${encodeURIComponent(password)}@`);
    await expect(new NodeExporterSource(wrong).snapshot()).rejects.toThrow(
      `node_exporter at ${exporter.url}/metrics answered HTTP 401 Unauthorized`,
    );
  });

  it('an exporter gone away leaves the password out of every missing line and note', async () => {
    const gone = `http://${user}:${encodeURIComponent(password)}@127.0.0.1:${await freePort()}`;
    const source = new NodeExporterSource(gone);
    const sampler = new Sampler({ source, devices: [{ name: 'vda', role: 'data' }], measureOwnCpu: false });
    await sampler.start();
    await sampler.openWindow();
    const interval = await sampler.interval();
    const window = await sampler.closeWindow();
    await sampler.stop();
    const said = JSON.stringify({ description: source.description, interval, window });
    expect(said).toMatch(/unreachable/);
    expect(said).not.toContain('s3cret');
    expect(said).not.toContain(encodeURIComponent(password));
  });
});

describe('a run with --node-exporter and no --device', () => {
  let dir: string;
  const undo: (() => void)[] = [];
  let exporter: { url: string; child: ChildProcess };
  let loop: string;
  let result: { code: number | null; stdout: string; stderr: string };

  beforeAll(async () => {
    dir = await makeTempDir('txbench-node-exporter-run-');
    // The database on a disk of its own: a loop device, idle until the run writes to it.
    const device = await attachLoop(dir, 256);
    undo.push(device.detach);
    loop = device.name;
    const mnt = path.join(dir, 'mnt');
    undo.push(await mountExt4(loop, mnt));
    const loaded = await runCli(
      dir,
      ['load', '--db', `sqlite:${path.join(dir, 'tpcc.db')}`, '--warehouses', '1'],
      180_000,
    );
    expect(loaded.code, loaded.stderr).toBe(0);
    await copyFile(path.join(dir, 'tpcc.db'), path.join(mnt, 'tpcc.db'));
    execFileSync('sync', ['-f', path.join(mnt, 'tpcc.db')]);
    // Loop devices too (node_exporter leaves them out by default).
    exporter = await startNodeExporter(['--collector.diskstats.device-exclude=^$']);
    result = await runCli(
      dir,
      [
        'run',
        '--db',
        `sqlite:${path.join(mnt, 'tpcc.db')}`,
        '--node-exporter',
        exporter.url,
        '--warmup',
        '4s',
        '--duration',
        '4s',
        '--terminals',
        '2',
        '--out',
        path.join(dir, 'results'),
      ],
      120_000,
    );
  }, 300_000);

  afterAll(async () => {
    if (exporter?.child.exitCode === null) exporter.child.kill('SIGTERM');
    undoAll(undo);
    await removeDir(dir);
  });

  it('watches the disks that carried I/O during the warm-up, the database’s among them, and says so', async () => {
    expect(result.code, result.stderr).toBe(0);
    const runDir = /run directory: (.+)$/m.exec(result.stdout)?.[1]?.trim();
    expect(runDir, result.stdout).toBeDefined();
    const run = JSON.parse(await readFile(path.join(runDir!, 'run.json'), 'utf8')) as {
      summary: { devices: { name: string; writeIops: number }[]; monitor: { notes: string[] } };
    };
    const notes = run.summary.monitor.notes.join('\n');
    expect(notes).toMatch(
      new RegExp(
        `^watching (\\S+, )*${loop}(, \\S+)*: the disks node_exporter .* showed I/O on during the warm-up`,
        'm',
      ),
    );
    const ours = run.summary.devices.find((d) => d.name === loop);
    expect(ours, JSON.stringify(run.summary.devices)).toBeDefined();
    expect(ours!.writeIops).toBeGreaterThan(0);
    expect(result.stdout).toMatch(new RegExp(`storage ${loop} \\(data\\+log\\): read`));
  });
});
