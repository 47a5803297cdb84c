/**
 * The dialects' I/O counters without a server: the PostgreSQL statement for each layout of its
 * statistics views, the row → counter mappings, SQLite's WAL header, and SQL Server's per-file
 * figures and totals (no server here; test/integration/io-counters.test.ts runs the others live).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { IO_COUNTERS_SQL, mssqlIoCountersOf } from '../../src/dialects/mssql/io-counters.js';
import { mssqlDialect } from '../../src/dialects/mssql/dialect.js';
import { MYSQL_IO_STATUS, mysqlIoCountersOf } from '../../src/dialects/mysql/io-counters.js';
import { mysqlDialect } from '../../src/dialects/mysql/dialect.js';
import { postgresIoCountersOf, postgresIoCountersSql } from '../../src/dialects/postgres/io-counters.js';
import { postgresDialect } from '../../src/dialects/postgres/dialect.js';
import { sqliteWalCounters, walHeaderCheckpoints } from '../../src/dialects/sqlite/io-counters.js';
import { sqliteDialect } from '../../src/dialects/sqlite/dialect.js';

const POSTGRES_COLUMNS = [
  'wal_bytes',
  'blocks_read',
  'blocks_hit',
  'checkpoints',
  'checkpoint_write_ms',
  'checkpoint_sync_ms',
  'buffers_checkpoint',
  'buffers_bgwriter',
  'buffers_backend',
];

describe('every dialect', () => {
  it('has I/O counters', () => {
    for (const dialect of [postgresDialect, mysqlDialect, sqliteDialect, mssqlDialect])
      expect(typeof dialect.ioCounterReader, dialect.name).toBe('function');
  });
});

describe('PostgreSQL I/O counters', () => {
  it('reads every counter, as a float8, on every layout of the statistics views', () => {
    for (const version of [130012, 150013, 160004, 170006, 180001]) {
      const sql = postgresIoCountersSql(version);
      for (const column of POSTGRES_COLUMNS)
        expect(sql, `${version} ${column}`).toContain(`::float8 as ${column}`);
    }
  });

  it('reads checkpoints and backend writes from pg_stat_bgwriter up to 16', () => {
    const sql = postgresIoCountersSql(150013);
    expect(sql).toContain('checkpoints_timed + checkpoints_req');
    expect(sql).toContain('buffers_backend from pg_stat_bgwriter');
    expect(sql).toContain('buffers_checkpoint from pg_stat_bgwriter');
    expect(sql).toContain('from pg_stat_wal');
    expect(sql).not.toContain('pg_stat_checkpointer');
    expect(sql).not.toContain('pg_stat_io');
  });

  it('reads them from pg_stat_checkpointer and pg_stat_io from 17, and counts only checkpoints done from 18', () => {
    const v17 = postgresIoCountersSql(170006);
    expect(v17).toContain('num_timed + num_requested');
    expect(v17).toContain('buffers_written from pg_stat_checkpointer');
    expect(v17).toMatch(/sum\(writes\) from pg_stat_io where object = 'relation' and backend_type not in/);
    expect(v17).toContain('buffers_clean from pg_stat_bgwriter');
    expect(v17).not.toMatch(/buffers_backend from|checkpoints_timed/);
    const v18 = postgresIoCountersSql(180001);
    expect(v18).toContain('num_done from pg_stat_checkpointer');
    expect(v18).toContain('sum(write_bytes)');
  });

  it('takes WAL bytes from the WAL position before pg_stat_wal existed (14)', () => {
    expect(postgresIoCountersSql(130012)).toContain("pg_current_wal_lsn() end, '0/0')");
    expect(postgresIoCountersSql(140000)).not.toContain('pg_current_wal_lsn');
  });

  it('maps a row to counters, leaving out what the server did not give', () => {
    expect(
      postgresIoCountersOf({
        wal_bytes: 123456,
        blocks_read: '10',
        blocks_hit: 90,
        checkpoints: 2,
        checkpoint_write_ms: 12.5,
        checkpoint_sync_ms: 0,
        buffers_checkpoint: 40,
        buffers_bgwriter: null,
        buffers_backend: 7,
      }),
    ).toEqual({
      walBytes: 123456,
      blocksRead: 10,
      blocksHit: 90,
      checkpoints: 2,
      checkpointWriteMs: 12.5,
      checkpointSyncMs: 0,
      buffersCheckpoint: 40,
      buffersBackend: 7,
    });
  });
});

describe('MySQL/MariaDB I/O counters', () => {
  it('maps SHOW GLOBAL STATUS rows to counters, whatever the case of the names', () => {
    const rows = [
      { Variable_name: 'Innodb_data_reads', Value: '179' },
      { Variable_name: 'INNODB_DATA_WRITES', Value: '12' },
      { Variable_name: 'Innodb_data_read', Value: '2785280' },
      { Variable_name: 'Innodb_data_written', Value: '196608' },
      { Variable_name: 'Innodb_os_log_written', Value: '2540908' },
      { Variable_name: 'Innodb_buffer_pool_reads', Value: '170' },
      { Variable_name: 'Innodb_buffer_pool_read_requests', Value: '32250' },
      { Variable_name: 'Innodb_pages_written', Value: '5' },
    ];
    expect(mysqlIoCountersOf(rows)).toEqual({
      dataReads: 179,
      dataWrites: 12,
      dataReadBytes: 2785280,
      dataWrittenBytes: 196608,
      logWrittenBytes: 2540908,
      bufferPoolReads: 170,
      bufferPoolReadRequests: 32250,
    });
  });

  it('leaves out a status variable the server does not have', () => {
    const counters = mysqlIoCountersOf([{ Variable_name: 'Innodb_data_reads', Value: '3' }]);
    expect(counters).toEqual({ dataReads: 3 });
    expect(Object.values(MYSQL_IO_STATUS)).toContain('Innodb_os_log_written');
  });
});

describe('SQLite I/O counters', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  function walHeader(magic: number, checkpoints: number): Buffer {
    const header = Buffer.alloc(32);
    header.writeUInt32BE(magic, 0);
    header.writeUInt32BE(3007000, 4);
    header.writeUInt32BE(4096, 8);
    header.writeUInt32BE(checkpoints, 12);
    return header;
  }

  it('reads the checkpoint sequence number of a WAL header in either byte order', () => {
    expect(walHeaderCheckpoints(walHeader(0x377f0682, 7))).toBe(7);
    expect(walHeaderCheckpoints(walHeader(0x377f0683, 4_000_000_000))).toBe(4_000_000_000);
  });

  it('refuses bytes that are not a WAL header', () => {
    expect(walHeaderCheckpoints(walHeader(0x12345678, 7))).toBeUndefined();
    expect(walHeaderCheckpoints(walHeader(0x377f0682, 7).subarray(0, 16))).toBeUndefined();
  });

  it('gives the WAL file size and its checkpoints, and 0 bytes when there is no WAL', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'txbench-wal-'));
    const file = path.join(dir, 'tpcc.db');
    expect(await sqliteWalCounters(file)).toEqual({ walBytes: 0 });
    await writeFile(`${file}-wal`, Buffer.concat([walHeader(0x377f0682, 5), Buffer.alloc(4120)]));
    expect(await sqliteWalCounters(file)).toEqual({ walBytes: 32 + 4120, checkpoints: 5 });
    await writeFile(`${file}-wal`, Buffer.alloc(10));
    expect(await sqliteWalCounters(file)).toEqual({ walBytes: 10 });
  });
});

describe('SQL Server I/O counters', () => {
  it('reads the current database files from sys.dm_io_virtual_file_stats', () => {
    expect(IO_COUNTERS_SQL).toContain('sys.dm_io_virtual_file_stats(db_id(), null)');
    expect(IO_COUNTERS_SQL).toContain('join sys.database_files as f on f.file_id = s.file_id');
    for (const column of [
      'num_of_reads',
      'num_of_writes',
      'num_of_bytes_read',
      'num_of_bytes_written',
      'io_stall_read_ms',
      'io_stall_write_ms',
    ])
      expect(IO_COUNTERS_SQL).toContain(`s.${column}`);
  });

  it('maps rows to per-file counters and totals per file type', () => {
    const row = (name: string, type: string, n: number): Record<string, unknown> => ({
      file_name: name,
      file_type: type,
      reads: String(n),
      writes: String(2 * n),
      read_bytes: String(8192 * n),
      written_bytes: String(8192 * 2 * n),
      read_stall_ms: String(3 * n),
      write_stall_ms: String(4 * n),
    });
    const counters = mssqlIoCountersOf([
      row('tpcc', 'ROWS', 10),
      row('tpcc_2', 'ROWS', 5),
      row('tpcc_log', 'LOG', 1),
      row('tpcc_fs', 'FILESTREAM', 100),
    ]);
    expect(counters['file.tpcc.reads']).toBe(10);
    expect(counters['file.tpcc_2.writtenBytes']).toBe(8192 * 10);
    expect(counters['file.tpcc_log.writeStallMs']).toBe(4);
    expect(counters['file.tpcc_fs.reads']).toBe(100);
    expect(counters.dataReads).toBe(15);
    expect(counters.dataWrites).toBe(30);
    expect(counters.dataReadBytes).toBe(8192 * 15);
    expect(counters.dataWrittenBytes).toBe(8192 * 30);
    expect(counters.dataReadStallMs).toBe(45);
    expect(counters.dataWriteStallMs).toBe(60);
    expect(counters.logWrites).toBe(2);
    expect(counters.logWrittenBytes).toBe(8192 * 2);
    expect(counters.logReadStallMs).toBe(3);
    expect(Object.keys(counters)).toHaveLength(4 * 6 + 2 * 6);
  });
});
