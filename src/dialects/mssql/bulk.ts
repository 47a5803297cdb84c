/**
 * Bulk load for SQL Server: the loader's COPY text (tab-separated, `\N` for NULL, values never
 * escaped) parsed into typed rows and sent with the driver's bulk API (`INSERT BULK`, TDS bulk
 * rows) in batches. Column types are read from the server once per table, so the rows always
 * match the table as it was created.
 */
import type { BulkLoader } from '../dialect.js';
import type { MssqlModule, MssqlPool, MssqlTypeSpec } from './driver.js';

/** One column of the target table, as sys.columns describes it. */
export interface ColumnMeta {
  name: string;
  /** sys.types name: int, numeric, varchar, datetime2, … */
  type: string;
  /** Bytes; -1 for (max). */
  maxLength: number;
  precision: number;
  scale: number;
  nullable: boolean;
}

export const COLUMNS_SQL = `select c.name as name, t.name as type, c.max_length as max_length,
    c.precision as precision, c.scale as scale, c.is_nullable as is_nullable
  from sys.columns c join sys.types t on t.user_type_id = c.user_type_id
  where c.object_id = object_id(@p1, 'U') order by c.column_id`;

/** Turns one COPY text field (never `\N`) into the value the driver expects for the column. */
export type Converter = (text: string) => unknown;

/**
 * tedious writes a decimal as `Math.round(|value| × 10^scale)` from a JavaScript number, which is
 * exact while the value has at most 15 significant digits (TPC-C money is numeric(12,2)).
 */
export const MAX_EXACT_DECIMAL_PRECISION = 15;

/** `YYYY-MM-DD[( |T)HH:MM:SS[.fraction]]`: the fields become a Date's UTC fields (see useUTC). */
export function parseTimestamp(text: string): Date {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?)?$/.exec(text);
  if (m === null) throw new TypeError(`not a timestamp: "${text}"`);
  const ms = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, '0'));
  return new Date(
    Date.UTC(
      Number(m[1]),
      Number(m[2]) - 1,
      Number(m[3]),
      Number(m[4] ?? 0),
      Number(m[5] ?? 0),
      Number(m[6] ?? 0),
      ms,
    ),
  );
}

function integer(text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n) || text.length === 0) throw new TypeError(`not an integer: "${text}"`);
  return n;
}

function decimal(text: string): number {
  const n = Number(text);
  if (!Number.isFinite(n) || text.length === 0) throw new TypeError(`not a number: "${text}"`);
  return n;
}

const identity: Converter = (text) => text;

/** The converter and driver type for a column; throws for types txbench does not load. */
export function columnBinding(sql: MssqlModule, c: ColumnMeta): { convert: Converter; type: MssqlTypeSpec } {
  const chars = (bytesPerChar: number): number | undefined =>
    c.maxLength === -1 ? sql.MAX : c.maxLength / bytesPerChar;
  switch (c.type) {
    case 'int':
      return { convert: integer, type: sql.Int() };
    case 'smallint':
      return { convert: integer, type: sql.SmallInt() };
    case 'tinyint':
      return { convert: integer, type: sql.TinyInt() };
    case 'bigint':
      // tedious takes a bigint as a string or number; a string keeps all 19 digits.
      return { convert: identity, type: sql.BigInt() };
    case 'bit':
      return { convert: (t) => t === 't' || t === 'true' || t === '1', type: sql.Bit() };
    case 'numeric':
    case 'decimal':
      if (c.precision > MAX_EXACT_DECIMAL_PRECISION) {
        throw new TypeError(
          `column ${c.name} is ${c.type}(${c.precision},${c.scale}): more than ${MAX_EXACT_DECIMAL_PRECISION} digits cannot be bulk loaded exactly`,
        );
      }
      return {
        convert: decimal,
        type: c.type === 'numeric' ? sql.Numeric(c.precision, c.scale) : sql.Decimal(c.precision, c.scale),
      };
    case 'float':
      return { convert: decimal, type: sql.Float() };
    case 'real':
      return { convert: decimal, type: sql.Real() };
    case 'char':
      return { convert: identity, type: sql.Char(c.maxLength) };
    case 'nchar':
      return { convert: identity, type: sql.NChar(c.maxLength / 2) };
    case 'varchar':
      return { convert: identity, type: sql.VarChar(chars(1)) };
    case 'nvarchar':
      return { convert: identity, type: sql.NVarChar(chars(2)) };
    case 'datetime2':
      return { convert: parseTimestamp, type: sql.DateTime2(c.scale) };
    case 'datetime':
      return { convert: parseTimestamp, type: sql.DateTime() };
    case 'date':
      return { convert: parseTimestamp, type: sql.Date() };
    default:
      throw new TypeError(
        `column ${c.name} has type ${c.type}, which the SQL Server bulk loader does not handle`,
      );
  }
}

const NEWLINE = 0x0a;

/**
 * Rows of COPY text as arrays of typed values, one per converter; `\N` is NULL. A row may span
 * two chunks (the loader cuts chunks at row ends, but nothing here relies on it).
 */
export function* copyTextRows(
  chunks: Iterable<Buffer>,
  converters: readonly Converter[],
): Generator<unknown[]> {
  let carry: Buffer | undefined;
  for (const chunk of chunks) {
    const buf = carry === undefined ? chunk : Buffer.concat([carry, chunk]);
    carry = undefined;
    let start = 0;
    for (let end = buf.indexOf(NEWLINE, start); end !== -1; end = buf.indexOf(NEWLINE, start)) {
      if (end > start) yield parseLine(buf.toString('utf8', start, end), converters);
      start = end + 1;
    }
    if (start < buf.length) carry = buf.subarray(start);
  }
  if (carry !== undefined && carry.length > 0) yield parseLine(carry.toString('utf8'), converters);
}

function parseLine(line: string, converters: readonly Converter[]): unknown[] {
  const fields = line.split('\t');
  if (fields.length !== converters.length) {
    throw new Error(`a row has ${fields.length} fields where ${converters.length} columns were given`);
  }
  const row = new Array<unknown>(fields.length);
  for (let i = 0; i < fields.length; i++) {
    const text = fields[i]!;
    row[i] = text === '\\N' ? null : converters[i]!(text);
  }
  return row;
}

export const BULK_BATCH_ROWS = 10_000;

/** TABLOCK into a heap takes bulk-update locks, which let the loader's workers fill one table together. */
export const BULK_OPTIONS = { lockTable: true, keepNulls: true, checkConstraints: false } as const;

/** A bulk loader over a one-connection pool. */
export function mssqlBulkLoader(sql: MssqlModule, pool: MssqlPool, batchRows = BULK_BATCH_ROWS): BulkLoader {
  const metaByTable = new Map<string, ColumnMeta[]>();
  const columnsOf = async (table: string): Promise<ColumnMeta[]> => {
    let meta = metaByTable.get(table);
    if (meta === undefined) {
      const result = await pool.request().input('p1', sql.VarChar(256), table).query(COLUMNS_SQL);
      meta = (result.recordset ?? []).map((r) => ({
        name: String(r.name),
        type: String(r.type),
        maxLength: Number(r.max_length),
        precision: Number(r.precision),
        scale: Number(r.scale),
        nullable: r.is_nullable === true || r.is_nullable === 1,
      }));
      if (meta.length === 0) throw new Error(`table ${table} does not exist`);
      metaByTable.set(table, meta);
    }
    return meta;
  };
  return {
    async load(table, columns, chunks) {
      const meta = await columnsOf(table);
      const target = new sql.Table(table);
      target.create = false;
      const converters: Converter[] = [];
      for (const name of columns) {
        const c = meta.find((m) => m.name.toLowerCase() === name.toLowerCase());
        if (c === undefined) throw new Error(`table ${table} has no column ${name}`);
        const { convert, type } = columnBinding(sql, c);
        target.columns.add(c.name, type, { nullable: c.nullable });
        converters.push(convert);
      }
      for (const row of copyTextRows(chunks, converters)) {
        target.rows.push(row);
        if (target.rows.length >= batchRows) {
          await pool.request().bulk(target, { ...BULK_OPTIONS });
          target.rows.clear();
        }
      }
      if (target.rows.length > 0) {
        await pool.request().bulk(target, { ...BULK_OPTIONS });
        target.rows.clear();
      }
    },
    close: () => pool.close(),
  };
}
