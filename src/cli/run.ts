import { parseDurationMs } from '../config/duration.js';
import { checkMixMinimums, parseMix } from '../config/mix.js';
import { ExitCode, UsageError } from '../errors.js';
import { formatCheckResults } from '../report/check-table.js';
import { formatRunSummary, formatTargetsTable } from '../report/run-summary.js';
import { RunDirectory, RUN_SCHEMA_VERSION } from '../results/run-dir.js';
import { aggregate } from '../run/aggregate.js';
import { SharedCpu } from '../run/shared-cpu.js';
import type { Target } from '../targets/target.js';
import { GENERIC_DISCLAIMER, type RunOptions } from '../run/workload-run.js';
import type { RunReport } from '../results/run-file.js';
import { checkWorkload } from '../workloads/checks.js';
import type { OptionValues, Workload } from '../workloads/workload.js';
import { parseIntFlag, type OptionalValues } from './args.js';
import { metricsEndpoint, type MetricsEndpoint } from './monitor-flags.js';
import {
  measuredEntry,
  parseRepeatFlags,
  refuseRepeatWith,
  reloadTarget,
  REPEAT_FLAGS,
  REPEAT_HELP,
  repetitionOptions,
  runRepeated,
} from './repeat-flags.js';
import {
  exitCodeOf,
  newRun,
  progressListener,
  saveJson,
  saveResults,
  withInterrupt,
  withRunSession,
  withoutHistograms,
} from './run-session.js';
import { targetOptionsFrom } from './target.js';
import { parsePhaseLength, parseSteadyState, STEADY_FLAGS, STEADY_HELP } from './steady-flags.js';
import { parseWithWorkload, WORKLOAD_HELP, workloadOptionsHelp, type FlagValues } from './workload-flags.js';
import {
  markCancelled,
  parseShardFlags,
  SHARD_FLAGS,
  SHARD_HELP,
  shardListener,
  startGate,
} from './shard-flags.js';

export const RUN_HELP = `txbench run [options]

Drives the workload's terminals against the target: warm-up, then a measured window; prints TPS,
the workload's headline figures (TPC-C: tpmC, NOPM) and response times. On txbench's own embedded
server, loads the workload's default scale first if nothing is loaded.
${WORKLOAD_HELP}
  --terminals N      virtual users (default: the workload's; TPC-C 10 per warehouse, each with a
                     home warehouse/district)
  --connections C    connection pool the terminals share (default min(terminals, 100))
  --workers N        worker threads driving the terminals, each with its own scheduler and its
                     share of the terminals and connections; the main thread only merges
                     (default: 1 per 1,000 terminals, at least 1, at most the cores; SQLite: 1)
  --think-scale X    keying and think times x X: 1 = spec, 0.25 = quarter, 0 = none (default 0)
  --warmup DUR       warm-up before measuring (default 15s; 0s allowed); auto[:MAX]: until
                     throughput and response time are steady (below), at most MAX (default 30m)
  --duration DUR     measured window (default 90s): 30s, 5m, 2h, 1h30m
  --ramp DUR         spread terminal starts over DUR (default 0s)
  --interval DUR     progress and time-series interval (default 10s)
  --mix A,B,C,D,E    percentages of the workload's transaction types, in its order (TPC-C: New-Order,
                     Payment, Order-Status, Delivery, Stock-Level; default: the spec's 23-card
                     deck, 10/10/1/1/1); refused below the spec's minimums (Payment 43,
                     Order-Status, Delivery, Stock-Level 4 each)
  --allow-nonstandard-mix  run a --mix below those minimums, marked non-standard in run.json
  --seed S           random seed for the terminals' inputs
  --out DIR          results directory for the run directory (run.json, intervals.ndjson,
                     histograms.json); default results
  --json FILE        write the run report as JSON
  --precondition DUR a phase before warm-up whose figures are kept but not scored; auto[:MAX]:
                     until steady, at most MAX (default 30m)
  --check            run \`txbench check\` after the run; exit 1 if it fails
${REPEAT_HELP}
  --db URL / --data-dir DIR [--label NAME]   the target, as for \`txbench load\`; give several
                     (each with its own --label) to drive them at the same moment and add them up
Watching the storage (each run samples its disks, host and database every second):
  --node-exporter URL  after a --db: the database host's Prometheus node_exporter, e.g.
                     http://db1:9100, for its disk, CPU and memory figures
  --device NAME      after a --db or --data-dir: the disk to watch, e.g. nvme0n1 (a local one must
                     be in /sys/block); default: the disks under the data and the log
  --metrics-port PORT  serve the live run in the Prometheus text format on this port
  --metrics-host HOST  the address it listens on (default 127.0.0.1)
  --dashboard [PORT] serve the live report on 127.0.0.1 (on PORT if given, else a free port; its
                     URL is printed), updated every interval; the final report when the run ends.
                     A port in use: exit 2
  --no-monitor       sample no disk, host or database figures (they are n/a in the report)
Faults (a restart, a failover, a network cut, a statement that never returns):
  --on-error MODE    continue (default): a transaction whose connection dies fails and is
                     counted by class, the connection is replaced (exponential backoff, capped,
                     jittered) and the run carries on; each outage is reported with its start,
                     duration and failed transactions. stop: end the run at the first lost
                     connection (exit 3)
  --txn-timeout DUR  cancel a transaction the server has not answered after DUR and count it as
                     a timeout (default 60s; 0 = never); connection attempts time out too
  --max-errors N     fail the run (exit 1, figures still written) with more than N failed
                     transactions in the measured window
  --max-error-rate P%  fail the run (exit 1) when more than P% of its transactions failed
${STEADY_HELP}
${SHARD_HELP}
Exit codes: 0 ok, 1 --check failed, more failures than --max-errors/--max-error-rate, or the
drain gave up on running transactions (status incomplete-drain), 2 bad usage, 3 database
unreachable or lost (with --on-error stop), 130 interrupted.`;

export const RUN_FLAGS = {
  db: { type: 'string', multiple: true },
  'data-dir': { type: 'string', multiple: true },
  label: { type: 'string', multiple: true },
  terminals: { type: 'string', short: 't' },
  connections: { type: 'string', short: 'c' },
  workers: { type: 'string' },
  'think-scale': { type: 'string' },
  warmup: { type: 'string' },
  duration: { type: 'string', short: 'd' },
  ramp: { type: 'string' },
  interval: { type: 'string' },
  mix: { type: 'string' },
  'allow-nonstandard-mix': { type: 'boolean' },
  seed: { type: 'string' },
  out: { type: 'string' },
  json: { type: 'string' },
  check: { type: 'boolean' },
  precondition: { type: 'string' },
  'node-exporter': { type: 'string', multiple: true },
  device: { type: 'string', multiple: true },
  'metrics-port': { type: 'string' },
  dashboard: { type: 'string' },
  'metrics-host': { type: 'string' },
  'no-monitor': { type: 'boolean' },
  'on-error': { type: 'string' },
  'txn-timeout': { type: 'string' },
  'max-errors': { type: 'string' },
  'max-error-rate': { type: 'string' },
  ...REPEAT_FLAGS,
  ...STEADY_FLAGS,
} as const;

/** `--dashboard` alone serves on any free port (as `--dashboard 0`). */
export const RUN_OPTIONAL_VALUES = { dashboard: { bare: '0' } } as const satisfies OptionalValues;

/** What run, steps and sweep do beyond one measurement's options. */
export interface RunCommandOptions extends RunOptions {
  /** Sample the disks, host and database under each target (off with --no-monitor). */
  monitor: boolean;
  /** Serve the live run for Prometheus (--metrics-port, --metrics-host). */
  metrics?: MetricsEndpoint | undefined;
  /** Serve the live dashboard on 127.0.0.1 at this port (0: any free port, as `--dashboard` alone). */
  dashboard?: number | undefined;
}

/** Every flag validated before anything starts. */
export function parseRunOptions(
  values: FlagValues,
  workload: Workload,
  workloadRef: string,
  workloadOptions: OptionValues,
): RunCommandOptions {
  const str = (k: keyof typeof RUN_FLAGS): string | undefined => {
    const v = values[k];
    return typeof v === 'string' ? v : undefined;
  };
  const thinkText = str('think-scale');
  const thinkScale = thinkText === undefined ? 0 : Number(thinkText);
  if (
    thinkText !== undefined &&
    (!/^\s*[\d.]+\s*$/.test(thinkText) || !Number.isFinite(thinkScale) || thinkScale < 0)
  ) {
    throw new UsageError(
      `--think-scale must be a number >= 0 (1 = spec, 0.25 = quarter, 0 = none), not "${thinkText}"`,
    );
  }
  const duration = (k: 'duration' | 'ramp' | 'interval', dflt: number): number => {
    const text = str(k);
    return text === undefined ? dflt : parseDurationMs(k, text);
  };
  const profiles = workload.profiles;
  const warmup = str('warmup') === undefined ? undefined : parsePhaseLength('warmup', str('warmup')!);
  const precondition =
    str('precondition') === undefined ? undefined : parsePhaseLength('precondition', str('precondition')!);
  const options: RunCommandOptions = {
    workload,
    workloadRef,
    workloadOptions,
    terminals:
      str('terminals') === undefined
        ? undefined
        : parseIntFlag('terminals', str('terminals')!, 1, 10_000_000),
    connections:
      str('connections') === undefined
        ? undefined
        : parseIntFlag('connections', str('connections')!, 1, 100_000),
    workers: str('workers') === undefined ? undefined : parseIntFlag('workers', str('workers')!, 1, 1024),
    thinkScale,
    warmupMs: warmup?.ms ?? 15_000,
    durationMs: duration('duration', 90_000),
    rampMs: duration('ramp', 0),
    intervalMs: duration('interval', 10_000),
    mix: str('mix') === undefined ? undefined : parseMix(str('mix')!, profiles.length),
    allowNonstandardMix: values['allow-nonstandard-mix'] === true,
    seed: str('seed') === undefined ? undefined : parseIntFlag('seed', str('seed')!, 0, 2 ** 31 - 1),
    preconditionMs: precondition?.ms,
    steadyState: parseSteadyState(str, warmup?.auto === true, precondition?.auto === true),
    monitor: values['no-monitor'] !== true,
    metrics: metricsEndpoint(str('metrics-port'), str('metrics-host')),
    dashboard:
      str('dashboard') === undefined ? undefined : parseIntFlag('dashboard', str('dashboard')!, 0, 65535),
  };
  const onError = str('on-error');
  if (onError !== undefined && onError !== 'continue' && onError !== 'stop') {
    throw new UsageError(`--on-error must be continue or stop, not "${onError}"`);
  }
  options.onError = onError;
  const txnTimeout = str('txn-timeout');
  if (txnTimeout !== undefined) {
    const ms = parseDurationMs('txn-timeout', txnTimeout);
    options.txnTimeoutMs = ms === 0 ? Infinity : ms;
  }
  const maxErrors = str('max-errors');
  if (maxErrors !== undefined) options.maxErrors = parseIntFlag('max-errors', maxErrors, 0);
  const maxRate = str('max-error-rate');
  if (maxRate !== undefined) options.maxErrorRatePct = parsePercent('max-error-rate', maxRate);
  if (!options.monitor) {
    const watching = (['node-exporter', 'device'] as const).find((k) => values[k] !== undefined);
    if (watching !== undefined) {
      throw new UsageError(`--no-monitor turns monitoring off; drop --${watching} or --no-monitor`);
    }
  }
  if (options.mix) {
    const rules = {
      minimums: profiles.map((p) => p.minimumSharePct ?? 0),
      names: profiles.map((p) => p.name),
    };
    checkMixMinimums(options.mix, rules, options.allowNonstandardMix === true);
  }
  if (options.durationMs <= 0) throw new UsageError('--duration must be longer than 0s');
  if (options.intervalMs < 100) throw new UsageError('--interval must be at least 100ms');
  return options;
}

/** A percentage from 0 to 100, with or without its % sign (`0.5%`, `2`). */
function parsePercent(flag: string, text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*%?\s*$/.exec(text);
  const n = m ? Number(m[1]) : NaN;
  if (!Number.isFinite(n) || n > 100) {
    throw new UsageError(`--${flag} must be a percentage from 0 to 100, e.g. 1% or 0.5%, not "${text}"`);
  }
  return n;
}

export async function runCommand(argv: string[]): Promise<number> {
  const { values, workload, ref, workloadOptions } = await parseWithWorkload(
    'run',
    argv,
    { ...RUN_FLAGS, ...SHARD_FLAGS },
    true,
    RUN_OPTIONAL_VALUES,
  );
  if (values.help) {
    console.log(`${RUN_HELP}\n${workloadOptionsHelp(workload)}`);
    return 0;
  }
  const options = parseRunOptions(values, workload, ref, workloadOptions);
  const { shard, startAt, seed } = parseShardFlags(values, options.seed);
  options.shard = shard;
  options.seed = seed;
  const who = shard ? `shard ${shard.index}/${shard.count}: ` : '';
  const ready = startGate(startAt, who);
  const list = targetOptionsFrom(argv);
  const repeat = parseRepeatFlags(values);
  refuseRepeatWith(repeat, list.length, shard !== undefined);
  const out = typeof values.out === 'string' ? values.out : 'results';
  const json = typeof values.json === 'string' ? values.json : undefined;
  return withRunSession(options, list, out, async (targets) => {
    let code: number;
    if (repeat.count !== undefined) {
      const target = targets[0]!;
      code = await runRepeated(
        { of: 'run', flags: { ...repeat, count: repeat.count }, resultsDir: out, json, target, options },
        async (dir, index) => {
          const report = await runOne(target, repetitionOptions(options, index), dir, undefined, ready);
          return {
            reports: [report],
            entries: [measuredEntry(target.spec.label, report)],
            status: report.status,
          };
        },
      );
    } else {
      if (repeat.reload) for (const t of targets) await reloadTarget(t, options);
      const runDir = await RunDirectory.create(out, new Date(), targets.length === 1 ? 'run' : 'targets');
      const reports =
        targets.length === 1
          ? [await runOne(targets[0]!, options, runDir, json, ready)]
          : await runMany(targets, options, runDir, json, ready);
      code = exitCodeOf(reports);
    }
    if (code !== ExitCode.ok || !values.check) return code;
    let failed = false;
    for (const t of targets) {
      const results = await checkWorkload(workload, t.url, false);
      console.log(`${targets.length > 1 ? `${t.spec.label}: ` : ''}${formatCheckResults(results)}`);
      failed ||= !results.every((r) => r.pass);
    }
    return failed ? ExitCode.checkFailed : ExitCode.ok;
  });
}

async function runOne(
  target: Target,
  options: RunOptions,
  runDir: RunDirectory,
  json: string | undefined,
  ready: (() => Promise<void>) | undefined,
): Promise<RunReport> {
  // The listener puts the run's conditions into run.json as soon as it starts.
  const run = newRun(target, options, shardListener(progressListener('', runDir), ready));
  const report = await withInterrupt(
    () => [run],
    () => run.run(),
  ).catch(markCancelled(runDir));
  if (process.stderr.isTTY) process.stderr.write('\n');
  console.log(formatRunSummary(report));
  await saveResults(runDir, undefined, withoutHistograms(report), report.histograms);
  if (json !== undefined) await saveJson(json, withoutHistograms(report));
  return report;
}

/** Several targets driven at the same moment: each sets up, then all start their terminals together. */
async function runMany(
  targets: readonly Target[],
  options: RunOptions,
  runDir: RunDirectory,
  json: string | undefined,
  ready: (() => Promise<void>) | undefined,
): Promise<RunReport[]> {
  const gate = startingGate(targets.length);
  // One process, one thread: its CPU is measured once for all targets, none charged to any one.
  const cpu = new SharedCpu();
  const runs = targets.map((t) => {
    const progress = shardListener(progressListener(`[${t.spec.label}] `, runDir), undefined);
    const cpuPhase = cpu.forTarget();
    return newRun(
      t,
      { ...options, otherTargetsInProcess: true },
      {
        ...progress,
        onPhase: (phase) => {
          cpuPhase(phase);
          progress.onPhase?.(phase);
        },
        ready: () => gate.arrive().then(ready),
      },
    );
  });
  const startedAt = new Date().toISOString();
  const settled = await withInterrupt(
    () => runs,
    () =>
      Promise.allSettled(
        runs.map((r) =>
          r.run().catch((err: unknown) => {
            // One target failed to set up: the others must not wait for it, nor run alone.
            gate.open();
            for (const other of runs) other.stop();
            throw err;
          }),
        ),
      ),
  );
  const failure = settled.find((s) => s.status === 'rejected');
  if (failure) return markCancelled(runDir)(failure.reason);
  const reports = settled.map((s) => (s as PromiseFulfilledResult<RunReport>).value);
  const summary = aggregate(reports, cpu.result());
  console.log(formatTargetsTable(reports, summary));
  const content = {
    schemaVersion: RUN_SCHEMA_VERSION,
    kind: 'targets',
    status: reports.find((r) => r.status !== 'completed')?.status ?? 'completed',
    startedAt,
    endedAt: new Date().toISOString(),
    workload: reports[0]?.workload,
    disclaimer: reports[0]?.disclaimer ?? GENERIC_DISCLAIMER,
    config: {
      target: reports.map((r) => r.config.target).join(' + '),
      targets: reports.map((r) => r.config),
    },
    summary,
    targets: reports.map((r) => ({
      label: r.config.target,
      summary: r.summary,
      // A shard keeps each target's histograms for `txbench merge` (histograms.json holds one target’s only).
      report: options.shard ? r : withoutHistograms(r),
    })),
  };
  await saveResults(runDir, json, content);
  return reports;
}

/** Resolves every arrival once all `n` have arrived (or at once, after `open`). */
function startingGate(n: number): { arrive(): Promise<void>; open(): void } {
  let arrived = 0;
  let release: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (release = resolve));
  return {
    arrive: () => {
      if (++arrived >= n) release();
      return opened;
    },
    open: () => release(),
  };
}
