/**
 * Opening a command's targets (all or none) and closing them however the command ends; a disk
 * named for a target is checked before anything opens.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from '../errors.js';
import { NodeExporterSource, requireDisk } from '../monitor/node-exporter.js';
import {
  openTarget,
  resolveTarget,
  type Target,
  type TargetOptions,
  type TargetSpec,
} from '../targets/target.js';

/** The target flags of a command that takes one target (load, check, drop, capture, replay). */
export interface TargetFlags {
  db?: string | string[] | undefined;
  'data-dir'?: string | string[] | undefined;
  label?: string | string[] | undefined;
}

/**
 * A disk named for a target without a node_exporter is read from this machine's /proc/diskstats,
 * so it must be a whole disk here (/sys/block/NAME); a partition is named as such.
 */
export function checkDeviceHere(spec: TargetSpec, sysRoot = '/sys'): void {
  const name = spec.device;
  if (name === undefined || spec.nodeExporter !== undefined) return;
  if (existsSync(path.join(sysRoot, 'block', name))) return;
  if (existsSync(path.join(sysRoot, 'class', 'block', name))) {
    throw new UsageError(
      `--device ${name} is a partition or a volume, not a whole disk; name the disk it is on (lsblk shows it)`,
    );
  }
  throw new UsageError(
    `--device ${name}: no such disk on this machine (${path.join(sysRoot, 'block', name)}); name one lsblk shows, or give the database host's --node-exporter URL`,
  );
}

/**
 * A disk named for a target with a node_exporter must be one the exporter lists: checked before
 * anything starts. An exporter that cannot be reached now is not an error here: the run warns and
 * marks its figures missing, as it does when the exporter goes away mid-run.
 */
export async function checkDeviceOnExporter(spec: TargetSpec): Promise<void> {
  if (spec.device === undefined || spec.nodeExporter === undefined) return;
  const exporter = new NodeExporterSource(spec.nodeExporter, { devices: [spec.device] });
  const snapshot = await exporter.snapshot().catch(() => undefined);
  if (snapshot !== undefined) requireDisk(snapshot, spec.device, exporter.description);
}

/** Opens the target the flags name, runs `fn`, and always closes it (stopping the embedded server). */
export async function withTarget<T>(
  flags: TargetFlags,
  options: { create: boolean },
  fn: (target: Target) => Promise<T>,
): Promise<T> {
  const one = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);
  return withTargets(
    [{ db: one(flags.db), dataDir: one(flags['data-dir']), label: one(flags.label) }],
    options,
    ([t]) => fn(t!),
  );
}

/** Opens every target (all or none), runs `fn`, and closes them all. */
export async function withTargets<T>(
  list: readonly TargetOptions[],
  options: { create: boolean },
  fn: (targets: Target[]) => Promise<T>,
): Promise<T> {
  const specs = list.map((t) => resolveTarget(t));
  for (const spec of specs) {
    checkDeviceHere(spec);
    await checkDeviceOnExporter(spec);
  }
  const dirs = specs.filter((s) => s.kind === 'embedded').map((s) => s.dataDir);
  if (new Set(dirs).size < dirs.length)
    throw new UsageError('two targets use the same --data-dir; give each its own');
  const opened: Target[] = [];
  try {
    for (const spec of specs) opened.push(await openTarget(spec, options));
    return await fn(opened);
  } finally {
    for (const t of opened.reverse()) await t.close().catch(() => undefined);
  }
}
