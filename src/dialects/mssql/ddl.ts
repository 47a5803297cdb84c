import type { ColumnType, DdlFlavor } from '../ddl.js';

export function mssqlColumnType(t: ColumnType): string {
  switch (t.kind) {
    case 'int':
      return 'int';
    case 'bigint':
      return 'bigint';
    case 'serial':
      return 'int identity(1,1)';
    case 'varchar':
      return `varchar(${t.size})`;
    case 'char':
      return `char(${t.size})`;
    case 'numeric':
      return `numeric(${t.precision},${t.scale})`;
    case 'timestamp':
      return 'datetime2';
  }
}

/** Heaps while loading (bulk-update locks let loaders share a table); clustered keys after the data. */
export const mssqlDdl: DdlFlavor = {
  columnType: mssqlColumnType,
  keysInCreateTable: false,
  addPrimaryKey: (table, columns) =>
    `alter table ${table} add constraint pk_${table} primary key clustered (${columns.join(', ')})`,
  createIndex: (i) =>
    `create ${i.unique ? 'unique ' : ''}nonclustered index ${i.name} on ${i.table} (${i.columns.join(', ')})`,
};
