import { spawnSync } from 'node:child_process';
import { DatabaseError, ExitCode, UsageError } from '../errors.js';
import { formatScaling } from '../report/scaling.js';
import { RunDirectory, RUN_SCHEMA_VERSION } from '../results/run-dir.js';
import { GENERIC_DISCLAIMER, type RunOptions, type WorkloadRun } from '../run/workload-run.js';
import type { RunReport } from '../results/run-file.js';
import type { Target } from '../targets/target.js';
import { dialectFor } from '../dialects/for-url.js';
import { parseRunOptions, RUN_FLAGS, RUN_OPTIONAL_VALUES } from './run.js';
import {
  exitCodeOf,
  newRun,
  progressListener,
  saveResults,
  withInterrupt,
  withRunSession,
  withoutHistograms,
} from './run-session.js';
import {
  measuredEntry,
  parseRepeatFlags,
  refuseRepeatWith,
  reloadTarget,
  repetitionOptions,
  runRepeated,
} from './repeat-flags.js';
import { targetOptionsFrom } from './target.js';
import { parseWithWorkload, WORKLOAD_HELP, workloadOptionsHelp } from './workload-flags.js';

export const SWEEP_HELP = `txbench sweep --set NAME=V1,V2,... [run options]

Runs the same measurement once per value of a server setting, and prints TPS, response time and
the disks' MB/s and latency against the setting. PostgreSQL: ALTER SYSTEM, then a reload, or a restart when the setting needs
one (the embedded server restarts itself; another server needs --restart-cmd). MySQL/MariaDB:
SET GLOBAL (e.g. innodb_buffer_pool_size). SQL Server: sp_configure (e.g. 'max server memory').
  --set NAME=V1,V2   the setting and its values (required), e.g. shared_buffers=256MB,1GB
  --restart-cmd CMD  shell command that restarts an external server (when the setting needs it)
  every \`txbench run\` option applies to each value (--workload and the workload's options too);
  --repeat N runs the whole sweep N times and gives each value's figures as mean ± 95% interval
${WORKLOAD_HELP}`;

export const SWEEP_FLAGS = {
  ...RUN_FLAGS,
  set: { type: 'string' },
  'restart-cmd': { type: 'string' },
} as const;

export async function sweepCommand(argv: string[]): Promise<number> {
  const { values, workload, ref, workloadOptions } = await parseWithWorkload(
    'sweep',
    argv,
    SWEEP_FLAGS,
    true,
    RUN_OPTIONAL_VALUES,
  );
  if (values.help) {
    console.log(`${SWEEP_HELP}\n${workloadOptionsHelp(workload)}`);
    return 0;
  }
  const m = /^([A-Za-z_][\w.]*)=(.+)$/.exec(typeof values.set === 'string' ? values.set : '');
  if (!m)
    throw new UsageError('--set needs NAME=V1,V2,...; e.g. `txbench sweep --set shared_buffers=256MB,1GB`');
  const setting = m[1]!;
  const settingValues = m[2]!
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
  const options = parseRunOptions(values, workload, ref, workloadOptions);
  const out = typeof values.out === 'string' ? values.out : 'results';
  const json = typeof values.json === 'string' ? values.json : undefined;
  const restartCmd = typeof values['restart-cmd'] === 'string' ? values['restart-cmd'] : undefined;
  const list = targetOptionsFrom(argv);
  if (list.length > 1) throw new UsageError('a sweep drives one target; give one --db or --data-dir');
  const repeat = parseRepeatFlags(values);
  refuseRepeatWith(repeat, list.length, false);
  const sweep = { setting, values: settingValues, restartCmd };
  return withRunSession(options, list, out, async ([target]) => {
    if (repeat.count !== undefined) {
      return runRepeated(
        {
          of: 'sweep',
          flags: { ...repeat, count: repeat.count },
          resultsDir: out,
          json,
          target: target!,
          options,
        },
        async (dir, index) => {
          const measured = await measureSweep(
            target!,
            repetitionOptions(options, index),
            sweep,
            dir,
            undefined,
          );
          const stopped = measured.find((r) => r.report.status !== 'completed')?.report.status;
          return {
            reports: measured.map((r) => r.report),
            entries: measured.map((r) =>
              measuredEntry(`${setting}=${r.value}`, r.report, { setting, value: r.value }),
            ),
            status: stopped ?? (measured.length < settingValues.length ? 'interrupted' : 'completed'),
          };
        },
      );
    }
    if (repeat.reload) await reloadTarget(target!, options);
    const runDir = await RunDirectory.create(out, new Date(), 'sweep');
    const reports = await measureSweep(target!, options, sweep, runDir, json);
    const code = exitCodeOf(reports.map((r) => r.report));
    return reports.length < settingValues.length && code === ExitCode.ok ? ExitCode.interrupted : code;
  });
}

/**
 * One pass over the setting's values into `runDir`: each value applied and measured, the table
 * printed, run.json written; ends early at a value whose run does not complete.
 */
async function measureSweep(
  target: Target,
  options: RunOptions,
  sweep: { setting: string; values: readonly string[]; restartCmd: string | undefined },
  runDir: RunDirectory,
  json: string | undefined,
): Promise<{ value: string; report: RunReport }[]> {
  const { setting, values: settingValues, restartCmd } = sweep;
  const workload = options.workload;
  const startedAt = new Date().toISOString();
  const reports: { value: string; report: RunReport }[] = [];
  let current: WorkloadRun | undefined;
  await withInterrupt(
    () => (current ? [current] : []),
    async () => {
      for (const value of settingValues) {
        await applySetting(target, setting, value, restartCmd);
        current = newRun(target, options, progressListener(`[${setting}=${value}] `, runDir));
        const report = await current.run();
        reports.push({ value, report });
        if (report.status !== 'completed') break;
      }
    },
  );
  console.log(
    formatScaling(
      setting,
      reports.map((r) => ({ label: r.value, summary: r.report.summary, config: r.report.config })),
      `${setting} was left at ${reports.at(-1)?.value ?? 'its old value'}`,
    ),
  );
  await saveResults(runDir, json, {
    schemaVersion: RUN_SCHEMA_VERSION,
    kind: 'sweep',
    status: reports.find((r) => r.report.status !== 'completed')?.report.status ?? 'completed',
    startedAt,
    endedAt: new Date().toISOString(),
    workload: reports[0]?.report.workload ?? options.workloadRef,
    disclaimer: reports[0]?.report.disclaimer ?? workload.disclaimer ?? GENERIC_DISCLAIMER,
    config: { target: target.spec.label, setting, values: settingValues },
    sweep: reports.map((r) => ({
      setting,
      value: r.value,
      summary: r.report.summary,
      report: withoutHistograms(r.report),
    })),
  });
  return reports;
}

/** Sets the value on the server and makes it take effect (reload, or restart when it must). */
async function applySetting(target: Target, name: string, value: string, restartCmd?: string): Promise<void> {
  const dialect = await dialectFor(target.url);
  if (!dialect.applySetting) throw new UsageError(`sweeps are not available for ${dialect.name}`);
  const db = await dialect.connect(target.url, { max: 1 });
  let outcome: 'applied' | 'restart';
  try {
    outcome = await dialect.applySetting(db, name, value);
  } finally {
    await db.close();
  }
  if (outcome === 'applied') return;
  console.error(`${name}=${value} needs a server restart; restarting`);
  if (target.restart) return target.restart();
  if (!restartCmd) {
    throw new UsageError(
      `${name} takes effect only after a server restart; give --restart-cmd 'COMMAND' that restarts it`,
    );
  }
  const result = spawnSync(restartCmd, { shell: true, stdio: 'inherit' });
  if (result.status !== 0)
    throw new DatabaseError(`--restart-cmd exited with ${result.status ?? result.signal}; fix the command`);
  await waitUntilReachable(target.url);
}

async function waitUntilReachable(url: string): Promise<void> {
  const dialect = await dialectFor(url);
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      await (await dialect.connect(url, { max: 1 })).close();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}
