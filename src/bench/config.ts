/**
 * The bench's settings: full-length by default; environment variables shorten it for quick tries
 * (BENCH_SCALE=0.25 scales every window and warm-up) or pick sections (BENCH_SECTIONS=1,3).
 * Section 9 (a larger load, about 10 GB at its default 100 warehouses) runs only when picked.
 * Section 10 (the floor) runs by default; it is numbered after 9 because it came later.
 */
import type { PlacementMode } from './placement.js';
import { SYSBENCH_SCRIPTS, type Script } from './sysbench-figures.js';

export interface BenchConfig {
  scale: number;
  sections: ReadonlySet<number>;
  out: string;
  clientCost: {
    warehouses: number;
    terminals: number;
    connections: number;
    warmupMs: number;
    durationMs: number;
  };
  /** pgbench's script weights per type (New-Order, Payment, Order-Status, Delivery, Stock-Level). */
  pgbenchWeights: readonly number[];
  scheduler: {
    terminals: readonly number[];
    thinkScale: number;
    serviceMs: number;
    connections: number;
    warmupMs: number;
    rampMs: number;
    durationMs: number;
  };
  /** Section 8: the stand-in client at 1 and 2 worker threads, and 100,000 paced terminals over 2. */
  workers: {
    unpacedTerminals: number;
    serviceMs: number;
    cpuUs: number;
    warmupMs: number;
    durationMs: number;
    pacedRampMs: number;
    pacedWarmupMs: number;
  };
  loader: { warehouses: number };
  /** Section 9 (opt-in): a larger load, and the device's own sequential write rate beside it. */
  largeLoad: { warehouses: number; deviceMB: number };
  ceiling: { warehouses: number; terminals: readonly number[]; warmupMs: number; durationMs: number };
  sysbench: {
    tables: number;
    tableSize: number;
    /** Section 7's scripts (all three unless BENCH_SYSBENCH_SCRIPTS picks some). */
    scripts: readonly Script[];
    /** Each script runs at each of these thread counts (sysbench --threads, txbench --terminals). */
    threadCounts: readonly number[];
    warmupMs: number;
    durationMs: number;
    /** Where the turns run (BENCH_PLACEMENT; placement.ts). */
    placement: PlacementMode;
  };
  /** Section 10: section 7's scripts by sysbench, a bare Node.js socket loop and txbench. */
  floor: {
    scripts: readonly Script[];
    threadCounts: readonly number[];
    warmupMs: number;
    durationMs: number;
    placement: PlacementMode;
  };
}

export const ENV_KEYS = [
  'BENCH_SCALE',
  'BENCH_SECTIONS',
  'BENCH_OUT',
  'BENCH_PG_BIN',
  'BENCH_PGBENCH_WEIGHTS',
  'BENCH_SCHEDULER_TERMINALS',
  'BENCH_LOAD_WAREHOUSES',
  'BENCH_LARGE_WAREHOUSES',
  'BENCH_LARGE_DEVICE_MB',
  'BENCH_SYSBENCH_TABLE_SIZE',
  'BENCH_SYSBENCH_THREADS',
  'BENCH_SYSBENCH_SCRIPTS',
  'BENCH_PLACEMENT',
] as const;

function numberList(text: string | undefined, fallback: readonly number[], name: string): number[] {
  if (text === undefined || text.trim() === '') return [...fallback];
  const list = text.split(',').map((s) => Number(s.trim()));
  if (list.some((n) => !Number.isFinite(n) || n < 0))
    throw new Error(`${name} must be a comma-separated list of numbers, not "${text}"`);
  return list;
}

function scriptList(text: string | undefined, name: string): Script[] {
  if (text === undefined || text.trim() === '') return [...SYSBENCH_SCRIPTS];
  const list = text.split(',').map((s) => s.trim());
  const wrong = list.find((s) => !(SYSBENCH_SCRIPTS as readonly string[]).includes(s));
  if (wrong !== undefined)
    throw new Error(
      `${name} must be a comma-separated list of ${SYSBENCH_SCRIPTS.join(', ')}, not "${wrong}"`,
    );
  return list as Script[];
}

function placementMode(text: string | undefined): PlacementMode {
  if (text === undefined || text.trim() === '') return 'apart';
  const mode = text.trim();
  if (mode !== 'apart' && mode !== 'shared')
    throw new Error(`BENCH_PLACEMENT must be apart or shared, not "${text}"`);
  return mode;
}

/** Sections 2 and 6 run on section 1's database (and 2 on its procedure-mode run): they bring it along. */
function withPrerequisites(sections: readonly number[]): Set<number> {
  const set = new Set(sections);
  if (set.has(2) || set.has(6)) set.add(1);
  return set;
}

function positiveInteger(text: string | undefined, fallback: number, name: string): number {
  const n = numberList(text, [fallback], name)[0] ?? fallback;
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a whole number ≥ 1, not "${text}"`);
  return n;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): BenchConfig {
  const scale = env.BENCH_SCALE === undefined ? 1 : Number(env.BENCH_SCALE);
  if (!Number.isFinite(scale) || scale <= 0)
    throw new Error(`BENCH_SCALE must be a number > 0, not "${env.BENCH_SCALE}"`);
  const ms = (fullMs: number, minMs = 1000): number => Math.max(minMs, Math.round(fullMs * scale));
  const scripts = scriptList(env.BENCH_SYSBENCH_SCRIPTS, 'BENCH_SYSBENCH_SCRIPTS');
  const placement = placementMode(env.BENCH_PLACEMENT);
  const loadWarehouses = numberList(env.BENCH_LOAD_WAREHOUSES, [10], 'BENCH_LOAD_WAREHOUSES')[0] ?? 10;
  return {
    scale,
    sections: withPrerequisites(
      numberList(env.BENCH_SECTIONS, [1, 2, 3, 4, 5, 6, 7, 8, 10], 'BENCH_SECTIONS'),
    ),
    out: env.BENCH_OUT ?? 'bench.json',
    clientCost: { warehouses: 4, terminals: 4, connections: 4, warmupMs: ms(10_000), durationMs: ms(60_000) },
    pgbenchWeights: numberList(env.BENCH_PGBENCH_WEIGHTS, [10, 10, 1, 1, 1], 'BENCH_PGBENCH_WEIGHTS'),
    scheduler: {
      terminals: numberList(env.BENCH_SCHEDULER_TERMINALS, [30_000, 100_000], 'BENCH_SCHEDULER_TERMINALS'),
      thinkScale: 0.25,
      serviceMs: 2,
      connections: 2000,
      // One mean cycle at think-scale 0.25 is about 5.2 s: starts spread over one cycle, then
      // three cycles before the window opens (never fewer than two, however short the try: the
      // closed-loop law only holds once the start-up transient has passed).
      rampMs: ms(5_000, 5_000),
      warmupMs: ms(16_000, 11_000),
      durationMs: ms(30_000),
    },
    workers: {
      // Enough terminals and slots that one thread's CPU, not the stand-in's service time, is the limit.
      unpacedTerminals: 400,
      serviceMs: 1,
      // CPU per transaction, so that one thread's CPU is what limits it (as a driver's would).
      cpuUs: 20,
      warmupMs: ms(3_000),
      durationMs: ms(20_000),
      // As section 3: starts over one mean cycle at think-scale 0.25, then the transient passes.
      pacedRampMs: ms(5_000, 5_000),
      pacedWarmupMs: ms(16_000, 11_000),
    },
    loader: { warehouses: loadWarehouses },
    largeLoad: {
      warehouses: positiveInteger(env.BENCH_LARGE_WAREHOUSES, 100, 'BENCH_LARGE_WAREHOUSES'),
      deviceMB: positiveInteger(env.BENCH_LARGE_DEVICE_MB, 2048, 'BENCH_LARGE_DEVICE_MB'),
    },
    ceiling: { warehouses: 2, terminals: [1, 2, 4, 8, 16], warmupMs: ms(3_000), durationMs: ms(10_000) },
    sysbench: {
      tables: 4,
      tableSize:
        numberList(env.BENCH_SYSBENCH_TABLE_SIZE, [100_000], 'BENCH_SYSBENCH_TABLE_SIZE')[0] ?? 100_000,
      scripts,
      threadCounts: numberList(env.BENCH_SYSBENCH_THREADS, [1, 4], 'BENCH_SYSBENCH_THREADS'),
      // 2 databases x 2 thread counts x 3 scripts x 4 turns: 48 runs. At 30 s (three times
      // sysbench's own default) a point-select turn still counts over 100,000 statements, and the
      // section stays under half an hour; the spread over the turns says how steady each ratio is.
      warmupMs: ms(5_000),
      durationMs: ms(30_000),
      placement,
    },
    floor: {
      scripts,
      threadCounts: numberList(env.BENCH_SYSBENCH_THREADS, [1, 4], 'BENCH_SYSBENCH_THREADS'),
      warmupMs: ms(3_000),
      durationMs: ms(15_000),
      placement,
    },
  };
}
