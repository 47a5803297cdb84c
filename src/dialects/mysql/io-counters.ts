/**
 * InnoDB's own I/O counters for monitoring, from SHOW GLOBAL STATUS, cumulative since the server
 * started (the whole server, not one schema):
 *
 * - dataReads, dataWrites: read and write operations on InnoDB's files (Innodb_data_reads,
 *   Innodb_data_writes).
 * - dataReadBytes, dataWrittenBytes: bytes read and written by them (Innodb_data_read,
 *   Innodb_data_written).
 * - logWrittenBytes: bytes written to the redo log (Innodb_os_log_written).
 * - bufferPoolReads: page reads that missed the buffer pool and went to the files
 *   (Innodb_buffer_pool_reads); bufferPoolReadRequests: logical page reads
 *   (Innodb_buffer_pool_read_requests), so their ratio is the miss rate.
 *
 * A status variable the server does not have is left out.
 */
import type { Db } from '../dialect.js';

/** Counter name → the status variable it reads. */
export const MYSQL_IO_STATUS: Readonly<Record<string, string>> = {
  dataReads: 'Innodb_data_reads',
  dataWrites: 'Innodb_data_writes',
  dataReadBytes: 'Innodb_data_read',
  dataWrittenBytes: 'Innodb_data_written',
  logWrittenBytes: 'Innodb_os_log_written',
  bufferPoolReads: 'Innodb_buffer_pool_reads',
  bufferPoolReadRequests: 'Innodb_buffer_pool_read_requests',
};

/** The counters from SHOW GLOBAL STATUS rows (variable names compared without case). */
export function mysqlIoCountersOf(
  rows: readonly { Variable_name: string; Value: unknown }[],
): Record<string, number> {
  const byVariable = new Map(rows.map((r) => [r.Variable_name.toLowerCase(), r.Value]));
  const out: Record<string, number> = {};
  for (const [name, variable] of Object.entries(MYSQL_IO_STATUS)) {
    const value = byVariable.get(variable.toLowerCase());
    if (value === null || value === undefined || value === '') continue;
    const n = Number(value);
    if (Number.isFinite(n)) out[name] = n;
  }
  return out;
}

export async function mysqlIoCounters(db: Db): Promise<Record<string, number>> {
  const variables = Object.values(MYSQL_IO_STATUS);
  const rows = await db.query<{ Variable_name: string; Value: unknown }>(
    `show global status where variable_name in (${variables.map(() => '?').join(', ')})`,
    variables,
  );
  return mysqlIoCountersOf(rows);
}
