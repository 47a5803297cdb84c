/**
 * The SQL Server dialect without a server: SQL flavor, positional parameters bound as @p1..@pn
 * with the driver's types, the Db over a stand-in pool, server info, the TPM counter, version
 * checks, and the portable check SQL rendered for T-SQL.
 */
import { describe, expect, it } from 'vitest';
import type { Db, Row } from '../../src/dialects/dialect.js';
import {
  bindPositional,
  mssqlDb,
  mssqlDialect,
  mssqlFlavor,
  parameterType,
  productName,
  SERVER_TRANSACTIONS_SQL,
  versionProblem,
} from '../../src/dialects/mssql/dialect.js';
import {
  loadMssql,
  type MssqlPool,
  type MssqlRequest,
  type MssqlResult,
  type MssqlTypeSpec,
} from '../../src/dialects/mssql/driver.js';
import {
  consistencyConditions,
  LOAD_ONLY_CONDITION,
  populationChecks,
} from '../../src/workloads/tpcc/check.js';

const sql = loadMssql();

interface Input {
  name: string;
  type: MssqlTypeSpec;
  value: unknown;
}

/** A request that records what it was given and answers with canned rows. */
function fakeRequest(
  rows: Row[] = [],
  log: { inputs: Input[]; text?: string } = { inputs: [] },
): MssqlRequest {
  const request: MssqlRequest = {
    input(name, type, value) {
      log.inputs.push({ name, type, value });
      return request;
    },
    query(text) {
      log.text = text;
      const result: MssqlResult = { recordsets: [rows], recordset: rows, rowsAffected: [rows.length] };
      return Promise.resolve(result);
    },
    execute: () => Promise.reject(new Error('not used')),
    bulk: () => Promise.reject(new Error('not used')),
    cancel: () => undefined,
  };
  return request;
}

function fakePool(next: () => MssqlRequest): MssqlPool & { closed: boolean } {
  const pool = {
    closed: false,
    connect: () => Promise.resolve(pool),
    close: () => {
      pool.closed = true;
      return Promise.resolve();
    },
    request: next,
    acquire: () => Promise.resolve({}),
    release: () => pool,
    on: () => pool,
  };
  return pool;
}

function dbAnswering(rows: Row[] | Error): Db & { texts: string[] } {
  const texts: string[] = [];
  return {
    texts,
    query<T extends Row = Row>(text: string): Promise<T[]> {
      texts.push(text);
      return rows instanceof Error ? Promise.reject(rows) : Promise.resolve(rows as T[]);
    },
    transaction<T>(work: (tx: Db) => Promise<T>): Promise<T> {
      return work(this);
    },
    close: () => Promise.resolve(),
  };
}

describe('mssqlFlavor', () => {
  it('spells the portable fragments in T-SQL', () => {
    expect(mssqlFlavor.distinct('a', 'b')).toBe(
      '(a <> b or (a is null and b is not null) or (a is not null and b is null))',
    );
    expect(mssqlFlavor.length('s_dist_05')).toBe('len(s_dist_05)');
    expect(mssqlFlavor.intDiv('c_id - 1', '100')).toBe('(c_id - 1) / (100)');
    expect(mssqlFlavor.concat('a', 'b', 'c')).toBe('concat(a, b, c)');
    expect(mssqlFlavor.concat('a')).toBe('a');
    expect(mssqlFlavor.concat()).toBe("''");
    expect(mssqlFlavor.param(1)).toBe('@p1');
    expect(mssqlFlavor.param(12)).toBe('@p12');
  });

  it('renders every check without PostgreSQL-only syntax', () => {
    const checks = [
      ...consistencyConditions(mssqlFlavor),
      LOAD_ONLY_CONDITION,
      ...populationChecks(mssqlFlavor, 2),
    ];
    for (const c of checks) {
      expect(c.sql, c.id).not.toMatch(/is distinct from|\|\||::|\$\d|\blimit\b|\bilike\b|length\(/i);
      expect(c.sql, c.id).toMatch(/ as v\b/);
    }
    const names = populationChecks(mssqlFlavor, 1).find((c) => c.title.includes('C_LAST'))!.sql;
    expect(names).toContain("concat(case ((c_id - 1)) / (100) when 0 then 'BAR'");
    expect(names).toContain('case ((c_id - 1)) / (10) % 10 when');
    const stock = populationChecks(mssqlFlavor, 1).find((c) => c.title.startsWith('stock initial'))!.sql;
    expect(stock).toContain('len(s_dist_05) <> 24');
  });
});

describe('positional parameters', () => {
  it('binds each value as @p1..@pn with a driver type that fits it', () => {
    const log = { inputs: [] as Input[] };
    const big = 'x'.repeat(9000);
    bindPositional(sql, fakeRequest([], log), [7, 'load', null, 1.5, 2 ** 40, true, big, 'žluť', 10n]);
    expect(log.inputs.map((i) => i.name)).toEqual(['p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7', 'p8', 'p9']);
    const [p1, p2, p3, p4, p5, p6, p7, p8, p9] = log.inputs;
    expect(p1!.type).toEqual(sql.Int());
    expect(p1!.value).toBe(7);
    // varchar, not nvarchar: an nvarchar parameter would make SQL Server convert a varchar column.
    expect(p2!.type).toEqual(sql.VarChar(8000));
    expect(p3!.type).toEqual(sql.VarChar(1));
    expect(p3!.value).toBeNull();
    expect(p4!.type).toEqual(sql.Float());
    expect(p5!.type).toEqual(sql.BigInt());
    expect(p6!.type).toEqual(sql.Bit());
    expect(p7!.type).toEqual(sql.VarChar(sql.MAX));
    expect(p8!.type).toEqual(sql.NVarChar(4000));
    expect(p9!.type).toEqual(sql.BigInt());
    expect(p9!.value).toBe('10');
  });

  it('types dates, buffers and rejects the rest', () => {
    expect(parameterType(sql, new Date(0))).toEqual(sql.DateTime2());
    expect(parameterType(sql, Buffer.from('x'))).toEqual(sql.VarBinary(sql.MAX));
    expect(() => parameterType(sql, { a: 1 })).toThrow(TypeError);
  });
});

describe('mssqlDb', () => {
  it('runs the text with @p parameters and returns the first result set', async () => {
    const log = { inputs: [] as Input[] } as { inputs: Input[]; text?: string };
    const pool = fakePool(() => fakeRequest([{ meta_value: '{}' }], log));
    const db = mssqlDb(sql, pool);
    const rows = await db.query('select meta_value from txbench_meta where meta_key = @p1', ['load']);
    expect(rows).toEqual([{ meta_value: '{}' }]);
    expect(log.text).toBe('select meta_value from txbench_meta where meta_key = @p1');
    expect(log.inputs).toEqual([{ name: 'p1', type: sql.VarChar(8000), value: 'load' }]);
    await db.close();
    expect(pool.closed).toBe(true);
  });

  it('returns no rows for statements without a result set', async () => {
    const request = fakeRequest();
    request.query = () => Promise.resolve({ recordsets: [], rowsAffected: [0] });
    const db = mssqlDb(
      sql,
      fakePool(() => request),
    );
    expect(await db.query('create table t (a int)')).toEqual([]);
  });
});

describe('mssqlDialect', () => {
  it('declares its capabilities', () => {
    expect(mssqlDialect.name).toBe('mssql');
    expect(mssqlDialect.capabilities).toEqual({ procedures: true, concurrentWriters: true });
  });

  it('asks OBJECT_ID whether a table exists', async () => {
    const yes = dbAnswering([{ e: 1 }]);
    expect(await mssqlDialect.tableExists(yes, 'warehouse')).toBe(true);
    expect(yes.texts[0]).toBe("select case when object_id(@p1, 'U') is null then 0 else 1 end as e");
    expect(await mssqlDialect.tableExists(dbAnswering([{ e: 0 }]), 'warehouse')).toBe(false);
  });

  it('reads the product and version from SERVERPROPERTY', async () => {
    const db = dbAnswering([
      { version: '16.0.4135.4', edition: 'Developer Edition (64-bit)', engine_edition: 3 },
    ]);
    expect(await mssqlDialect.serverInfo(db)).toEqual({
      product: 'Microsoft SQL Server',
      version: '16.0.4135.4 (Developer Edition (64-bit))',
    });
    expect(db.texts[0]).toContain("serverproperty('ProductVersion')");
  });

  it('takes TPM from the cumulative Batch Requests/sec counter', async () => {
    const db = dbAnswering([{ n: '123456789' }]);
    expect(await mssqlDialect.serverTransactions(db)).toBe(123_456_789);
    expect(db.texts[0]).toBe(SERVER_TRANSACTIONS_SQL);
    expect(SERVER_TRANSACTIONS_SQL).toContain("counter_name = 'Batch Requests/sec'");
    expect(SERVER_TRANSACTIONS_SQL).toContain('sys.dm_os_performance_counters');
    expect(await mssqlDialect.serverTransactions(dbAnswering([]))).toBeUndefined();
    // Without VIEW SERVER STATE the view is denied: no figure rather than a failed run.
    expect(await mssqlDialect.serverTransactions(dbAnswering(new Error('denied')))).toBeUndefined();
  });

  it('accepts SQL Server 2016 and later, and Azure SQL, and says why otherwise', () => {
    expect(
      versionProblem({ version: '13.0.5026.0', edition: '', engineEdition: 3 }, 'h:1433'),
    ).toBeUndefined();
    expect(
      versionProblem({ version: '16.0.4135.4', edition: '', engineEdition: 2 }, 'h:1433'),
    ).toBeUndefined();
    expect(
      versionProblem({ version: '12.0.2000.8', edition: '', engineEdition: 5 }, 'h:1433'),
    ).toBeUndefined();
    expect(versionProblem({ version: '12.0.6024.0', edition: '', engineEdition: 3 }, 'h:1433')).toBe(
      'h:1433 runs SQL Server 12.0.6024.0; txbench needs SQL Server 2016 (13.x) or later, or Azure SQL',
    );
    expect(productName({ version: '12.0.2000.8', edition: '', engineEdition: 5 })).toBe('Azure SQL Database');
    expect(productName({ version: '16.0', edition: '', engineEdition: 8 })).toBe(
      'Azure SQL Managed Instance',
    );
  });

  it('loads the driver lazily with the API txbench uses', () => {
    expect(typeof sql.ConnectionPool).toBe('function');
    expect(typeof sql.Table).toBe('function');
    expect(typeof sql.Transaction).toBe('function');
    expect(typeof sql.Transaction.prototype.request).toBe('function');
    expect(sql.MAX).toBe(65535);
    expect(sql.Numeric(12, 2)).toMatchObject({ precision: 12, scale: 2 });
  });
});

describe('mssqlDialect settings for sweeps', () => {
  it('applies a setting through sp_configure with RECONFIGURE and says no restart is needed', async () => {
    const calls: { sql: string; params: readonly unknown[] | undefined }[] = [];
    const db = {
      query: async (sql: string, params?: readonly unknown[]) => {
        calls.push({ sql, params });
        return [];
      },
      transaction<T>(work: (tx: Db) => Promise<T>): Promise<T> {
        return work(this);
      },
      close: async () => undefined,
    };
    const { mssqlDialect } = await import('../../src/dialects/mssql/dialect.js');
    expect(await mssqlDialect.applySetting!(db, 'max server memory (MB)', '8192')).toBe('applied');
    expect(calls[0]!.sql).toMatch(/sp_configure @p1, @p2; reconfigure/);
    expect(calls[0]!.params).toEqual(['max server memory (MB)', 8192]);
  });
});
