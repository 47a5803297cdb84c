/** What a run session shows when a measurement ends: the outputs (the CLI's printers) format it. */
import type { RepeatFile } from '../results/repeat-file.js';
import type { CheckResult } from '../workloads/workload.js';
import type { AggregateSummary } from '../results/targets-file.js';
import type { RunReport } from '../results/run-file.js';

/** One step of `txbench steps`: its user count and figures. */
export interface StepResult {
  users: number;
  summary: RunReport['summary'];
  report: Omit<RunReport, 'histograms'>;
}

export type SessionResult =
  /** One run on one target. */
  | { kind: 'run'; report: RunReport }
  /** Several targets driven at once, and their sum. */
  | { kind: 'targets'; reports: RunReport[]; summary: AggregateSummary }
  /** A sequence of user counts, and the knee (the last count that still scaled). */
  | { kind: 'steps'; steps: StepResult[]; knee: number | undefined }
  /** One measurement per value of a server setting. */
  | {
      kind: 'sweep';
      setting: string;
      rows: { label: string; summary: RunReport['summary']; config: RunReport['config'] }[];
      note: string;
    }
  /** Repetitions' aggregate, and the parent directory that holds them. */
  | { kind: 'repeat'; file: RepeatFile; dir: string }
  /** `--check` after a run: the target's label when there are several, and its conditions. */
  | { kind: 'check'; label: string | undefined; results: CheckResult[] };
