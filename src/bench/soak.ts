/**
 * `npm run soak`: a long run on the embedded PostgreSQL that shows whether txbench itself stays
 * flat. Default one hour at 1,000 terminals, think-scale 0.25 (100 warehouses, 10 terminals
 * each). It samples the process's RSS and heap every minute, the event loop's delay (what makes
 * the scheduler late) and the throughput per interval, then prints each figure with a PASS/MISS
 * line against its target:
 *   - RSS and heap slope after the first 5 minutes: under 1 MB per 10 minutes;
 *   - event-loop delay p99 per interval: no drift beyond twice its noise (at least 1 ms);
 *   - TPS per interval: no drift beyond twice its noise (at least 2% of the mean).
 * The engine's own scheduler lateness (p50/p99/max over the window) is printed as measured.
 * Not part of `npm test`: it runs for as long as it is told. `--minutes 2` tries it out.
 *   node dist/bench/soak.js [--minutes 60] [--terminals 1000] [--warehouses N] [--think-scale 0.25]
 *     [--interval-s 60] [--settle-minutes 5] [--connections 100] [--data-dir DIR (kept; loaded once)]
 */
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { WorkloadRun } from '../run/workload-run.js';
import { startEmbedded } from '../targets/embedded.js';
import { loadTpcc } from '../workloads/tpcc/loader.js';
import { findWorkload } from '../workloads/registry.js';
import { loadState } from '../workloads/load-record.js';
import { dialectFor } from '../dialects/for-url.js';
import { driftVerdict, memoryVerdict, slope, type Verdict } from './soak-figures.js';
import { BYTES_PER_MIB } from '../util/units.js';

interface Sample {
  minute: number;
  rssMB: number;
  heapMB: number;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      minutes: { type: 'string', default: '60' },
      terminals: { type: 'string', default: '1000' },
      warehouses: { type: 'string' },
      'think-scale': { type: 'string', default: '0.25' },
      'interval-s': { type: 'string', default: '60' },
      'settle-minutes': { type: 'string', default: '5' },
      'data-dir': { type: 'string' },
      connections: { type: 'string', default: '100' },
    },
  });
  const connections = Math.round(positive(values.connections, 'connections'));
  const minutes = positive(values.minutes, 'minutes');
  const terminals = Math.round(positive(values.terminals, 'terminals'));
  const warehouses = Math.round(
    values.warehouses === undefined
      ? Math.max(1, Math.ceil(terminals / 10))
      : positive(values.warehouses, 'warehouses'),
  );
  const thinkScale = positive(values['think-scale'], 'think-scale');
  // A short try-out still fits a slope: the settling time is at most half the run.
  const intervalS = Math.min(positive(values['interval-s'], 'interval-s'), (minutes * 60) / 4);
  const settleMin = Math.min(Number(values['settle-minutes']), minutes / 2);

  const base = values['data-dir'] ?? (await mkdtemp(path.join(tmpdir(), 'txbench-soak-')));
  await chmod(base, 0o755).catch(() => undefined);
  const server = await startEmbedded(path.join(base, 'pg'), { create: true });
  try {
    const dialect = await dialectFor(server.url);
    const db = await dialect.connect(server.url, { max: 1 });
    const workload = await findWorkload('tpcc');
    const state = await loadState(workload, dialect, db).finally(() => db.close());
    if (state.kind === 'empty') {
      console.error(`soak: loading ${warehouses} warehouses`);
      const load = await loadTpcc(server.url, { warehouses });
      console.error(`soak: loaded in ${load.seconds.toFixed(0)} s`);
    }
    console.error(
      `soak: ${minutes} min at ${terminals} terminals, think-scale ${thinkScale}, ${warehouses} warehouses, intervals of ${intervalS} s`,
    );
    const samples: Sample[] = [];
    const t0 = performance.now();
    const sample = (): void => {
      const m = process.memoryUsage();
      samples.push({
        minute: (performance.now() - t0) / 60_000,
        rssMB: m.rss / BYTES_PER_MIB,
        heapMB: m.heapUsed / BYTES_PER_MIB,
      });
    };
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const perInterval: { minute: number; tps: number; loopP99Ms: number }[] = [];
    let sampler: NodeJS.Timeout | undefined;
    const run = new WorkloadRun(
      server.url,
      'soak',
      {
        workload,
        workloadOptions: { warehouses },
        terminals,
        // As `txbench run` would (min(terminals, 100)): the embedded server takes 300 clients.
        connections: Math.min(terminals, connections),
        thinkScale,
        warmupMs: 60_000 * Math.min(1, minutes / 10),
        durationMs: minutes * 60_000,
        rampMs: 0,
        intervalMs: intervalS * 1000,
        monitor: false,
      },
      {
        onPhase: (phase) => {
          if (phase === 'measure') {
            sample();
            sampler = setInterval(sample, 60_000);
            loop.reset();
          }
        },
        onInterval: (i) => {
          if (i.phase !== 'measure' || i.seconds < intervalS / 2) return;
          perInterval.push({
            minute: (performance.now() - t0) / 60_000,
            tps: i.tps,
            loopP99Ms: loop.percentile(99) / 1e6,
          });
          loop.reset();
          console.error(
            `soak: ${perInterval.length} intervals, TPS ${i.tps.toFixed(1)}, RSS ${(process.memoryUsage().rss / BYTES_PER_MIB).toFixed(0)} MB`,
          );
        },
      },
    );
    process.once('SIGINT', () => run.stop());
    const report = await run.run();
    if (sampler) clearInterval(sampler);
    sample();
    loop.disable();

    const settled = samples.filter((s) => s.minute >= settleMin);
    const per10 = (key: 'rssMB' | 'heapMB'): number =>
      10 * slope(settled.map((s) => ({ x: s.minute, y: s[key] })));
    const lateness = (
      report.summary as { schedulerLatenessMs?: { p50: number; p99: number; max: number } | null }
    ).schedulerLatenessMs;
    const steady = perInterval.filter((p) => p.minute >= settleMin);
    const verdicts: Verdict[] = [
      memoryVerdict('RSS slope', per10('rssMB')),
      memoryVerdict('heap slope', per10('heapMB')),
      driftVerdict(
        'event-loop delay p99 per interval',
        steady.map((p) => ({ x: p.minute, y: p.loopP99Ms })),
        'ms',
        1,
      ),
      driftVerdict(
        'TPS per interval',
        steady.map((p) => ({ x: p.minute, y: p.tps })),
        'TPS',
        0.02 * (steady.reduce((a, p) => a + p.tps, 0) / Math.max(1, steady.length)),
      ),
    ];
    console.log(
      `soak: ${minutes} min, ${terminals} terminals, think-scale ${thinkScale}, ${warehouses} warehouses (embedded PostgreSQL)`,
    );
    console.log(
      `status ${report.status}; ${report.summary.transactions} transactions, TPS ${report.summary.tps.toFixed(1)}`,
    );
    console.log(`memory samples (minute: RSS MB / heap MB), fitted after minute ${settleMin}:`);
    console.log(
      '  ' +
        samples.map((s) => `${s.minute.toFixed(1)}: ${s.rssMB.toFixed(0)}/${s.heapMB.toFixed(0)}`).join(', '),
    );
    console.log('per interval (minute: TPS, event-loop p99 ms):');
    console.log(
      '  ' +
        perInterval
          .map((p) => `${p.minute.toFixed(1)}: ${p.tps.toFixed(1)}, ${p.loopP99Ms.toFixed(1)}`)
          .join('; '),
    );
    if (lateness) {
      console.log(
        `scheduler lateness over the window (engine): p50 ${lateness.p50.toFixed(2)} ms, p99 ${lateness.p99.toFixed(2)} ms, max ${lateness.max.toFixed(2)} ms`,
      );
    }
    for (const v of verdicts)
      console.log(`${v.pass ? 'PASS' : 'MISS'} ${v.name}: ${v.figure}; target ${v.target}`);
    if (settled.length < 3)
      console.log('note: fewer than 3 memory samples after settling: the slope says little; run longer');
    return verdicts.every((v) => v.pass) && report.status === 'completed' ? 0 : 1;
  } finally {
    await server.stop();
    if (values['data-dir'] === undefined) await rm(base, { recursive: true, force: true });
  }
}

function positive(text: string | undefined, name: string): number {
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) {
    console.error(`soak: --${name} must be a positive number; not "${text}"`);
    process.exit(2);
  }
  return n;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`soak: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
