// Placeholder until the mssql dialect lands: the URL scheme is recognised, the dialect is not built yet.
import { UsageError } from '../../../errors.js';
import type { TpccDialect } from '../tpcc-dialect.js';

export const mssqlTpcc: TpccDialect = new Proxy({} as TpccDialect, {
  get() {
    throw new UsageError('the mssql dialect is not built yet');
  },
});
