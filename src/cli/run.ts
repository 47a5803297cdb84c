import { parseDurationMs } from '../config/duration.js';
import { parseMix } from '../config/mix.js';
import { ExitCode, UsageError } from '../errors.js';
import { formatCheckResults } from '../report/check-table.js';
import { formatLoadResult, loadProgressPrinter } from '../report/load-progress.js';
import { formatInterval, formatRunHeader, formatRunSummary } from '../report/run-summary.js';
import { RunDirectory, writeJson } from '../results/run-dir.js';
import { TpccRun, type RunOptions, type RunReport } from '../run/tpcc-run.js';
import { loadTpcc } from '../workloads/tpcc/loader.js';
import { schemaStateAt } from '../workloads/tpcc/meta.js';
import { TPCC_TRANSACTIONS } from '../workloads/tpcc/profile.js';
import { parseCommand, parseIntFlag, TARGET_OPTIONS } from './args.js';
import { checkDatabase } from '../workloads/tpcc/check-database.js';
import { withTarget } from './target.js';

export const DEFAULT_RUN_WAREHOUSES = 2;

export const RUN_HELP = `txbench run [options]

Drives TPC-C-derived terminals against the target: warm-up, then a measured window; prints TPS,
tpmC, NOPM and response times. Loads ${DEFAULT_RUN_WAREHOUSES} warehouses first if nothing is loaded.
  --warehouses N     active warehouses (default: all loaded; the scale to load if empty)
  --terminals N      virtual users (default 10 per warehouse), each with a home warehouse/district
  --connections C    connection pool the terminals share (default min(terminals, 100))
  --think-scale X    keying and think times x X: 1 = spec, 0.25 = quarter, 0 = none (default 0)
  --warmup DUR       warm-up before measuring (default 15s; 0s allowed)
  --duration DUR     measured window (default 90s): 30s, 5m, 2h, 1h30m
  --ramp DUR         spread terminal starts over DUR (default 0s)
  --interval DUR     progress and time-series interval (default 10s)
  --mix A,B,C,D,E    percentages of New-Order, Payment, Order-Status, Delivery, Stock-Level
                     (default: the spec's 23-card deck, 10/10/1/1/1)
  --seed S           random seed for the terminals' inputs
  --out DIR          write the run directory (run.json, intervals.ndjson, histograms.json) under DIR
  --json FILE        write the run report as JSON
  --procedures       run the transactions as server-side procedures (one round trip each;
                     installed when missing) instead of client-side SQL
  --check            run \`txbench check\` after the run; exit 1 if it fails
  --db URL / --data-dir DIR   the target, as for \`txbench load\`
Exit codes: 0 ok, 1 --check failed, 2 bad usage, 3 database unreachable or lost, 130 interrupted.`;

const RUN_FLAGS = {
  ...TARGET_OPTIONS,
  warehouses: { type: 'string', short: 'w' },
  terminals: { type: 'string', short: 't' },
  connections: { type: 'string', short: 'c' },
  'think-scale': { type: 'string' },
  warmup: { type: 'string' },
  duration: { type: 'string', short: 'd' },
  ramp: { type: 'string' },
  interval: { type: 'string' },
  mix: { type: 'string' },
  seed: { type: 'string' },
  out: { type: 'string' },
  json: { type: 'string' },
  check: { type: 'boolean' },
  procedures: { type: 'boolean' },
} as const;

/** Every flag validated before anything starts. */
export function parseRunOptions(
  values: Partial<Record<keyof typeof RUN_FLAGS, string | boolean>>,
): RunOptions {
  const str = (k: keyof typeof RUN_FLAGS): string | undefined =>
    typeof values[k] === 'string' ? values[k] : undefined;
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
  const duration = (k: 'warmup' | 'duration' | 'ramp' | 'interval', dflt: number): number => {
    const text = str(k);
    return text === undefined ? dflt : parseDurationMs(k, text);
  };
  const options: RunOptions = {
    warehouses:
      str('warehouses') === undefined
        ? undefined
        : parseIntFlag('warehouses', str('warehouses')!, 1, 1_000_000),
    terminals:
      str('terminals') === undefined
        ? undefined
        : parseIntFlag('terminals', str('terminals')!, 1, 10_000_000),
    connections:
      str('connections') === undefined
        ? undefined
        : parseIntFlag('connections', str('connections')!, 1, 100_000),
    thinkScale,
    warmupMs: duration('warmup', 15_000),
    durationMs: duration('duration', 90_000),
    rampMs: duration('ramp', 0),
    intervalMs: duration('interval', 10_000),
    mix: str('mix') === undefined ? undefined : parseMix(str('mix')!, TPCC_TRANSACTIONS.length),
    seed: str('seed') === undefined ? undefined : parseIntFlag('seed', str('seed')!, 0, 2 ** 31 - 1),
    procedures: values.procedures === true,
  };
  if (options.durationMs <= 0) throw new UsageError('--duration must be longer than 0s');
  if (options.intervalMs < 100) throw new UsageError('--interval must be at least 100ms');
  return options;
}

export async function runCommand(argv: string[]): Promise<number> {
  const { values } = parseCommand('run', argv, RUN_FLAGS);
  if (values.help) {
    console.log(RUN_HELP);
    return 0;
  }
  const options = parseRunOptions(values);
  return withTarget(values, { create: true }, async (target) => {
    await loadIfEmpty(target.url, target.spec.label, options.warehouses ?? DEFAULT_RUN_WAREHOUSES);
    const runDir = values.out === undefined ? undefined : await RunDirectory.create(values.out, new Date());
    const live = process.stderr.isTTY === true;
    const run = new TpccRun(target.url, target.spec.label, options, {
      onStart: (config) => {
        console.error(formatRunHeader(config));
        void runDir?.writeRun({ status: 'running', config, startedAt: new Date().toISOString() });
      },
      onPhase: (phase) => {
        if (live) process.stderr.write('\n');
        if (phase !== 'done') console.error(`-- ${phase}`);
      },
      onInterval: (interval) => {
        void runDir?.appendInterval(interval);
        if (interval.phase === 'drain' && interval.tps === 0) return;
        if (live) process.stderr.write(`\r\x1b[2K${formatInterval(interval)}`);
        else console.error(formatInterval(interval));
      },
    });
    const interrupt = (): void => {
      console.error(
        '\ninterrupted: stopping the terminals and keeping what was measured (Ctrl-C again to quit now)',
      );
      process.off('SIGINT', interrupt);
      process.once('SIGINT', () => process.exit(ExitCode.interrupted));
      run.stop();
    };
    process.on('SIGINT', interrupt);
    process.on('SIGTERM', interrupt);
    let report: RunReport;
    try {
      report = await run.run();
    } finally {
      process.off('SIGINT', interrupt);
      process.off('SIGTERM', interrupt);
    }
    if (live) process.stderr.write('\n');
    console.log(formatRunSummary(report));
    if (runDir) {
      await runDir.writeRun(report);
      await runDir.writeHistograms(report.histograms);
      console.log(`run directory: ${runDir.dir}`);
    }
    if (values.json !== undefined) {
      const { histograms, ...withoutHistograms } = report;
      await writeJson(values.json, withoutHistograms);
    }
    if (report.status === 'interrupted') return ExitCode.interrupted;
    if (report.status === 'failed') {
      console.error(
        `txbench run: ${report.failure ?? 'the run failed'}; the results above cover what was measured`,
      );
      return ExitCode.database;
    }
    if (values.check) {
      const results = await checkDatabase(target.url, false);
      console.log(formatCheckResults(results));
      if (!results.every((r) => r.pass)) return ExitCode.checkFailed;
    }
    return ExitCode.ok;
  });
}

/** The main job on a fresh machine: load a small scale when nothing is loaded yet. */
async function loadIfEmpty(url: string, label: string, warehouses: number): Promise<void> {
  const state = await schemaStateAt(url);
  if (state.kind !== 'empty') return;
  console.error(`nothing loaded in ${label}; loading ${warehouses} warehouses first`);
  const result = await loadTpcc(url, { warehouses }, loadProgressPrinter(process.stderr));
  if (process.stderr.isTTY) process.stderr.write('\n');
  console.error(formatLoadResult(result));
}
