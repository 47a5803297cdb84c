/**
 * A MySQL/MariaDB slot's callback route (`Session.callbacks`): mysql2's own callback API under
 * its promise wrapper. Each statement is prepared once on the connection and then executed
 * through its prepared-statement handle, which queues one COM_STMT_EXECUTE: no promise per
 * statement, and none of the per-call work of `execute(sql)` (an options object, a second
 * statement-cache lookup queued as a command of its own, a check of every value).
 *
 * mysql2 keeps the statements it prepares in its own per-connection cache too, by the same key as
 * `execute(sql)` uses: the route and the promise-based session share one server-side statement.
 *
 * `run` and `count` take the hot path of binary-executor.ts (the execute written and its answer
 * read without mysql2) when mysql2 is idle and the statement's columns are all of types it decodes
 * as mysql2 does; otherwise mysql2 executes the statement as before, numbers given as their text.
 * `runText` takes it for BEGIN, COMMIT and ROLLBACK (answered by an OK only), two of sysbench's
 * every transaction.
 */
import type {
  Connection as CoreConnection,
  PrepareStatementInfo,
  QueryError,
  ResultSetHeader,
  RowDataPacket,
} from 'mysql2';
import type {
  CallbackRoute,
  ParamValue,
  PreparedStatement,
  StatementCallback,
  TextResult,
  TextRows,
  TextValue,
} from '../connections.js';
import { BinaryExecutor } from './binary-executor.js';
import { decodesAll, type ColumnShape } from './binary-protocol.js';
import { answersOkOnly } from './command-packets.js';
import type { Connection } from './connect.js';

/** A statement prepared on one connection, as the route hands it out. */
export interface MysqlPrepared extends PreparedStatement {
  readonly handle: PrepareStatementInfo;
  /** The server's statement id (the handle's, read once: mysql2's handle is a large object). */
  readonly id: number;
  /** Its answer's columns, as far as preparing told them, are all of types the hot path decodes. */
  readonly binary: boolean;
}

/** What mysql2's PrepareStatementInfo holds beyond its typings. */
interface HandleFields {
  readonly id: number;
  readonly columns?: readonly ColumnShape[];
}

/** What mysql2 answers a statement with (a CALL: its result sets, then an OK packet). */
type Answer = RowDataPacket[] | RowDataPacket[][] | ResultSetHeader;

const NO_ROWS: readonly (readonly TextValue[])[] = [];
const EMPTY_ROW: readonly TextValue[] = [];

export class MysqlCallbackRoute implements CallbackRoute {
  private readonly core: CoreConnection;
  private readonly cache = new Map<string, Promise<MysqlPrepared>>();
  /** The statements whose preparing has finished, for the hot path to take without a promise. */
  private readonly ready = new Map<string, MysqlPrepared>();
  private readonly executor: BinaryExecutor | undefined;

  constructor(conn: Connection) {
    // The promise wrapper's connection underneath (mysql2 3.x: `connection`; its typings name it
    // on pool connections only).
    const core = (conn as unknown as { connection?: CoreConnection }).connection;
    if (core === undefined) throw new Error('mysql2 connection without its callback connection');
    this.core = core;
    this.executor = BinaryExecutor.attach(core);
  }

  prepare(sql: string): Promise<MysqlPrepared> {
    let p = this.cache.get(sql);
    if (p === undefined) {
      p = new Promise<MysqlPrepared>((resolve, reject) => {
        this.core.prepare(sql, (err, handle) => {
          if (err) reject(err);
          else {
            const { id, columns } = handle as unknown as HandleFields;
            resolve({ name: String(id), handle, id, binary: decodesAll(columns) });
          }
        });
      });
      p.then(
        (prepared) => this.ready.set(sql, prepared),
        // A statement that failed to prepare is tried again next time, not cached as failed.
        () => this.cache.delete(sql),
      );
      this.cache.set(sql, p);
    }
    return p;
  }

  preparedFor(sql: string): MysqlPrepared | undefined {
    return this.ready.get(sql);
  }

  run(statement: PreparedStatement, values: readonly ParamValue[], done: StatementCallback): void {
    if (this.hotPath(statement, values, false, done)) return;
    handleOf(statement).execute(asText(values), (err: QueryError | null, result: Answer) => {
      if (err) return done(err, EMPTY_RESULT);
      done(undefined, textResult(result, false));
    });
  }

  count(statement: PreparedStatement, values: readonly ParamValue[], done: StatementCallback): void {
    if (this.hotPath(statement, values, true, done)) return;
    handleOf(statement).execute(asText(values), (err: QueryError | null, result: Answer) => {
      if (err) return done(err, EMPTY_RESULT);
      done(undefined, textResult(result, true));
    });
  }

  private hotPath(
    statement: PreparedStatement,
    values: readonly ParamValue[],
    countOnly: boolean,
    done: StatementCallback,
  ): boolean {
    const prepared = statement as Partial<MysqlPrepared>;
    if (this.executor === undefined || prepared.binary !== true) return false;
    return this.executor.execute(prepared.id!, values, countOnly, done);
  }

  runText(sql: string, done: StatementCallback): void {
    if (this.executor !== undefined && answersOkOnly(sql) && this.executor.executeText(sql, done)) return;
    this.core.query(sql, (err: QueryError | null, result: Answer) => {
      if (err) return done(err, EMPTY_RESULT);
      done(undefined, textResult(result, true));
    });
  }
}

const EMPTY_RESULT: TextResult = { rows: NO_ROWS, tag: '' };

/**
 * The values as mysql2 is given them: a number as its text, which mysql2 sends as text (it would
 * send a number as a DOUBLE), and a list as its comma-separated text, as the hot path sends it.
 */
function asText(values: readonly ParamValue[]): TextValue[] {
  return values.map((v) =>
    typeof v === 'number' ? String(v) : typeof v === 'object' && v !== null ? v.join(',') : v,
  );
}

function handleOf(statement: PreparedStatement): PrepareStatementInfo {
  const handle = (statement as Partial<MysqlPrepared>).handle;
  if (handle === undefined) throw new Error(`statement ${statement.name} was not prepared on a MySQL route`);
  return handle;
}

/**
 * mysql2's answer as the route's: rows as text (mysql2 decodes the binary protocol's numbers; they
 * go back to the server's decimal text), or, when only counted, that many empty rows. The tag
 * ends with the number of rows, changed or returned, as PostgreSQL's command tags do.
 */
export function textResult(result: Answer, countOnly: boolean): TextResult {
  if (!Array.isArray(result)) return { rows: NO_ROWS, tag: `OK ${result.affectedRows}` };
  if (!Array.isArray(result[0])) {
    const rows = textRows(result as RowDataPacket[], countOnly);
    return { rows, tag: `SELECT ${rows.length}` };
  }
  // A CALL answers with its result sets and an OK packet: the first result set is the answer,
  // and all of them are its sets.
  const sets: TextRows[] = [];
  for (const set of result) if (Array.isArray(set)) sets.push(textRows(set as RowDataPacket[], countOnly));
  const rows = sets[0]!;
  return { rows, tag: `SELECT ${rows.length}`, sets };
}

function textRows(rowSet: readonly RowDataPacket[], countOnly: boolean): TextRows {
  const rows = new Array<readonly TextValue[]>(rowSet.length);
  for (let r = 0; r < rowSet.length; r++) rows[r] = countOnly ? EMPTY_ROW : textRow(rowSet[r]!);
  return rows;
}

function textRow(row: RowDataPacket): TextValue[] {
  const out: TextValue[] = [];
  for (const key in row) out.push(toText(row[key]));
  return out;
}

function toText(value: unknown): TextValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  return String(value);
}
