import { openTarget, resolveTarget, type Target } from '../targets/target.js';

export interface TargetFlags {
  db?: string | undefined;
  'data-dir'?: string | undefined;
  label?: string | undefined;
}

/** Opens the target the flags name, runs `fn`, and always closes it (stopping the embedded server). */
export async function withTarget<T>(
  flags: TargetFlags,
  options: { create: boolean },
  fn: (target: Target) => Promise<T>,
): Promise<T> {
  const spec = resolveTarget({ db: flags.db, dataDir: flags['data-dir'], label: flags.label });
  const target = await openTarget(spec, options);
  try {
    return await fn(target);
  } finally {
    await target.close();
  }
}
