/**
 * /proc/diskstats, as the kernel documents it (Documentation/admin-guide/iostats.rst): one block
 * device a line, `major minor name` then its counters. Linux 2.6 to 4.17 give 11 counters (a
 * 14-field line), 4.18 adds 4 for discards (18 fields), 5.5 adds 2 for flushes (20 fields).
 */
import type { DiskCounters } from './types.js';

/** The kernel counts sectors of 512 bytes in diskstats, whatever the device's block size. */
const SECTOR_BYTES = 512;

/** `major minor name` and the 11 counters every kernel since 2.6 gives. */
const MIN_FIELDS = 14;

/**
 * Every device's counters by kernel name: whole disks, partitions, device-mapper, md, loop alike
 * (choosing which to count is the caller's job). Lines with fewer than 11 counters (the 4-counter
 * partition lines of kernels before 2.6.25) or with a counter that is not a number are skipped.
 */
export function parseDiskstats(text: string): Map<string, DiskCounters> {
  const disks = new Map<string, DiskCounters>();
  for (const line of text.split('\n')) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < MIN_FIELDS) continue;
    const name = fields[2]!;
    const c = fields.slice(3, MIN_FIELDS).map(Number);
    if (!c.every((n) => Number.isFinite(n) && n >= 0)) continue;
    // 1 reads completed, 2 reads merged, 3 sectors read, 4 ms reading, 5 writes completed,
    // 6 writes merged, 7 sectors written, 8 ms writing, 9 I/Os in progress, 10 ms doing I/Os,
    // 11 weighted ms doing I/Os.
    disks.set(name, {
      readsCompleted: c[0]!,
      readBytes: c[2]! * SECTOR_BYTES,
      readMs: c[3]!,
      writesCompleted: c[4]!,
      writtenBytes: c[6]! * SECTOR_BYTES,
      writeMs: c[7]!,
      inFlight: c[8]!,
      busyMs: c[9]!,
      weightedMs: c[10]!,
    });
  }
  return disks;
}
