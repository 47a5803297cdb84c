/**
 * `txbench capture --db mssql://… --duration D`: creates and starts the Extended Events session
 * for the window, stops and drops it afterwards (also on Ctrl-C and errors), and reads its event
 * file back. Needs ALTER ANY EVENT SESSION and VIEW SERVER STATE. Not run against a live SQL
 * Server (none runs where txbench is developed): the event parsing is unit-tested on recorded rows.
 */
import { parseMssqlUrl, poolConfig, describeConnectionError } from '../../dialects/mssql/config.js';
import { loadMssql } from '../../dialects/mssql/driver.js';
import { UsageError, errorMessage } from '../../errors.js';
import { CaptureBuilder } from '../builder.js';
import { WorkloadWriter } from '../file-io.js';
import type { LiveCaptureOptions, LiveCaptureResult } from '../live-types.js';
import { createSessionSql, readEventsSql, XE_SESSION, XeEventParser, type XeRow } from './xevents.js';

export async function captureMssqlLive(
  url: string,
  out: string,
  options: LiveCaptureOptions,
): Promise<LiveCaptureResult> {
  const target = parseMssqlUrl(url);
  const mssql = loadMssql();
  const pool = new mssql.ConnectionPool(poolConfig(target, 1));
  try {
    await pool.connect();
  } catch (err) {
    throw describeConnectionError(err, target);
  }
  let created = false;
  try {
    const dir = String(
      (await pool.request().query(`SELECT CAST(SERVERPROPERTY('ErrorLogFileName') AS nvarchar(4000)) AS f`))
        .recordset?.[0]?.f ?? '',
    );
    const filePath = `${dir.replace(/[^\\/]*$/, '')}${XE_SESSION}_${Date.now()}`;
    const version = String((await pool.request().query('SELECT @@VERSION AS v')).recordset?.[0]?.v ?? '');
    try {
      await pool.request().query(createSessionSql(filePath));
      created = true;
      await pool.request().query(`ALTER EVENT SESSION [${XE_SESSION}] ON SERVER STATE = START`);
    } catch (err) {
      throw new UsageError(
        `capturing needs ALTER ANY EVENT SESSION and VIEW SERVER STATE (${errorMessage(err)}); connect as such a login; no event session was left behind`,
      );
    }
    const startMs = Date.now();
    const interrupted = await new Promise<boolean>((resolve) => {
      const t = setTimeout(() => resolve(false), options.durationMs);
      options.signal.addEventListener(
        'abort',
        () => {
          clearTimeout(t);
          resolve(true);
        },
        { once: true },
      );
    });
    await pool.request().query(`ALTER EVENT SESSION [${XE_SESSION}] ON SERVER STATE = STOP`);
    const rows = ((await pool.request().query(readEventsSql(filePath))).recordset ??
      []) as unknown as XeRow[];
    const parser = new XeEventParser();
    const writer = await WorkloadWriter.create(out);
    const builder = new CaptureBuilder(writer, {
      kind: 'mssql',
      from: 'xevents',
      redact: options.redact,
      serverVersion: version,
      captureStartMs: startMs,
    });
    try {
      for (const row of rows) for (const event of parser.feed(row)) await builder.add(event);
      builder.counts.otherRecords = parser.counts.otherRecords;
      builder.counts.unreadableRecords = parser.counts.unreadableRecords;
      return { counts: await builder.finish(), interrupted, changed: [`event session ${XE_SESSION}`] };
    } catch (err) {
      await writer.abandon();
      throw err;
    }
  } finally {
    if (created)
      await pool
        .request()
        .query(`DROP EVENT SESSION [${XE_SESSION}] ON SERVER`)
        .catch(() => undefined);
    await pool.close().catch(() => undefined);
  }
}
