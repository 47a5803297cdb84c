/**
 * The whole disks under a database's data and log directories, each counted once: a path's mount,
 * the mount's block device, a partition's disk, and the disks beneath device-mapper (LVM, crypt)
 * and md RAID. I/O on a partition or a stacked device is also counted on the disks beneath it, so
 * watching only the bottom whole disks never counts the same I/O twice.
 */
import { readdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { DeviceRole, WatchedDevice } from './types.js';
import {
  existingRealpath,
  mountFor,
  parseMountinfo,
  readText,
  type MountEntry,
  type SystemRoots,
} from './host.js';

/** A directory whose device should be watched, and what it holds. */
export interface StoragePath {
  role: 'data' | 'log';
  path: string;
}

export interface DeviceResolution {
  /** Whole disks, each once; a disk holding data and log is `data+log`. */
  devices: WatchedDevice[];
  /** One line per path without a block device (tmpfs, overlay, NFS…) or whose device is unknown. */
  notes: string[];
}

/** Device-mapper over md over partitions is three levels; anything deeper is a loop in a broken tree. */
const MAX_STACK_DEPTH = 8;

export async function watchedDevicesFor(
  paths: readonly StoragePath[],
  roots: SystemRoots = {},
): Promise<DeviceResolution> {
  const proc = roots.proc ?? '/proc';
  const sys = roots.sys ?? '/sys';
  const mountinfo = await readText(path.join(proc, 'self/mountinfo'));
  const mounts = mountinfo === undefined ? undefined : parseMountinfo(mountinfo);
  const rolesByDisk = new Map<string, Set<StoragePath['role']>>();
  const notes: string[] = [];
  for (const storage of paths) {
    const found = await disksUnderPath(storage, mounts, sys);
    if (typeof found === 'string') {
      if (!notes.includes(found)) notes.push(found);
      continue;
    }
    for (const disk of found) {
      const roles = rolesByDisk.get(disk) ?? new Set();
      roles.add(storage.role);
      rolesByDisk.set(disk, roles);
    }
  }
  const devices = [...rolesByDisk].map(([name, roles]) => ({ name, role: roleOf(roles) }));
  return { devices, notes };
}

function roleOf(roles: ReadonlySet<StoragePath['role']>): DeviceRole {
  return roles.size > 1 ? 'data+log' : roles.has('log') ? 'log' : 'data';
}

/** The whole disks under one path, or a note saying why there are none. */
async function disksUnderPath(
  storage: StoragePath,
  mounts: readonly MountEntry[] | undefined,
  sys: string,
): Promise<string[] | string> {
  const resolved = await existingRealpath(path.resolve(storage.path));
  const label = `${storage.role} directory ${storage.path}${resolved === storage.path ? '' : ` (${resolved})`}`;
  if (mounts === undefined) return `${label}: the mounts could not be read, device figures n/a`;
  const mount = mountFor(mounts, resolved);
  if (mount === undefined) return `${label} is on no known mount: device figures n/a`;
  const device = await blockDeviceOf(mount, sys);
  if (device === undefined && mount.source.startsWith('/dev/'))
    return `${label} is on ${mount.source} (${mount.fsType}), which sysfs does not show: device figures n/a`;
  if (device === undefined) return `${label} is on ${mount.fsType}: no block device, device figures n/a`;
  const disks = await wholeDisksUnder(device, sys, 0);
  if (disks.length === 0)
    return `${label} is on ${device}, whose disks sysfs does not show: device figures n/a`;
  return disks;
}

/**
 * The block device holding a mount: /sys/dev/block/MAJ:MIN names it; file systems without one
 * (tmpfs, overlay, NFS) have an anonymous 0:N number there. Btrfs also shows an anonymous number,
 * so a /dev/… source known to sysfs is the fallback.
 */
async function blockDeviceOf(mount: MountEntry, sys: string): Promise<string | undefined> {
  const link = await realpath(path.join(sys, 'dev/block', mount.devNumber)).catch(() => undefined);
  if (link !== undefined) return path.basename(link);
  if (!mount.source.startsWith('/dev/')) return undefined;
  const name = path.basename(await realpath(mount.source).catch(() => mount.source));
  return (await isBlockDevice(sys, name)) ? name : undefined;
}

/**
 * The bottom whole disks under a block device: a partition's parent disk (its directory in sysfs),
 * a stacked device's slaves (device-mapper, md), each resolved again; a disk with neither is itself.
 */
async function wholeDisksUnder(device: string, sys: string, depth: number): Promise<string[]> {
  if (depth > MAX_STACK_DEPTH || !(await isBlockDevice(sys, device))) return [];
  const entry = path.join(sys, 'class/block', device);
  if ((await readText(path.join(entry, 'partition'))) !== undefined) {
    const real = await realpath(entry).catch(() => undefined);
    return real === undefined ? [] : wholeDisksUnder(path.basename(path.dirname(real)), sys, depth + 1);
  }
  const slaves = await readdir(path.join(entry, 'slaves')).catch(() => []);
  if (slaves.length === 0) return [device];
  const beneath = await Promise.all(slaves.sort().map((s) => wholeDisksUnder(s, sys, depth + 1)));
  return [...new Set(beneath.flat())];
}

async function isBlockDevice(sys: string, name: string): Promise<boolean> {
  return realpath(path.join(sys, 'class/block', name)).then(
    () => true,
    () => false,
  );
}
