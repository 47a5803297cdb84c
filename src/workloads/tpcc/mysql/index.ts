import { mysqlDialect } from '../../../dialects/mysql/dialect.js';
import { tpccDialect } from '../tpcc-types.js';
import { openMysqlTpcc } from './executor.js';

export { mysqlColumnType, mysqlDdl } from '../../../dialects/mysql/ddl.js';

export const mysqlTpcc = tpccDialect(mysqlDialect, openMysqlTpcc);
