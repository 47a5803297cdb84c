/**
 * mysql2 pools and connections from a txbench URL. This is the only module that loads mysql2, and
 * only when the first connection is opened: importing the dialect costs nothing.
 */
import { connect, isIP, type Socket } from 'node:net';
import { readFileSync } from 'node:fs';
import type { Connection, ConnectionOptions, Pool, SslOptions } from 'mysql2/promise';
import { DatabaseError, UsageError } from '../../errors.js';
import { describeConnectionError, parseServerVersion, versionProblem, type ServerVersion } from './errors.js';
import { parseMysqlUrl, serverAddress, type MysqlSettings, type MysqlTls } from './url.js';

export type { Connection, Pool };

/** mysql2's options for the settings a URL gave; `extra` adds per-use options (multi-statements, LOCAL INFILE). */
export function connectionOptions(s: MysqlSettings, extra: ConnectionOptions = {}): ConnectionOptions {
  return {
    host: s.host,
    port: s.port,
    socketPath: s.socketPath,
    user: s.user,
    password: s.password,
    database: s.database,
    ssl: s.tls === undefined ? undefined : sslOptions(s.tls),
    connectTimeout: s.connectTimeoutMs,
    // Money stays exact: DECIMAL arrives as a string; dates as text, which nothing here parses.
    decimalNumbers: false,
    dateStrings: true,
    supportBigNumbers: true,
    charset: 'utf8mb4',
    // No call-site stack captured per query (mysql2's default): it cost about a tenth of the client's
    // CPU on the run path, and txbench reports errors in one line, never with a stack.
    trace: false,
    ...(s.tls?.verifyHostname === true && s.socketPath === undefined && isIP(s.host) !== 0
      ? { stream: () => socketNamingIp(s.host, s.port) }
      : {}),
    ...extra,
  };
}

/**
 * A TCP socket to an IP address that TLS checks the certificate against. mysql2 3.24 gives Node
 * no server name for an IP host, and Node then checks the certificate against "localhost": a
 * certificate for localhost passed for 127.0.0.1 (or for any address). Node takes the name to
 * check from the socket's `_host` when none is given, which net leaves unset for an address.
 */
function socketNamingIp(host: string, port: number): Socket {
  const socket = connect(port, host);
  Object.assign(socket, { _host: host });
  socket.once('connect', () => socket.setKeepAlive(true));
  return socket;
}

function sslOptions(tls: MysqlTls): SslOptions {
  const read = (file: string | undefined, what: string): Buffer | undefined => {
    if (file === undefined) return undefined;
    try {
      return readFileSync(file);
    } catch (err) {
      throw new UsageError(`cannot read the TLS ${what} file ${file}: ${(err as Error).message}`);
    }
  };
  return {
    rejectUnauthorized: tls.verifyCertificate,
    verifyIdentity: tls.verifyHostname,
    ca: read(tls.caFile, 'CA'),
    cert: read(tls.certFile, 'certificate'),
    key: read(tls.keyFile, 'key'),
  };
}

type Driver = typeof import('mysql2/promise');

/** mysql2, loaded on first use: Node's module cache makes every later import cheap, so nothing here keeps it. */
async function mysql2(): Promise<Driver> {
  const m = await import('mysql2/promise');
  return (m as { default?: Driver }).default ?? m;
}

/** A lazy pool of `size` connections (the URL's pool_size wins). */
export async function openPool(s: MysqlSettings, size: number, extra: ConnectionOptions = {}): Promise<Pool> {
  const mysql = await mysql2();
  return mysql.createPool({
    ...connectionOptions(s, extra),
    connectionLimit: s.poolSize ?? size,
    waitForConnections: true,
    maxIdle: s.poolSize ?? size,
    idleTimeout: 0,
    queueLimit: 0,
  });
}

/** One connection, open, or a one-line DatabaseError saying why not. */
export async function openConnection(s: MysqlSettings, extra: ConnectionOptions = {}): Promise<Connection> {
  const mysql = await mysql2();
  const options = connectionOptions(s, extra);
  let conn: Connection;
  try {
    conn = await mysql.createConnection(options);
  } catch (err) {
    throw describeConnectionError(err, s);
  }
  // A connection that dies while idle emits 'error', which would end the process unheard; the
  // next statement on it fails with a fatal error instead, which the caller classifies.
  conn.on('error', () => undefined);
  return conn;
}

/** Checks the server is a MySQL 8.0+ or MariaDB 10.5+ and says which one it is. */
export async function checkServer(
  run: (sql: string) => Promise<unknown>,
  s: MysqlSettings,
): Promise<ServerVersion> {
  let text: string;
  try {
    const rows = (await run('select version() as v')) as { v?: unknown }[];
    text = String(rows[0]?.v ?? '');
  } catch (err) {
    throw describeConnectionError(err, s);
  }
  const version = parseServerVersion(text);
  const problem = versionProblem(version, serverAddress(s));
  if (problem) throw problem;
  return version;
}

/** Opens a pool, proves it works with one round trip and checks the server's kind and version. */
export async function connectChecked(
  url: string,
  size: number,
): Promise<{ pool: Pool; settings: MysqlSettings }> {
  const settings = parseMysqlUrl(url);
  const pool = await openPool(settings, size);
  try {
    await checkServer(async (sql) => (await pool.query(sql))[0], settings);
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw err instanceof DatabaseError || err instanceof UsageError
      ? err
      : describeConnectionError(err, settings);
  }
  return { pool, settings };
}
