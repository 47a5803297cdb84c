/**
 * Where a run happened, for the results store: the host, the database's version and the settings
 * that matter for it, and the block device and file system under the data directory when the
 * data directory is on this machine ("remote, unknown" otherwise: the same path here would be the
 * load machine's own disk).
 */
import type { Db, Dialect } from '../dialects/dialect.js';
import { locateDataDirectory } from '../monitor/data-location.js';
import { deviceUnder, hostInfo } from '../monitor/host.js';
import type { DeviceUnderTest, RunEnvironment } from '../results/environment.js';

export interface EnvironmentOptions {
  /** The target's connection URL: its host says whether the server is this machine. */
  url: string;
  /** The embedded server's data directory. */
  localDataDir?: string | undefined;
}

export async function describeEnvironment(
  dialect: Dialect,
  db: Db,
  options: EnvironmentOptions,
): Promise<RunEnvironment> {
  const [host, info, settings, serverDataDir] = await Promise.all([
    hostInfo(),
    dialect.serverInfo(db),
    dialect.settings ? dialect.settings(db).catch(() => ({})) : Promise.resolve({}),
    dialect.dataDirectory ? dialect.dataDirectory(db).catch(() => undefined) : Promise.resolve(undefined),
  ]);
  const dataDirectory = options.localDataDir ?? serverDataDir;
  const location = await locateDataDirectory({
    dialect: dialect.name,
    url: options.url,
    localDataDir: options.localDataDir,
    serverDataDir,
  });
  const device: DeviceUnderTest =
    location.kind === 'local'
      ? { kind: 'local', ...(await deviceUnder(location.path).catch(() => ({ path: location.path }))) }
      : location;
  return { host, database: { ...info, settings }, dataDirectory, device };
}
