import postgres from 'postgres';
import { DatabaseError, errorMessage } from '../../errors.js';
import { redactText, redactUrl } from '../../util/redact.js';
import { builtInArrayTypes } from './array-types.js';
import type { SocketJar } from './sockets.js';
import { postgresTls } from './tls.js';

export type Sql = postgres.Sql;

export interface ConnectOptions {
  /** Pool size. */
  max: number;
  /** Seconds to wait for a connection before giving up. */
  connectTimeoutS?: number | undefined;
  /** Called whenever one of the pool's connections closes. */
  onclose?: (() => void) | undefined;
  /** Opens the pool's sockets and keeps them, so that they can all be destroyed (sockets.ts). */
  sockets?: SocketJar | undefined;
}

/**
 * Opens a lazy postgres.js pool; statements are prepared once per connection and reused. Its
 * `reserve()` runs a query first: without the type lookup, postgres.js 3.4.9 never settles a
 * `reserve()` that has to open its connection (porsager/postgres#751), and a caller should not
 * have to know that.
 */
export function connect(url: string, options: ConnectOptions): Sql {
  const sql = openPool(url, options);
  const reserve = sql.reserve.bind(sql);
  sql.reserve = async () => {
    await sql`select 1`;
    return reserve();
  };
  return sql;
}

function openPool(url: string, options: ConnectOptions): Sql {
  const tls = postgresTls(url);
  return postgres(tls.url, {
    max: options.max,
    prepare: true,
    connect_timeout: options.connectTimeoutS ?? 10,
    idle_timeout: 0,
    onnotice: () => undefined,
    ...(options.onclose ? { onclose: options.onclose } : {}),
    ...(tls.ssl ? { ssl: tls.ssl } : {}),
    // postgres.js takes a socket factory (`socket`) that its type declarations leave out.
    ...(options.sockets ? ({ socket: options.sockets.open } as object) : {}),
    // No pg_type lookup on each new connection (array-types.ts): the array types are given.
    // Money stays exact: numerics come back as strings and are parsed where arithmetic needs them.
    fetch_types: false,
    types: builtInArrayTypes(),
  });
}

/** Opens a pool and proves it works with one round trip, translating failures into one line. */
export async function connectChecked(url: string, options: ConnectOptions): Promise<Sql> {
  const sql = connect(url, options);
  try {
    await sql`select 1`;
  } catch (err) {
    await sql.end({ timeout: 0 }).catch(() => undefined);
    throw describeConnectionError(err, url);
  }
  return sql;
}

interface ErrorFields {
  code?: unknown;
  errno?: unknown;
  message?: unknown;
}

/** One line that says what went wrong reaching the server and what to do about it. */
export function describeConnectionError(err: unknown, url: string): DatabaseError {
  const safe = redactUrl(url);
  const parsed = safeParse(url);
  const where = parsed ? `${parsed.hostname || 'localhost'}:${parsed.port || '5432'}` : safe;
  const user = parsed ? decodeURIComponent(parsed.username) || 'the default user' : 'the user';
  const database = parsed ? parsed.pathname.replace(/^\//, '') || 'the default database' : 'the database';
  const fields: ErrorFields = typeof err === 'object' && err !== null ? err : {};
  const code = String(fields.code ?? '');
  const secrets = parsed?.password ? [parsed.password, decodeURIComponent(parsed.password)] : [];
  if (/^ERR_TLS_|^ERR_SSL_|CERT|SIGNATURE|SELF_SIGNED/.test(code)) {
    return new DatabaseError(
      `TLS to PostgreSQL at ${where} failed: ${redactText(errorMessage(err), secrets)}; give the CA with sslrootcert=FILE and the host name the certificate names, or use sslmode=require to encrypt without verifying`,
    );
  }
  switch (code) {
    case 'ECONNREFUSED':
      return new DatabaseError(
        `cannot connect to PostgreSQL at ${where}: connection refused; start the server or correct --db`,
      );
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new DatabaseError(`cannot resolve the host in ${safe}; correct the host name in --db`);
    case 'CONNECT_TIMEOUT':
    case 'ETIMEDOUT':
      return new DatabaseError(
        `timed out connecting to PostgreSQL at ${where}; check the host, port and firewall`,
      );
    case '28P01':
      return new DatabaseError(
        `password authentication failed for ${user} at ${where}; correct the password in --db or PGPASSWORD`,
      );
    case '28000':
      return new DatabaseError(
        `PostgreSQL at ${where} refused ${user}: ${redactText(errorMessage(err), secrets)}; allow it in pg_hba.conf`,
      );
    case '3D000':
      return new DatabaseError(
        `database "${database}" does not exist at ${where}; create it (createdb ${database}) or name another in --db`,
      );
    default:
      return new DatabaseError(
        `cannot use PostgreSQL at ${safe}: ${redactText(errorMessage(err), secrets)}${code ? ` (${code})` : ''}`,
      );
  }
}

function safeParse(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}
