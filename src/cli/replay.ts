import { parseDurationMs } from '../config/duration.js';
import { ExitCode, UsageError } from '../errors.js';
import { formatFidelity } from '../report/fidelity.js';
import { checkResultsDir, RunDirectory, RUN_SCHEMA_VERSION } from '../results/run-dir.js';
import { checkReplayable, type ReplayPlan } from '../replay/plan.js';
import { ReplayRun, type ReplayOptions } from '../replay/replay-run.js';
import { parseIntFlag, TARGET_OPTIONS } from './args.js';
import { parseWithOperands } from './positionals.js';
import { saveResults } from './run-session.js';
import { withTarget } from './target.js';

export const REPLAY_HELP = `txbench replay WORKLOAD [options]

Replays a workload file from \`txbench capture\` onto the target: one connection per captured
session, each session's statements in their original order and timing (prepared where the capture
used prepared statements), through the same engine, results and reports as \`txbench run\`; then
prints the fidelity report (statements, transactions, errors, per-template latency and counts
captured vs replayed, throughput over time, lag behind schedule, a verdict).
  --speed X          replay X times as fast (default 1); max = no waits, still in order per session
  --warmup DUR       the first DUR of the replay is not measured (default 0s)
  --duration DUR     measure at most DUR (default: until every session is done)
  --interval DUR     progress and time-series interval (default 10s)
  --max-error-rate P exit 1 when more than P percent of the replayed statements fail where the
                     capture did not
  --out DIR          results directory for the run directory (default results)
  --json FILE        write the run report (with \`fidelity\`) as JSON
  --workers N        only 1: a capture is replayed from one thread, so its sessions keep their
                     order and timing
  --db URL / --data-dir DIR [--label NAME]   the target, of the same kind as the captured database
Exit codes: 0 ok, 1 --max-error-rate exceeded, 2 bad usage, a redacted or newer workload file,
3 database unreachable or lost, 130 interrupted.`;

export const REPLAY_FLAGS = {
  ...TARGET_OPTIONS,
  speed: { type: 'string' },
  warmup: { type: 'string' },
  duration: { type: 'string', short: 'd' },
  interval: { type: 'string' },
  'max-error-rate': { type: 'string' },
  out: { type: 'string' },
  json: { type: 'string' },
  workers: { type: 'string' },
} as const;

export function parseSpeed(text: string | undefined): number {
  if (text === undefined) return 1;
  if (text.trim().toLowerCase() === 'max') return Infinity;
  const n = /^\s*\d+(\.\d+)?\s*$/.test(text) ? Number(text) : NaN;
  if (!(n > 0) || !Number.isFinite(n))
    throw new UsageError(`--speed must be a number above 0 or max, not "${text}"`);
  return n;
}

export async function replayCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseWithOperands('replay', argv, REPLAY_FLAGS);
  if (values.help) {
    console.log(REPLAY_HELP);
    return ExitCode.ok;
  }
  const [file, extra] = positionals;
  if (file === undefined)
    throw new UsageError('give the workload file to replay: txbench replay WORKLOAD --db URL');
  if (extra !== undefined)
    throw new UsageError(`unexpected argument ${extra}; replay one workload file at a time`);
  // A capture's sessions keep their order and timing only when one thread replays them all.
  if (values.workers !== undefined && parseIntFlag('workers', values.workers, 1) > 1)
    throw new UsageError('replay runs its captured sessions from one thread; drop --workers');
  const maxText = values['max-error-rate'];
  const maxErrorRatePct = maxText === undefined ? null : Number(maxText.replace(/%$/, ''));
  if (maxErrorRatePct !== null && !(maxErrorRatePct >= 0 && maxErrorRatePct <= 100)) {
    throw new UsageError(`--max-error-rate must be a percentage from 0 to 100, not "${maxText}"`);
  }
  const options: ReplayOptions = {
    speed: parseSpeed(values.speed),
    warmupMs: values.warmup === undefined ? 0 : parseDurationMs('warmup', values.warmup),
    durationMs: values.duration === undefined ? Infinity : parseDurationMs('duration', values.duration),
    intervalMs: values.interval === undefined ? 10_000 : parseDurationMs('interval', values.interval),
    maxErrorRatePct,
  };
  if (options.durationMs <= 0) throw new UsageError('--duration must be longer than 0s');
  if (options.intervalMs < 100) throw new UsageError('--interval must be at least 100ms');
  const outDir = values.out ?? 'results';
  await checkResultsDir(outDir);
  await checkReplayable(file);
  return withTarget(values, { create: false }, async (target) => {
    const runDir = await RunDirectory.create(outDir, new Date(), 'run');
    const run = new ReplayRun(file, target.url, target.spec.label, options, {
      onStart: (plan) =>
        console.error(
          `replaying ${plan.statements.toLocaleString('en-US')} statements of ${plan.sessions.length} sessions (${plan.templates.length - 2} templates${beforeCapture(plan)}) from ${file} onto ${target.spec.label} at speed ${options.speed === Infinity ? 'max' : options.speed}`,
        ),
      onPhase: (phase) => {
        if (phase !== 'done') console.error(`-- ${phase}`);
      },
      onInterval: (iv) => {
        void runDir.appendInterval(iv);
        if (iv.seconds >= 1)
          console.error(`  ${iv.atS.toFixed(0)}s  ${iv.tps.toFixed(1)} statements/s  errors ${iv.errors}`);
      },
    });
    let interrupted = false;
    const interrupt = (): void => {
      interrupted = true;
      console.error('\ninterrupted: stopping the replay and keeping what was measured');
      run.stop();
    };
    process.once('SIGINT', interrupt);
    try {
      await runDir.writeRun({
        schemaVersion: RUN_SCHEMA_VERSION,
        kind: 'run',
        status: 'running',
        startedAt: new Date().toISOString(),
      });
      const { report, fidelity, histograms } = await run.run();
      console.log(formatFidelity(fidelity));
      await saveResults(runDir, values.json, report, histograms);
      if (interrupted) return ExitCode.interrupted;
      if (report.status === 'failed') return ExitCode.database;
      return fidelity.pass ? ExitCode.ok : ExitCode.checkFailed;
    } finally {
      process.off('SIGINT', interrupt);
    }
  });
}

/** Sessions connected before the capture began are replayed from their first statement seen. */
function beforeCapture(plan: ReplayPlan): string {
  const n = plan.trailer?.counts.sessionsBeforeCapture ?? 0;
  return n > 0 ? `; ${n} sessions started before the capture, replayed from their first statement seen` : '';
}
