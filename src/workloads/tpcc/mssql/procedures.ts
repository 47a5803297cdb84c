/**
 * Stored-procedure mode for SQL Server: the five transaction bodies of sql.ts as procedures with
 * the same parameters, so one call is one round trip with exactly the client-side effects.
 * Each definition carries a version marker (a hash of its text); a procedure that is missing or
 * carries another marker is (re)created with CREATE OR ALTER when a run starts.
 */
import { createHash } from 'node:crypto';
import type { Db } from '../../../dialects/dialect.js';
import { isPermissionError } from '../../../dialects/mssql/errors.js';
import { DatabaseError, errorMessage } from '../../../errors.js';
import { TRANSACTIONS, type TransactionSql } from './sql.js';

export interface ProcedureDefinition {
  name: string;
  /** `-- txbench <hash>`, inside the body, so the server keeps it in the definition. */
  marker: string;
  /** One CREATE OR ALTER PROCEDURE batch (it must be alone in its batch). */
  sql: string;
}

export function procedureDefinition(tx: TransactionSql): ProcedureDefinition {
  const params = tx.params.map((p) => `  @${p.name} ${p.type} = null`).join(',\n');
  const body = tx.body
    .split('\n')
    .map((line) => (line.length > 0 ? `  ${line}` : line))
    .join('\n');
  const text = `${params}\nas\nbegin\n${body}\nend`;
  const marker = `-- txbench ${createHash('sha256').update(text).digest('hex').slice(0, 16)}`;
  return {
    name: tx.procedure,
    marker,
    sql: `create or alter procedure ${tx.procedure}\n${params}\nas\nbegin\n  ${marker}\n${body}\nend`,
  };
}

export const PROCEDURES: readonly ProcedureDefinition[] = TRANSACTIONS.map(procedureDefinition);

/** The txbench procedures in the user's default schema, with their definitions (NULL without VIEW DEFINITION). */
export const INSTALLED_SQL = `select p.name as name, object_definition(p.object_id) as def
  from sys.procedures p where p.schema_id = schema_id() and p.name like 'txbench[_]%'`;

/** Which procedures need (re)creating, given what the server has. */
export function proceduresToInstall(
  installed: readonly { name: string; def: string | null }[],
  wanted: readonly ProcedureDefinition[] = PROCEDURES,
): ProcedureDefinition[] {
  return wanted.filter((p) => {
    const found = installed.find((i) => i.name.toLowerCase() === p.name.toLowerCase());
    // A definition we may not read (no VIEW DEFINITION) is taken as current: we could not replace it either.
    return found === undefined || (found.def !== null && !found.def.includes(p.marker));
  });
}

/** Creates the procedures that are missing or out of date; a missing privilege is one line. */
export async function installProcedures(db: Db, database: string | undefined): Promise<string[]> {
  const installed = await db.query<{ name: string; def: string | null }>(INSTALLED_SQL);
  const missing = proceduresToInstall(installed);
  for (const p of missing) {
    try {
      await db.query(p.sql);
    } catch (err) {
      if (isPermissionError(err)) {
        throw new DatabaseError(
          `cannot create the stored procedures for --procedures in ${database ?? 'the default database'}: ${errorMessage(err)}; grant CREATE PROCEDURE and ALTER on the schema (or run without --procedures)`,
        );
      }
      throw err;
    }
  }
  return missing.map((p) => p.name);
}
