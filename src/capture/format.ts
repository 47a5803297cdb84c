/**
 * The workload file: what `txbench capture` writes and `txbench replay` reads (docs/workload-file.md).
 * NDJSON, one record a line, gzip-compressed when the name ends in `.gz`: a header first, then
 * sessions, statements and disconnects in the order the server logged them (a session's record
 * comes before its first statement), then a trailer with the capture's counts.
 */

/** The version this txbench writes and the newest it reads; it changes when a field's meaning does. */
export const WORKLOAD_VERSION = 1;
export const WORKLOAD_FORMAT = 'txbench-workload';

export type SourceKind = 'postgres' | 'mysql' | 'mssql';

export interface HeaderRecord {
  type: 'header';
  format: typeof WORKLOAD_FORMAT;
  version: number;
  source: {
    kind: SourceKind;
    /** Where the statements were read: csvlog, jsonlog, general_log, xevents. */
    from: string;
    /** The server's version where the capture knew it. */
    serverVersion?: string | undefined;
  };
  /** ISO time of offset 0. */
  captureStart: string;
  /** Literals and parameters were replaced by typed placeholders (`--redact-literals`). */
  redacted: boolean;
  /** The txbench version that wrote the file. */
  tool: string;
}

export interface SessionRecord {
  type: 'session';
  /** Unique within the file; statements name their session by it. */
  id: number;
  user: string | null;
  database: string | null;
  application: string | null;
  /** The session was already connected when the capture began: its start (and maybe its first statements) are missing. */
  startedBeforeCapture: boolean;
  /** Offset of the connection from the capture start, ms; null when it was not seen. */
  connectAtMs: number | null;
}

export type TxBoundary = 'begin' | 'commit' | 'rollback';

export interface StatementRecord {
  type: 'statement';
  session: number;
  /** When the statement started, ms after the capture start. */
  atMs: number;
  sql: string;
  /** Bind parameters as text (null for SQL NULL); absent for statements without any. */
  params?: (string | null)[] | undefined;
  /** Sent as a named prepared statement (extended protocol, server-side prepare). */
  prepared?: boolean | undefined;
  /** The original server-side duration, ms; null when the log did not say. */
  durationMs: number | null;
  /** `unknown` where the source does not record outcomes (MySQL's general log without performance_schema). */
  outcome: 'ok' | 'error' | 'unknown';
  /** SQLSTATE (PostgreSQL), error number (MySQL, SQL Server) and message of a failed statement. */
  error?: { code: string; message: string } | undefined;
  /** This statement opens or ends an explicit transaction. */
  tx?: TxBoundary | undefined;
}

export interface DisconnectRecord {
  type: 'disconnect';
  session: number;
  atMs: number;
}

/** What the capture could not take as it was: each a count, zero when all went well. */
export interface CaptureCounts {
  sessions: number;
  statements: number;
  /** Sessions already connected when the capture began (their first statements may be missing). */
  sessionsBeforeCapture: number;
  /** Log records that could not be read: a truncated last line, a damaged record. */
  unreadableRecords: number;
  /** Log records of other kinds (checkpoints, autovacuum, background workers), skipped. */
  otherRecords: number;
  /** Failed statements whose bind parameters the log did not record (replayed without them). */
  errorsWithoutParameters: number;
}

export interface TrailerRecord {
  type: 'trailer';
  counts: CaptureCounts;
  /** Offset of the last record, ms: the capture's length. */
  endMs: number;
}

export type WorkloadRecord =
  HeaderRecord | SessionRecord | StatementRecord | DisconnectRecord | TrailerRecord;

export function emptyCounts(): CaptureCounts {
  return {
    sessions: 0,
    statements: 0,
    sessionsBeforeCapture: 0,
    unreadableRecords: 0,
    otherRecords: 0,
    errorsWithoutParameters: 0,
  };
}
