/**
 * A workload's tables, described once and rendered per database by the dialect's DDL flavor
 * (dialects/ddl.ts). Keys and secondary indexes are separate statements so the loader can build
 * them after the data where the database allows it.
 */
import type { ColumnType, DdlFlavor, IndexSpec } from '../dialects/ddl.js';

export type { ColumnType, DdlFlavor, IndexSpec };

export interface TableSpec {
  name: string;
  /** Columns in the order the loader writes them; key columns are NOT NULL. */
  columns: readonly (readonly [name: string, type: ColumnType])[];
  primaryKey?: readonly string[] | undefined;
  indexes?: readonly Omit<IndexSpec, 'table'>[] | undefined;
}

export function columnNames(table: TableSpec): string[] {
  return table.columns.map(([name]) => name);
}

export function createTableStatement(flavor: DdlFlavor, table: TableSpec): string {
  const key = table.primaryKey ?? [];
  const columns = table.columns.map(
    ([name, type]) =>
      `${name} ${flavor.columnType(type)}${defaultClause(type)}${key.includes(name) || type.notNull ? ' not null' : ''}`,
  );
  if (flavor.keysInCreateTable && key.length > 0) columns.push(`primary key (${key.join(', ')})`);
  return `create table ${table.name} (${columns.join(', ')})${flavor.tableSuffix ?? ''}`;
}

function defaultClause(type: ColumnType): string {
  const d = type.default;
  if (d === undefined) return '';
  return typeof d === 'number' ? ` default ${d}` : ` default '${d.replaceAll("'", "''")}'`;
}

/**
 * Keys and indexes to build after the data, one group per table in the order given (put the
 * biggest first, so the last group does not leave one connection alone with a big table).
 */
export function afterDataStatements(
  flavor: DdlFlavor,
  tables: readonly TableSpec[],
): { table: string; statements: string[] }[] {
  return tables
    .map((t) => {
      const statements: string[] = [];
      if (t.primaryKey && !flavor.keysInCreateTable)
        statements.push(flavor.addPrimaryKey(t.name, t.primaryKey));
      for (const index of t.indexes ?? []) statements.push(flavor.createIndex({ ...index, table: t.name }));
      return { table: t.name, statements };
    })
    .filter((g) => g.statements.length > 0);
}

export function dropTableStatements(tables: readonly TableSpec[]): string[] {
  return tables.map((t) => `drop table if exists ${t.name}`);
}
