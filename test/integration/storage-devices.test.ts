/**
 * The disks under real servers' data and log directories, on this machine's own /proc and /sys:
 * the embedded PostgreSQL's data directory and pg_wal, and MariaDB's data directory and redo log,
 * resolve to whole disks that /proc/diskstats lists (the counters the sampler reads).
 */
import { readFile, realpath } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../dist/dialects/dialect.js';
import { mysqlDialect } from '../../dist/dialects/mysql/dialect.js';
import { postgresDialect } from '../../dist/dialects/postgres/dialect.js';
import { watchedDevicesFor } from '../../dist/monitor/block-devices.js';
import { parseMountinfo } from '../../dist/monitor/host.js';
import { embeddedStoragePaths } from '../../dist/targets/embedded.js';
import { startTempServer, type TempServer } from './helpers.js';
import { startMariaDb, type MariaDbServer } from './targets/mariadb.js';

/** Device names in /proc/diskstats (the third field of each line). */
async function diskstatsNames(): Promise<Set<string>> {
  const text = await readFile('/proc/diskstats', 'utf8');
  return new Set(text.split('\n').flatMap((line) => line.trim().split(/\s+/).slice(2, 3)));
}

describe('the disks under the embedded PostgreSQL', () => {
  let pg: TempServer;
  let db: Db;

  beforeAll(async () => {
    pg = await startTempServer();
    db = await postgresDialect.connect(pg.url, { max: 1 });
  });

  afterAll(async () => {
    await db?.close();
    await pg?.stop();
  });

  it('the dialect names pg_wal inside the data directory, symlinks followed', async () => {
    const logDirectory = await postgresDialect.logDirectory!(db);
    expect(logDirectory).toBe(await realpath(path.join(pg.dataDir, 'pg_wal')));
  });

  it('the data directory and pg_wal are on a whole disk /proc/diskstats lists, watched once as data+log', async () => {
    const found = await watchedDevicesFor(embeddedStoragePaths(pg.dataDir));
    expect(found.notes).toEqual([]);
    expect(found.devices.length).toBeGreaterThan(0);
    const listed = await diskstatsNames();
    for (const device of found.devices) {
      expect(listed, device.name).toContain(device.name);
      // pg_wal is a plain directory inside the data directory here: same disks, one entry each.
      expect(device.role).toBe('data+log');
    }
  });

  it('the same disks from the directories the server reports', async () => {
    const data = await postgresDialect.dataDirectory!(db);
    const log = await postgresDialect.logDirectory!(db);
    const fromServer = await watchedDevicesFor([
      { role: 'data', path: data! },
      { role: 'log', path: log! },
    ]);
    expect(fromServer).toEqual(await watchedDevicesFor(embeddedStoragePaths(pg.dataDir)));
  });

  it('a directory on this machine’s tmpfs: no device, one note naming it', async () => {
    const mounts = parseMountinfo(await readFile('/proc/self/mountinfo', 'utf8'));
    const tmpfs = mounts.find((m) => m.fsType === 'tmpfs');
    expect(tmpfs, 'this machine has a tmpfs mount (/dev/shm)').toBeDefined();
    const dir = path.join(tmpfs!.mountPoint, 'txbench-no-such-dir');
    expect(await watchedDevicesFor([{ role: 'data', path: dir }])).toEqual({
      devices: [],
      notes: [`data directory ${dir} is on tmpfs: no block device, device figures n/a`],
    });
  });
});

describe('the disks under MariaDB', () => {
  let maria: MariaDbServer;
  let db: Db;

  beforeAll(async () => {
    maria = await startMariaDb();
    db = await mysqlDialect.connect(maria.rootUrl, { max: 1 });
  });

  afterAll(async () => {
    await db?.close();
    await maria?.stop();
  });

  it('the redo log directory is innodb_log_group_home_dir (./) resolved against the data directory', async () => {
    const data = await mysqlDialect.dataDirectory!(db);
    expect(await mysqlDialect.logDirectory!(db)).toBe(await realpath(data!));
  });

  it('data and redo log are on a whole disk /proc/diskstats lists', async () => {
    const found = await watchedDevicesFor([
      { role: 'data', path: (await mysqlDialect.dataDirectory!(db))! },
      { role: 'log', path: (await mysqlDialect.logDirectory!(db))! },
    ]);
    expect(found.notes).toEqual([]);
    expect(found.devices.length).toBeGreaterThan(0);
    const listed = await diskstatsNames();
    for (const device of found.devices) {
      expect(listed).toContain(device.name);
      expect(device.role).toBe('data+log');
    }
  });
});
