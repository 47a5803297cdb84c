/**
 * The device under test against a real embedded PostgreSQL: the server reports its data
 * directory, the connection is to this machine, so the device under it is described; the same
 * server named by a host that is not this machine gives "remote, unknown", although the path
 * exists here (the bug this guards: a remote server's path looked up on the load machine).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db, Dialect } from '../../src/dialects/dialect.js';
import type * as EnvironmentModule from '../../src/run/environment.js';
import type * as StorageModule from '../../src/report/storage.js';
import type * as TpccDialectModule from '../../src/workloads/tpcc/tpcc-dialect.js';
import { startTempServer, type TempServer } from './helpers.js';

const DIST_ENVIRONMENT = new URL('../../dist/run/environment.js', import.meta.url).href;
const DIST_STORAGE = new URL('../../dist/report/storage.js', import.meta.url).href;
const DIST_TPCC_DIALECT = new URL('../../dist/workloads/tpcc/tpcc-dialect.js', import.meta.url).href;

describe('device under test, embedded PostgreSQL', () => {
  let pg: TempServer;
  let dialect: Dialect;
  let db: Db;
  let env: typeof EnvironmentModule;
  let formatDevice: typeof StorageModule.formatDevice;

  beforeAll(async () => {
    pg = await startTempServer();
    env = (await import(DIST_ENVIRONMENT)) as typeof EnvironmentModule;
    ({ formatDevice } = (await import(DIST_STORAGE)) as typeof StorageModule);
    const { tpccDialectFor } = (await import(DIST_TPCC_DIALECT)) as typeof TpccDialectModule;
    dialect = (await tpccDialectFor(pg.url)).dialect;
    db = await dialect.connect(pg.url, { max: 1 });
  });

  afterAll(async () => {
    await db?.close();
    await pg?.stop();
  });

  it('a server on this machine: the data directory it reports is found, with its file system', async () => {
    expect(new URL(pg.url).hostname).not.toBe('');
    const environment = await env.describeEnvironment(dialect, db, { url: pg.url });
    expect(environment.dataDirectory).toBeDefined();
    expect(environment.device.kind).toBe('local');
    if (environment.device.kind !== 'local') return;
    expect(environment.device.path).toContain(pg.dir.split('/').pop());
    expect(environment.device.mountPoint).toBeDefined();
    expect(environment.device.fsType).toBeDefined();
    expect(formatDevice(environment.device)).toMatch(/^device under test: .* under \//);
  });

  it('the embedded target’s own data directory is local too', async () => {
    const environment = await env.describeEnvironment(dialect, db, { url: pg.url, localDataDir: pg.dataDir });
    expect(environment.device).toMatchObject({
      kind: 'local',
      path: expect.stringContaining('pg') as string,
    });
  });

  it('the same server named by another machine’s address: remote, unknown', async () => {
    const remote = new URL(pg.url);
    remote.hostname = '192.0.2.10';
    const environment = await env.describeEnvironment(dialect, db, { url: remote.toString() });
    expect(environment.device).toEqual({
      kind: 'remote',
      reason: 'the server 192.0.2.10 is another machine',
    });
    expect(environment.dataDirectory).toBeDefined();
    expect(formatDevice(environment.device)).toBe(
      'device under test: remote, unknown (the server 192.0.2.10 is another machine)',
    );
  });
});
