/**
 * `--workload NAME|FILE` and the workload's own flags: the workload is found first (from the raw
 * arguments), then the command's flags and the workload's declared options are parsed together,
 * so `--tables 4 --table-size 100000` are checked against the workload that declares them.
 */
import { UsageError } from '../errors.js';
import { describeOptions, optionFlags, parseWorkloadOptions } from '../api.js';
import { DEFAULT_WORKLOAD, findWorkload } from '../api.js';
import type { OptionValues, Workload } from '../api.js';
import { parseCommand, type OptionalValues, type OptionSpecs } from './args.js';

export const WORKLOAD_FLAG = { workload: { type: 'string' } } as const satisfies OptionSpecs;

/** The line `--help` gives the flag. */
export const WORKLOAD_HELP = `  --workload NAME    tpcc (default), tpcb, sysbench, or the path of a workload file (.ts, .js, .mjs)`;

/** The `--workload` value among raw arguments (the last one wins), or the default. */
export function workloadRefFrom(argv: readonly string[]): string {
  let ref: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const m = /^--workload(?:=(.*))?$/.exec(argv[i]!);
    if (!m) continue;
    ref = m[1] ?? argv[i + 1];
    if (ref === undefined || ref.startsWith('--')) throw new UsageError('--workload needs a value');
  }
  return ref ?? DEFAULT_WORKLOAD;
}

export type FlagValues = Record<string, string | boolean | string[] | undefined>;

export interface ParsedWithWorkload {
  values: FlagValues;
  workload: Workload;
  /** How the workload was named. */
  ref: string;
  workloadOptions: OptionValues;
}

/**
 * Parses `argv` with the command's flags plus `--workload`, and, when `withOptions`, the
 * workload's own options (checked against their declarations).
 */
export async function parseWithWorkload(
  command: string,
  argv: string[],
  flags: OptionSpecs,
  withOptions = true,
  /** Flags among `flags` whose value may be left out (see args.ts). */
  optional: OptionalValues = {},
): Promise<ParsedWithWorkload> {
  const ref = workloadRefFrom(argv);
  const workload = await findWorkload(ref);
  const own = withOptions ? optionFlags(workload.options) : {};
  const clash = Object.keys(own).find((k) => Object.hasOwn(flags, k) || k === 'workload' || k === 'help');
  if (clash !== undefined) {
    throw new UsageError(
      `the ${workload.name} workload declares --${clash}, which txbench itself uses; rename it`,
    );
  }
  const { values } = parseCommand(
    command,
    argv,
    { ...flags, ...WORKLOAD_FLAG, ...own },
    withOptions ? describeOptions(workload) : undefined,
    optional,
  );
  const given = values as FlagValues;
  return {
    values: given,
    workload,
    ref,
    workloadOptions: withOptions && given.help !== true ? parseWorkloadOptions(workload, given) : {},
  };
}

/** The `--help` lines for a workload's own options. */
export function workloadOptionsHelp(workload: Workload): string {
  if (workload.options.length === 0) return `The ${workload.name} workload has no options of its own.`;
  const lines = workload.options.map((o) => {
    const flag = `--${o.name}${o.type === 'boolean' ? '' : ` ${o.type === 'choice' ? (o.choices ?? []).join('|') : 'N'}`}`;
    return `  ${flag.padEnd(18)} ${o.help}${o.default !== undefined && o.type !== 'boolean' ? ` (default ${String(o.default)})` : ''}`;
  });
  return [`Options of the ${workload.name} workload (${workload.title}):`, ...lines].join('\n');
}
