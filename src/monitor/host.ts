/**
 * What a run was measured on: the host (CPU, memory, kernel, OS) and the block device and file
 * system under a path (the database's data directory). Linux /proc and /sys, best effort: what
 * cannot be read is undefined; nothing here throws.
 */
import { readdir, readFile, realpath } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export interface HostInfo {
  hostname: string;
  cpuModel: string | undefined;
  /** Logical CPUs. */
  cores: number;
  memoryBytes: number;
  /** os.release(), e.g. 6.1.0-18-amd64. */
  kernel: string;
  /** The distribution's PRETTY_NAME from /etc/os-release, else os.type(). */
  os: string;
  arch: string;
}

export interface DeviceInfo {
  /** The path asked about, resolved (its nearest existing ancestor if it does not exist yet). */
  path: string;
  mountPoint?: string | undefined;
  fsType?: string | undefined;
  /** The mount's source as the kernel gives it, e.g. /dev/vda1 or tmpfs. */
  source?: string | undefined;
  /** The block device holding the file system, e.g. vda1 or nvme0n1p2. */
  device?: string | undefined;
  /** The whole disk under it (a partition's disk, the one disk under LVM), else the device itself. */
  disk?: string | undefined;
  model?: string | undefined;
  vendor?: string | undefined;
  rotational?: boolean | undefined;
  /** The whole disk's size. */
  sizeBytes?: number | undefined;
}

export interface MountEntry {
  /** major:minor of the mounted device. */
  devNumber: string;
  mountPoint: string;
  fsType: string;
  source: string;
}

/** Where /proc and /sys are (tests point these at a fixture tree). */
export interface SystemRoots {
  proc?: string;
  sys?: string;
}

export async function hostInfo(): Promise<HostInfo> {
  const cpus = os.cpus();
  const release = await readText('/etc/os-release');
  const pretty = release === undefined ? undefined : /^PRETTY_NAME=("?)(.*)\1$/m.exec(release)?.[2];
  return {
    hostname: os.hostname(),
    cpuModel: cpus[0]?.model.trim() || undefined,
    cores: cpus.length || os.availableParallelism(),
    memoryBytes: os.totalmem(),
    kernel: os.release(),
    os: pretty || os.type(),
    arch: os.arch(),
  };
}

/** The file system and block device holding `target`. */
export async function deviceUnder(target: string, roots: SystemRoots = {}): Promise<DeviceInfo> {
  const proc = roots.proc ?? '/proc';
  const sys = roots.sys ?? '/sys';
  const resolved = await existingRealpath(path.resolve(target));
  const info: DeviceInfo = { path: resolved };
  const mountinfo = await readText(path.join(proc, 'self/mountinfo'));
  const mount = mountinfo === undefined ? undefined : mountFor(parseMountinfo(mountinfo), resolved);
  if (mount === undefined) return info;
  info.mountPoint = mount.mountPoint;
  info.fsType = mount.fsType;
  info.source = mount.source;
  // A /dev source sysfs does not show still names the device, for the record.
  const device =
    (await blockDeviceOf(mount, sys)) ??
    (mount.source.startsWith('/dev/') ? path.basename(mount.source) : undefined);
  if (device === undefined) return info;
  info.device = device;
  // The disk whose model and size describe the device: the one beneath it, when there is one.
  const disks = await wholeDisksUnder(device, sys);
  const disk = disks.length === 1 ? disks[0]! : device;
  info.disk = disk;
  const block = path.join(sys, 'block', disk);
  info.model = await readText(path.join(block, 'device/model'));
  info.vendor = await readText(path.join(block, 'device/vendor'));
  const rotational = await readText(path.join(block, 'queue/rotational'));
  info.rotational = rotational === '1' ? true : rotational === '0' ? false : undefined;
  const sectors = Number(await readText(path.join(block, 'size')));
  info.sizeBytes = Number.isFinite(sectors) && sectors > 0 ? sectors * 512 : undefined;
  return info;
}

/**
 * /proc/self/mountinfo, one mount a line:
 * `36 35 98:0 /root /mnt rw,noatime master:1 - ext3 /dev/root rw,errors=continue`
 * (id, parent, major:minor, root, mount point, options, optional fields up to `-`, then file
 * system type, source, super options). Octal escapes (`\040` for a space) are decoded.
 */
export function parseMountinfo(text: string): MountEntry[] {
  const mounts: MountEntry[] = [];
  for (const line of text.split('\n')) {
    const fields = line.trim().split(' ');
    const dash = fields.indexOf('-', 6);
    if (fields.length < 7 || dash < 0) continue;
    const devNumber = fields[2]!;
    const mountPoint = fields[4]!;
    const fsType = fields[dash + 1];
    const source = fields[dash + 2];
    if (fsType === undefined || !/^\d+:\d+$/.test(devNumber)) continue;
    mounts.push({
      devNumber,
      mountPoint: unescapeMount(mountPoint),
      fsType,
      source: unescapeMount(source ?? ''),
    });
  }
  return mounts;
}

/**
 * The mount holding an absolute, resolved path: the longest mount point that is the path or one
 * of its ancestors; among equal mount points the last (a later mount hides an earlier one).
 */
export function mountFor(mounts: readonly MountEntry[], target: string): MountEntry | undefined {
  let best: MountEntry | undefined;
  for (const m of mounts) {
    const holds = m.mountPoint === '/' || target === m.mountPoint || target.startsWith(m.mountPoint + '/');
    if (holds && (best === undefined || m.mountPoint.length >= best.mountPoint.length)) best = m;
  }
  return best;
}

function unescapeMount(s: string): string {
  return s.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

/**
 * The block device holding a mount: /sys/dev/block/MAJ:MIN names it; file systems without one
 * (tmpfs, overlay, NFS) have an anonymous 0:N number there. Btrfs also shows an anonymous number,
 * so a /dev/… source known to sysfs is the fallback.
 */
export async function blockDeviceOf(mount: MountEntry, sys: string): Promise<string | undefined> {
  const link = await realpath(path.join(sys, 'dev/block', mount.devNumber)).catch(() => undefined);
  if (link !== undefined) return path.basename(link);
  if (!mount.source.startsWith('/dev/')) return undefined;
  const name = path.basename(await realpath(mount.source).catch(() => mount.source));
  return (await isBlockDevice(sys, name)) ? name : undefined;
}

/** Device-mapper over md over partitions is three levels; anything deeper is a loop in a broken tree. */
const MAX_STACK_DEPTH = 8;

/**
 * What a block device is made of, down to what holds the data: a stacked device's slaves
 * (device-mapper, md), each resolved again, to the partitions or disks at the bottom; a partition
 * is its whole disk; a whole disk is none. These carry the device's I/O again (a mirror's twice),
 * so they are its detail, never added to it.
 */
export async function membersOf(device: string, sys: string): Promise<string[]> {
  const slaves = await slavesOf(device, sys);
  if (slaves.length > 0) return bottomOf(device, sys, 0);
  const disk = await partitionDisk(device, sys);
  return disk === undefined ? [] : [disk];
}

async function bottomOf(device: string, sys: string, depth: number): Promise<string[]> {
  if (depth > MAX_STACK_DEPTH || !(await isBlockDevice(sys, device))) return [];
  const slaves = await slavesOf(device, sys);
  if (slaves.length === 0) return [device];
  const beneath = await Promise.all(slaves.map((s) => bottomOf(s, sys, depth + 1)));
  return [...new Set(beneath.flat())];
}

/**
 * The bottom whole disks under a block device: a partition's parent disk, a stacked device's
 * slaves each resolved again; a disk with neither is itself.
 */
export async function wholeDisksUnder(device: string, sys: string, depth = 0): Promise<string[]> {
  if (depth > MAX_STACK_DEPTH || !(await isBlockDevice(sys, device))) return [];
  const disk = await partitionDisk(device, sys);
  if (disk !== undefined) return wholeDisksUnder(disk, sys, depth + 1);
  const slaves = await slavesOf(device, sys);
  if (slaves.length === 0) return [device];
  const beneath = await Promise.all(slaves.map((s) => wholeDisksUnder(s, sys, depth + 1)));
  return [...new Set(beneath.flat())];
}

async function slavesOf(device: string, sys: string): Promise<string[]> {
  return (await readdir(path.join(sys, 'class/block', device, 'slaves')).catch(() => [])).sort();
}

/** A partition's disk is its parent in sysfs (…/block/vda/vda1 → vda); undefined for anything else. */
async function partitionDisk(device: string, sys: string): Promise<string | undefined> {
  const entry = path.join(sys, 'class/block', device);
  if ((await readText(path.join(entry, 'partition'))) === undefined) return undefined;
  const real = await realpath(entry).catch(() => undefined);
  return real === undefined ? undefined : path.basename(path.dirname(real));
}

export async function isBlockDevice(sys: string, name: string): Promise<boolean> {
  return realpath(path.join(sys, 'class/block', name)).then(
    () => true,
    () => false,
  );
}

/** The nearest existing ancestor's real path (a data directory may not exist yet). */
export async function existingRealpath(p: string): Promise<string> {
  for (let dir = p; ; dir = path.dirname(dir)) {
    const real = await realpath(dir).catch(() => undefined);
    if (real !== undefined) return path.join(real, path.relative(dir, p));
    if (path.dirname(dir) === dir) return p;
  }
}

/** A file's trimmed text, or undefined if it is missing, unreadable or empty. */
export async function readText(file: string): Promise<string | undefined> {
  try {
    return (await readFile(file, 'utf8')).trim() || undefined;
  } catch {
    return undefined;
  }
}
