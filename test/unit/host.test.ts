import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceUnder, hostInfo, mountFor, parseMountinfo, type MountEntry } from '../../src/monitor/host.js';

const MOUNTINFO = [
  '22 27 0:21 / /proc rw,relatime - proc proc rw',
  '27 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw,discard',
  '36 27 259:2 / /data rw,noatime shared:5 master:1 - xfs /dev/nvme0n1p2 rw,attr2',
  '37 27 259:3 / /data2 rw,noatime - ext4 /dev/nvme1n1 rw',
  '38 27 0:40 / /mnt/with\\040space rw - tmpfs tmpfs rw',
  '39 36 0:41 / /data/pg rw - tmpfs first rw',
  '40 36 0:42 / /data/pg rw - tmpfs second rw',
  '',
  'garbage line',
  '41 27 0:43 / /no-separator rw ext4 /dev/x rw',
].join('\n');

describe('parseMountinfo', () => {
  const mounts = parseMountinfo(MOUNTINFO);

  it('reads device number, mount point, file system type and source, with or without optional fields', () => {
    expect(mounts.map((m) => m.mountPoint)).toEqual([
      '/proc',
      '/',
      '/data',
      '/data2',
      '/mnt/with space',
      '/data/pg',
      '/data/pg',
    ]);
    expect(mounts[2]).toEqual({
      devNumber: '259:2',
      mountPoint: '/data',
      fsType: 'xfs',
      source: '/dev/nvme0n1p2',
    });
    expect(mounts[1]).toEqual({ devNumber: '254:1', mountPoint: '/', fsType: 'ext4', source: '/dev/vda1' });
  });

  it('decodes octal escapes and skips lines it cannot read', () => {
    expect(mounts[4]).toMatchObject({ mountPoint: '/mnt/with space', fsType: 'tmpfs' });
    expect(mounts.some((m) => m.mountPoint === '/no-separator')).toBe(false);
    expect(parseMountinfo('')).toEqual([]);
  });
});

describe('mountFor', () => {
  const mounts = parseMountinfo(MOUNTINFO);
  const at = (p: string): MountEntry | undefined => mountFor(mounts, p);

  it.each([
    ['/', '/'],
    ['/home/user', '/'],
    ['/data', '/data'],
    ['/data/x/y', '/data'],
    ['/data2/x', '/data2'],
    ['/datum', '/'],
    ['/mnt/with space/db', '/mnt/with space'],
  ])('%s is on %s (the longest mount point that is it or an ancestor)', (p, mountPoint) => {
    expect(at(p)?.mountPoint).toBe(mountPoint);
  });

  it('takes the last of several mounts on the same point (the one on top)', () => {
    expect(at('/data/pg/base')?.source).toBe('second');
  });

  it('has no answer without mounts', () => {
    expect(mountFor([], '/x')).toBeUndefined();
  });
});

describe('deviceUnder with a fixture /proc and /sys', () => {
  let root: string;
  const proc = (): string => path.join(root, 'proc');
  const sys = (): string => path.join(root, 'sys');

  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'txbench-host-'));
    await mkdir(path.join(proc(), 'self'), { recursive: true });
    await writeFile(
      path.join(proc(), 'self/mountinfo'),
      `27 1 254:1 / / rw - ext4 /dev/vda1 rw\n36 27 259:2 / ${root}/data rw - xfs /dev/nvme0n1p2 rw\n`,
    );
    // /sys/devices/…/block/nvme0n1/nvme0n1p2, reached through /sys/dev/block and /sys/class/block.
    const disk = path.join(sys(), 'devices/pci0000:00/nvme/nvme0/nvme0n1');
    await mkdir(path.join(disk, 'nvme0n1p2'), { recursive: true });
    await writeFile(path.join(disk, 'nvme0n1p2/partition'), '2\n');
    await mkdir(path.join(sys(), 'dev/block'), { recursive: true });
    await mkdir(path.join(sys(), 'class/block'), { recursive: true });
    await symlink(path.join(disk, 'nvme0n1p2'), path.join(sys(), 'dev/block/259:2'));
    await symlink(path.join(disk, 'nvme0n1p2'), path.join(sys(), 'class/block/nvme0n1p2'));
    await symlink(disk, path.join(sys(), 'class/block/nvme0n1'));
    await mkdir(path.join(sys(), 'block/nvme0n1/device'), { recursive: true });
    await mkdir(path.join(sys(), 'block/nvme0n1/queue'), { recursive: true });
    await writeFile(path.join(sys(), 'block/nvme0n1/device/model'), 'Samsung SSD 980 PRO 1TB   \n');
    await writeFile(path.join(sys(), 'block/nvme0n1/queue/rotational'), '0\n');
    await writeFile(path.join(sys(), 'block/nvme0n1/size'), '1953525168\n');
    await mkdir(path.join(root, 'data/pg'), { recursive: true });
  });

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('finds the partition, strips it to the disk and reads the disk’s model, rotation and size', async () => {
    expect(await deviceUnder(path.join(root, 'data/pg'), { proc: proc(), sys: sys() })).toEqual({
      path: path.join(root, 'data/pg'),
      mountPoint: path.join(root, 'data'),
      fsType: 'xfs',
      source: '/dev/nvme0n1p2',
      device: 'nvme0n1p2',
      disk: 'nvme0n1',
      model: 'Samsung SSD 980 PRO 1TB',
      vendor: undefined,
      rotational: false,
      sizeBytes: 1953525168 * 512,
    });
  });

  it('answers for a path that does not exist yet (its nearest existing ancestor)', async () => {
    const info = await deviceUnder(path.join(root, 'data/not/yet'), { proc: proc(), sys: sys() });
    expect(info).toMatchObject({ path: path.join(root, 'data/not/yet'), fsType: 'xfs', disk: 'nvme0n1' });
  });

  it('gives what it can when /sys has nothing for the device', async () => {
    const info = await deviceUnder(path.join(root, 'elsewhere'), { proc: proc(), sys: sys() });
    expect(info).toMatchObject({
      mountPoint: '/',
      fsType: 'ext4',
      source: '/dev/vda1',
      device: 'vda1',
      disk: 'vda1',
    });
    expect(info.model).toBeUndefined();
  });

  it('gives only the path when there is no mountinfo', async () => {
    expect(await deviceUnder('/x', { proc: path.join(root, 'none'), sys: sys() })).toEqual({ path: '/x' });
  });
});

describe('on this machine', () => {
  it('finds the file system under /tmp', async () => {
    const info = await deviceUnder('/tmp');
    expect(info.fsType).toMatch(/^\w+$/);
    expect(info.mountPoint).toBeDefined();
  });

  it('describes the host', async () => {
    const host = await hostInfo();
    expect(host.cores).toBeGreaterThan(0);
    expect(host.memoryBytes).toBeGreaterThan(0);
    expect(host.kernel).toBe(os.release());
    expect(host.hostname).toBe(os.hostname());
    expect(host.os.length).toBeGreaterThan(0);
  });
});
