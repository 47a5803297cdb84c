import { sqliteDialect } from '../../../dialects/sqlite/dialect.js';
import { tpccDialect } from '../tpcc-types.js';
import { openSqliteTpcc } from './executor.js';

export { sqliteColumnType as columnType, sqliteDdl } from '../../../dialects/sqlite/ddl.js';

export const sqliteTpcc = tpccDialect(sqliteDialect, openSqliteTpcc);
