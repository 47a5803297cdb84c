import { postgresDialect } from '../../../dialects/postgres/dialect.js';
import { tpccDialect } from '../tpcc-types.js';
import { openPostgresTpcc } from './executor.js';

export const postgresTpcc = tpccDialect(postgresDialect, openPostgresTpcc);
