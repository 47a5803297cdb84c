/**
 * Every command's flag table in one place, for what reads options from elsewhere than the command
 * line: the config file (`--config`) and its generated JSON Schema.
 */
import { TARGET_OPTIONS, type OptionSpecs } from './args.js';
import { CAPTURE_FLAGS } from './capture.js';
import { CHECK_FLAGS } from './check.js';
import { COMPARE_FLAGS } from './compare.js';
import { LOAD_FLAGS } from './load.js';
import { MERGE_FLAGS } from './merge.js';
import { PLAN_FLAGS } from './plan-flags.js';
import { REPLAY_FLAGS } from './replay.js';
import { REPORT_FLAGS } from './report.js';
import { RESULTS_FLAGS } from './results.js';
import { RUN_FLAGS } from './run.js';
import { SHARD_FLAGS } from './shard-flags.js';
import { STEPS_FLAGS } from './steps.js';
import { SWEEP_FLAGS } from './sweep.js';

export interface CommandFlags {
  flags: OptionSpecs;
  /**
   * none: no --workload; name: --workload only (check, drop); options: --workload and the
   * workload's own options (--warehouses, --tables, …).
   */
  workload: 'none' | 'name' | 'options';
  /** Whether it takes the target flags (--db, --data-dir, …): the config file's `targets:`. */
  targets: boolean;
}

export const COMMAND_FLAGS: Readonly<Record<string, CommandFlags>> = {
  run: { flags: { ...RUN_FLAGS, ...SHARD_FLAGS }, workload: 'options', targets: true },
  steps: { flags: STEPS_FLAGS, workload: 'options', targets: true },
  sweep: { flags: SWEEP_FLAGS, workload: 'options', targets: true },
  load: { flags: LOAD_FLAGS, workload: 'options', targets: true },
  check: { flags: CHECK_FLAGS, workload: 'name', targets: true },
  drop: { flags: TARGET_OPTIONS, workload: 'name', targets: true },
  results: { flags: RESULTS_FLAGS, workload: 'none', targets: false },
  compare: { flags: COMPARE_FLAGS, workload: 'none', targets: false },
  report: { flags: REPORT_FLAGS, workload: 'none', targets: false },
  capture: { flags: CAPTURE_FLAGS, workload: 'none', targets: true },
  replay: { flags: REPLAY_FLAGS, workload: 'none', targets: true },
  merge: { flags: MERGE_FLAGS, workload: 'none', targets: false },
  plan: { flags: PLAN_FLAGS, workload: 'none', targets: false },
};

/** The flags a target is made of on the command line (the config file's `targets:` entries). */
export const TARGET_FLAGS: readonly string[] = ['db', 'data-dir', 'label', 'node-exporter', 'device'];

/** A command's flags, without the target flags and --help. */
export function configurableFlags(command: string): OptionSpecs {
  const all: OptionSpecs = { ...COMMAND_FLAGS[command]?.flags };
  for (const name of [...TARGET_FLAGS, 'help']) delete all[name];
  return all;
}

/** Every command the config file may have a section for. */
export const CONFIG_COMMANDS: readonly string[] = Object.keys(COMMAND_FLAGS);
