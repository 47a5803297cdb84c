/**
 * What a run was measured on: the host (CPU, memory, kernel, OS) and the block device and file
 * system under a path (the database's data directory). Linux /proc and /sys, best effort: what
 * cannot be read is undefined; nothing here throws.
 */
import { readFile, realpath } from 'node:fs/promises';
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
  /** The whole disk (the partition stripped), e.g. vda or nvme0n1. */
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
  const device = await blockDevice(sys, mount);
  if (device === undefined) return info;
  info.device = device;
  const disk = await wholeDisk(sys, device);
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

/** The device's name from /sys/dev/block/MAJ:MIN, else from a /dev/… source. */
async function blockDevice(sys: string, mount: MountEntry): Promise<string | undefined> {
  const link = await realpath(path.join(sys, 'dev/block', mount.devNumber)).catch(() => undefined);
  if (link !== undefined) return path.basename(link);
  if (!mount.source.startsWith('/dev/')) return undefined;
  const dev = await realpath(mount.source).catch(() => mount.source);
  return path.basename(dev);
}

/** A partition's disk is its parent in sysfs (…/block/vda/vda1 → vda); a whole disk is itself. */
async function wholeDisk(sys: string, device: string): Promise<string> {
  const entry = path.join(sys, 'class/block', device);
  if ((await readText(path.join(entry, 'partition'))) === undefined) return device;
  const real = await realpath(entry).catch(() => undefined);
  return real === undefined ? device : path.basename(path.dirname(real));
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
