import type { ColumnType, DdlFlavor } from '../ddl.js';

export function mysqlColumnType(t: ColumnType): string {
  switch (t.kind) {
    case 'int':
      return 'int';
    case 'bigint':
      return 'bigint';
    case 'serial':
      return 'int auto_increment';
    case 'varchar':
      return `varchar(${t.size})`;
    case 'char':
      return `char(${t.size})`;
    case 'numeric':
      return `decimal(${t.precision},${t.scale})`;
    case 'timestamp':
      return 'datetime(6)';
  }
}

/** InnoDB clusters rows by primary key: keys go in CREATE TABLE, secondary indexes after the data. */
export const mysqlDdl: DdlFlavor = {
  columnType: mysqlColumnType,
  keysInCreateTable: true,
  addPrimaryKey: (table, columns) => `alter table ${table} add primary key (${columns.join(', ')})`,
  createIndex: (i) =>
    `create ${i.unique ? 'unique ' : ''}index ${i.name} on ${i.table} (${i.columns.join(', ')})`,
  tableSuffix: ' engine=innodb',
};
