/**
 * Whether a database server's data directory is on this machine, so that the block device under
 * it is the device under test. A path the server reports is only meaningful here when the server
 * runs here (in process, over a Unix socket, on a loopback or own address) and the path holds that
 * server's files; otherwise the same path on the load machine is some other disk.
 */
import { lookup } from 'node:dns/promises';
import { stat } from 'node:fs/promises';
import { isIP } from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** How a connection URL reaches its server. */
export type ServerReach =
  | { kind: 'in-process' }
  | { kind: 'socket' }
  | { kind: 'network'; host: string }
  /** The URL could not be read: nothing can be said of where the server is. */
  | { kind: 'unknown' };

/** Where the data directory is, as far as this machine can tell. */
export type DataLocation = { kind: 'local'; path: string } | { kind: 'remote'; reason: string };

/** Files or directories only a server's own data directory holds, by dialect. */
export const DATA_DIRECTORY_MARKERS: Readonly<Record<string, readonly string[]>> = {
  postgres: ['PG_VERSION'],
  mysql: ['ibdata1', 'mysql'],
  mssql: ['master.mdf'],
};

/** How `url` reaches its server: in this process (SQLite), a Unix socket, or a host over the network. */
export function serverReach(url: string): ServerReach {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  // SQLite runs inside this process: the directory it reports holds the file it has open.
  if (scheme === 'sqlite') return { kind: 'in-process' };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { kind: 'unknown' };
  }
  // PostgreSQL names a socket directory as ?host=/run/postgresql; MySQL as ?socket=PATH.
  const hostParam = parsed.searchParams.get('host');
  if (parsed.searchParams.get('socket') || hostParam?.startsWith('/')) return { kind: 'socket' };
  const host = (hostParam || parsed.hostname).replace(/^\[(.*)\]$/, '$1');
  return host === '' ? { kind: 'socket' } : { kind: 'network', host };
}

/** localhost and the loopback addresses (127.0.0.0/8, ::1, and IPv4-mapped 127.x). */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  return /^(::ffff:)?127\.\d+\.\d+\.\d+$/.test(h);
}

/** The addresses of this machine's network interfaces. */
export function ownAddresses(): string[] {
  return Object.values(os.networkInterfaces())
    .flatMap((list) => list ?? [])
    .map((a) => a.address.toLowerCase().replace(/%.*$/, ''));
}

export interface HostFacts {
  hostname: string;
  addresses: readonly string[];
  /** Resolves a host name to its addresses; an unresolvable name gives none. */
  resolve(host: string): Promise<string[]>;
}

const THIS_HOST: HostFacts = {
  hostname: os.hostname(),
  addresses: ownAddresses(),
  resolve: async (host) => (await lookup(host, { all: true }).catch(() => [])).map((a) => a.address),
};

/** Whether `host` (a name or an address) is this machine. */
export async function isThisMachine(host: string, facts: HostFacts = THIS_HOST): Promise<boolean> {
  if (host === '' || isLoopback(host)) return true;
  const own = new Set(facts.addresses.map((a) => a.toLowerCase()));
  if (isIP(host)) return own.has(host.toLowerCase());
  if (host.toLowerCase() === facts.hostname.toLowerCase()) return true;
  const addresses = await facts.resolve(host);
  return addresses.some((a) => isLoopback(a) || own.has(a.toLowerCase()));
}

export interface LocateOptions {
  dialect: string;
  /** The connection URL (its credentials are never read). */
  url: string;
  /** The embedded server's data directory, which txbench itself started here. */
  localDataDir?: string | undefined;
  /** The data directory the server reports (a path on the server's machine). */
  serverDataDir?: string | undefined;
  facts?: HostFacts | undefined;
}

/**
 * The data directory as a path on this machine, or why there is none: the server is elsewhere,
 * or the path it reports is missing here or is not its data directory (a container, say).
 */
export async function locateDataDirectory(options: LocateOptions): Promise<DataLocation> {
  const reach = serverReach(options.url);
  const dir = options.localDataDir ?? options.serverDataDir;
  if (dir === undefined) return { kind: 'remote', reason: 'the server does not say where its data is' };
  if (options.localDataDir === undefined) {
    if (reach.kind === 'unknown')
      return { kind: 'remote', reason: 'the URL does not say where the server is' };
    if (reach.kind === 'network' && !(await isThisMachine(reach.host, options.facts))) {
      return { kind: 'remote', reason: `the server ${reach.host} is another machine` };
    }
  }
  const markers = DATA_DIRECTORY_MARKERS[options.dialect] ?? [];
  const resolved = path.resolve(dir);
  if (!(await exists(resolved))) {
    return { kind: 'remote', reason: `its data directory ${dir} does not exist on this machine` };
  }
  if (markers.length > 0 && !(await anyExists(resolved, markers))) {
    return {
      kind: 'remote',
      reason: `${dir} on this machine holds no ${markers.join(' or ')}, so it is not the server's data directory`,
    };
  }
  return { kind: 'local', path: resolved };
}

async function anyExists(dir: string, names: readonly string[]): Promise<boolean> {
  for (const name of names) if (await exists(path.join(dir, name))) return true;
  return false;
}

async function exists(p: string): Promise<boolean> {
  return stat(p).then(
    () => true,
    () => false,
  );
}
