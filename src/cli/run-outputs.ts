/**
 * The outputs `run`, `steps` and `sweep` hand their session: progress and figures on stderr and
 * stdout, the live dashboard (--dashboard), the Prometheus endpoint (--metrics-port) and
 * report.html (the dashboard's last page). The live servers start before anything else, so a
 * port in use is one line and exit 2 before any load or run begins.
 */
import { checkResultsDir, type RunOptions, type SessionOutputs } from '../api.js';
import { formatCheckResults } from '../report/check-table.js';
import { formatLoadResult, loadProgressPrinter } from '../report/load-progress.js';
import { formatRepeat } from '../report/repeat-table.js';
import { drainWarning, formatRunSummary, formatTargetsTable } from '../report/run-summary.js';
import { formatScaling, formatStepsTable } from '../report/scaling.js';
import { metricsOutput, startMetricsServer, type MetricsServer } from '../report/prometheus.js';
import { dashboardOutput, startDashboard, type Dashboard } from '../report/html/dashboard.js';
import { progressOutput } from '../report/progress-output.js';
import { reportOutput } from '../report/html/report-output.js';
import type { MetricsEndpoint } from './monitor-flags.js';

/**
 * Refuses an unwritable results directory, then serves the dashboard and the metrics endpoint
 * (when asked for) while `body` runs with the outputs; they are closed however it ends.
 */
export async function withRunOutputs<T>(
  options: RunOptions & { dashboard?: number | undefined; metrics?: MetricsEndpoint | undefined },
  resultsDir: string,
  body: (outputs: SessionOutputs) => Promise<T>,
): Promise<T> {
  await checkResultsDir(resultsDir);
  return withDashboard(options.dashboard, (dashboard) =>
    withMetricsServer(options.metrics, (metricsServer) => {
      if (metricsServer) options.outputs = [...(options.outputs ?? []), metricsOutput(metricsServer)];
      return body(printedOutputs(dashboard));
    }),
  );
}

/**
 * What a session shows, printed; intervals also go to the dashboard, when one is served, and a
 * written run directory gets its report.html.
 */
export function printedOutputs(dashboard: Dashboard | undefined): SessionOutputs {
  return {
    progress: (prefix, runDir) => progressPrinter(prefix, runDir, dashboard),
    loadProgress: () => loadProgressPrinter(process.stderr),
    loaded: (result) => {
      if (process.stderr.isTTY) process.stderr.write('\n');
      console.error(formatLoadResult(result));
    },
    show: (result) => {
      switch (result.kind) {
        case 'run':
          if (process.stderr.isTTY) process.stderr.write('\n');
          return console.log(formatRunSummary(result.report));
        case 'targets':
          return console.log(formatTargetsTable(result.reports, result.summary));
        case 'steps':
          return console.log(formatStepsTable(result.steps, result.knee));
        case 'sweep':
          return console.log(formatScaling(result.setting, result.rows, result.note));
        case 'repeat':
          console.log(formatRepeat(result.file));
          return console.log(`repeated run directory: ${result.dir}`);
        case 'check':
          return console.log(
            `${result.label === undefined ? '' : `${result.label}: `}${formatCheckResults(result.results)}`,
          );
      }
    },
    runDirOutputs: [reportOutput(dashboard)],
    describeDrain: drainWarning,
  };
}

/**
 * One run's live outputs: progress on stderr (with several targets each line starts with the
 * target's label), and the live dashboard when one is served.
 */
function progressPrinter(
  prefix: string,
  runDir: string | undefined,
  dashboard: Dashboard | undefined,
): ReturnType<SessionOutputs['progress']> {
  if (runDir !== undefined) dashboard?.setRunDir(runDir);
  const progress = progressOutput(prefix);
  return {
    outputs: [progress, ...(dashboard ? [dashboardOutput(dashboard, prefix)] : [])],
    // A wrapper's own warnings (a shard's clock) go to the same lines.
    onWarning: (message) => void progress.event({ kind: 'warning', target: prefix.trim(), message }),
  };
}

/** Serves the live run for Prometheus while `body` runs (--metrics-port). */
async function withMetricsServer<T>(
  endpoint: MetricsEndpoint | undefined,
  body: (server: MetricsServer | undefined) => Promise<T>,
): Promise<T> {
  if (endpoint === undefined) return body(undefined);
  const server = await startMetricsServer(endpoint);
  console.error(`metrics for Prometheus: ${server.url}`);
  try {
    return await body(server);
  } finally {
    await server.close().catch(() => undefined);
  }
}

/** Serves the live dashboard while `body` runs (--dashboard PORT). */
async function withDashboard<T>(
  port: number | undefined,
  body: (dashboard: Dashboard | undefined) => Promise<T>,
): Promise<T> {
  if (port === undefined) return body(undefined);
  const dashboard = await startDashboard(port);
  console.error(`dashboard: ${dashboard.url}`);
  try {
    return await body(dashboard);
  } finally {
    if (dashboard.dropped > 0)
      console.error(`dashboard: ${dashboard.dropped} updates dropped for slow pages`);
    await dashboard.close().catch(() => undefined);
  }
}
