/**
 * One measurement of any workload on one target: validates the options against what was loaded,
 * opens the connection slots through the generic executor, drives the engine through warm-up and
 * the measured window, takes the database-side counters at the window's edges, and assembles the
 * run report (run.json's content). The workload is reached only through its interface.
 */
import path from 'node:path';
import { dialectFor } from '../dialects/for-url.js';
import type { RunReport } from '../results/run-file.js';
import { explainOutages } from './outage-cause.js';
import type { TransactionSpec } from '../engine/types.js';
import { describeEnvironment } from './environment.js';
import { boundedDb } from '../dialects/bounded-db.js';
import { countingDb } from '../dialects/counting-db.js';
import { scopeKey } from '../metrics/server-counter.js';
import { startTargetMonitor, type TargetMonitor } from './monitoring.js';
import { checkDialect } from '../workloads/loader.js';
import type { RunDrive, RunEngine } from './drive.js';
import { refuseWorkers } from './workers.js';
import { requireLoaded } from '../workloads/presence.js';
import type { Workload } from '../workloads/workload.js';
import { sideQueryTimeoutMs } from './fault-policy.js';
import { openRunDrive } from './open-drive.js';
import { measureWindows, type MeasureContext, type MeasureRun } from './measure.js';
import { startOutputs, type RunOutputs } from './outputs.js';
import { resolveConfig } from './run-config.js';
import { GENERIC_DISCLAIMER, preconditionReport, runReport } from './run-report.js';
import type { RunListener, RunOptions, SteadyStateOptions } from './run-options.js';

export type { RunListener, RunOptions, SteadyStateOptions };
export { GENERIC_DISCLAIMER };

export class WorkloadRun {
  private engine: RunEngine | undefined;
  private stopRequested = false;
  private readonly workload: Workload;
  private readonly transactions: readonly TransactionSpec[];

  constructor(
    private readonly url: string,
    private readonly label: string,
    private readonly options: RunOptions,
    private readonly listener: RunListener = {},
  ) {
    this.workload = options.workload;
    this.transactions = this.workload.profiles.map((p) => ({
      key: p.key,
      name: p.name,
      keyingS: p.keyingS ?? 0,
      thinkMeanS: p.thinkMeanS ?? 0,
    }));
  }

  /** Ctrl-C: stop the terminals, let in-flight transactions finish, keep what was measured. */
  stop(): void {
    this.stopRequested = true;
    this.engine?.stop('interrupted', 'interrupted by the user');
  }

  async run(): Promise<RunReport> {
    const target = this.label;
    // An output that fails is told through the others (the progress printer among them).
    const subscribers = [...(this.options.outputs ?? []), ...(this.listener.outputs ?? [])];
    const outputs: RunOutputs = startOutputs(subscribers, (message) =>
      outputs.emit({ kind: 'warning', target, message }),
    );
    const warn = (message: string): void => outputs.emit({ kind: 'warning', target, message });
    try {
      const report = await this.measureAll(outputs, warn);
      outputs.emit({ kind: 'summary', target, report });
      return report;
    } finally {
      await outputs.stop();
    }
  }

  private async measureAll(outputs: RunOutputs, warn: (message: string) => void): Promise<RunReport> {
    const workload = this.workload;
    const dialect = await dialectFor(this.url);
    checkDialect(workload, dialect);
    refuseWorkers(this.options.workers, dialect.capabilities.concurrentWriters);
    // The side connection (counters, audit, monitoring) is bounded too: see bounded-db.ts.
    const sideSent = countingDb(await dialect.connect(this.url, { max: 1 }));
    const monitor = boundedDb(
      sideSent,
      sideQueryTimeoutMs(this.options),
      (err) => dialect.classify(err) === 'connection',
    );
    let drive: RunDrive | undefined;
    let watch: TargetMonitor | undefined;
    try {
      const workloadOptions = this.options.workloadOptions ?? {};
      const { record } = await requireLoaded(workload, dialect, monitor, workloadOptions);
      const seed = this.options.seed ?? Math.floor(Math.random() * 2 ** 31);
      const prepared = await workload.prepareRun({
        options: workloadOptions,
        record,
        dialect,
        db: monitor,
        url: this.url,
        seed,
      });
      const config = await resolveConfig(
        {
          label: this.label,
          workload,
          transactions: this.transactions,
          options: this.options,
          onWarning: warn,
        },
        dialect,
        monitor,
        prepared,
        workloadOptions,
        seed,
      );
      drive = await openRunDrive(
        { url: this.url, options: this.options, workload },
        config,
        record,
        workloadOptions,
        prepared,
      );
      this.listener.onStart?.(config);
      outputs.emit({ kind: 'start', target: this.label, config });
      const environment = await describeEnvironment(dialect, monitor, {
        url: this.url,
        localDataDir: this.options.dataDir,
      });
      if (this.options.monitor !== false) {
        watch = await startTargetMonitor(dialect, monitor, environment, {
          ...this.options.monitoring,
          localDataDir: this.options.dataDir,
        });
        for (const note of watch.description.notes) warn(note);
      }
      // Several targets start their terminals together: each waits here until all are ready.
      await this.listener.ready?.();
      const startedAt = new Date();
      await prepared.beforeRun?.(monitor);
      const counterScope = scopeKey(await dialect.transactionCounter?.scope(monitor).catch(() => undefined));
      const ctx: MeasureContext = {
        dialect,
        monitor,
        sideSent,
        counterScope,
        prepared,
        drive,
        config,
        watch,
      };
      const measuring: MeasureRun = {
        label: this.label,
        options: this.options,
        transactions: this.transactions,
        listener: this.listener,
        outputs,
        engineReady: (engine) => {
          this.engine = engine;
          if (this.stopRequested) engine.stop('interrupted', 'interrupted by the user');
        },
      };
      const measured = await measureWindows(measuring, ctx, () => this.stopRequested);
      const main = measured.main;
      const precondition =
        measured.precondition && preconditionReport(workload, measured.precondition, prepared);
      const { result, measurement } = main;
      const localData =
        this.options.dataDir ?? (environment.device.kind === 'local' ? environment.device.path : undefined);
      await explainOutages(
        result.outages,
        localData,
        this.options.dataDir === undefined ? undefined : path.join(this.options.dataDir, 'log'),
      );
      drive.addRunTallies(prepared);
      config.workerSlices = drive.slices(result.perType.reduce((a, t) => a + t.count, 0));
      const shard = config.shard !== undefined;
      const audit = (await prepared.audit?.(measurement, monitor, { shard })) ?? { checks: [] };
      if (monitor.timedOut > 0) {
        warn(
          `the side connection (counters, audit, monitoring) did not answer ${monitor.timedOut} queries within ${sideQueryTimeoutMs(this.options) / 1000} s; the figures they were for are n/a`,
        );
      }
      return runReport({
        workload,
        transactions: this.transactions,
        options: this.options,
        prepared,
        config,
        environment,
        startedAt,
        precondition,
        main,
        faults: drive.faults(),
        audit,
      });
    } finally {
      await watch?.monitor.stop().catch(() => undefined);
      await drive?.close().catch(() => undefined);
      await monitor.close().catch(() => undefined);
    }
  }
}
