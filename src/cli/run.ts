import { parseDurationMs } from '../config/duration.js';
import { checkMixMinimums, parseMix } from '../config/mix.js';
import { UsageError } from '../errors.js';
import { runBenchmark, type RunOptions } from '../api.js';
import type { OptionValues, Workload } from '../api.js';
import { parseIntFlag, type OptionalValues } from './args.js';
import { metricsEndpoint, type MetricsEndpoint } from './monitor-flags.js';
import { parseRepeatFlags, refuseRepeatWith, REPEAT_FLAGS, REPEAT_HELP } from './repeat-flags.js';
import { withRunOutputs } from './run-outputs.js';
import { targetOptionsFrom } from './target.js';
import { parsePhaseLength, parseSteadyState, STEADY_FLAGS, STEADY_HELP } from './steady-flags.js';
import { parseWithWorkload, WORKLOAD_HELP, workloadOptionsHelp, type FlagValues } from './workload-flags.js';
import { parseShardFlags, SHARD_FLAGS, SHARD_HELP } from './shard-flags.js';

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

export async function runCommand(argv: string[], commandLine?: string): Promise<number> {
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
  const list = targetOptionsFrom(argv);
  const repeat = parseRepeatFlags(values);
  refuseRepeatWith(repeat, list.length, shard !== undefined);
  const out = typeof values.out === 'string' ? values.out : 'results';
  const json = typeof values.json === 'string' ? values.json : undefined;
  return withRunOutputs(options, out, (outputs) =>
    runBenchmark(
      {
        options,
        targets: list,
        startAt,
        resultsDir: out,
        json,
        repeat,
        check: values.check === true,
        commandLine,
      },
      outputs,
    ),
  );
}
