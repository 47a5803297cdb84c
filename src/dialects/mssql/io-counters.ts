/**
 * SQL Server's own I/O counters for monitoring, from sys.dm_io_virtual_file_stats for the files of
 * the current database, cumulative since the server started (or the database came online). Per
 * file, keyed by its logical name (sys.database_files.name):
 *
 * - `file.<name>.reads`, `file.<name>.writes`: read and write operations (num_of_reads,
 *   num_of_writes).
 * - `file.<name>.readBytes`, `file.<name>.writtenBytes`: bytes read and written
 *   (num_of_bytes_read, num_of_bytes_written).
 * - `file.<name>.readStallMs`, `file.<name>.writeStallMs`: milliseconds users waited for those
 *   reads and writes, summed over the I/Os (io_stall_read_ms, io_stall_write_ms), so the stall
 *   per I/O is stall ms / operations.
 *
 * and the same six summed over the data files (type ROWS) as `dataReads`, `dataWrites`,
 * `dataReadBytes`, `dataWrittenBytes`, `dataReadStallMs`, `dataWriteStallMs`, and over the log
 * files as `logReads`, `logWrites`, `logReadBytes`, `logWrittenBytes`, `logReadStallMs`,
 * `logWriteStallMs`. Reading the view needs VIEW SERVER STATE (VIEW SERVER PERFORMANCE STATE
 * from SQL Server 2022).
 */
import type { Db } from '../dialect.js';

export const IO_COUNTERS_SQL = `select f.name as file_name, f.type_desc as file_type,
    s.num_of_reads as reads, s.num_of_writes as writes,
    s.num_of_bytes_read as read_bytes, s.num_of_bytes_written as written_bytes,
    s.io_stall_read_ms as read_stall_ms, s.io_stall_write_ms as write_stall_ms
  from sys.dm_io_virtual_file_stats(db_id(), null) as s
  join sys.database_files as f on f.file_id = s.file_id`;

/** Counter suffix → the statement's column (the driver returns bigint columns as strings). */
const FIGURES = {
  reads: 'reads',
  writes: 'writes',
  readBytes: 'read_bytes',
  writtenBytes: 'written_bytes',
  readStallMs: 'read_stall_ms',
  writeStallMs: 'write_stall_ms',
} as const;

/** The prefix of the totals a file type adds to; other types (FILESTREAM…) are per file only. */
const TOTAL_PREFIX: Readonly<Record<string, 'data' | 'log'>> = { ROWS: 'data', LOG: 'log' };

const capitalized = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/** The counters of the statement's rows: per file, and totals per file type. */
export function mssqlIoCountersOf(
  rows: readonly Readonly<Record<string, unknown>>[],
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const row of rows) {
    const file = String(row.file_name);
    const prefix = TOTAL_PREFIX[String(row.file_type).toUpperCase()];
    for (const [figure, column] of Object.entries(FIGURES)) {
      const n = Number(row[column]);
      if (row[column] === null || row[column] === undefined || !Number.isFinite(n)) continue;
      out[`file.${file}.${figure}`] = n;
      if (prefix !== undefined) {
        const total = `${prefix}${capitalized(figure)}`;
        out[total] = (out[total] ?? 0) + n;
      }
    }
  }
  return out;
}

export async function mssqlIoCounters(db: Db): Promise<Record<string, number>> {
  return mssqlIoCountersOf(await db.query(IO_COUNTERS_SQL));
}
