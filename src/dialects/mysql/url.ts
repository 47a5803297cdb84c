/**
 * `mysql://` and `mariadb://` URLs into connection settings, without loading the driver.
 *
 *   mysql://user:password@host:port/database?sslmode=require&pool_size=20
 *
 * Options (query string): TLS as libpq spells it (`sslmode=disable|prefer|require|verify-ca|
 * verify-full`), as the MySQL client does (`ssl-mode=DISABLED|PREFERRED|REQUIRED|VERIFY_CA|
 * VERIFY_IDENTITY`) or as a switch (`ssl=true`, which verifies the certificate and host name), with
 * `sslca`, `sslcert` and `sslkey` naming PEM files; `pool_size` (alias `connectionLimit`, `max`)
 * for the pools of load, check and the run's monitor (a run's own connections are `--connections`,
 * as for PostgreSQL); `connect_timeout` in seconds; `socket` for a Unix socket. The password may
 * come from MYSQL_PWD instead of the URL. Anything else is refused, so a misspelt option is not
 * silently lost.
 */
import { UsageError } from '../../errors.js';
import { redactUrl } from '../../util/redact.js';

/** How to use TLS; undefined means plain TCP. */
export interface MysqlTls {
  /** Check the certificate chain against the trusted CAs (`sslca`, or the system's). */
  verifyCertificate: boolean;
  /** Check that the certificate names the host. */
  verifyHostname: boolean;
  caFile?: string | undefined;
  certFile?: string | undefined;
  keyFile?: string | undefined;
}

export interface MysqlSettings {
  host: string;
  port: number;
  socketPath?: string | undefined;
  user: string;
  password?: string | undefined;
  database: string;
  tls?: MysqlTls | undefined;
  /** Pool size asked for in the URL; the caller's own size otherwise. */
  poolSize?: number | undefined;
  connectTimeoutMs: number;
  /** Strings that must never appear in a message (the password, raw and decoded). */
  secrets: string[];
  /** The URL with its password replaced, for messages. */
  safeUrl: string;
}

const ALIASES: Readonly<Record<string, string>> = {
  ssl: 'ssl',
  sslmode: 'sslmode',
  'ssl-mode': 'sslmode',
  ssl_mode: 'sslmode',
  sslca: 'sslca',
  'ssl-ca': 'sslca',
  ssl_ca: 'sslca',
  sslcert: 'sslcert',
  'ssl-cert': 'sslcert',
  ssl_cert: 'sslcert',
  sslkey: 'sslkey',
  'ssl-key': 'sslkey',
  ssl_key: 'sslkey',
  pool_size: 'pool',
  connectionlimit: 'pool',
  max: 'pool',
  connect_timeout: 'timeout',
  socket: 'socket',
};

type Mode = 'disable' | 'prefer' | 'require' | 'verify-ca' | 'verify-full';

const MODES: Readonly<Record<string, Mode>> = {
  disable: 'disable',
  disabled: 'disable',
  allow: 'prefer',
  prefer: 'prefer',
  preferred: 'prefer',
  require: 'require',
  required: 'require',
  'verify-ca': 'verify-ca',
  verify_ca: 'verify-ca',
  'verify-full': 'verify-full',
  verify_full: 'verify-full',
  verify_identity: 'verify-full',
  'verify-identity': 'verify-full',
};

const SUPPORTED = 'sslmode, ssl-mode, ssl, sslca, sslcert, sslkey, pool_size, connect_timeout, socket';

export function parseMysqlUrl(url: string, env: NodeJS.ProcessEnv = process.env): MysqlSettings {
  const safeUrl = redactUrl(url);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(
      `cannot parse the database URL ${safeUrl}; use mysql://user:password@host:port/database`,
    );
  }
  const password = parsed.password ? decodeURIComponent(parsed.password) : env.MYSQL_PWD || undefined;
  const secrets = [parsed.password, password ?? ''].filter((s) => s.length > 0);
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
  if (database === '' || database.includes('/')) {
    throw new UsageError(
      `name the database in ${safeUrl}, e.g. mysql://user:password@host:3306/tpcc (create it first: create database tpcc)`,
    );
  }
  const options = new Map<string, string>();
  for (const [key, value] of parsed.searchParams) {
    const name = ALIASES[key.toLowerCase()];
    if (name === undefined) {
      throw new UsageError(`unknown option "${key}" in ${safeUrl}; MySQL/MariaDB URLs take ${SUPPORTED}`);
    }
    options.set(name, value);
  }

  let mode: Mode = 'disable';
  const ssl = options.get('ssl');
  if (ssl !== undefined) {
    if (/^(true|1|on|yes)$/i.test(ssl)) mode = 'verify-full';
    else if (!/^(false|0|off|no)$/i.test(ssl))
      throw new UsageError(`ssl=${ssl} in ${safeUrl}: use ssl=true or ssl=false`);
  }
  const sslmode = options.get('sslmode');
  if (sslmode !== undefined) {
    const m = MODES[sslmode.toLowerCase()];
    if (m === undefined) {
      throw new UsageError(
        `sslmode=${sslmode} in ${safeUrl}: use disable, prefer, require, verify-ca or verify-full`,
      );
    }
    mode = m;
  }
  const files = {
    caFile: options.get('sslca'),
    certFile: options.get('sslcert'),
    keyFile: options.get('sslkey'),
  };
  // As with libpq, a CA file given with plain "require" asks for the chain to be checked.
  const verifyCertificate =
    mode === 'verify-ca' || mode === 'verify-full' || (mode === 'require' && files.caFile !== undefined);
  // mysql2 has no opportunistic TLS: "prefer" (the MySQL client's default) connects in plain text.
  const tls: MysqlTls | undefined =
    mode === 'disable' || mode === 'prefer'
      ? undefined
      : { verifyCertificate, verifyHostname: mode === 'verify-full', ...files };

  return {
    host: decodeURIComponent(parsed.hostname.replace(/^\[(.*)\]$/, '$1')) || 'localhost',
    port: parsed.port ? Number(parsed.port) : 3306,
    socketPath: options.get('socket'),
    user: decodeURIComponent(parsed.username) || env.USER || 'root',
    password,
    database,
    tls,
    poolSize: positiveInt(options.get('pool'), 'pool_size', safeUrl),
    connectTimeoutMs: (positiveInt(options.get('timeout'), 'connect_timeout', safeUrl) ?? 10) * 1000,
    secrets,
    safeUrl,
  };
}

function positiveInt(value: string | undefined, name: string, safeUrl: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) {
    throw new UsageError(`${name}=${value} in ${safeUrl}: give a whole number of at least 1`);
  }
  return n;
}

/** Where the server is, for messages: host:port or the socket path. */
export function serverAddress(s: MysqlSettings): string {
  return s.socketPath ?? `${s.host}:${s.port}`;
}
