/**
 * The SQL Server bulk path without a server: COPY text to typed rows, column types from
 * sys.columns, and the rows pushed through the real driver (mssql's Request#bulk and tedious's
 * BulkLoad, which validates and encodes every value) into a stand-in connection, so the
 * INSERT BULK statement and the encoded rows are what a server would receive.
 */
import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  BULK_OPTIONS,
  columnBinding,
  COLUMNS_SQL,
  copyTextRows,
  mssqlBulkLoader,
  parseTimestamp,
  type ColumnMeta,
  type Converter,
} from '../../src/dialects/mssql/bulk.js';
import {
  loadMssql,
  type MssqlBulkOptions,
  type MssqlPool,
  type MssqlRequest,
  type MssqlResult,
  type MssqlTable,
} from '../../src/dialects/mssql/driver.js';
import { CopyBuffer } from '../../src/workloads/tpcc/copy-buffer.js';
import { taskStreams } from '../../src/workloads/tpcc/generate.js';
import { COLUMN_TYPES, COLUMNS, type ColumnType, type TableName } from '../../src/workloads/tpcc/schema.js';

const sql = loadMssql();
const require = createRequire(import.meta.url);

interface TediousType {
  name: string;
  declaration(c: unknown): string;
  generateParameterData(p: unknown, options: unknown): Iterable<Buffer>;
  validate(value: unknown, collation?: unknown, options?: unknown): unknown;
}
interface TediousBulkLoad {
  rowToPacketTransform: NodeJS.ReadWriteStream;
  getBulkInsertSql(): string;
  callback: (err: Error | null, rowCount?: number) => void;
}
const tedious = require('tedious') as { TYPES: Record<string, TediousType> };
const bulkLoadModule = require('tedious/lib/bulk-load.js') as BulkLoadClass & { default?: BulkLoadClass };
const BulkLoad = bulkLoadModule.default ?? bulkLoadModule;
type BulkLoadClass = new (
  table: string,
  collation: unknown,
  connectionOptions: unknown,
  options: unknown,
  callback: (err: Error | null, rowCount?: number) => void,
) => TediousBulkLoad;
const { Collation } = require('tedious/lib/collation.js') as {
  Collation: { fromBuffer(b: Buffer): unknown };
};
/** SQL_Latin1_General_CP1_CI_AS (code page 1252), the usual server default. */
const LATIN1 = Collation.fromBuffer(Buffer.from([0x09, 0x04, 0xd0, 0x00, 0x34]));

/** The sys.columns description of a txbench table as the mssql DDL creates it. */
function metaFor(table: TableName): ColumnMeta[] {
  const typeOf = (t: ColumnType): Omit<ColumnMeta, 'name' | 'nullable'> => {
    switch (t.kind) {
      case 'int':
      case 'serial':
        return { type: 'int', maxLength: 4, precision: 10, scale: 0 };
      case 'bigint':
        return { type: 'bigint', maxLength: 8, precision: 19, scale: 0 };
      case 'varchar':
        return { type: 'varchar', maxLength: t.size, precision: 0, scale: 0 };
      case 'char':
        return { type: 'char', maxLength: t.size, precision: 0, scale: 0 };
      case 'numeric':
        return { type: 'numeric', maxLength: 9, precision: t.precision, scale: t.scale };
      case 'timestamp':
        return { type: 'datetime2', maxLength: 8, precision: 27, scale: 7 };
    }
  };
  return COLUMN_TYPES[table].map(([name, t]) => ({ name, nullable: true, ...typeOf(t) }));
}

function rowsOf(text: string, converters: readonly Converter[], splitAt: number[] = []): unknown[][] {
  const buf = Buffer.from(text, 'utf8');
  const chunks: Buffer[] = [];
  let start = 0;
  for (const at of [...splitAt, buf.length]) {
    chunks.push(buf.subarray(start, at));
    start = at;
  }
  return [...copyTextRows(chunks, converters)];
}

describe('copyTextRows', () => {
  const conv: Converter[] = [(t) => Number(t), (t) => t, (t) => `<${t}>`];

  it('splits rows on newlines and fields on tabs, with \\N as NULL', () => {
    expect(rowsOf('1\tab\tx\n2\t\\N\ty\n', conv)).toEqual([
      [1, 'ab', '<x>'],
      [2, null, '<y>'],
    ]);
  });

  it('keeps empty strings, which are not NULL', () => {
    expect(rowsOf('3\t\t\\N\n', conv)).toEqual([[3, '', null]]);
  });

  it('joins a row that spans chunks, at any byte, multi-byte characters included', () => {
    const text = '1\tžluťoučký\tx\n22\tkůň\ty\n';
    const whole = rowsOf(text, conv);
    for (let at = 1; at < Buffer.byteLength(text); at++) expect(rowsOf(text, conv, [at])).toEqual(whole);
  });

  it('takes a last row without a newline', () => {
    expect(rowsOf('1\ta\tb', conv)).toEqual([[1, 'a', '<b>']]);
  });

  it('rejects a row with the wrong number of fields', () => {
    expect(() => rowsOf('1\ta\n', conv)).toThrow(/2 fields where 3 columns/);
  });
});

describe('value conversion', () => {
  it('parses timestamps into the UTC fields of a Date (the driver writes them back unchanged with useUTC)', () => {
    const d = parseTimestamp('2024-02-29 23:59:58.123');
    expect(d.toISOString()).toBe('2024-02-29T23:59:58.123Z');
    expect(parseTimestamp('2024-01-02').toISOString()).toBe('2024-01-02T00:00:00.000Z');
    expect(parseTimestamp('2024-01-02T03:04:05.1234567').toISOString()).toBe('2024-01-02T03:04:05.123Z');
    expect(() => parseTimestamp('yesterday')).toThrow(TypeError);
  });

  it('binds each SQL Server column type to a driver type and converter', () => {
    const col = (type: string, maxLength = 0, precision = 0, scale = 0): ColumnMeta => ({
      name: 'c',
      type,
      maxLength,
      precision,
      scale,
      nullable: true,
    });
    const int = columnBinding(sql, col('int', 4));
    expect(int.type).toEqual(sql.Int());
    expect(int.convert('3001')).toBe(3001);
    expect(() => int.convert('1.5')).toThrow(TypeError);
    const money = columnBinding(sql, col('numeric', 9, 12, 2));
    expect(money.type).toEqual(sql.Numeric(12, 2));
    expect(money.convert('-10.00')).toBe(-10);
    expect(money.convert('300000.00')).toBe(300000);
    expect(columnBinding(sql, col('decimal', 5, 4, 4)).type).toEqual(sql.Decimal(4, 4));
    expect(columnBinding(sql, col('char', 24)).type).toEqual(sql.Char(24));
    expect(columnBinding(sql, col('varchar', 500)).type).toEqual(sql.VarChar(500));
    expect(columnBinding(sql, col('varchar', -1)).type).toEqual(sql.VarChar(sql.MAX));
    expect(columnBinding(sql, col('nvarchar', 100)).type).toEqual(sql.NVarChar(50));
    expect(columnBinding(sql, col('nchar', 4)).type).toEqual(sql.NChar(2));
    expect(columnBinding(sql, col('datetime2', 8, 27, 7)).type).toEqual(sql.DateTime2(7));
    expect(columnBinding(sql, col('bigint', 8)).convert('9223372036854775807')).toBe('9223372036854775807');
    expect(columnBinding(sql, col('bit', 1)).convert('t')).toBe(true);
    expect(() => columnBinding(sql, col('numeric', 17, 38, 2))).toThrow(/cannot be bulk loaded exactly/);
    expect(() => columnBinding(sql, col('xml', -1))).toThrow(/does not handle/);
  });

  it('sends money exactly: the driver encodes round(value × 10^scale), which is every cent', () => {
    const numeric = tedious.TYPES.Numeric!;
    const encoded = (text: string, precision: number, scale: number): bigint => {
      const value = numeric.validate(
        columnBinding(sql, {
          name: 'm',
          type: 'numeric',
          maxLength: 9,
          precision,
          scale,
          nullable: true,
        }).convert(text),
      );
      const buf = Buffer.concat([...numeric.generateParameterData({ value, precision, scale }, {})]);
      const magnitude = buf.length === 5 ? BigInt(buf.readUInt32LE(1)) : buf.readBigUInt64LE(1);
      return buf[0] === 1 ? magnitude : -magnitude;
    };
    for (const [text, p, s, units] of [
      ['9999999999.99', 12, 2, 999999999999n],
      ['-9999999999.99', 12, 2, -999999999999n],
      ['0.01', 12, 2, 1n],
      ['-10.00', 12, 2, -1000n],
      ['300000.00', 12, 2, 30000000n],
      ['0.1999', 4, 4, 1999n],
      ['9999.99', 6, 2, 999999n],
      ['99999999', 8, 0, 99999999n],
    ] as const) {
      expect(encoded(text, p, s), text).toBe(units);
    }
    // Every cent of the largest whole part numeric(12,2) can hold.
    for (let cents = 0; cents < 100; cents++) {
      const text = `9999999999.${String(cents).padStart(2, '0')}`;
      expect(encoded(text, 12, 2)).toBe(999999999900n + BigInt(cents));
    }
  });
});

interface Sent {
  sql: string;
  rows: number;
  bytes: number;
}

/**
 * A pool whose bulk requests run mssql's real Request#bulk against a stand-in connection that
 * builds tedious's real BulkLoad and streams the rows through its encoder.
 */
function driverPool(meta: ColumnMeta[], sent: Sent[], log: { metaQueries: unknown[] }): MssqlPool {
  const connection = Object.assign(new EventEmitter(), {
    newBulkLoad(table: string, options: MssqlBulkOptions, callback: (err: Error | null, n?: number) => void) {
      return new BulkLoad(table, LATIN1, { tdsVersion: '7_4', useUTC: true }, options, callback);
    },
    execBulkLoad(bulk: TediousBulkLoad, rows: unknown[][]) {
      let bytes = 0;
      const transform = bulk.rowToPacketTransform;
      transform.on('data', (b: Buffer) => (bytes += b.length));
      transform.on('error', (err: Error) => bulk.callback(err));
      transform.on('end', () => {
        sent.push({ sql: bulk.getBulkInsertSql(), rows: rows.length, bytes });
        bulk.callback(null, rows.length);
      });
      Readable.from(rows).pipe(transform);
    },
  });
  const parent = {
    connected: true,
    config: { stream: false, arrayRowMode: false },
    acquire(_requester: unknown, cb: (err: Error | null, c: unknown, config: unknown) => void) {
      setImmediate(cb, null, connection, parent.config);
    },
    release: () => undefined,
  };
  const DriverRequest = (sql as unknown as { Request: new (p: unknown) => MssqlRequest }).Request;
  const pool: MssqlPool = {
    connect: () => Promise.resolve(pool),
    close: () => Promise.resolve(),
    acquire: () => Promise.resolve(connection),
    release: () => pool,
    on: () => pool,
    request() {
      const inputs: unknown[] = [];
      const request: MssqlRequest = {
        input(name, type, value) {
          inputs.push({ name, type, value });
          return request;
        },
        cancel: () => undefined,
        query(text) {
          expect(text).toBe(COLUMNS_SQL);
          log.metaQueries.push(inputs);
          const rows = meta.map((m) => ({
            name: m.name,
            type: m.type,
            max_length: m.maxLength,
            precision: m.precision,
            scale: m.scale,
            is_nullable: m.nullable,
          }));
          const result: MssqlResult = { recordsets: [rows], recordset: rows, rowsAffected: [] };
          return Promise.resolve(result);
        },
        execute: () => Promise.reject(new Error('not used')),
        bulk: (table: MssqlTable, options?: MssqlBulkOptions) =>
          new DriverRequest(parent).bulk(table, options),
      };
      return request;
    },
  };
  return pool;
}

const CTX = {
  seed: 42,
  loadTime: '2024-05-06 07:08:09.123',
  constants: { cLast: 100, cId: 200, olIId: 300 },
};

/** All chunks of one generated table, as the loader would stream them (earlier tables of the task first). */
function generated(task: Parameters<typeof taskStreams>[0], table: TableName): Buffer[] {
  for (const stream of taskStreams(task, CTX, () => undefined)) {
    const chunks = [...stream.chunks];
    if (stream.table === table) return chunks;
  }
  throw new Error(`task makes no ${table}`);
}

describe('mssqlBulkLoader', () => {
  it('sends the generated warehouse and district rows through the driver with typed values', async () => {
    for (const table of ['warehouse', 'district'] as const) {
      const sent: Sent[] = [];
      const log = { metaQueries: [] as unknown[] };
      const loader = mssqlBulkLoader(sql, driverPool(metaFor(table), sent, log));
      await loader.load(table, COLUMNS[table], generated({ kind: 'warehouse', w: 3 }, table));
      expect(sent).toHaveLength(1);
      expect(sent[0]!.rows).toBe(table === 'warehouse' ? 1 : 10);
      expect(log.metaQueries).toEqual([[{ name: 'p1', type: sql.VarChar(256), value: table }]]);
    }
  });

  it('declares the INSERT BULK columns as the table has them, with TABLOCK and KEEP_NULLS', async () => {
    const sent: Sent[] = [];
    const loader = mssqlBulkLoader(sql, driverPool(metaFor('customer'), sent, { metaQueries: [] }));
    await loader.load('customer', COLUMNS.customer, generated({ kind: 'customer', w: 1 }, 'customer'));
    expect(sent[0]!.sql).toBe(
      'insert bulk [customer]([c_id] int, [c_d_id] int, [c_w_id] int, [c_first] varchar(16), [c_middle] char(2), ' +
        '[c_last] varchar(16), [c_street_1] varchar(20), [c_street_2] varchar(20), [c_city] varchar(20), ' +
        '[c_state] char(2), [c_zip] char(9), [c_phone] char(16), [c_since] datetime2(7), [c_credit] char(2), ' +
        '[c_credit_lim] numeric(12, 2), [c_discount] numeric(4, 4), [c_balance] numeric(12, 2), ' +
        '[c_ytd_payment] numeric(12, 2), [c_payment_cnt] int, [c_delivery_cnt] int, [c_data] varchar(500))' +
        ' WITH (KEEP_NULLS,TABLOCK)',
    );
    expect(sent.map((s) => s.rows)).toEqual([10_000, 10_000, 10_000]);
    expect(BULK_OPTIONS).toEqual({ lockTable: true, keepNulls: true, checkConstraints: false });
  });

  it('loads NULLs (undelivered order lines) and datetimes, in batches of the given size', async () => {
    const sent: Sent[] = [];
    const loader = mssqlBulkLoader(sql, driverPool(metaFor('order_line'), sent, { metaQueries: [] }), 20_000);
    // District 1's lines (about 30,000): orders up to 2,100 delivered, the rest not.
    const chunks = generated({ kind: 'orders', w: 1 }, 'order_line').slice(0, 8);
    await loader.load('order_line', COLUMNS.order_line, chunks);
    const total = sent.reduce((a, s) => a + s.rows, 0);
    const expected = [
      ...copyTextRows(
        chunks,
        COLUMNS.order_line.map(() => (t: string) => t),
      ),
    ].length;
    expect(total).toBe(expected);
    expect(sent.length).toBeGreaterThan(1);
    expect(sent.slice(0, -1).every((s) => s.rows === 20_000)).toBe(true);
    const rows = [
      ...copyTextRows(
        chunks,
        metaFor('order_line').map((m) => columnBinding(sql, m).convert),
      ),
    ];
    const delivered = rows.find((r) => r[0] === 1)!;
    const undelivered = rows.find((r) => r[0] === 2101)!;
    expect(delivered[6]).toEqual(new Date('2024-05-06T07:08:09.123Z'));
    expect(delivered[8]).toBe(0);
    expect(undelivered[6]).toBeNull();
    expect(typeof undelivered[8]).toBe('number');
    expect(typeof undelivered[9]).toBe('string');
    expect((undelivered[9] as string).length).toBe(24);
  });

  it('reads the column types once per table and rejects unknown columns', async () => {
    const log = { metaQueries: [] as unknown[] };
    const loader = mssqlBulkLoader(sql, driverPool(metaFor('new_order'), [], log));
    const chunk = new CopyBuffer(1024);
    chunk.int(2101).tab().int(1).tab().int(1).endRow();
    await loader.load('new_order', COLUMNS.new_order, [chunk.take()]);
    await loader.load('new_order', COLUMNS.new_order, []);
    expect(log.metaQueries).toHaveLength(1);
    await expect(loader.load('new_order', ['no_o_id', 'nope'], [])).rejects.toThrow(/has no column nope/);
  });

  it('surfaces a value the driver refuses', async () => {
    const loader = mssqlBulkLoader(sql, driverPool(metaFor('new_order'), [], { metaQueries: [] }));
    await expect(loader.load('new_order', COLUMNS.new_order, [Buffer.from('x\t1\t1\n')])).rejects.toThrow(
      /not an integer/,
    );
  });
});
