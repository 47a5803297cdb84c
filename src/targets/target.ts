import path from 'node:path';
import { UsageError } from '../errors.js';
import { SCHEMES, SUPPORTED_URL_FORMS } from '../dialects/dialect.js';
import { redactUrl } from '../util/redact.js';
import { startEmbedded } from './embedded.js';

export const DEFAULT_DATA_DIR = path.join('.txbench', 'pg');

/** How the storage under a target is watched (both optional: by default, this machine's disks). */
export interface TargetMonitoring {
  /** The database host's Prometheus node_exporter (a server elsewhere). */
  nodeExporter?: string | undefined;
  /** The disk to watch, by kernel name, instead of the ones found under the data and log. */
  device?: string | undefined;
}

/** Where the database is: the embedded PostgreSQL on a data directory, or a server by URL. */
export type TargetSpec = (
  { kind: 'embedded'; dataDir: string; label: string } | { kind: 'url'; url: string; label: string }
) &
  TargetMonitoring;

export interface Target {
  readonly spec: TargetSpec;
  /** Connection URL, with credentials: never print it, use `safeUrl`. It may change on restart. */
  readonly url: string;
  readonly safeUrl: string;
  /** The embedded server's data directory (to describe the device under test). */
  readonly dataDir?: string | undefined;
  /** Restarts the server (for settings that apply only at start); only txbench's own server. */
  readonly restart?: (() => Promise<void>) | undefined;
  close(): Promise<void>;
}

export interface TargetOptions extends TargetMonitoring {
  db?: string | undefined;
  dataDir?: string | undefined;
  label?: string | undefined;
}

/** Flags first, then DATABASE_URL, then the PG* variables, then the embedded server. */
export function resolveTarget(options: TargetOptions, env: NodeJS.ProcessEnv = process.env): TargetSpec {
  // An empty variable (common in .env files) counts as unset.
  const url = options.db ?? (env.DATABASE_URL || undefined) ?? urlFromPgEnv(env);
  if (url !== undefined) {
    if (options.dataDir !== undefined) {
      throw new UsageError('--data-dir applies to the embedded PostgreSQL only; drop it or drop --db');
    }
    const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
    if (scheme === undefined) {
      // Not a URL at all (perhaps a keyword/value string): do not echo it, it may hold a password.
      throw new UsageError(`unsupported database address: give a URL, one of ${SUPPORTED_URL_FORMS}`);
    }
    if (SCHEMES[scheme] === undefined) {
      throw new UsageError(`unsupported database URL scheme "${scheme}:"; use one of ${SUPPORTED_URL_FORMS}`);
    }
    try {
      new URL(url);
    } catch {
      throw new UsageError(`malformed database URL ${redactUrl(url)}; use one of ${SUPPORTED_URL_FORMS}`);
    }
    return { kind: 'url', url, label: options.label ?? labelOf(url), ...monitoringOf(options) };
  }
  const dataDir = options.dataDir ?? DEFAULT_DATA_DIR;
  return {
    kind: 'embedded',
    dataDir,
    label: options.label ?? `embedded:${dataDir}`,
    ...monitoringOf(options),
  };
}

/** Only the monitoring fields that were given (a spec without them reads as before). */
function monitoringOf(options: TargetMonitoring): TargetMonitoring {
  return {
    ...(options.nodeExporter === undefined ? {} : { nodeExporter: options.nodeExporter }),
    ...(options.device === undefined ? {} : { device: options.device }),
  };
}

/** Builds a URL from PGHOST and friends when PGHOST or PGDATABASE is set. */
function urlFromPgEnv(env: NodeJS.ProcessEnv): string | undefined {
  if (!env.PGHOST && !env.PGDATABASE) return undefined;
  if (env.PGHOST?.startsWith('/')) {
    throw new UsageError(
      `PGHOST=${env.PGHOST} is a Unix socket directory, which txbench does not use; set PGHOST to a host name or give --db postgres://user@host/db`,
    );
  }
  const url = new URL('postgres://localhost');
  url.hostname = env.PGHOST || 'localhost';
  if (env.PGPORT) url.port = env.PGPORT;
  if (env.PGUSER) url.username = encodeURIComponent(env.PGUSER);
  if (env.PGPASSWORD) url.password = encodeURIComponent(env.PGPASSWORD);
  url.pathname = `/${encodeURIComponent(env.PGDATABASE || env.PGUSER || 'postgres')}`;
  return url.toString();
}

function labelOf(url: string): string {
  const parsed = new URL(url);
  if (parsed.protocol === 'sqlite:') return `sqlite:${parsed.pathname}`;
  const defaultPort = { mysql: '3306', mssql: '1433', postgres: '5432', sqlite: '' }[
    SCHEMES[parsed.protocol.slice(0, -1)] ?? 'postgres'
  ];
  return `${parsed.hostname}:${parsed.port || defaultPort}${parsed.pathname}`;
}

/**
 * Starts the embedded server when needed (creating its cluster only when `create` is set: `load`
 * and `run` may, `check` and `drop` may not); `close` stops it again.
 */
export async function openTarget(spec: TargetSpec, options: { create: boolean }): Promise<Target> {
  if (spec.kind === 'url') {
    return { spec, url: spec.url, safeUrl: redactUrl(spec.url), close: async () => undefined };
  }
  let server = await startEmbedded(spec.dataDir, options);
  return {
    spec,
    get url() {
      return server.url;
    },
    get safeUrl() {
      return redactUrl(server.url);
    },
    dataDir: server.dataDir,
    restart: async () => {
      await server.stop();
      server = await startEmbedded(spec.dataDir, { create: false });
    },
    close: () => server.stop(),
  };
}
