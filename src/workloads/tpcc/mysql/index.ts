// Placeholder until the mysql dialect lands: the URL scheme is recognised, the dialect is not built yet.
import { UsageError } from '../../../errors.js';
import type { TpccDialect } from '../tpcc-dialect.js';

export const mysqlTpcc: TpccDialect = new Proxy({} as TpccDialect, {
  get() {
    throw new UsageError('the mysql dialect is not built yet');
  },
});
