/**
 * How a database spells a schema that a workload describes once (workloads/schema.ts): column
 * types, where keys go, index syntax. One flavor per dialect (`Dialect.ddl`); workloads never
 * write CREATE TABLE themselves.
 */

/**
 * Column types as workloads declare them; each dialect maps them to its own. `notNull` and
 * `default` are spelled the same everywhere (sysbench's `k INTEGER DEFAULT '0' NOT NULL`), so the
 * schema renders them, not the flavor.
 */
export type ColumnType = BaseColumnType & {
  notNull?: boolean | undefined;
  /** A constant default: a number, or a string (quoted when rendered). */
  default?: number | string | undefined;
};

export type BaseColumnType =
  | { kind: 'int' }
  | { kind: 'bigint' }
  /**
   * An integer the database numbers itself on insert (sysbench's `id`): SERIAL, AUTO_INCREMENT,
   * SQLite's rowid alias, IDENTITY. It must be the table's whole primary key.
   */
  | { kind: 'serial' }
  | { kind: 'varchar'; size: number }
  | { kind: 'char'; size: number }
  | { kind: 'numeric'; precision: number; scale: number }
  | { kind: 'timestamp' };

/** A secondary index. */
export interface IndexSpec {
  name: string;
  table: string;
  columns: readonly string[];
  unique: boolean;
}

export interface DdlFlavor {
  columnType(type: ColumnType): string;
  /** InnoDB clusters rows by primary key, SQLite cannot add one later: keys go in CREATE TABLE. */
  keysInCreateTable: boolean;
  addPrimaryKey(table: string, columns: readonly string[]): string;
  createIndex(index: IndexSpec): string;
  /** Extra words after the column list (e.g. an engine). */
  tableSuffix?: string;
}
