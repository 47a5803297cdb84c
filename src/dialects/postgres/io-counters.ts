/**
 * PostgreSQL's own I/O counters for monitoring, all cumulative since the statistics were last
 * reset (pg_stat_reset_shared, or a crash), read in one statement:
 *
 * - walBytes: bytes of WAL generated (pg_stat_wal.wal_bytes from 14; before it, the WAL position
 *   pg_current_wal_lsn() - '0/0', or the replayed position on a standby).
 * - blocksRead: blocks of this database read from outside shared buffers (the OS cache or the
 *   disk), pg_stat_database.blks_read; blocksHit: blocks found in shared buffers, blks_hit.
 * - checkpoints: checkpoints performed. From 18, pg_stat_checkpointer.num_done; on 17 (num_timed
 *   + num_requested) and before (pg_stat_bgwriter checkpoints_timed + checkpoints_req) the server
 *   also counts timed checkpoints it skipped because nothing had changed.
 * - checkpointWriteMs, checkpointSyncMs: milliseconds checkpoints spent writing files and
 *   syncing them to disk (write_time and sync_time, from pg_stat_checkpointer from 17).
 * - buffersCheckpoint, buffersBgwriter, buffersBackend: shared buffers (block_size bytes each,
 *   8 KiB unless the server was built otherwise) written by the checkpointer, by the background
 *   writer, and by every other process (client backends, autovacuum…). Up to 16 pg_stat_bgwriter
 *   holds all three; 17 moved the first to pg_stat_checkpointer and dropped the last, which is
 *   then summed from pg_stat_io's relation writes by those other processes.
 *
 * Backends flush their statistics about once a second, so the pg_stat figures lag a little.
 */
import type { Db } from '../dialect.js';

/** Counter name → the column of the statement that reads it. */
const COLUMNS = {
  walBytes: 'wal_bytes',
  blocksRead: 'blocks_read',
  blocksHit: 'blocks_hit',
  checkpoints: 'checkpoints',
  checkpointWriteMs: 'checkpoint_write_ms',
  checkpointSyncMs: 'checkpoint_sync_ms',
  buffersCheckpoint: 'buffers_checkpoint',
  buffersBgwriter: 'buffers_bgwriter',
  buffersBackend: 'buffers_backend',
} as const;

type Column = (typeof COLUMNS)[keyof typeof COLUMNS];

/** The statement reading every counter on a server of this `server_version_num`. */
export function postgresIoCountersSql(serverVersionNum: number): string {
  const v = serverVersionNum;
  const database = (column: string): string =>
    `(select ${column} from pg_stat_database where datname = current_database())`;
  const checkpointer = (column: string): string => `(select ${column} from pg_stat_checkpointer)`;
  const bgwriter = (column: string): string => `(select ${column} from pg_stat_bgwriter)`;
  // pg_stat_io counts write operations; 18 may write several blocks in one, so it counts bytes.
  const backendWrites =
    v >= 180000 ? `sum(write_bytes) / current_setting('block_size')::numeric` : 'sum(writes)';
  const expressions: Record<Column, string> = {
    wal_bytes:
      v >= 140000
        ? '(select wal_bytes from pg_stat_wal)'
        : "pg_wal_lsn_diff(case when pg_is_in_recovery() then pg_last_wal_replay_lsn() else pg_current_wal_lsn() end, '0/0')",
    blocks_read: database('blks_read'),
    blocks_hit: database('blks_hit'),
    checkpoints:
      v >= 180000
        ? checkpointer('num_done')
        : v >= 170000
          ? checkpointer('num_timed + num_requested')
          : bgwriter('checkpoints_timed + checkpoints_req'),
    checkpoint_write_ms: v >= 170000 ? checkpointer('write_time') : bgwriter('checkpoint_write_time'),
    checkpoint_sync_ms: v >= 170000 ? checkpointer('sync_time') : bgwriter('checkpoint_sync_time'),
    buffers_checkpoint: v >= 170000 ? checkpointer('buffers_written') : bgwriter('buffers_checkpoint'),
    buffers_bgwriter: bgwriter('buffers_clean'),
    buffers_backend:
      v >= 170000
        ? `(select ${backendWrites} from pg_stat_io where object = 'relation' and backend_type not in ('checkpointer', 'background writer'))`
        : bgwriter('buffers_backend'),
  };
  // float8: postgres.js hands bigint and numeric over as strings, float8 as numbers.
  const list = Object.entries(expressions).map(([column, e]) => `(${e})::float8 as ${column}`);
  return `select ${list.join(',\n  ')}`;
}

/** The counters of one row of that statement; a NULL (a view without the figure) is left out. */
export function postgresIoCountersOf(row: Readonly<Record<string, unknown>>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, column] of Object.entries(COLUMNS)) {
    const value = row[column];
    if (value === null || value === undefined) continue;
    const n = Number(value);
    if (Number.isFinite(n)) out[name] = n;
  }
  return out;
}

/** Reads the counters over `db`, with the statement built once from its server's version. */
export function postgresIoCounterReader(db: Db): () => Promise<Record<string, number>> {
  let statement: Promise<string> | undefined;
  return async () => {
    if (statement === undefined) {
      const asked = db
        .query<{ v: string }>(`select current_setting('server_version_num') as v`)
        .then(([row]) => postgresIoCountersSql(Number(row?.v ?? 0)));
      // A failure is not kept: the next interval asks again.
      asked.catch(() => {
        if (statement === asked) statement = undefined;
      });
      statement = asked;
    }
    const [row] = await db.query(await statement);
    return row === undefined ? {} : postgresIoCountersOf(row);
  };
}
