/**
 * Child process entry for section 3: the engine alone, driving a stand-in executor that completes
 * every transaction after a fixed service time (no database). One scenario per process, so its
 * resident memory is its own. Prints one JSON line (SchedulerChildResult) on stdout.
 */
import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Engine } from '../engine/engine.js';
import type { Counters } from '../engine/types.js';
import { StandIn } from './stand-in.js';
import { TPCC_DECK, TPCC_TRANSACTIONS } from '../workloads/tpcc/profile.js';

export interface SchedulerRequest {
  terminals: number;
  thinkScale: number;
  serviceMs: number;
  connections: number;
  warmupMs: number;
  rampMs: number;
  durationMs: number;
}

export interface SchedulerChildResult {
  status: string;
  windowS: number;
  /** Completed transactions per type in the window. */
  counts: number[];
  /** Mean response time per type (µs), due → completion. */
  meanResponseUs: number[];
  errors: number;
  latenessUs: { count: number; p50: number; p99: number; max: number };
  /** Peak of process.memoryUsage().rss sampled every 100 ms, and the kernel's own peak (VmHWM). */
  rssPeakBytes: number;
  vmHwmBytes: number | null;
  rssAfterSetupBytes: number;
  setupS: number;
  cpu: { userS: number; systemS: number };
  /** Most transactions in flight at once (the stand-in's connection slots used). */
  maxInFlight: number;
  /**
   * Over the window: how long the event-loop thread waited for a CPU while runnable (the kernel's
   * run-queue delay, /proc/self/schedstat; other processes' load shows here), and the event loop's
   * own delay (perf_hooks, 1 ms resolution), to tell the scheduler's lateness from the machine's.
   */
  runQueueWaitMs: number | null;
  eventLoopDelayMs: { p99: number; max: number };
}

/** Run-queue wait of the main thread so far, ms (schedstat's second field, in ns). */
function runQueueWaitMs(): number | null {
  try {
    const f = readFileSync('/proc/thread-self/schedstat', 'latin1').trim().split(/\s+/);
    return Number(f[1]) / 1e6;
  } catch {
    return null;
  }
}

function vmHwmBytes(): number | null {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'latin1'))?.[1];
    return kb === undefined ? null : Number(kb) * 1024;
  } catch {
    return null;
  }
}

async function main(): Promise<void> {
  const req = JSON.parse(process.argv[2] ?? '{}') as SchedulerRequest;
  let rssPeak = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    const rss = process.memoryUsage().rss;
    if (rss > rssPeak) rssPeak = rss;
  }, 100);
  const t0 = performance.now();
  const standIn = new StandIn(req.connections, req.serviceMs);
  const engine = new Engine<Counters>(
    {
      terminals: req.terminals,
      transactions: TPCC_TRANSACTIONS,
      deck: TPCC_DECK,
      thinkScale: req.thinkScale,
      warmupMs: req.warmupMs,
      durationMs: req.durationMs,
      rampMs: req.rampMs,
      intervalMs: 10_000,
      drainMs: 10_000,
      seed: 12345,
    },
    standIn,
    () => ({}),
  );
  const setupS = (performance.now() - t0) / 1000;
  const rssAfterSetup = process.memoryUsage().rss;
  let cpu0 = process.cpuUsage();
  let cpu = { user: 0, system: 0 };
  let wait0 = runQueueWaitMs();
  let wait: number | null = null;
  const loopDelay = monitorEventLoopDelay({ resolution: 1 });
  engine.on('phase', (phase) => {
    if (phase === 'measure') {
      cpu0 = process.cpuUsage();
      wait0 = runQueueWaitMs();
      loopDelay.enable();
    } else if (phase === 'drain') {
      cpu = process.cpuUsage(cpu0);
      const w = runQueueWaitMs();
      wait = w === null || wait0 === null ? null : w - wait0;
      loopDelay.disable();
    }
  });
  const result = await engine.run();
  clearInterval(sampler);
  const rssNow = process.memoryUsage().rss;
  const out: SchedulerChildResult = {
    status: result.status,
    windowS: result.windowSeconds,
    counts: result.perType.map((t) => t.count),
    meanResponseUs: result.perType.map((t) => (t.histogram.totalCount > 0 ? t.histogram.mean : 0)),
    errors: result.perType.reduce((a, t) => a + t.errors, 0),
    latenessUs: {
      count: result.lateness.totalCount,
      p50: result.lateness.getValueAtPercentile(50),
      p99: result.lateness.getValueAtPercentile(99),
      max: result.lateness.maxValue,
    },
    rssPeakBytes: Math.max(rssPeak, rssNow),
    vmHwmBytes: vmHwmBytes(),
    rssAfterSetupBytes: rssAfterSetup,
    setupS,
    cpu: { userS: cpu.user / 1e6, systemS: cpu.system / 1e6 },
    maxInFlight: standIn.maxInFlight,
    runQueueWaitMs: wait,
    eventLoopDelayMs: { p99: loopDelay.percentile(99) / 1e6, max: loopDelay.max / 1e6 },
  };
  process.stdout.write(JSON.stringify(out) + '\n');
}

void main();
