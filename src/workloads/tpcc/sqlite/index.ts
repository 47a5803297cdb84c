import { sqliteDialect } from '../../../dialects/sqlite/dialect.js';
import type { ColumnType, DdlFlavor } from '../schema.js';
import type { TpccDialect } from '../tpcc-types.js';
import { SqliteTpccExecutor } from './executor.js';

/**
 * SQLite's spelling of the schema. Types keep their declared names (SQLite derives a column's
 * affinity from them): integers, NUMERIC money (exact when integral, REAL otherwise), and
 * timestamps as ISO-8601 text, SQLite's convention for dates (it has no date type).
 */
export function columnType(t: ColumnType): string {
  switch (t.kind) {
    case 'int':
      return 'integer';
    case 'varchar':
      return `varchar(${t.size})`;
    case 'char':
      return `char(${t.size})`;
    case 'numeric':
      return `numeric(${t.precision},${t.scale})`;
    case 'timestamp':
      return 'text';
  }
}

export const sqliteDdl: DdlFlavor = {
  columnType,
  keysInCreateTable: true,
  addPrimaryKey: (table, columns) => `create unique index ${table}_pkey on ${table} (${columns.join(', ')})`,
  createIndex: (i) =>
    `create ${i.unique ? 'unique ' : ''}index ${i.name} on ${i.table} (${i.columns.join(', ')})`,
};

export const sqliteTpcc: TpccDialect = {
  dialect: sqliteDialect,
  ddl: sqliteDdl,
  analyze: (table) => [`analyze ${table}`],
  openExecutor: (url, connections, ctx, options) => SqliteTpccExecutor.open(url, connections, ctx, options),
};
