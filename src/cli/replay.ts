import { parseDurationMs } from '../config/duration.js';
import { ExitCode, UsageError } from '../errors.js';
import { formatFidelity } from '../report/fidelity.js';
import { checkReplayable, openReplay, runReplay, type Replay } from '../api.js';
import { TARGET_OPTIONS, withOptionalValues } from './args.js';
import { parseWithOperands } from './positionals.js';
import { parseRunOptions, RUN_FLAGS, RUN_OPTIONAL_VALUES, type RunCommandOptions } from './run.js';
import { withRunOutputs } from './run-outputs.js';
import { targetOptionsFrom } from './target.js';

export const REPLAY_HELP = `txbench replay WORKLOAD [options]

Replays a workload file from \`txbench capture\` onto the target: one connection per captured
session, each session's statements in their original order and timing (prepared where the capture
used prepared statements), as any run is driven (monitoring, faults, the live dashboard and
metrics, results and report.html as \`txbench run\` has them); then prints the run's summary and
the fidelity report (statements, transactions, errors, per-template latency and counts captured
vs replayed, throughput over time, lag behind schedule, a verdict).
  --speed X          replay X times as fast (default 1); max = no waits, still in order per session
  --warmup DUR       the first DUR of the replay is not measured (default 0s)
  --duration DUR     measure at most DUR (default: until every session is done)
  --interval DUR     progress and time-series interval (default 10s)
  --max-error-rate P exit 1 when more than P percent of the replayed statements fail where the
                     capture did not
  --out DIR          results directory for the run directory (default results)
  --json FILE        write the run report (with \`fidelity\`) as JSON
  --workers N        worker threads (default 1), each replaying its share of the sessions; a
                     session stays on one thread, in its order and timing
  --db URL / --data-dir DIR [--label NAME]   the target, of the same kind as the captured database
As for \`txbench run\` (see \`txbench run --help\`): --node-exporter URL, --device NAME,
--no-monitor, --metrics-port PORT, --metrics-host HOST, --dashboard [PORT], --on-error MODE
(continue: a session whose connection dies fails that statement and reconnects with its next;
stop: end the replay at the first lost connection, exit 3), --txn-timeout DUR.
Exit codes: 0 ok, 1 --max-error-rate exceeded or the drain gave up on running statements, 2 bad
usage, a redacted or newer workload file, 3 database unreachable or lost (with --on-error stop),
130 interrupted.`;

/** The flags of \`txbench run\` that hold for a replay as they are. */
const { 'node-exporter': nodeExporter, device, 'metrics-port': metricsPort } = RUN_FLAGS;
const { 'metrics-host': metricsHost, dashboard, 'no-monitor': noMonitor } = RUN_FLAGS;
const { 'on-error': onError, 'txn-timeout': txnTimeout, workers } = RUN_FLAGS;

export const REPLAY_FLAGS = {
  ...TARGET_OPTIONS,
  speed: { type: 'string' },
  warmup: { type: 'string' },
  duration: { type: 'string', short: 'd' },
  interval: { type: 'string' },
  'max-error-rate': { type: 'string' },
  out: { type: 'string' },
  json: { type: 'string' },
  workers,
  'node-exporter': nodeExporter,
  device,
  'metrics-port': metricsPort,
  'metrics-host': metricsHost,
  dashboard,
  'no-monitor': noMonitor,
  'on-error': onError,
  'txn-timeout': txnTimeout,
} as const;

export function parseSpeed(text: string | undefined): number {
  if (text === undefined) return 1;
  if (text.trim().toLowerCase() === 'max') return Infinity;
  const n = /^\s*\d+(\.\d+)?\s*$/.test(text) ? Number(text) : NaN;
  if (!(n > 0) || !Number.isFinite(n))
    throw new UsageError(`--speed must be a number above 0 or max, not "${text}"`);
  return n;
}

export async function replayCommand(argv: string[], commandLine?: string): Promise<number> {
  const { values, positionals } = parseWithOperands(
    'replay',
    withOptionalValues(argv, RUN_OPTIONAL_VALUES),
    REPLAY_FLAGS,
  );
  if (values.help) {
    console.log(REPLAY_HELP);
    return ExitCode.ok;
  }
  const [file, extra] = positionals;
  if (file === undefined)
    throw new UsageError('give the workload file to replay: txbench replay WORKLOAD --db URL');
  if (extra !== undefined)
    throw new UsageError(`unexpected argument ${extra}; replay one workload file at a time`);
  const maxText = values['max-error-rate'];
  const maxErrorRatePct = maxText === undefined ? null : Number(maxText.replace(/%$/, ''));
  if (maxErrorRatePct !== null && !(maxErrorRatePct >= 0 && maxErrorRatePct <= 100)) {
    throw new UsageError(`--max-error-rate must be a percentage from 0 to 100, not "${maxText}"`);
  }
  const speed = parseSpeed(values.speed);
  const warmupMs = values.warmup === undefined ? 0 : parseDurationMs('warmup', values.warmup);
  const durationMs = values.duration === undefined ? Infinity : parseDurationMs('duration', values.duration);
  const intervalMs = values.interval === undefined ? 10_000 : parseDurationMs('interval', values.interval);
  if (durationMs <= 0) throw new UsageError('--duration must be longer than 0s');
  if (intervalMs < 100) throw new UsageError('--interval must be at least 100ms');
  const targets = targetOptionsFrom(argv);
  if (targets.length > 1)
    throw new UsageError('replay onto one target at a time; give one --db or --data-dir');
  const outDir = values.out ?? 'results';
  await checkReplayable(file);
  const replay = await openReplay(file, { speed, maxErrorRatePct });
  // The run's own flags, as `txbench run` reads them; the phases and the error limit are the replay's.
  const { warmup: _w, duration: _d, interval: _i, 'max-error-rate': _m, ...runFlags } = values;
  const fromFlags = parseRunOptions(runFlags, replay.workload, replay.workload.name, {});
  const options: RunCommandOptions = {
    ...fromFlags,
    terminals: replay.plan.sessions.length,
    // A connection per session: the number open at once is the capture's, not a pool's.
    connections: replay.sessions,
    // One thread unless asked: each worker replays a slice of the sessions, every session on one.
    workers: fromFlags.workers ?? 1,
    seed: 0,
    warmupMs,
    durationMs,
    intervalMs,
  };
  return withRunOutputs(options, outDir, async (outputs) => {
    const { code, report } = await runReplay(
      {
        replay,
        options,
        target: targets[0] ?? {},
        resultsDir: outDir,
        json: values.json,
        commandLine,
        starting: (label) =>
          console.error(
            `replaying ${replay.plan.statements.toLocaleString('en-US')} statements of ${replay.plan.sessions.length} sessions (${replay.plan.templates.length - 2} templates${beforeCapture(replay)}) from ${file} onto ${label} at speed ${speed === Infinity ? 'max' : speed}`,
          ),
      },
      outputs,
    );
    console.log(formatFidelity(report.fidelity));
    return code;
  });
}

/** Sessions connected before the capture began are replayed from their first statement seen. */
function beforeCapture(replay: Replay): string {
  const n = replay.plan.trailer?.counts.sessionsBeforeCapture ?? 0;
  return n > 0 ? `; ${n} sessions started before the capture, replayed from their first statement seen` : '';
}
