/**
 * The disks under data and log directories, over fixture /proc and /sys trees shaped like real
 * machines': sysfs puts a partition's directory inside its disk's, links stacked devices to what
 * they sit on through `slaves/`, and names every device in /sys/class/block and /sys/dev/block.
 */
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watchedDevicesFor, type StoragePath } from '../../src/monitor/block-devices.js';
import type { SystemRoots } from '../../src/monitor/host.js';

interface BlockDevice {
  /** major:minor */
  dev: string;
  /** The disk this is a partition of. */
  partitionOf?: string;
  /** What a device-mapper or md device sits on. */
  slaves?: string[];
}

interface Layout {
  mounts: string[];
  devices: Record<string, BlockDevice>;
}

let tmp: string;
let fixtureCount = 0;

beforeAll(async () => {
  tmp = await realpath(await mkdtemp(path.join(os.tmpdir(), 'txbench-blockdev-')));
});

afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/** Writes /proc/self/mountinfo and the sysfs entries of `layout` into a fresh fixture tree. */
async function fixture(layout: Layout): Promise<SystemRoots> {
  const root = path.join(tmp, `layout-${++fixtureCount}`);
  const proc = path.join(root, 'proc');
  const sys = path.join(root, 'sys');
  await mkdir(path.join(proc, 'self'), { recursive: true });
  await writeFile(path.join(proc, 'self/mountinfo'), layout.mounts.join('\n') + '\n');
  await mkdir(path.join(sys, 'class/block'), { recursive: true });
  await mkdir(path.join(sys, 'dev/block'), { recursive: true });
  const dirOf = (name: string): string => {
    const device = layout.devices[name]!;
    if (device.partitionOf !== undefined) return path.join(dirOf(device.partitionOf), name);
    const bus = device.slaves ? 'virtual' : 'pci0000:00/0000:00:04.0';
    return path.join(sys, 'devices', bus, 'block', name);
  };
  for (const [name, device] of Object.entries(layout.devices)) {
    const dir = dirOf(name);
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'dev'), device.dev + '\n');
    if (device.partitionOf !== undefined) await writeFile(path.join(dir, 'partition'), '1\n');
    await symlink(path.relative(path.join(sys, 'class/block'), dir), path.join(sys, 'class/block', name));
    await symlink(path.relative(path.join(sys, 'dev/block'), dir), path.join(sys, 'dev/block', device.dev));
  }
  for (const [name, device] of Object.entries(layout.devices)) {
    if (!device.slaves) continue;
    await mkdir(path.join(dirOf(name), 'slaves'));
    for (const slave of device.slaves) await symlink(dirOf(slave), path.join(dirOf(name), 'slaves', slave));
  }
  return { proc, sys };
}

const data = (p: string): StoragePath => ({ role: 'data', path: p });
const log = (p: string): StoragePath => ({ role: 'log', path: p });

const PROC_MOUNT = '22 1 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw';

describe('watchedDevicesFor', () => {
  it('a plain disk (a virtio disk formatted whole)', async () => {
    const roots = await fixture({
      mounts: [PROC_MOUNT, '26 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard'],
      devices: { vda: { dev: '254:0' }, zram0: { dev: '253:0' } },
    });
    expect(await watchedDevicesFor([data('/var/lib/postgresql/16/main')], roots)).toEqual({
      devices: [{ name: 'vda', role: 'data' }],
      notes: [],
    });
  });

  it('a partition: the partition, its disk as detail (the other partitions’ I/O is not the database’s)', async () => {
    const roots = await fixture({
      mounts: [
        PROC_MOUNT,
        '27 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw,errors=remount-ro',
        '35 27 8:2 / /home rw,relatime shared:30 - ext4 /dev/sda2 rw',
      ],
      devices: {
        sda: { dev: '8:0' },
        sda1: { dev: '8:1', partitionOf: 'sda' },
        sda2: { dev: '8:2', partitionOf: 'sda' },
      },
    });
    const found = await watchedDevicesFor([data('/var/lib/mysql')], roots);
    expect(found.devices).toEqual([{ name: 'sda1', role: 'data', members: ['sda'] }]);
  });

  it('LVM on md RAID-1 on partitions: dm-0, the mirror’s legs as detail, never summed', async () => {
    const roots = await fixture({
      mounts: [
        PROC_MOUNT,
        '26 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw',
        '41 26 253:0 / /srv/db rw,noatime shared:40 - xfs /dev/mapper/vg0-db rw,attr2,inode64,noquota',
      ],
      devices: {
        sda: { dev: '8:0' },
        sda1: { dev: '8:1', partitionOf: 'sda' },
        sda2: { dev: '8:2', partitionOf: 'sda' },
        sdb: { dev: '8:16' },
        sdb1: { dev: '8:17', partitionOf: 'sdb' },
        sdb2: { dev: '8:18', partitionOf: 'sdb' },
        md0: { dev: '9:0', slaves: ['sda2', 'sdb2'] },
        'dm-0': { dev: '253:0', slaves: ['md0'] },
      },
    });
    const found = await watchedDevicesFor([data('/srv/db/pgdata'), log('/srv/db/pgdata/pg_wal')], roots);
    expect(found).toEqual({
      devices: [{ name: 'dm-0', role: 'data+log', members: ['sda2', 'sdb2'] }],
      notes: [],
    });
  });

  it('NVMe namespaces with partitions: nvme0n1p2 on nvme0n1, the other namespace is not watched', async () => {
    const roots = await fixture({
      mounts: [
        PROC_MOUNT,
        '26 1 259:1 / / rw,relatime - ext4 /dev/nvme0n1p1 rw',
        '40 26 259:2 / /data rw,noatime - xfs /dev/nvme0n1p2 rw',
        '41 26 259:4 / /scratch rw,noatime - xfs /dev/nvme1n1p1 rw',
      ],
      devices: {
        nvme0n1: { dev: '259:0' },
        nvme0n1p1: { dev: '259:1', partitionOf: 'nvme0n1' },
        nvme0n1p2: { dev: '259:2', partitionOf: 'nvme0n1' },
        nvme1n1: { dev: '259:3' },
        nvme1n1p1: { dev: '259:4', partitionOf: 'nvme1n1' },
      },
    });
    const found = await watchedDevicesFor([data('/data/pg')], roots);
    expect(found.devices).toEqual([{ name: 'nvme0n1p2', role: 'data', members: ['nvme0n1'] }]);
  });

  it('data and log on different disks, the log reached through a pg_wal symlink', async () => {
    const fs = path.join(tmp, 'symlinked');
    await mkdir(path.join(fs, 'data/pg'), { recursive: true });
    await mkdir(path.join(fs, 'wal/pg_wal'), { recursive: true });
    await symlink(path.join(fs, 'wal/pg_wal'), path.join(fs, 'data/pg/pg_wal'));
    const roots = await fixture({
      mounts: [
        PROC_MOUNT,
        '26 1 254:1 / / rw,relatime - ext4 /dev/vda1 rw',
        `40 26 259:0 / ${fs}/data rw,noatime - xfs /dev/nvme0n1 rw`,
        `41 26 8:16 / ${fs}/wal rw,noatime - ext4 /dev/sdb rw`,
      ],
      devices: {
        vda: { dev: '254:0' },
        vda1: { dev: '254:1', partitionOf: 'vda' },
        nvme0n1: { dev: '259:0' },
        sdb: { dev: '8:16' },
      },
    });
    const found = await watchedDevicesFor([data(`${fs}/data/pg`), log(`${fs}/data/pg/pg_wal`)], roots);
    expect(found).toEqual({
      devices: [
        { name: 'nvme0n1', role: 'data' },
        { name: 'sdb', role: 'log' },
      ],
      notes: [],
    });
  });

  it('btrfs, whose mount shows an anonymous device number: the /dev source sysfs knows', async () => {
    const roots = await fixture({
      mounts: [PROC_MOUNT, '26 1 0:32 /@ / rw,relatime shared:1 - btrfs /dev/nvme0n1p3 rw,ssd,subvol=/@'],
      devices: { nvme0n1: { dev: '259:0' }, nvme0n1p3: { dev: '259:3', partitionOf: 'nvme0n1' } },
    });
    expect((await watchedDevicesFor([data('/var/lib/postgresql')], roots)).devices).toEqual([
      { name: 'nvme0n1p3', role: 'data', members: ['nvme0n1'] },
    ]);
  });

  it('data and log on two partitions of one disk: each partition with its role, the disk as detail', async () => {
    const roots = await fixture({
      mounts: [
        PROC_MOUNT,
        '26 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw',
        '40 26 8:3 / /var/lib/mysql rw,relatime - ext4 /dev/sda3 rw',
        '41 40 8:4 / /var/lib/mysql/redo rw,relatime - ext4 /dev/sda4 rw',
      ],
      devices: {
        sda: { dev: '8:0' },
        sda1: { dev: '8:1', partitionOf: 'sda' },
        sda3: { dev: '8:3', partitionOf: 'sda' },
        sda4: { dev: '8:4', partitionOf: 'sda' },
      },
    });
    const found = await watchedDevicesFor([data('/var/lib/mysql'), log('/var/lib/mysql/redo')], roots);
    expect(found).toEqual({
      devices: [
        { name: 'sda3', role: 'data', members: ['sda'] },
        { name: 'sda4', role: 'log', members: ['sda'] },
      ],
      notes: [],
    });
  });

  it('data on an LVM volume over two disks, the log on a partition of one of them: each device once', async () => {
    const roots = await fixture({
      mounts: [
        PROC_MOUNT,
        '41 1 253:0 / / rw,relatime - ext4 /dev/mapper/vg-root rw',
        '42 41 8:17 / /wal rw,relatime - ext4 /dev/sdb1 rw',
      ],
      devices: {
        sda: { dev: '8:0' },
        sdb: { dev: '8:16' },
        sdb1: { dev: '8:17', partitionOf: 'sdb' },
        'dm-0': { dev: '253:0', slaves: ['sda', 'sdb'] },
      },
    });
    const found = await watchedDevicesFor([data('/pg'), log('/wal/pg_wal')], roots);
    expect(found.devices).toEqual([
      { name: 'dm-0', role: 'data', members: ['sda', 'sdb'] },
      { name: 'sdb1', role: 'log', members: ['sdb'] },
    ]);
  });

  it.each([
    ['tmpfs', '40 26 0:45 / /fast/pg rw,nosuid,nodev - tmpfs tmpfs rw,size=1048576k', '/fast/pg/data'],
    [
      'overlay',
      '40 26 0:52 / /fast/pg rw,relatime - overlay overlay rw,lowerdir=/l,upperdir=/u,workdir=/w',
      '/fast/pg/data',
    ],
    ['nfs4', '40 26 0:60 / /fast/pg rw,relatime - nfs4 filer:/export/pg rw,vers=4.2', '/fast/pg/data'],
  ])('a data directory on %s: no device, one note', async (fsType, mount, dir) => {
    const roots = await fixture({
      mounts: [PROC_MOUNT, '26 1 254:0 / / rw,relatime - ext4 /dev/vda rw', mount],
      devices: { vda: { dev: '254:0' } },
    });
    const found = await watchedDevicesFor([data(dir), log(`${dir}/pg_wal`)], roots);
    expect(found.devices).toEqual([]);
    expect(found.notes).toEqual([
      `data directory ${dir} is on ${fsType}: no block device, device figures n/a`,
      `log directory ${dir}/pg_wal is on ${fsType}: no block device, device figures n/a`,
    ]);
  });

  it('the data on a disk and the log on tmpfs: the disk as data, a note for the log', async () => {
    const roots = await fixture({
      mounts: [
        PROC_MOUNT,
        '26 1 254:0 / / rw,relatime - ext4 /dev/vda rw',
        '40 26 0:45 / /fast rw - tmpfs tmpfs rw',
      ],
      devices: { vda: { dev: '254:0' } },
    });
    const found = await watchedDevicesFor([data('/srv/pg'), log('/fast/wal')], roots);
    expect(found).toEqual({
      devices: [{ name: 'vda', role: 'data' }],
      notes: ['log directory /fast/wal is on tmpfs: no block device, device figures n/a'],
    });
  });

  it('without mountinfo or with a device sysfs does not show: a note, no guess', async () => {
    const noMounts = await fixture({ mounts: [], devices: {} });
    await rm(path.join(noMounts.proc!, 'self/mountinfo'));
    expect(await watchedDevicesFor([data('/srv/pg')], noMounts)).toEqual({
      devices: [],
      notes: ['data directory /srv/pg: the mounts could not be read, device figures n/a'],
    });
    const hidden = await fixture({
      mounts: [PROC_MOUNT, '26 1 8:1 / / rw - ext4 /dev/sdz9 rw'],
      devices: {},
    });
    expect((await watchedDevicesFor([data('/srv/pg')], hidden)).notes).toEqual([
      'data directory /srv/pg is on /dev/sdz9 (ext4), which sysfs does not show: device figures n/a',
    ]);
  });

  it('no paths, nothing to watch', async () => {
    expect(await watchedDevicesFor([], await fixture({ mounts: [PROC_MOUNT], devices: {} }))).toEqual({
      devices: [],
      notes: [],
    });
  });
});
