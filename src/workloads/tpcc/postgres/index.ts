import { postgresDialect } from '../../../dialects/postgres/dialect.js';
import type { ColumnType } from '../schema.js';
import type { TpccDialect } from '../tpcc-types.js';
import { PostgresTpccExecutor } from './executor.js';

function columnType(t: ColumnType): string {
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
      return 'timestamp';
  }
}

export const postgresTpcc: TpccDialect = {
  dialect: postgresDialect,
  ddl: {
    columnType,
    keysInCreateTable: false,
    addPrimaryKey: (table, columns) => `alter table ${table} add primary key (${columns.join(', ')})`,
    createIndex: (i) =>
      `create ${i.unique ? 'unique ' : ''}index ${i.name} on ${i.table} (${i.columns.join(', ')})`,
  },
  analyze: (table) => [`analyze ${table}`],
  openExecutor: (url, connections, ctx, options) => PostgresTpccExecutor.open(url, connections, ctx, options),
};
