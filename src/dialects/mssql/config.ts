/**
 * `mssql://` and `sqlserver://user:password@host:port/database?options` to the driver's pool
 * configuration, and connection failures to one line that never contains the password.
 */
import { DatabaseError, errorMessage, UsageError } from '../../errors.js';
import { redactText, redactUrl } from '../../util/redact.js';
import type { MssqlPoolConfig } from './driver.js';

export const DEFAULT_PORT = 1433;
export const DEFAULT_CONNECT_TIMEOUT_S = 15;

/** Query options a URL may carry (names compared without regard to case). */
export const URL_OPTIONS = [
  'encrypt',
  'trustServerCertificate',
  'poolSize',
  'connectTimeout',
  'requestTimeout',
  'instanceName',
] as const;

export interface MssqlTarget {
  server: string;
  /** Undefined with a named instance, whose port the SQL Server Browser tells. */
  port: number | undefined;
  instanceName: string | undefined;
  database: string | undefined;
  user: string | undefined;
  password: string | undefined;
  /** Windows domain for NTLM, from a `DOMAIN\user` user name. */
  domain: string | undefined;
  encrypt: boolean | 'strict';
  trustServerCertificate: boolean;
  /** Pool size the URL asks for; otherwise the caller's. */
  poolSize: number | undefined;
  connectTimeoutS: number;
  /** 0: no limit (index builds on big tables take minutes). */
  requestTimeoutS: number;
  /** The URL with the password replaced, for messages. */
  safeUrl: string;
}

/**
 * Parses a SQL Server URL. User and password come from the URL, else from SQLCMDUSER and
 * SQLCMDPASSWORD (the variables sqlcmd reads).
 */
export function parseMssqlUrl(url: string, env: NodeJS.ProcessEnv = process.env): MssqlTarget {
  const safeUrl = redactUrl(url);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`malformed SQL Server URL ${safeUrl}; use mssql://user:password@host:port/database`);
  }
  const scheme = parsed.protocol.slice(0, -1).toLowerCase();
  if (scheme !== 'mssql' && scheme !== 'sqlserver') {
    throw new UsageError(`${safeUrl} is not a SQL Server URL; use mssql://user:password@host:port/database`);
  }
  const server = parsed.hostname.replace(/^\[(.*)\]$/, '$1') || 'localhost';
  const rawUser = parsed.username ? decode(parsed.username, safeUrl) : env.SQLCMDUSER || undefined;
  const password = parsed.password ? decode(parsed.password, safeUrl) : env.SQLCMDPASSWORD || undefined;
  const domainUser = rawUser === undefined ? undefined : /^([^\\]+)\\(.+)$/.exec(rawUser);
  const database = decode(parsed.pathname.replace(/^\//, ''), safeUrl) || undefined;
  if (database?.includes('/')) {
    throw new UsageError(`the database in ${safeUrl} contains "/"; give one database name after the host`);
  }

  const options = new Map<string, string>();
  for (const [key, value] of parsed.searchParams) {
    const known = URL_OPTIONS.find((o) => o.toLowerCase() === key.toLowerCase());
    if (known === undefined) {
      throw new UsageError(
        `unknown option "${key}" in ${safeUrl}; SQL Server URLs accept ${URL_OPTIONS.join(', ')}`,
      );
    }
    options.set(known, value);
  }
  const instanceName = options.get('instanceName') || undefined;
  const encrypt = options.get('encrypt');
  const trust = options.get('trustServerCertificate');
  const poolSize = options.get('poolSize');
  const connectTimeout = options.get('connectTimeout');
  const requestTimeout = options.get('requestTimeout');
  return {
    server,
    port: instanceName !== undefined && !parsed.port ? undefined : Number(parsed.port || DEFAULT_PORT),
    instanceName,
    database,
    user: domainUser ? domainUser[2] : rawUser,
    password,
    domain: domainUser ? domainUser[1] : undefined,
    encrypt:
      encrypt === undefined
        ? true
        : encrypt.toLowerCase() === 'strict'
          ? 'strict'
          : flag('encrypt', encrypt, safeUrl),
    trustServerCertificate: trust === undefined ? false : flag('trustServerCertificate', trust, safeUrl),
    poolSize: poolSize === undefined ? undefined : count('poolSize', poolSize, 1, 32_767, safeUrl),
    connectTimeoutS:
      connectTimeout === undefined
        ? DEFAULT_CONNECT_TIMEOUT_S
        : count('connectTimeout', connectTimeout, 1, 3600, safeUrl),
    requestTimeoutS:
      requestTimeout === undefined ? 0 : count('requestTimeout', requestTimeout, 0, 86_400, safeUrl),
    safeUrl,
  };
}

/** The driver's pool configuration for a target; `max` is the pool size unless the URL sets one. */
export function poolConfig(
  target: MssqlTarget,
  max: number,
  extra: { packetSize?: number | undefined } = {},
): MssqlPoolConfig {
  return {
    server: target.server,
    port: target.port,
    database: target.database,
    user: target.user,
    password: target.password,
    domain: target.domain,
    connectionTimeout: target.connectTimeoutS * 1000,
    requestTimeout: target.requestTimeoutS * 1000,
    validateConnection: 'socket',
    // Idle connections stay: terminals think for seconds, and reconnecting costs a TLS handshake.
    pool: { max: target.poolSize ?? max, min: 0, idleTimeoutMillis: 3_600_000 },
    options: {
      encrypt: target.encrypt,
      trustServerCertificate: target.trustServerCertificate,
      instanceName: target.instanceName,
      appName: 'txbench',
      // Datetimes without a zone are written and read as the UTC fields of a Date: the wall-clock
      // value the loader generated is stored unchanged, whatever the client's time zone.
      useUTC: true,
      enableArithAbort: true,
      // SET XACT_ABORT ON for every session: a failed statement rolls its transaction back.
      abortTransactionOnError: true,
      packetSize: extra.packetSize,
    },
  };
}

function decode(part: string, safeUrl: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new UsageError(`malformed percent-encoding in ${safeUrl}`);
  }
}

function flag(name: string, value: string, safeUrl: string): boolean {
  const v = value.toLowerCase();
  if (v === 'true' || v === 'yes' || v === '1') return true;
  if (v === 'false' || v === 'no' || v === '0') return false;
  throw new UsageError(`${name}=${value} in ${safeUrl} is not true or false`);
}

function count(name: string, value: string, min: number, max: number, safeUrl: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) {
    throw new UsageError(`${name}=${value} in ${safeUrl} must be a whole number from ${min} to ${max}`);
  }
  return n;
}

/** host:port, or host\\instance for a named instance. */
export function whereOf(target: MssqlTarget): string {
  return target.instanceName
    ? `${target.server}\\${target.instanceName}`
    : `${target.server}:${target.port ?? DEFAULT_PORT}`;
}

interface DriverErrorFields {
  code?: unknown;
  message?: unknown;
  originalError?: unknown;
}

/** One line that says what went wrong reaching the server and what to do about it. */
export function describeConnectionError(err: unknown, target: MssqlTarget): DatabaseError {
  const where = whereOf(target);
  const user = target.user ?? 'the default user';
  const database = target.database ?? 'the default database';
  const fields: DriverErrorFields = typeof err === 'object' && err !== null ? err : {};
  const code = String(fields.code ?? '');
  const secrets = target.password === undefined ? [] : [target.password, encodeURIComponent(target.password)];
  const message = redactText(errorMessage(err), secrets);
  if (code === 'ELOGIN') {
    if (/cannot open database/i.test(message)) {
      return new DatabaseError(
        `database "${database}" does not exist at ${where} or ${user} may not open it; create it (CREATE DATABASE ${database}) or name another in --db`,
      );
    }
    return new DatabaseError(
      `login failed for ${user} at ${where}; correct the user and password in --db (or SQLCMDUSER/SQLCMDPASSWORD)`,
    );
  }
  if (/ECONNREFUSED/.test(message)) {
    return new DatabaseError(
      `cannot connect to SQL Server at ${where}: connection refused; start the server or correct --db`,
    );
  }
  if (/ENOTFOUND|EAI_AGAIN/.test(message)) {
    return new DatabaseError(`cannot resolve the host in ${target.safeUrl}; correct the host name in --db`);
  }
  if (/certificate|self[- ]signed/i.test(message)) {
    return new DatabaseError(
      `the TLS certificate of ${where} is not trusted (${message}); give the server a trusted certificate, or add ?trustServerCertificate=true to --db if you trust it`,
    );
  }
  if (code === 'ETIMEOUT') {
    return new DatabaseError(
      `timed out connecting to SQL Server at ${where}; check the host, port and firewall (or raise ?connectTimeout=)`,
    );
  }
  if (code === 'EINSTLOOKUP') {
    return new DatabaseError(
      `cannot find instance ${target.instanceName ?? ''} on ${target.server}: ${message}; check that the SQL Server Browser runs, or give the port instead of instanceName`,
    );
  }
  return new DatabaseError(
    `cannot use SQL Server at ${target.safeUrl}: ${message}${code ? ` (${code})` : ''}`,
  );
}
