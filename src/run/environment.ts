/**
 * Where a run happened, for the results store: the host, the database's version and the settings
 * that matter for it, and the block device and file system under the data directory when the
 * data directory is on this machine.
 */
import type { Db, Dialect } from '../dialects/dialect.js';
import { deviceUnder, hostInfo, type DeviceInfo, type HostInfo } from '../monitor/host.js';

export interface RunEnvironment {
  host: HostInfo;
  database: { product: string; version: string; settings: Record<string, string> };
  dataDirectory?: string | undefined;
  device?: DeviceInfo | undefined;
}

export async function describeEnvironment(
  dialect: Dialect,
  db: Db,
  localDataDir?: string,
): Promise<RunEnvironment> {
  const [host, info, settings, serverDataDir] = await Promise.all([
    hostInfo(),
    dialect.serverInfo(db),
    dialect.settings ? dialect.settings(db).catch(() => ({})) : Promise.resolve({}),
    dialect.dataDirectory ? dialect.dataDirectory(db).catch(() => undefined) : Promise.resolve(undefined),
  ]);
  const dataDirectory = localDataDir ?? serverDataDir;
  const device = dataDirectory ? await deviceUnder(dataDirectory).catch(() => undefined) : undefined;
  return { host, database: { ...info, settings }, dataDirectory, device };
}
