/**
 * Real block devices for the monitoring and disk-fault tests: a file attached as a loop device
 * (root only, as the tests run here and in CI), with an ext4 file system mounted on it. Each step gives its undo;
 * `undoAll` runs them latest first, every one even when one fails.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, open, writeFile } from 'node:fs/promises';
import path from 'node:path';

export interface LoopDevice {
  /** Kernel name, e.g. `loop3`. */
  name: string;
  detach(): void;
}

function run(command: string, args: readonly string[]): string {
  return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/**
 * A `sizeMB` file in `dir` as a loop device. (No partitions: this machine's kernel has no MBR or
 * GPT parser, so `losetup -P` finds none.)
 */
export async function attachLoop(dir: string, sizeMB: number): Promise<LoopDevice> {
  const file = path.join(dir, `loop-${process.pid}-${Date.now()}.img`);
  await writeFile(file, '');
  run('truncate', ['-s', `${sizeMB}M`, file]);
  const dev = run('losetup', ['--find', '--show', file]).trim();
  return { name: path.basename(dev), detach: () => run('losetup', ['-d', dev]) };
}

/**
 * An ext4 file system on /dev/`device`, mounted on a new directory `mountPoint`; returns its
 * unmount. `lazy`: unmounted even while a file on it is still open (a server that died on it).
 */
export async function mountExt4(
  device: string,
  mountPoint: string,
  { lazy = false }: { lazy?: boolean } = {},
): Promise<() => void> {
  run('mkfs.ext4', ['-q', '-F', `/dev/${device}`]);
  await mkdir(mountPoint, { recursive: true });
  run('mount', [`/dev/${device}`, mountPoint]);
  return () => run('umount', lazy ? ['-l', mountPoint] : [mountPoint]);
}

/** Fills the file system holding `dirOnDisk` until a write fails with ENOSPC. */
export async function fillUntilFull(dirOnDisk: string, chunkBytes = 256 * 1024): Promise<void> {
  const file = await open(path.join(dirOnDisk, 'filler'), 'w');
  const chunk = Buffer.alloc(chunkBytes);
  try {
    for (;;) await file.write(chunk);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    await file.close().catch(() => undefined);
  }
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
