/**
 * The block devices under a database's data and log directories, each counted once: a path's
 * mount and the device the file system sits on (a partition, a device-mapper volume, an md array,
 * a whole disk). That device's counters are the database's I/O: a RAID-1 mirror's writes once, not
 * once per leg, and none of another partition of the same disk. What it is made of (an array's
 * legs, a volume's disks, a partition's disk) is watched beside it as detail, never added in.
 */
import path from 'node:path';
import type { DeviceRole, WatchedDevice } from './types.js';
import {
  blockDeviceOf,
  existingRealpath,
  membersOf,
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
  /** The devices the file systems sit on, each once; one holding data and log is `data+log`. */
  devices: WatchedDevice[];
  /** One line per path without a block device (tmpfs, overlay, NFS…) or whose device is unknown. */
  notes: string[];
}

export async function watchedDevicesFor(
  paths: readonly StoragePath[],
  roots: SystemRoots = {},
): Promise<DeviceResolution> {
  const proc = roots.proc ?? '/proc';
  const sys = roots.sys ?? '/sys';
  const mountinfo = await readText(path.join(proc, 'self/mountinfo'));
  const mounts = mountinfo === undefined ? undefined : parseMountinfo(mountinfo);
  const rolesByDevice = new Map<string, Set<StoragePath['role']>>();
  const notes: string[] = [];
  for (const storage of paths) {
    const found = await deviceUnderPath(storage, mounts, sys);
    if ('note' in found) {
      if (!notes.includes(found.note)) notes.push(found.note);
      continue;
    }
    const roles = rolesByDevice.get(found.device) ?? new Set();
    roles.add(storage.role);
    rolesByDevice.set(found.device, roles);
  }
  const devices: WatchedDevice[] = [];
  for (const [name, roles] of rolesByDevice) {
    const members = await membersOf(name, sys);
    devices.push({ name, role: roleOf(roles), ...(members.length > 0 ? { members } : {}) });
  }
  return { devices, notes };
}

function roleOf(roles: ReadonlySet<StoragePath['role']>): DeviceRole {
  return roles.size > 1 ? 'data+log' : roles.has('log') ? 'log' : 'data';
}

/** The block device under one path, or a note saying why there is none. */
async function deviceUnderPath(
  storage: StoragePath,
  mounts: readonly MountEntry[] | undefined,
  sys: string,
): Promise<{ device: string } | { note: string }> {
  const resolved = await existingRealpath(path.resolve(storage.path));
  const label = `${storage.role} directory ${storage.path}${resolved === storage.path ? '' : ` (${resolved})`}`;
  if (mounts === undefined) return { note: `${label}: the mounts could not be read, device figures n/a` };
  const mount = mountFor(mounts, resolved);
  if (mount === undefined) return { note: `${label} is on no known mount: device figures n/a` };
  const device = await blockDeviceOf(mount, sys);
  if (device === undefined && mount.source.startsWith('/dev/'))
    return {
      note: `${label} is on ${mount.source} (${mount.fsType}), which sysfs does not show: device figures n/a`,
    };
  if (device === undefined)
    return { note: `${label} is on ${mount.fsType}: no block device, device figures n/a` };
  return { device };
}
