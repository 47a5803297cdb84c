/**
 * Real block devices for the monitoring tests: a file attached as a loop device (root only, as
 * the tests run here and in CI), partitioned or not, with an ext4 file system mounted on it.
 * Everything made is undone by `detach`, in reverse order, even when a step failed.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, open, writeFile } from 'node:fs/promises';
import path from 'node:path';

export interface LoopDevice {
  /** Kernel name, e.g. `loop3`. */
  name: string;
  /** Partitions' kernel names (`loop3p1`…), when made with `partitions`. */
  partitions: string[];
  detach(): void;
}

function run(command: string, args: readonly string[], input?: string): string {
  return execFileSync(command, args, { encoding: 'utf8', input, stdio: ['pipe', 'pipe', 'pipe'] });
}

/** A `sizeMB` file in `dir` as a loop device; with `partitions`, that many equal partitions (losetup -P). */
export async function attachLoop(dir: string, sizeMB: number, partitions = 0): Promise<LoopDevice> {
  const file = path.join(dir, `loop-${process.pid}-${Date.now()}.img`);
  await writeFile(file, '');
  run('truncate', ['-s', `${sizeMB}M`, file]);
  if (partitions > 0) await writeMbr(file, sizeMB, partitions);
  const dev = run('losetup', ['--find', '--show', ...(partitions > 0 ? ['--partscan'] : []), file]).trim();
  const name = path.basename(dev);
  return {
    name,
    partitions: Array.from({ length: partitions }, (_, i) => `${name}p${i + 1}`),
    detach: () => run('losetup', ['-d', dev]),
  };
}

const SECTOR = 512;

/**
 * An MBR with `partitions` equal Linux partitions (at most 4), from 1 MiB on: the table a
 * partitioning tool would write, without needing one installed.
 */
async function writeMbr(file: string, sizeMB: number, partitions: number): Promise<void> {
  const mbr = Buffer.alloc(SECTOR);
  const first = 2048;
  const each = Math.floor((sizeMB * 2048 - first) / partitions);
  for (let i = 0; i < partitions; i++) {
    const entry = 446 + 16 * i;
    mbr[entry + 4] = 0x83;
    mbr.writeUInt32LE(first + i * each, entry + 8);
    mbr.writeUInt32LE(each, entry + 12);
  }
  mbr[510] = 0x55;
  mbr[511] = 0xaa;
  const handle = await open(file, 'r+');
  try {
    await handle.write(mbr, 0, SECTOR, 0);
  } finally {
    await handle.close();
  }
}

/** An ext4 file system on /dev/`device`, mounted on a new directory `mountPoint`; returns its unmount. */
export async function mountExt4(device: string, mountPoint: string): Promise<() => void> {
  run('mkfs.ext4', ['-q', '-F', `/dev/${device}`]);
  await mkdir(mountPoint, { recursive: true });
  run('mount', [`/dev/${device}`, mountPoint]);
  return () => run('umount', [mountPoint]);
}

/** Runs each undo step, latest first, keeping the first failure to throw at the end. */
export function undoAll(steps: (() => void)[]): void {
  let failure: unknown;
  for (const step of steps.reverse()) {
    try {
      step();
    } catch (err) {
      failure ??= err;
    }
  }
  if (failure !== undefined) throw failure;
}
