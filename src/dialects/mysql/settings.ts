/**
 * MySQL/MariaDB server settings for the run environment and for sweeps: the variables that matter
 * for a benchmark, the data directory, and SET GLOBAL for one variable.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { DatabaseError, UsageError } from '../../errors.js';
import { realpathOrAsGiven } from '../../util/paths.js';
import type { Db } from '../dialect.js';
import { errnoOf, ER, parseServerVersion } from './errors.js';

/** Memory, durability, redo log and I/O: what decides an OLTP result on InnoDB. */
export const SETTINGS_THAT_MATTER: readonly string[] = [
  'innodb_buffer_pool_size',
  'innodb_log_file_size',
  'innodb_redo_log_capacity',
  'innodb_log_buffer_size',
  'innodb_flush_log_at_trx_commit',
  'innodb_flush_method',
  'innodb_doublewrite',
  'innodb_io_capacity',
  'innodb_io_capacity_max',
  'log_bin',
  'sync_binlog',
  'max_connections',
  'transaction_isolation',
  'tx_isolation',
];

export async function mysqlSettings(db: Db): Promise<Record<string, string>> {
  const rows = await db.query<{ Variable_name: string; Value: string }>(
    `show global variables where variable_name in (${SETTINGS_THAT_MATTER.map(() => '?').join(', ')})`,
    SETTINGS_THAT_MATTER,
  );
  return Object.fromEntries(rows.map((r) => [r.Variable_name, r.Value]));
}

export async function mysqlDataDirectory(db: Db): Promise<string | undefined> {
  const [row] = await db.query<{ d: string | null }>('select @@datadir as d');
  return row?.d ?? undefined;
}

/**
 * InnoDB's redo log directory: innodb_log_group_home_dir, relative to the data directory when
 * relative (the default is `./`). MySQL 8.0.30 and later keep the redo files in `#innodb_redo`
 * inside it, which may itself be a link to another disk.
 */
export async function mysqlLogDirectory(db: Db): Promise<string | undefined> {
  const [row] = await db.query<{ d: string | null; h: string | null }>(
    'select @@datadir as d, @@innodb_log_group_home_dir as h',
  );
  if (!row?.d) return undefined;
  const home = path.resolve(row.d, row.h || '.');
  const redo = path.join(home, '#innodb_redo');
  return realpathOrAsGiven((await isDirectory(redo)) ? redo : home);
}

async function isDirectory(p: string): Promise<boolean> {
  return stat(p).then(
    (s) => s.isDirectory(),
    () => false,
  );
}

const UNITS: Readonly<Record<string, number>> = { k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };

/**
 * A value for SET GLOBAL: numbers bare (a quoted number is refused for numeric variables), sizes
 * with a K/M/G/T suffix (as in option files) in bytes, anything else quoted.
 */
export function settingLiteral(value: string): string {
  const v = value.trim();
  if (/^-?\d+(\.\d+)?$/.test(v)) return v;
  const size = /^(\d+)\s*([kmgt])i?b?$/i.exec(v);
  if (size) return String(Number(size[1]) * UNITS[size[2]!.toLowerCase()]!);
  return `'${v.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/** SET GLOBAL; a read-only variable is persisted for the next restart on MySQL, refused on MariaDB. */
export async function applyMysqlSetting(db: Db, name: string, value: string): Promise<'applied' | 'restart'> {
  if (!/^[a-z_][a-z0-9_]*$/i.test(name))
    throw new UsageError(`"${name}" is not a MySQL/MariaDB variable name`);
  const known = await db.query('show global variables like ?', [name]);
  if (known.length === 0) throw new UsageError(`MySQL/MariaDB has no setting "${name}"; check the name`);
  const literal = settingLiteral(value);
  try {
    await db.query(`set global ${name} = ${literal}`);
    return 'applied';
  } catch (err) {
    const n = errnoOf(err);
    if (n === ER.SPECIFIC_ACCESS_DENIED) {
      throw new DatabaseError(
        `changing ${name} needs the SUPER (MariaDB) or SYSTEM_VARIABLES_ADMIN (MySQL) privilege; grant it or sweep as an administrator`,
      );
    }
    if (n !== ER.READ_ONLY_VARIABLE) throw err;
    const [row] = await db.query<{ v: string }>('select version() as v');
    if (parseServerVersion(row?.v ?? '').product === 'MariaDB') {
      throw new UsageError(
        `${name} cannot change while MariaDB runs: set it in the server's option file and restart it (--restart-cmd)`,
      );
    }
    await db.query(`set persist_only ${name} = ${literal}`);
    return 'restart';
  }
}
