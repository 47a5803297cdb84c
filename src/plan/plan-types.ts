/**
 * A plan (`txbench plan FILE.yaml`): the reviewer's protocol as a list of txbench's own commands,
 * each with its options (the long flag names, as in a config file's section) and the targets it
 * applies to.
 */
import type { ConfigValue } from '../config/config-types.js';

/** The commands a plan's step may be. */
export const PLAN_COMMANDS = ['load', 'check', 'drop', 'run', 'steps', 'sweep', 'replay'] as const;
export type PlanCommand = (typeof PLAN_COMMANDS)[number];

export interface PlanStep {
  /** Unique in the plan; names the step's directory and its line in the report. */
  name: string;
  command: PlanCommand;
  /** Flag name → value, as in a config file's section for the command. */
  options: Readonly<Record<string, ConfigValue>>;
  /** Labels of the plan's targets it applies to (all of them when the step names none). */
  targets: readonly string[];
  /** A failure of this step does not stop the plan. */
  continueOnFailure: boolean;
  /** replay: the workload file from `txbench capture`. */
  file?: string;
  /** sha256 of what the step is (its options, its targets' definitions): a change is seen on --resume. */
  hash: string;
}

export interface Plan {
  name: string;
  file: string;
  /** sha256 of the plan file's text. */
  hash: string;
  /** The targets as written in the file (`${NAME}` references unexpanded: nothing secret is copied). */
  targets: readonly Readonly<Record<string, ConfigValue>>[];
  /** A drive-cost file for `compare --cost` / `report --cost`. */
  cost?: string;
  steps: readonly PlanStep[];
}

/** What a plan's checks need to know of the commands: their flags and how they take a workload. */
export interface CommandTable {
  flags(command: PlanCommand): readonly string[];
  workload(command: PlanCommand): 'none' | 'name' | 'options';
}
