import type { ColumnType, DdlFlavor } from '../ddl.js';

/**
 * SQLite's spelling of a schema. Types keep their declared names (SQLite derives a column's
 * affinity from them): integers, NUMERIC money (exact when integral, REAL otherwise), and
 * timestamps as ISO-8601 text, SQLite's convention for dates (it has no date type). A `serial`
 * column is declared exactly `integer` so that, as the table's primary key, it is the rowid.
 */
export function sqliteColumnType(t: ColumnType): string {
  switch (t.kind) {
    case 'int':
    case 'serial':
      return 'integer';
    case 'bigint':
      return 'bigint';
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
  columnType: sqliteColumnType,
  keysInCreateTable: true,
  addPrimaryKey: (table, columns) => `create unique index ${table}_pkey on ${table} (${columns.join(', ')})`,
  createIndex: (i) =>
    `create ${i.unique ? 'unique ' : ''}index ${i.name} on ${i.table} (${i.columns.join(', ')})`,
};
