/**
 * A bounded cache of prepared statements by their text, for drivers that leave caching to the
 * caller (better-sqlite3). When full, the least recently added half is dropped: a workload
 * that builds statement text from its inputs cannot grow the cache without bound.
 */
export class StatementCache<S> {
  private readonly entries = new Map<string, S>();

  constructor(
    private readonly prepare: (sql: string) => S,
    private readonly limit = 512,
  ) {}

  get(sql: string): S {
    let statement = this.entries.get(sql);
    if (statement === undefined) {
      if (this.entries.size >= this.limit) {
        let drop = this.limit / 2;
        for (const key of this.entries.keys()) {
          if (drop-- <= 0) break;
          this.entries.delete(key);
        }
      }
      statement = this.prepare(sql);
      this.entries.set(sql, statement);
    }
    return statement;
  }
}
