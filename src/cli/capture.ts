import { parseDurationMs } from '../config/duration.js';
import { ExitCode, UsageError } from '../errors.js';
import { captureLive, restoreLive } from '../api.js';
import { captureFromLogs } from '../api.js';
import { formatCaptureCounts } from '../report/capture-summary.js';
import { TARGET_OPTIONS } from './args.js';
import { parseWithOperands } from './positionals.js';
import { withTarget } from './target.js';

export const CAPTURE_HELP = `txbench capture --from-log FILE... --out WORKLOAD
txbench capture [--db URL | --data-dir DIR] --duration DUR --out WORKLOAD
txbench capture --restore [--db URL | --data-dir DIR]

Captures a workload into a workload file (NDJSON, gzip when WORKLOAD ends in .gz; see
docs/workload-file.md) for \`txbench replay\`.
  --from-log FILE...   PostgreSQL csvlog or jsonlog files (told apart by their content), oldest
                       first, written with log_min_duration_statement = 0 (or log_statement = all)
                       and log_connections/log_disconnections
  --db URL / --data-dir DIR   capture live from this server for --duration: PostgreSQL (superuser,
                       logging_collector on), MySQL/MariaDB (general log to a table, durations from
                       performance_schema where it is on) or SQL Server (an Extended Events
                       session); the embedded server when neither is given. The settings changed
                       for the window are restored afterwards, also on Ctrl-C and errors.
                       Before changing any, what they were is written to a record in the state
                       directory ($TXBENCH_STATE_DIR, else $XDG_STATE_HOME/txbench, else
                       ~/.local/state/txbench); if the capture is killed, the next capture of
                       that server puts them back first
  --restore            put back what a killed capture left changed on this server (by its
                       record), and nothing else
  --duration DUR       how long to capture live (30s, 5m, 1h)
  --out WORKLOAD       the workload file to write
  --redact-literals    replace literals and parameters with typed placeholders (?int, ?str…): the
                       file keeps the workload's shape and timing but none of its data
Exit codes: 0 ok, 2 bad usage, a log in another format, or settings the user may not change
(nothing left changed), 3 database unreachable or a setting that could not be put back (the
record is kept: run --restore again), 130 interrupted (what was captured is written).`;

export const CAPTURE_FLAGS = {
  ...TARGET_OPTIONS,
  'from-log': { type: 'boolean' },
  duration: { type: 'string', short: 'd' },
  out: { type: 'string', short: 'o' },
  'redact-literals': { type: 'boolean' },
  restore: { type: 'boolean' },
} as const;

export async function captureCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseWithOperands('capture', argv, CAPTURE_FLAGS);
  if (values.help) {
    console.log(CAPTURE_HELP);
    return ExitCode.ok;
  }
  if (values.restore) {
    if (
      values.out !== undefined ||
      values.duration !== undefined ||
      values['from-log'] ||
      positionals.length > 0
    ) {
      throw new UsageError(
        '--restore only puts settings back; drop --out, --duration, --from-log and log files',
      );
    }
    return withTarget(values, { create: false }, async (target) => {
      const restored = await restoreLive(target.url);
      console.error(
        restored.record === undefined
          ? `nothing to restore on ${target.spec.label}: no capture left a setting changed there`
          : `restored ${restored.what.join(', ')} on ${target.spec.label}, left changed by a capture (pid ${restored.record.pid}) started ${restored.record.startedAt}`,
      );
      return ExitCode.ok;
    });
  }
  const out = values.out;
  if (out === undefined) throw new UsageError('--out WORKLOAD is required: the workload file to write');
  const redact = values['redact-literals'] === true;
  if (values['from-log']) {
    if (values.db !== undefined || values['data-dir'] !== undefined || values.duration !== undefined) {
      throw new UsageError('--from-log reads log files; drop --db, --data-dir and --duration');
    }
    if (positionals.length === 0) throw new UsageError('--from-log needs at least one log file');
    const counts = await captureFromLogs(positionals, out, { redact });
    console.log(formatCaptureCounts(counts, out));
    return ExitCode.ok;
  }
  if (positionals.length > 0) {
    throw new UsageError(`unexpected argument ${positionals[0]}; log files follow --from-log`);
  }
  if (values.duration === undefined) {
    throw new UsageError('give --from-log FILE... or --duration DUR (with --db URL) to capture live');
  }
  const durationMs = parseDurationMs('duration', values.duration);
  if (durationMs <= 0) throw new UsageError('--duration must be longer than 0s');
  return withTarget(values, { create: false }, async (target) => {
    const abort = new AbortController();
    const interrupt = (): void => {
      console.error('\ninterrupted: ending the capture window, restoring the server settings');
      abort.abort();
    };
    process.once('SIGINT', interrupt);
    process.once('SIGTERM', interrupt);
    try {
      console.error(`capturing from ${target.spec.label} for ${values.duration} (Ctrl-C ends it early)`);
      const result = await captureLive(target.url, out, { durationMs, redact, signal: abort.signal });
      const earlier = result.restoredEarlier;
      if (earlier?.record !== undefined) {
        console.error(
          `first restored ${earlier.what.join(', ')}, left changed by a capture (pid ${earlier.record.pid}) started ${earlier.record.startedAt}`,
        );
      }
      if (result.changed.length > 0) console.error(`restored ${result.changed.join(', ')}`);
      console.log(formatCaptureCounts(result.counts, out));
      return result.interrupted ? ExitCode.interrupted : ExitCode.ok;
    } finally {
      process.off('SIGINT', interrupt);
      process.off('SIGTERM', interrupt);
    }
  });
}
