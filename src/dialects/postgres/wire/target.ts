/**
 * Where a wire connection goes, read from a PostgreSQL URL, or why the wire path does not take
 * the URL (TLS, several hosts, an option only postgres.js understands): then the run's slots use
 * postgres.js as before.
 */

export interface WireTarget {
  host: string;
  port: number;
  /** The server's Unix socket file, when the URL names a socket directory (`?host=/dir`). */
  socketPath: string | undefined;
  user: string;
  password: string | undefined;
  database: string;
  /** Further startup parameters from the URL (application_name, options…). */
  parameters: Record<string, string>;
}

/** URL options that are settings of the connection itself, sent to the server at startup. */
const STARTUP_PARAMETERS: ReadonlySet<string> = new Set([
  'application_name',
  'options',
  'search_path',
  'timezone',
  'datestyle',
]);
/** URL options the wire path honours itself or that mean nothing to a plain connection. */
const HANDLED: ReadonlySet<string> = new Set([
  'connect_timeout',
  'host',
  'port',
  'user',
  'password',
  'dbname',
]);

/** Whether runs may use the wire path at all: TXBENCH_PG_DRIVER=postgres.js says no (to compare). */
export function wantsWire(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.TXBENCH_PG_DRIVER !== 'postgres.js';
}

export type WireTargetResult = { target: WireTarget } | { unsupported: string };

export function wireTarget(url: string, env: NodeJS.ProcessEnv = process.env): WireTargetResult {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { unsupported: 'a URL the WHATWG parser does not read (several hosts?)' };
  }
  const parameters: Record<string, string> = {};
  let socketDir: string | undefined;
  for (const [key, value] of u.searchParams) {
    if (key === 'sslmode') {
      if (value !== 'disable') return { unsupported: `sslmode=${value} (TLS)` };
    } else if (key.startsWith('ssl')) {
      return { unsupported: `${key} (TLS)` };
    } else if (key === 'host' && value.startsWith('/')) {
      socketDir = value;
    } else if (STARTUP_PARAMETERS.has(key)) {
      parameters[key] = value;
    } else if (!HANDLED.has(key)) {
      return { unsupported: `the URL option ${key}` };
    }
  }
  const host = decodeURIComponent(u.hostname.replace(/^\[(.*)\]$/, '$1')) || env.PGHOST || 'localhost';
  const port = Number(u.searchParams.get('port') ?? (u.port || env.PGPORT || 5432));
  const user =
    decodeURIComponent(u.username) || u.searchParams.get('user') || env.PGUSER || env.USER || 'postgres';
  const password = u.password
    ? decodeURIComponent(u.password)
    : (u.searchParams.get('password') ?? env.PGPASSWORD ?? undefined);
  const database =
    decodeURIComponent(u.pathname.replace(/^\//, '')) ||
    u.searchParams.get('dbname') ||
    env.PGDATABASE ||
    user;
  return {
    target: {
      host,
      port,
      socketPath: socketDir === undefined ? undefined : `${socketDir}/.s.PGSQL.${port}`,
      user,
      password,
      database,
      parameters,
    },
  };
}
