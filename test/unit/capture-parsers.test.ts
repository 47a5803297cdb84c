/**
 * The capture sources on recorded records: PostgreSQL csvlog/jsonlog lines as the server writes
 * them, rows of MySQL's general_log table and performance_schema, and SQL Server Extended Events
 * rows as sys.fn_xe_file_target_read_file returns them.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureEvent, StatementEvent } from '../../src/capture/events.js';
import { readWorkload } from '../../src/capture/file-io.js';
import type { StatementRecord, WorkloadRecord } from '../../src/capture/format.js';
import { GeneralLogParser } from '../../src/capture/mysql/general-log.js';
import { createSessionSql, XeEventParser } from '../../src/capture/mssql/xevents.js';
import { captureFromLogs } from '../../src/capture/postgres/from-logs.js';
import { detectFormat } from '../../src/capture/postgres/log-records.js';
import { parseParameters, PgLogParser } from '../../src/capture/postgres/log-parser.js';
import type { PgLogRecord } from '../../src/capture/postgres/log-records.js';
import { UsageError } from '../../src/errors.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'txbench-cap-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const S = '6b0e9fe7.3c40';
function csv(
  time: string,
  line: number,
  tag: string,
  severity: string,
  state: string,
  message: string,
  detail = '',
  query = '',
  context = '',
): string {
  const q = (v: string): string => (v === '' ? '' : `"${v.replace(/"/g, '""')}"`);
  return [
    `2026-12-01 10:22:${time} UTC`,
    '"app"',
    '"shop"',
    '15424',
    '"127.0.0.1:38510"',
    S,
    String(line),
    q(tag),
    '2026-12-01 10:22:31 UTC',
    '7/9',
    '0',
    severity,
    state,
    q(message),
    q(detail),
    '',
    '',
    '',
    q(context),
    q(query),
    '',
    '',
    '"web"',
    '"client backend"',
    '',
    '0',
  ].join(',');
}

const CSV_LOG = [
  csv(
    '31.000',
    1,
    'authentication',
    'LOG',
    '00000',
    'connection authorized: user=app database=shop application_name=web',
  ),
  csv('31.010', 2, 'BEGIN', 'LOG', '00000', 'duration: 0.050 ms  statement: begin'),
  csv(
    '31.020',
    3,
    'PARSE',
    'LOG',
    '00000',
    'duration: 0.300 ms  parse s1: select * from t where id = $1 and name = $2',
  ),
  csv(
    '31.021',
    4,
    'BIND',
    'LOG',
    '00000',
    'duration: 0.200 ms  bind s1: select * from t where id = $1 and name = $2',
    "Parameters: $1 = '7', $2 = 'it''s'",
  ),
  csv(
    '31.025',
    5,
    'SELECT',
    'LOG',
    '00000',
    'duration: 1.500 ms  execute s1: select * from t where id = $1 and name = $2',
    "Parameters: $1 = '7', $2 = 'it''s'",
  ),
  csv(
    '31.030',
    6,
    'SELECT',
    'LOG',
    '00000',
    'duration: 0.100 ms  execute <unnamed>: select $1::int',
    'Parameters: $1 = NULL',
  ),
  csv(
    '31.040',
    7,
    'INSERT',
    'ERROR',
    '23505',
    'duplicate key value violates unique constraint "t_pkey"',
    'Key (id)=(1) already exists.',
    'insert into t values ($1)',
    "extended query with parameters: $1 = '1'",
  ),
  csv('31.050', 8, 'ROLLBACK', 'LOG', '00000', 'duration: 0.040 ms  statement: rollback'),
  csv('31.060', 9, 'idle', 'LOG', '00000', 'checkpoint starting: time'),
  csv(
    '32.000',
    10,
    'idle',
    'LOG',
    '00000',
    'disconnection: session time: 0:00:01.000 user=app database=shop host=127.0.0.1 port=38510',
  ),
].join('\n');

async function records(file: string): Promise<WorkloadRecord[]> {
  const out: WorkloadRecord[] = [];
  for await (const r of readWorkload(file)) out.push(r);
  return out;
}

describe('PostgreSQL logs', () => {
  it('csvlog: sessions, simple and extended protocol, parameters, durations, errors, boundaries', async () => {
    const log = path.join(dir, 'postgresql.csv');
    await writeFile(log, CSV_LOG + '\n');
    const out = path.join(dir, 'csv.ndjson');
    const counts = await captureFromLogs([log], out, { redact: false });
    expect(counts).toMatchObject({
      sessions: 1,
      statements: 5,
      sessionsBeforeCapture: 0,
      unreadableRecords: 0,
      otherRecords: 1,
    });
    const all = await records(out);
    expect(all[1]).toMatchObject({
      type: 'session',
      user: 'app',
      database: 'shop',
      application: 'web',
      connectAtMs: 0,
    });
    const st = all.filter((r): r is StatementRecord => r.type === 'statement');
    expect(st.map((s) => s.sql)).toEqual([
      'begin',
      'select * from t where id = $1 and name = $2',
      'select $1::int',
      'insert into t values ($1)',
      'rollback',
    ]);
    expect(st[1]).toMatchObject({ params: ['7', "it's"], prepared: true, durationMs: 2, outcome: 'ok' });
    // Parse began at 31.020 - 0.3 ms: the statement's start is its first protocol message's.
    expect(st[1]!.atMs).toBeCloseTo(19.7, 3);
    expect(st[2]).toMatchObject({ params: [null] });
    expect(st[2]!.prepared).toBeUndefined();
    expect(st[3]).toMatchObject({
      outcome: 'error',
      error: { code: '23505' },
      params: ['1'],
      durationMs: null,
    });
    expect(st.map((s) => s.tx)).toEqual(['begin', undefined, undefined, undefined, 'rollback']);
    expect(all.at(-2)).toMatchObject({ type: 'disconnect', session: 1, atMs: 1000 });
  });

  it('jsonlog gives the same workload as csvlog', async () => {
    const toJson = (line: string): string => {
      const f = line
        .match(/("(?:[^"]|"")*"|[^,]*)(,|$)/g)!
        .map((x) => x.replace(/,$/, '').replace(/^"|"$/g, '').replace(/""/g, '"'));
      return JSON.stringify({
        timestamp: f[0],
        user: f[1],
        dbname: f[2],
        pid: 15424,
        session_id: f[5],
        line_num: Number(f[6]),
        ps: f[7],
        error_severity: f[11],
        state_code: f[12],
        message: f[13],
        ...(f[14] ? { detail: f[14] } : {}),
        ...(f[18] ? { context: f[18] } : {}),
        ...(f[19] ? { statement: f[19] } : {}),
        application_name: f[22],
        backend_type: f[23],
      });
    };
    const log = path.join(dir, 'postgresql.json');
    await writeFile(log, CSV_LOG.split('\n').map(toJson).join('\n') + '\n');
    expect(await detectFormat(log)).toBe('jsonlog');
    const out = path.join(dir, 'json.ndjson');
    await captureFromLogs([log], out, { redact: false });
    const csvOut = path.join(dir, 'csv2.ndjson');
    await writeFile(path.join(dir, 'again.csv'), CSV_LOG + '\n');
    await captureFromLogs([path.join(dir, 'again.csv')], csvOut, { redact: false });
    const strip = (rs: WorkloadRecord[]): unknown[] => rs.filter((r) => r.type !== 'header');
    expect(strip(await records(out))).toEqual(strip(await records(csvOut)));
  });

  it('a truncated log: the cut-off last record is counted, sessions already open are counted and replayed as far as seen', async () => {
    const lines = CSV_LOG.split('\n').slice(2);
    const log = path.join(dir, 'truncated.csv');
    // Rotated mid-session (no connection line) and cut mid-record (an unclosed quote).
    await writeFile(
      log,
      lines.join('\n') +
        '\n' +
        csv('33.000', 11, 'SELECT', 'LOG', '00000', 'duration: 1 ms  statement: select 1').slice(0, 120),
    );
    const out = path.join(dir, 'truncated.ndjson');
    const counts = await captureFromLogs([log], out, { redact: false });
    expect(counts).toMatchObject({
      sessions: 1,
      sessionsBeforeCapture: 1,
      statements: 4,
      unreadableRecords: 1,
    });
    const all = await records(out);
    expect(all[1]).toMatchObject({
      type: 'session',
      startedBeforeCapture: true,
      user: 'app',
      connectAtMs: null,
    });
  });

  it('log_statement = all: the statement when it starts, its duration when it ends', () => {
    const r = (message: string, timeMs: number, detail = ''): PgLogRecord => ({
      timeMs,
      user: 'u',
      database: 'd',
      sessionId: 's',
      severity: 'LOG',
      sqlstate: '00000',
      message,
      detail,
      context: '',
      query: '',
      application: '',
      backendType: 'client backend',
    });
    const p = new PgLogParser();
    const events: CaptureEvent[] = [
      ...p.feed(r('statement: select 1', 1000)),
      ...p.feed(r('duration: 2.5 ms', 1003)),
      ...p.feed(r('execute S_1: select $1', 1010, "parameters: $1 = 'x'")),
      ...p.feed(r('duration: 0.5 ms', 1011)),
      ...p.end(),
    ];
    const st = events.filter((e): e is StatementEvent => e.kind === 'statement');
    expect(st.map((s) => [s.sql, s.startMs, s.durationMs, s.params, s.prepared])).toEqual([
      ['select 1', 1000, 2.5, undefined, undefined],
      ['select $1', 1010, 0.5, ['x'], true],
    ]);
  });

  it('parameters: quotes, NULLs, commas and newlines inside values', () => {
    expect(parseParameters("parameters: $1 = 'a, $2 = b', $2 = NULL, $3 = 'x\ny', $4 = ''''")).toEqual([
      'a, $2 = b',
      null,
      'x\ny',
      "'",
    ]);
    expect(parseParameters('')).toBeUndefined();
  });

  it.each([
    ['a stderr log', '2026-12-01 10:22:31.000 UTC [15424] LOG:  duration: 0.050 ms  statement: begin\n'],
    ['a MySQL slow log', '# Time: 2024-05-01T10:00:00.000000Z\n# User@Host: root[root] @ localhost []\n'],
    ['an empty file', ''],
  ])('%s is refused with one line', async (_what, content) => {
    const log = path.join(dir, 'other.log');
    await writeFile(log, content);
    const err = await captureFromLogs([log], path.join(dir, 'x.ndjson'), { redact: false }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).not.toContain('\n');
  });
});

describe('MySQL general log', () => {
  it('connections, queries, Init DB, quits; durations and errors matched from performance_schema', () => {
    const p = new GeneralLogParser([
      { threadId: 8, sqlText: 'BEGIN', durationMs: 0.01, errno: 0, sqlstate: '00000', message: '' },
      {
        threadId: 8,
        sqlText: 'select 1 from t where a = 1',
        durationMs: 0.5,
        errno: 0,
        sqlstate: '00000',
        message: '',
      },
      {
        threadId: 8,
        sqlText: 'update t set a = 2',
        durationMs: 0.25,
        errno: 0,
        sqlstate: '00000',
        message: '',
      },
      {
        threadId: 8,
        sqlText: 'insert into t values (1)',
        durationMs: 0.3,
        errno: 1062,
        sqlstate: '23000',
        message: 'Duplicate entry',
      },
    ]);
    const row = (
      t: string,
      command: string,
      argument: string,
      thread = 8,
    ): Parameters<GeneralLogParser['feed']>[0] => ({
      eventTime: `2024-05-01 10:00:${t}`,
      userHost: 'app[app] @ localhost [127.0.0.1]',
      threadId: thread,
      commandType: command,
      argument,
    });
    const events = [
      row('00.000000', 'Connect', 'app@localhost on shop using TCP/IP'),
      row('00.001000', 'Query', 'BEGIN'),
      row('00.002000', 'Query', 'select 1 from t where a = 1; update t set a = 2'),
      row('00.003000', 'Query', 'insert into t values (1)'),
      row('00.004000', 'Init DB', 'other'),
      row('00.005000', 'Close stmt', ''),
      row('00.006000', 'Query', 'select 2', 9),
      row('00.009000', 'Quit', ''),
    ].flatMap((r) => p.feed(r));
    expect(events[0]).toMatchObject({ kind: 'session', key: '8', user: 'app', database: 'shop' });
    const st = events.filter((e): e is StatementEvent => e.kind === 'statement');
    expect(st.map((s) => [s.sql, s.durationMs, s.outcome])).toEqual([
      ['BEGIN', 0.01, 'ok'],
      ['select 1 from t where a = 1; update t set a = 2', 0.75, 'ok'],
      ['insert into t values (1)', 0.3, 'error'],
      ['USE `other`', null, 'unknown'],
      ['select 2', null, 'unknown'],
    ]);
    expect(st[2]!.error).toEqual({ code: '1062', message: 'Duplicate entry' });
    expect(events.at(-1)).toMatchObject({ kind: 'disconnect', key: '8' });
    expect(p.counts.otherRecords).toBe(1);
  });
});

describe('SQL Server Extended Events', () => {
  const event = (
    name: string,
    timestamp: string,
    data: Record<string, string>,
    session = '53',
  ): { object_name: string; event_data: string } => ({
    object_name: name,
    event_data:
      `<event name="${name}" package="sqlserver" timestamp="${timestamp}">` +
      Object.entries(data)
        .map(([k, v]) => `<data name="${k}"><type name="x" package="package0"/><value>${v}</value></data>`)
        .join('') +
      `<action name="session_id" package="sqlserver"><type name="uint16" package="package0"/><value>${session}</value></action>` +
      '<action name="username" package="sqlserver"><value>app</value></action>' +
      '<action name="database_name" package="sqlserver"><value>shop</value></action>' +
      '<action name="client_app_name" package="sqlserver"><value>web</value></action></event>',
  });

  it('logins, batches, RPCs with their durations and results, logouts', () => {
    const p = new XeEventParser();
    const events = [
      event('login', '2024-05-01T10:00:00.000Z', { is_cached: 'false' }),
      event('sql_batch_completed', '2024-05-01T10:00:00.010Z', {
        duration: '2500',
        result: '0',
        batch_text: 'SELECT * FROM t WHERE a &lt; 5',
      }),
      {
        ...event('rpc_completed', '2024-05-01T10:00:00.020Z', {
          duration: '1000',
          statement: "exec sp_executesql N'select @p', N'@p int', @p=1",
        }),
      },
      event('sql_batch_completed', '2024-05-01T10:00:00.030Z', {
        duration: '100',
        batch_text: 'INSERT t VALUES (1)',
      }),
      event('logout', '2024-05-01T10:00:01.000Z', {}),
      { object_name: 'sql_batch_completed', event_data: '<event name="x"' },
    ];
    // The failed batch: result 2 = Error, with its text.
    events[3]!.event_data = events[3]!.event_data.replace(
      '<value>100</value></data>',
      '<value>100</value></data><data name="result"><value>2</value><text>Error</text></data>',
    );
    const out = events.flatMap((e) => p.feed(e));
    expect(out[0]).toMatchObject({
      kind: 'session',
      key: '53',
      user: 'app',
      database: 'shop',
      application: 'web',
    });
    const st = out.filter((e): e is StatementEvent => e.kind === 'statement');
    expect(st.map((s) => [s.sql, s.durationMs, s.outcome, s.prepared])).toEqual([
      ['SELECT * FROM t WHERE a < 5', 2.5, 'ok', undefined],
      ["exec sp_executesql N'select @p', N'@p int', @p=1", 1, 'ok', true],
      ['INSERT t VALUES (1)', 0.1, 'error', undefined],
    ]);
    expect(st[0]!.startMs).toBe(Date.parse('2024-05-01T10:00:00.010Z') - 2.5);
    expect(out.at(-1)).toMatchObject({ kind: 'disconnect', key: '53' });
    expect(p.counts.unreadableRecords).toBe(1);
  });

  it('the session definition captures completed batches and RPCs with session, user, database and application to an event file', () => {
    const sql = createSessionSql("C:\\logs\\it's");
    expect(sql).toContain('ADD EVENT sqlserver.sql_batch_completed');
    expect(sql).toContain('ADD EVENT sqlserver.rpc_completed');
    expect(sql).toContain(
      'sqlserver.session_id, sqlserver.username, sqlserver.database_name, sqlserver.client_app_name',
    );
    expect(sql).toContain("package0.event_file(SET filename = N'C:\\logs\\it''s.xel'");
  });
});
