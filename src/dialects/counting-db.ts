/**
 * A Db that counts what it sends: txbench's own side statements (counters, audit, monitoring)
 * reach the server's transaction counter too, and TPM leaves them out by this count.
 */
import type { Db, Row } from './dialect.js';

export interface CountingDb extends Db {
  /**
   * Server transactions sent so far: every statement outside a transaction and every
   * transaction when `eachStatement`, else the explicit transactions only.
   */
  sent(eachStatement: boolean): number;
}

export function countingDb(db: Db): CountingDb {
  let statements = 0;
  let transactions = 0;
  return {
    query: <T extends Row = Row>(sql: string, params?: readonly unknown[]) => {
      statements++;
      return db.query<T>(sql, params);
    },
    // The statements inside run on the transaction's own Db, so they are not counted again.
    transaction: (work) => {
      transactions++;
      return db.transaction(work);
    },
    close: () => db.close(),
    sent: (eachStatement) => transactions + (eachStatement ? statements : 0),
  };
}
