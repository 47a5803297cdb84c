/** Bench section 7: sysbench and txbench in turns, combined per tool, ratios and their spread. */
import { describe, expect, it } from 'vitest';
import {
  pairingOf,
  sysbenchTable,
  sysbenchTargets,
  SYSBENCH_TURNS,
  type SysbenchData,
  type SysbenchTurn,
  type Tool,
} from '../../src/bench/sysbench.js';
import { evaluate } from '../../src/bench/figures.js';

const turn = (
  tool: Tool,
  tps: number,
  transactions: number,
  statements: number,
  cpuS: number,
): SysbenchTurn => ({
  tool,
  figures: {
    tps,
    qps: (tps * statements) / transactions,
    client: {
      usPerTransaction: (cpuS * 1e6) / transactions,
      coresUsed: cpuS / 60,
      usPerStatement: (cpuS * 1e6) / statements,
    },
  },
  transactions,
  statements,
  clientCpuS: cpuS,
});

describe('sysbench and txbench taking turns (bench section 7)', () => {
  it('each tool runs as often, and first and last go to the same tool (ABBA)', () => {
    expect(SYSBENCH_TURNS.filter((t) => t === 'sysbench')).toHaveLength(2);
    expect(SYSBENCH_TURNS[0]).toBe(SYSBENCH_TURNS[SYSBENCH_TURNS.length - 1]);
  });

  it("compares each tool's runs together, and each neighbouring pair of turns on its own", () => {
    const p = pairingOf('oltp_read_only', 4, [
      turn('sysbench', 100, 6000, 96_000, 1.92), // 20 µs per statement
      turn('txbench', 90, 5400, 86_400, 2.592), // 30 µs
      turn('txbench', 110, 6600, 105_600, 2.64), // 25 µs
      turn('sysbench', 100, 6000, 96_000, 2.4), // 25 µs
    ]);
    expect(p.sysbench.tps).toBe(100);
    expect(p.txbench.tps).toBe(100);
    expect(p.tpsRatio).toBe(1);
    // CPU over statements of both runs: 5.232 s / 192,000 and 4.32 s / 192,000.
    expect(p.txbench.client.usPerStatement).toBe(27.25);
    expect(p.sysbench.client.usPerStatement).toBe(22.5);
    expect(p.clientUsPerStatementRatio).toBe(1.211);
    expect(p.pairs).toEqual([
      { tpsRatio: 0.9, clientUsPerStatementRatio: 1.5 },
      { tpsRatio: 1.1, clientUsPerStatementRatio: 1 },
    ]);
  });

  it('prints every target at every thread count, PASS or MISS with its ratio, and the spread', () => {
    const data = pairedData(97, 5820);
    const rows = evaluate('7', sysbenchTargets([1, 4]), data, undefined);
    // The two figure names of earlier bench files, then TPS and CPU for 3 scripts x 2 thread
    // counts, on PostgreSQL and on MariaDB.
    expect(rows).toHaveLength(2 + 12 + 12);
    expect(rows[0]!.figure).toBe('oltp_read_write TPS, txbench ÷ sysbench');
    const tps = rows.find((r) => r.figure === 'oltp_read_only, 1 thread: TPS, txbench ÷ sysbench')!;
    expect(tps.value).toBe(0.97);
    expect(tps.pass).toBe(true);
    const cpu = rows.find(
      (r) => r.figure === 'oltp_read_write, 4 threads: client CPU per statement, txbench ÷ sysbench',
    )!;
    expect(cpu.value).toBe(1.5);
    expect(cpu.pass).toBe(true);
    expect(sysbenchTable(data)).toMatch(
      /\| oltp_point_select, 1 +\| scheduler +\| 0\.97 +\| 0\.97–0\.97 +\| 1\.5 +\| 1\.5–1\.5 +\|/,
    );
    const placed = {
      ...data,
      pairings: data.pairings.map((p) =>
        p.threads === 1 ? { ...p, placement: { kind: 'apart' as const, serverCpu: 1, clientCpus: '0' } } : p,
      ),
    };
    expect(sysbenchTable(placed)).toMatch(/\| oltp_point_select, 1 +\| server 1, client 0 +\| 0\.97 +\|/);
    expect(sysbenchTable(placed)).toContain('the server runs on a CPU of its own');
  });
  it("gives MariaDB's targets their own names, missed with the reason when MariaDB did not run", () => {
    const base = pairedData(96, 5760);
    const figure = 'MariaDB: oltp_point_select, 4 threads: TPS, txbench ÷ sysbench';
    const of = (data: SysbenchData) =>
      evaluate('7', sysbenchTargets([1, 4]), data, undefined).find((r) => r.figure === figure)!;

    const measured: SysbenchData = {
      ...base,
      mariadb: {
        version: '10.11',
        loadSeconds: 2,
        command: 'sysbench SCRIPT --db-driver=mysql --mysql-password=… run',
        pairings: base.pairings,
        loadAverage: { start: [2, 2, 2], end: [2, 2, 2] },
      },
    };
    expect(of(measured)).toMatchObject({ value: 0.96, pass: true });
    const table = sysbenchTable(measured);
    expect(table).toContain('MariaDB 10.11, the same tables');
    expect(table.match(/\| oltp_point_select, 1 +\| scheduler +\| 0\.96 +\|/g)).toHaveLength(2);

    expect(of({ ...base, mariadb: { error: 'MariaDB did not start: no mariadbd' } })).toMatchObject({
      value: null,
      pass: false,
      note: 'MariaDB did not start: no mariadbd',
    });
    expect(sysbenchTable({ ...base, mariadb: { error: 'no mariadbd' } })).toContain(
      'MariaDB: not measured: no mariadbd',
    );
    expect(of(base)).toMatchObject({ value: null, pass: false, note: 'MariaDB was not measured' });
  });
});

/** Every script at 1 and 4 threads, sysbench at 100 TPS and txbench at `tps` in both of its turns. */
function pairedData(tps: number, statements: number): SysbenchData {
  const pairings = (['oltp_point_select', 'oltp_read_only', 'oltp_read_write'] as const).flatMap((script) =>
    [1, 4].map((threads) =>
      pairingOf(script, threads, [
        turn('sysbench', 100, 6000, 6000, 0.12),
        turn('txbench', tps, statements, statements, tps * 0.0018),
        turn('txbench', tps, statements, statements, tps * 0.0018),
        turn('sysbench', 100, 6000, 6000, 0.12),
      ]),
    ),
  );
  return {
    tables: 4,
    tableSize: 1000,
    threads: 4,
    threadCounts: [1, 4],
    workers: 1,
    seconds: 60,
    loadSeconds: 1,
    command: 'sysbench SCRIPT run',
    scripts: [],
    pairings,
    loadAverage: { start: [1, 1, 1], end: [1, 1, 1] },
  };
}
