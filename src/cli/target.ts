import { UsageError } from '../errors.js';
import { openTarget, resolveTarget, type Target, type TargetOptions } from '../targets/target.js';

export interface TargetFlags {
  db?: string | string[] | undefined;
  'data-dir'?: string | string[] | undefined;
  label?: string | string[] | undefined;
}

/**
 * The targets named on the command line, in order: each `--db URL` or `--data-dir DIR` starts one,
 * and a `--label` names the target it follows (or the first, if it comes before any).
 */
export function targetOptionsFrom(argv: readonly string[]): TargetOptions[] {
  const targets: TargetOptions[] = [];
  const pendingLabels: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const m = /^--(db|data-dir|label)(?:=(.*))?$/.exec(arg);
    if (!m) continue;
    const value = m[2] ?? argv[++i];
    if (value === undefined) throw new UsageError(`--${m[1]} needs a value`);
    if (m[1] === 'label') {
      const last = targets.at(-1);
      if (last === undefined) pendingLabels.push(value);
      else if (last.label === undefined) last.label = value;
      else
        throw new UsageError(
          `--label "${value}" follows a target that already has a label; give one --label per --db`,
        );
    } else {
      targets.push(m[1] === 'db' ? { db: value } : { dataDir: value });
    }
  }
  if (targets.length === 0) targets.push({});
  if (pendingLabels.length > 1) throw new UsageError('give one --label per --db or --data-dir, after it');
  if (pendingLabels[0] !== undefined) targets[0]!.label ??= pendingLabels[0];
  const labels = targets.map((t, i) => t.label ?? `target ${i + 1}`);
  const duplicate = labels.find((l, i) => labels.indexOf(l) !== i);
  if (targets.length > 1 && duplicate !== undefined) {
    throw new UsageError(`two targets are labelled "${duplicate}"; give each --db its own --label`);
  }
  return targets;
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
