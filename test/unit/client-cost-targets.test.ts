/** Bench section 1's targets: MariaDB's two client-CPU ratios beside PostgreSQL's own. */
import { describe, expect, it } from 'vitest';
import { CLIENT_COST_TARGETS, clientCostTable, type ClientCostData } from '../../src/bench/client-cost.js';
import { evaluate } from '../../src/bench/figures.js';
import type { RunFigures } from '../../src/bench/txbench-run.js';

const run = (mode: RunFigures['mode'], usPerTransaction: number): RunFigures => ({
  mode,
  terminals: 4,
  connections: 4,
  windowS: 60,
  transactions: 100_000,
  tps: 1_666,
  tpmC: 45_000,
  nopm: 44_500,
  errors: 0,
  retries: 0,
  responseMs: { avg: 2, p90: 3, p99: 5 },
  client: { userS: 1, systemS: 0.5, coresUsed: 0.2, usPerTransaction },
  server: null,
  otherCores: 0.05,
});

const data = (
  mariadb: Pick<ClientCostData['runs'], 'mariadbClientSql' | 'mariadbProcedures'>,
): ClientCostData => ({
  warehouses: 4,
  load: { seconds: 8, phaseSeconds: { data: 5, indexes: 2.5, analyze: 0.3 }, rows: 2_000_000 },
  runs: { clientSql: run('client-sql', 120), procedures: run('procedures', 90), ...mariadb },
  mariadb: { version: '10.11.19-MariaDB' },
  url: 'postgres://127.0.0.1/tpcc4',
});

const mariadbRows = (d: ClientCostData) =>
  evaluate('1', CLIENT_COST_TARGETS, d, undefined).filter((r) => r.figure.startsWith('MariaDB'));

describe('section 1: MariaDB targets', () => {
  it('procedure mode against the wire path (≤ 1.3) and client-SQL against procedure mode (≤ 2)', () => {
    const [procedures, clientSql] = mariadbRows(
      data({ mariadbClientSql: run('client-sql', 300), mariadbProcedures: run('procedures', 108) }),
    );
    expect(procedures).toMatchObject({ value: 1.2, pass: true, target: '≤ 1.3' });
    expect(clientSql?.value).toBeCloseTo(300 / 108, 6);
    expect(clientSql?.pass).toBe(false);
  });

  it('a failed MariaDB run leaves its reason in place of the figure', () => {
    const [procedures, clientSql] = mariadbRows(
      data({ mariadbClientSql: run('client-sql', 300), mariadbProcedures: { error: 'mariadbd died' } }),
    );
    expect(procedures).toMatchObject({ value: null, pass: false, note: 'mariadbd died' });
    expect(clientSql).toMatchObject({ value: null, pass: false, note: 'mariadbd died' });
  });

  it('without MariaDB both targets say it was not measured', () => {
    const rows = mariadbRows(data({}));
    expect(rows.map((r) => r.note)).toEqual(['MariaDB not measured', 'MariaDB not measured']);
  });

  it('the table names both ratios', () => {
    const text = clientCostTable(
      data({ mariadbClientSql: run('client-sql', 300), mariadbProcedures: run('procedures', 108) }),
    );
    expect(text).toContain('client-SQL ÷ procedures 2.78×');
    expect(text).toContain("procedures ÷ the PostgreSQL wire path's procedures 1.20×");
  });
});
