import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  isLoopback,
  isThisMachine,
  locateDataDirectory,
  serverReach,
  type HostFacts,
} from '../../src/monitor/data-location.js';
import { formatDevice } from '../../src/report/storage.js';

/** A machine called bench1 with one LAN address; db.lan resolves to it, db.example.com elsewhere. */
const FACTS: HostFacts = {
  hostname: 'bench1',
  addresses: ['127.0.0.1', '::1', '10.0.0.5', 'fe80::1'],
  resolve: async (host) =>
    ({ 'db.lan': ['10.0.0.5'], 'db.example.com': ['203.0.113.9'], 'loop.test': ['127.0.1.1'] })[host] ?? [],
};

describe('serverReach', () => {
  it.each([
    ['sqlite:data/tpcc.db', { kind: 'in-process' }],
    ['sqlite:///abs/tpcc.db?synchronous=normal', { kind: 'in-process' }],
    ['postgres:///tpcc', { kind: 'socket' }],
    ['postgres://u:p@/tpcc', { kind: 'unknown' }],
    ['postgres://u:p@localhost/tpcc?host=/run/postgresql', { kind: 'socket' }],
    ['mysql://u:p@localhost/tpcc?socket=/run/mysqld/mysqld.sock', { kind: 'socket' }],
    ['postgres://u:p@db.example.com:5432/tpcc', { kind: 'network', host: 'db.example.com' }],
    ['postgres://u:p@127.0.0.1:5432/tpcc', { kind: 'network', host: '127.0.0.1' }],
    ['mariadb://u:p@[::1]:3306/tpcc', { kind: 'network', host: '::1' }],
    ['mssql://u:p@sql.lan:1433/tpcc', { kind: 'network', host: 'sql.lan' }],
  ])('%s', (url, reach) => {
    expect(serverReach(url)).toEqual(reach);
  });
});

describe('isLoopback', () => {
  it.each([
    'localhost',
    'LOCALHOST',
    'localhost.',
    'app.localhost',
    '127.0.0.1',
    '127.1.2.3',
    '::1',
    '::ffff:127.0.0.1',
  ])('%s is loopback', (host) => expect(isLoopback(host)).toBe(true));
  it.each(['10.0.0.5', 'db.example.com', '128.0.0.1', '::2', 'localhost.example.com'])('%s is not', (host) =>
    expect(isLoopback(host)).toBe(false),
  );
});

describe('isThisMachine', () => {
  it.each([
    ['127.0.0.1', true],
    ['localhost', true],
    ['10.0.0.5', true],
    ['FE80::1', true],
    ['bench1', true],
    ['db.lan', true],
    ['loop.test', true],
    ['10.0.0.6', false],
    ['db.example.com', false],
    ['unresolvable.invalid', false],
  ])('%s: %s', async (host, here) => {
    expect(await isThisMachine(host, FACTS)).toBe(here);
  });
});

describe('locateDataDirectory', () => {
  let root: string;
  let pgData: string;
  let mysqlData: string;
  let plain: string;

  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'txbench-location-'));
    pgData = path.join(root, 'pg');
    mysqlData = path.join(root, 'mysql-data');
    plain = path.join(root, 'plain');
    await mkdir(pgData);
    await writeFile(path.join(pgData, 'PG_VERSION'), '17\n');
    await mkdir(path.join(mysqlData, 'mysql'), { recursive: true });
    await mkdir(plain);
  });

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const locate = (dialect: string, url: string, serverDataDir?: string, localDataDir?: string) =>
    locateDataDirectory({ dialect, url, serverDataDir, localDataDir, facts: FACTS });

  it('a remote server is remote even when the same path exists here (it is the load machine’s disk)', async () => {
    const where = await locate('postgres', 'postgres://u@db.example.com/tpcc', pgData);
    expect(where).toEqual({ kind: 'remote', reason: 'the server db.example.com is another machine' });
  });

  it('a server on a loopback, own or resolved-to-own address with its data directory here is local', async () => {
    for (const url of [
      'postgres://u@127.0.0.1/tpcc',
      'postgres://u@10.0.0.5/tpcc',
      'postgres://u@db.lan/tpcc',
    ]) {
      expect(await locate('postgres', url, pgData)).toEqual({ kind: 'local', path: pgData });
    }
    expect(await locate('postgres', 'postgres:///tpcc', pgData)).toEqual({ kind: 'local', path: pgData });
    expect(await locate('postgres', 'postgres://u@/tpcc', pgData)).toMatchObject({ kind: 'remote' });
  });

  it('MySQL/MariaDB: a directory holding mysql/ (or ibdata1) is the data directory', async () => {
    expect(await locate('mysql', 'mysql://u@localhost/tpcc', mysqlData)).toEqual({
      kind: 'local',
      path: mysqlData,
    });
    expect(await locate('mysql', 'mysql://u@localhost/tpcc', pgData)).toMatchObject({ kind: 'remote' });
  });

  it('a local host whose path is missing here (a container, say) is remote, unknown', async () => {
    const where = await locate(
      'postgres',
      'postgres://u@localhost/tpcc',
      '/var/lib/postgresql/data-not-here',
    );
    expect(where).toEqual({
      kind: 'remote',
      reason: 'its data directory /var/lib/postgresql/data-not-here does not exist on this machine',
    });
  });

  it('a local path without the server’s files is not its data directory', async () => {
    const where = await locate('postgres', 'postgres://u@localhost/tpcc', plain);
    expect(where).toMatchObject({ kind: 'remote' });
    if (where.kind === 'remote') expect(where.reason).toMatch(/holds no PG_VERSION/);
  });

  it('a server that does not say where its data is: remote, unknown', async () => {
    expect(await locate('postgres', 'postgres://u@localhost/tpcc')).toMatchObject({ kind: 'remote' });
  });

  it('SQLite runs in this process: the directory of its open file is local', async () => {
    expect(await locate('sqlite', 'sqlite:whatever.db', plain)).toEqual({ kind: 'local', path: plain });
  });

  it('the embedded server’s own data directory is local, whatever the URL says', async () => {
    expect(await locate('postgres', 'postgres://u@127.0.0.1:1/x', '/elsewhere', pgData)).toEqual({
      kind: 'local',
      path: pgData,
    });
  });
});

describe('formatDevice', () => {
  it('says remote, unknown, and why', () => {
    expect(formatDevice({ kind: 'remote', reason: 'the server db.example.com is another machine' })).toBe(
      'device under test: remote, unknown (the server db.example.com is another machine)',
    );
  });

  it('describes a local disk', () => {
    expect(
      formatDevice({
        kind: 'local',
        path: '/data/pg',
        disk: 'nvme0n1',
        model: 'PX600',
        rotational: false,
        sizeBytes: 1_000_204_886_016,
        fsType: 'xfs',
        mountPoint: '/data',
      }),
    ).toBe('device under test: nvme0n1 (PX600, non-rotational, 1000 GB, xfs on /data) under /data/pg');
  });
});
