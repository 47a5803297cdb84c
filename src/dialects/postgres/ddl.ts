import type { ColumnType, DdlFlavor } from '../ddl.js';

export function postgresColumnType(t: ColumnType): string {
  switch (t.kind) {
    case 'int':
      return 'integer';
    case 'bigint':
      return 'bigint';
    case 'serial':
      return 'serial';
    case 'varchar':
      return `varchar(${t.size})`;
    case 'char':
      return `char(${t.size})`;
    case 'numeric':
      return `numeric(${t.precision},${t.scale})`;
    case 'timestamp':
      return 'timestamp';
  }
}

/** Heaps while loading; keys and indexes after the data. */
export const postgresDdl: DdlFlavor = {
  columnType: postgresColumnType,
  keysInCreateTable: false,
  addPrimaryKey: (table, columns) => `alter table ${table} add primary key (${columns.join(', ')})`,
  createIndex: (i) =>
    `create ${i.unique ? 'unique ' : ''}index ${i.name} on ${i.table} (${i.columns.join(', ')})`,
};
