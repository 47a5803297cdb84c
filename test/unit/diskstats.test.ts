import { describe, expect, it } from 'vitest';
import { parseDiskstats } from '../../src/monitor/diskstats.js';

/**
 * Lines recorded from real machines: a 4.x kernel (14 fields: 11 counters), a 4.18–5.4 kernel
 * (18 fields: discards added) and a 5.5+ kernel (20 fields: flushes added), with NVMe namespaces
 * and partitions, device-mapper, md and a virtio disk, and a pre-2.6.25 partition line (4 counters).
 */
const DISKSTATS = [
  // 4.15: SATA disk and partition, 14 fields.
  '   8       0 sda 4242 1208 268854 3120 9417 11873 339744 18164 0 9360 21280',
  '   8       1 sda1 4110 1208 262274 3052 9295 11873 339744 18148 0 9304 21192',
  // 5.4: NVMe namespace and partition, dm (LVM) and md, 18 fields.
  ' 259       0 nvme0n1 146953 3262 12119682 31398 1306244 1151633 109823064 1139468 0 560004 964916 0 0 0 0',
  ' 259       1 nvme0n1p1 146770 3262 12112546 31375 1306244 1151633 109823064 1139468 0 559960 964836 0 0 0 0',
  ' 253       0 dm-0 11 0 88 4 7 0 56 12 0 16 16 2 0 4096 3',
  '   9       0 md0 12000 0 96000 0 34000 0 272000 0 0 0 0 0 0 0 0',
  // 6.1: virtio disk with discards and flushes, 20 fields; 2 I/Os in flight.
  ' 254       0 vda 72207 12210 3165706 22764 597605 140492 52305368 236683 2 106576 357332 91420 1534 44338816 50928 172566 46956',
  // 2.6.18: a partition's 4 counters (reads, sectors read, writes, sectors written): no times.
  '   3       1 hda1 40 320 18 144',
  '',
  'not a diskstats line at all',
].join('\n');

describe('parseDiskstats', () => {
  const disks = parseDiskstats(DISKSTATS);

  it('reads every device with 11 or more counters, whole disks and partitions alike', () => {
    expect([...disks.keys()]).toEqual(['sda', 'sda1', 'nvme0n1', 'nvme0n1p1', 'dm-0', 'md0', 'vda']);
  });

  it('reads a 14-field line (kernels before 4.18)', () => {
    expect(disks.get('sda')).toEqual({
      readsCompleted: 4242,
      readBytes: 268854 * 512,
      readMs: 3120,
      writesCompleted: 9417,
      writtenBytes: 339744 * 512,
      writeMs: 18164,
      inFlight: 0,
      busyMs: 9360,
      weightedMs: 21280,
    });
  });

  it('reads the same 11 counters from 18- and 20-field lines, ignoring discards and flushes', () => {
    expect(disks.get('nvme0n1')).toEqual({
      readsCompleted: 146953,
      readBytes: 12119682 * 512,
      readMs: 31398,
      writesCompleted: 1306244,
      writtenBytes: 109823064 * 512,
      writeMs: 1139468,
      inFlight: 0,
      busyMs: 560004,
      weightedMs: 964916,
    });
    expect(disks.get('vda')).toEqual({
      readsCompleted: 72207,
      readBytes: 3165706 * 512,
      readMs: 22764,
      writesCompleted: 597605,
      writtenBytes: 52305368 * 512,
      writeMs: 236683,
      inFlight: 2,
      busyMs: 106576,
      weightedMs: 357332,
    });
  });

  it('counts sectors as 512 bytes whatever the device (md and dm report no times of their own)', () => {
    expect(disks.get('md0')).toMatchObject({
      readBytes: 96000 * 512,
      writtenBytes: 272000 * 512,
      writeMs: 0,
    });
    expect(disks.get('dm-0')).toMatchObject({ writesCompleted: 7, writtenBytes: 56 * 512 });
  });

  it('skips 4-counter partition lines, garbage and empty text', () => {
    expect(disks.has('hda1')).toBe(false);
    expect(parseDiskstats('')).toEqual(new Map());
    expect(parseDiskstats('8 0 sda 1 2 3 x 5 6 7 8 9 10 11').size).toBe(0);
  });
});
