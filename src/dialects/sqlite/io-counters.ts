/**
 * SQLite keeps no I/O statistics, so monitoring reads its write-ahead log file instead:
 *
 * - walBytes: the size of the `-wal` file in bytes (0 when there is none). Unlike the server
 *   dialects' counters this is a level, not a running total: the file grows until a checkpoint
 *   lets SQLite write it again from the start, and keeps its size after that (txbench sets no
 *   journal_size_limit), so its growth in an interval is not the WAL written in it.
 * - checkpoints: the checkpoint sequence number in the WAL file's header (bytes 12–15), which
 *   SQLite raises each time a checkpoint has copied the whole log back and the log starts over.
 *   It counts those completed checkpoints, not PRAGMA wal_checkpoint calls (txbench makes none
 *   during a run). It starts from 0 whenever SQLite creates the WAL file anew (after the last
 *   connection closes), is written when the first frame after a restart is, and is absent
 *   while there is no WAL file.
 */
import { open, type FileHandle } from 'node:fs/promises';
import type { Db } from '../dialect.js';

const WAL_HEADER_BYTES = 32;
/** The WAL magic number; its last bit gives the checksums' byte order. */
const WAL_MAGIC = 0x377f0682;

/** The checkpoint sequence number of a WAL header, or undefined when these are not its bytes. */
export function walHeaderCheckpoints(header: Buffer): number | undefined {
  if (header.length < WAL_HEADER_BYTES) return undefined;
  if ((header.readUInt32BE(0) & ~1) >>> 0 !== WAL_MAGIC) return undefined;
  return header.readUInt32BE(12);
}

/** The counters of the WAL file beside a database file. */
export async function sqliteWalCounters(databaseFile: string): Promise<Record<string, number>> {
  const wal = `${databaseFile}-wal`;
  let handle: FileHandle;
  try {
    handle = await open(wal, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { walBytes: 0 };
    throw err;
  }
  try {
    const header = Buffer.alloc(WAL_HEADER_BYTES);
    const { bytesRead } = await handle.read(header, 0, WAL_HEADER_BYTES, 0);
    const checkpoints = walHeaderCheckpoints(header.subarray(0, bytesRead));
    const { size } = await handle.stat();
    return checkpoints === undefined ? { walBytes: size } : { walBytes: size, checkpoints };
  } finally {
    await handle.close();
  }
}

export async function sqliteIoCounters(db: Db): Promise<Record<string, number>> {
  const rows = await db.query<{ name: string; file: string }>('pragma database_list');
  const file = rows.find((r) => r.name === 'main')?.file;
  // An in-memory or temporary database has no file, so no WAL to watch.
  if (!file) return {};
  return sqliteWalCounters(file);
}
