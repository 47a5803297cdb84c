/**
 * MySQL/MariaDB errors as the engine counts them, and connection failures as one line that says
 * what to do. mysql2 puts the server's error number in `errno` and a name in `code`; failures of
 * the connection itself carry Node's or mysql2's codes and `fatal: true`.
 */
import type { ErrorClass } from '../../engine/types.js';
import { DatabaseError, errorMessage } from '../../errors.js';
import { redactText } from '../../util/redact.js';
import { serverAddress, type MysqlSettings } from './url.js';

interface ErrorFields {
  code?: unknown;
  errno?: unknown;
  fatal?: unknown;
  sqlMessage?: unknown;
}

function fieldsOf(err: unknown): ErrorFields {
  return typeof err === 'object' && err !== null ? (err as ErrorFields) : {};
}

/** Server error numbers: deadlock, lock wait timeout, write conflicts, lost connections, constraints. */
export const ER = {
  DEADLOCK: 1213,
  LOCK_WAIT_TIMEOUT: 1205,
  /** MariaDB 11.6+ with innodb_snapshot_isolation: "Record has changed since last read". */
  CHECKREAD: 1020,
  /** TiDB's optimistic write conflict. */
  TIDB_WRITE_CONFLICT: 9007,
  DUP_ENTRY: 1062,
  BAD_NULL: 1048,
  ROW_IS_REFERENCED: 1451,
  NO_REFERENCED_ROW: 1452,
  CHECK_CONSTRAINT: 3819,
  MARIADB_CONSTRAINT_FAILED: 4025,
  SERVER_SHUTDOWN: 1053,
  CONNECTION_KILLED: 1927,
  TOO_MANY_CONNECTIONS: 1040,
  SERVER_GONE: 2006,
  SERVER_LOST: 2013,
  BAD_DB: 1049,
  ACCESS_DENIED: 1045,
  DB_ACCESS_DENIED: 1044,
  TABLE_ACCESS_DENIED: 1142,
  PROC_ACCESS_DENIED: 1370,
  /** "You need (at least one of) the SUPER privilege(s)…". */
  SPECIFIC_ACCESS_DENIED: 1227,
  BINLOG_ROUTINE_NEEDS_SUPER: 1419,
  SP_ALREADY_EXISTS: 1304,
  /** "Variable … is a read only variable" (SET GLOBAL of a startup-only setting). */
  READ_ONLY_VARIABLE: 1238,
  /** LOAD DATA LOCAL refused: MariaDB/older MySQL, MySQL 8, MariaDB's capability error. */
  LOCAL_INFILE_REFUSED: [1148, 3948, 4166] as readonly number[],
} as const;

const CONNECTION_CODES =
  /^(PROTOCOL_CONNECTION_LOST|PROTOCOL_SEQUENCE_TIMEOUT|PROTOCOL_ENQUEUE_AFTER_(FATAL_ERROR|QUIT)|ECONN|EPIPE|ETIMEDOUT|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|ER_SERVER_SHUTDOWN|ER_CONNECTION_KILLED|CR_SERVER)/;

/** Maps mysql2 errors to the classes the engine counts. */
export function classifyMysqlError(err: unknown): ErrorClass {
  const { code, errno, fatal } = fieldsOf(err);
  const n = typeof errno === 'number' ? errno : -1;
  if (n === ER.DEADLOCK) return 'deadlock';
  if (n === ER.LOCK_WAIT_TIMEOUT) return 'lockTimeout';
  if (n === ER.CHECKREAD || n === ER.TIDB_WRITE_CONFLICT) return 'conflict';
  if (
    n === ER.SERVER_SHUTDOWN ||
    n === ER.CONNECTION_KILLED ||
    n === ER.SERVER_GONE ||
    n === ER.SERVER_LOST ||
    n === ER.TOO_MANY_CONNECTIONS
  )
    return 'connection';
  if (typeof code === 'string' && CONNECTION_CODES.test(code)) return 'connection';
  if (fatal === true) return 'connection';
  if (
    n === ER.DUP_ENTRY ||
    n === ER.BAD_NULL ||
    n === ER.ROW_IS_REFERENCED ||
    n === ER.NO_REFERENCED_ROW ||
    n === ER.CHECK_CONSTRAINT ||
    n === ER.MARIADB_CONSTRAINT_FAILED
  )
    return 'constraint';
  return 'other';
}

/**
 * The server cannot do its work at all: a table full (1114 ER_RECORD_FILE_FULL, what InnoDB says
 * when its tablespace cannot grow), the disk full (1021 ER_DISK_FULL), a failed write (1026
 * ER_ERROR_ON_WRITE), or the storage engine's OS error 28 (ENOSPC, 1030 ER_GET_ERRNO).
 */
export function isMysqlServerFault(err: unknown): boolean {
  const { errno, sqlMessage } = fieldsOf(err);
  if (errno === 1114 || errno === 1021 || errno === 1026) return true;
  return errno === 1030 && typeof sqlMessage === 'string' && /\berror 28\b/.test(sqlMessage);
}

export function isRetryable(cls: ErrorClass): boolean {
  return cls === 'conflict' || cls === 'deadlock' || cls === 'lockTimeout';
}

export function errnoOf(err: unknown): number | undefined {
  const { errno } = fieldsOf(err);
  return typeof errno === 'number' ? errno : undefined;
}

/** One line that says what went wrong reaching the server and what to do about it. */
export function describeConnectionError(err: unknown, s: MysqlSettings): DatabaseError {
  const where = serverAddress(s);
  const { code } = fieldsOf(err);
  const n = errnoOf(err);
  const detail = redactText(errorMessage(err), s.secrets);
  if (n === ER.ACCESS_DENIED) {
    return new DatabaseError(
      `access denied for ${s.user} at ${where}${s.password === undefined ? ' (no password given)' : ''}; correct the user and password in --db or MYSQL_PWD`,
    );
  }
  if (n === ER.BAD_DB) {
    return new DatabaseError(
      `database "${s.database}" does not exist at ${where}; create it (create database ${s.database}) or name another in --db`,
    );
  }
  if (n === ER.DB_ACCESS_DENIED) {
    return new DatabaseError(
      `${s.user} may not use database "${s.database}" at ${where} (it does not exist, or ${s.user} has no privileges on it); create it and grant all on ${s.database}.* to ${s.user}, or name another in --db`,
    );
  }
  if (n === ER.TOO_MANY_CONNECTIONS) {
    return new DatabaseError(
      `the server at ${where} has too many connections; raise max_connections or use fewer --connections`,
    );
  }
  switch (code) {
    case 'ECONNREFUSED':
      return new DatabaseError(
        `cannot connect to MySQL/MariaDB at ${where}: connection refused; start the server or correct --db`,
      );
    case 'ENOENT':
      return new DatabaseError(`no MySQL/MariaDB socket at ${where}; start the server or correct --db`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new DatabaseError(`cannot resolve the host in ${s.safeUrl}; correct the host name in --db`);
    case 'ETIMEDOUT':
      return new DatabaseError(
        `timed out connecting to ${where}; check the host, the port, the firewall and that it is a MySQL or MariaDB server`,
      );
    case 'HANDSHAKE_NO_SSL_SUPPORT':
      return new DatabaseError(
        `the server at ${where} does not offer TLS; drop sslmode/ssl from --db or enable TLS on the server`,
      );
    case 'PROTOCOL_CONNECTION_LOST':
    case 'ECONNRESET':
      return new DatabaseError(
        `the server at ${where} closed the connection during the handshake; check that it is a MySQL or MariaDB server and its TLS settings (${detail})`,
      );
  }
  if (/certificate|self[- ]signed|SSL|TLS/i.test(detail)) {
    return new DatabaseError(
      `TLS to ${where} failed: ${detail}; give the CA with sslca=FILE, or use sslmode=require to encrypt without verifying`,
    );
  }
  return new DatabaseError(
    `cannot use MySQL/MariaDB at ${s.safeUrl}: ${detail}${typeof code === 'string' ? ` (${code})` : ''}`,
  );
}

export interface ServerVersion {
  product: 'MariaDB' | 'MySQL' | 'TiDB';
  version: string;
  major: number;
  minor: number;
}

/** Reads `select version()`: "10.11.6-MariaDB-0+deb12u1", "8.0.36", "8.0.11-TiDB-v7.5.0". */
export function parseServerVersion(text: string): ServerVersion {
  const tidb = /TiDB-v?(\d+)\.(\d+)[\w.-]*/i.exec(text);
  if (tidb) {
    return {
      product: 'TiDB',
      version: tidb[0].replace(/^TiDB-v?/i, ''),
      major: Number(tidb[1]),
      minor: Number(tidb[2]),
    };
  }
  const m = /^(?:5\.5\.5-)?(\d+)\.(\d+)(?:\.(\d+))?/.exec(text);
  const major = Number(m?.[1] ?? 0);
  const minor = Number(m?.[2] ?? 0);
  const version = m ? `${m[1]}.${m[2]}${m[3] !== undefined ? `.${m[3]}` : ''}` : text;
  return { product: /mariadb/i.test(text) ? 'MariaDB' : 'MySQL', version, major, minor };
}

/** MySQL 8.0 brought window functions, SKIP LOCKED and LOAD DATA's current form; MariaDB 10.5 the same set. */
export const MINIMUM_VERSIONS: Readonly<Record<ServerVersion['product'], [number, number]>> = {
  MariaDB: [10, 5],
  MySQL: [8, 0],
  TiDB: [6, 0],
};

/** A one-line error when the server is too old for txbench, undefined when it will do. */
export function versionProblem(v: ServerVersion, where: string): DatabaseError | undefined {
  const [major, minor] = MINIMUM_VERSIONS[v.product];
  if (v.major > major || (v.major === major && v.minor >= minor)) return undefined;
  return new DatabaseError(
    `${v.product} ${v.version} at ${where} is too old: txbench needs MySQL 8.0 or later, or MariaDB 10.5 or later`,
  );
}
