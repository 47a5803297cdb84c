import { UsageError } from '../errors.js';
import type { TargetOptions } from '../api.js';
import { redactUrl } from '../util/redact.js';
import { deviceName, nodeExporterUrl } from './monitor-flags.js';

export { withTarget } from '../api.js';

/** Flags that describe one target, and the option each sets (checked as they are read). */
const TARGET_ATTRIBUTES = {
  label: { key: 'label', parse: (v: string) => v },
  'node-exporter': { key: 'nodeExporter', parse: nodeExporterUrl },
  device: { key: 'device', parse: deviceName },
} as const satisfies Record<string, { key: keyof TargetOptions; parse: (v: string) => string }>;
type TargetAttribute = keyof typeof TARGET_ATTRIBUTES;

const isAttribute = (flag: string): flag is TargetAttribute => Object.hasOwn(TARGET_ATTRIBUTES, flag);

/**
 * The targets named on the command line, in order: each `--db URL` or `--data-dir DIR` starts one,
 * and a `--label`, `--node-exporter` or `--device` describes the target it follows (or the first,
 * if it comes before any); each at most once per target.
 */
export function targetOptionsFrom(argv: readonly string[]): TargetOptions[] {
  const targets: TargetOptions[] = [];
  const beforeAny: [TargetAttribute, string][] = [];
  const set = (target: TargetOptions, flag: TargetAttribute, value: string): void => {
    const { key } = TARGET_ATTRIBUTES[flag];
    if (target[key] !== undefined) {
      throw new UsageError(
        `--${flag} "${flag === 'node-exporter' ? redactUrl(value) : value}" follows a target that already has one; give one --${flag} per --db or --data-dir, after it`,
      );
    }
    target[key] = value;
  };
  for (let i = 0; i < argv.length; i++) {
    const m = /^--(db|data-dir|label|node-exporter|device)(?:=(.*))?$/.exec(argv[i]!);
    if (!m) continue;
    const flag = m[1]!;
    const value = m[2] ?? argv[++i];
    if (value === undefined) throw new UsageError(`--${flag} needs a value`);
    if (isAttribute(flag)) {
      const parsed = TARGET_ATTRIBUTES[flag].parse(value);
      const last = targets.at(-1);
      if (last === undefined) beforeAny.push([flag, parsed]);
      else set(last, flag, parsed);
    } else {
      targets.push(flag === 'db' ? { db: value } : { dataDir: value });
    }
  }
  if (targets.length === 0) targets.push({});
  for (const [flag, value] of beforeAny) set(targets[0]!, flag, value);
  const labels = targets.map((t, i) => t.label ?? `target ${i + 1}`);
  const duplicate = labels.find((l, i) => labels.indexOf(l) !== i);
  if (targets.length > 1 && duplicate !== undefined) {
    throw new UsageError(`two targets are labelled "${duplicate}"; give each --db its own --label`);
  }
  return targets;
}
