/**
 * PostgreSQL's structured server logs, csvlog and jsonlog, read as one record shape. The format is
 * told by the content, not the file name: a JSON object per line with `timestamp` and
 * `error_severity` is jsonlog; CSV rows of 22 or more fields starting with a timestamp are csvlog.
 */
import { parse as parseCsv } from 'csv-parse';
import { parse as parseCsvSync } from 'csv-parse/sync';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { UsageError } from '../../errors.js';
import { openMaybeGzip } from '../file-io.js';

export interface PgLogRecord {
  /** Epoch ms. */
  timeMs: number;
  user: string;
  database: string;
  sessionId: string;
  severity: string;
  sqlstate: string;
  message: string;
  detail: string;
  context: string;
  /** The statement an error happened in (csvlog `query`, jsonlog `statement`). */
  query: string;
  application: string;
  backendType: string;
}

export type PgLogFormat = 'csvlog' | 'jsonlog';

export interface LogReadCounts {
  /** Lines or rows that could not be read (a truncated last line, a damaged record). */
  unreadable: number;
}

const TIMESTAMP =
  /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}(?:\.\d+)?)(?: ([A-Za-z]+|[+-]\d{2}(?::?\d{2})?))?$/;

/** Epoch ms of a log timestamp such as `2024-05-01 10:22:34.830 UTC` or `… +02`; NaN if it is none. */
export function parseLogTime(text: string): number {
  const m = TIMESTAMP.exec(text.trim());
  if (!m) return NaN;
  const zone = m[3] ?? 'UTC';
  // Zone abbreviations other than UTC/GMT cannot be resolved here: read as UTC, offsets stay right.
  const offset = /^[+-]/.test(zone) ? normaliseOffset(zone) : 'Z';
  return Date.parse(`${m[1]}T${m[2]}${offset}`);
}

function normaliseOffset(zone: string): string {
  const digits = zone.replace(':', '');
  return `${digits.slice(0, 3)}:${digits.length > 3 ? digits.slice(3, 5) : '00'}`;
}

/** Reads the first bytes and says which format the file is in, or refuses it with one line. */
export async function detectFormat(file: string): Promise<PgLogFormat> {
  const head = await firstLines(file, 200);
  const first = head.find((l) => l.trim() !== '');
  if (first === undefined) throw new UsageError(`the log ${file} is empty; give a log with statements in it`);
  if (first.trimStart().startsWith('{')) {
    try {
      const value = JSON.parse(first) as Record<string, unknown>;
      if (typeof value.timestamp === 'string' && 'error_severity' in value) return 'jsonlog';
    } catch {
      // Not JSON after all: fall through to the refusal below.
    }
  } else {
    const fields = firstCsvRecord(head.join('\n'));
    if (fields.length >= 22 && !Number.isNaN(parseLogTime(fields[0] ?? ''))) return 'csvlog';
  }
  throw new UsageError(
    `${file} is not a PostgreSQL csvlog or jsonlog file; capture from a log written with log_destination = 'csvlog' (or 'jsonlog')`,
  );
}

/** The log's records in file order; unreadable ones are counted and skipped. */
export async function* readLogRecords(
  file: string,
  format: PgLogFormat,
  counts: LogReadCounts,
): AsyncGenerator<PgLogRecord> {
  const input = await openMaybeGzip(file, 'the log');
  if (format === 'jsonlog') yield* jsonRecords(input, counts);
  else yield* csvRecords(input, counts);
}

async function* jsonRecords(input: Readable, counts: LogReadCounts): AsyncGenerator<PgLogRecord> {
  const lines = createInterface({ input, crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim() === '') continue;
    let v: Record<string, unknown>;
    try {
      v = JSON.parse(line) as Record<string, unknown>;
    } catch {
      counts.unreadable++;
      continue;
    }
    const timeMs = parseLogTime(String(v.timestamp ?? ''));
    if (Number.isNaN(timeMs)) {
      counts.unreadable++;
      continue;
    }
    const s = (k: string): string => (v[k] === undefined || v[k] === null ? '' : String(v[k]));
    yield {
      timeMs,
      user: s('user'),
      database: s('dbname'),
      sessionId: s('session_id'),
      severity: s('error_severity'),
      sqlstate: s('state_code'),
      message: s('message'),
      detail: s('detail'),
      context: s('context'),
      query: s('statement'),
      application: s('application_name'),
      backendType: s('backend_type'),
    };
  }
}

async function* csvRecords(input: Readable, counts: LogReadCounts): AsyncGenerator<PgLogRecord> {
  const parser = input.pipe(parseCsv({ relax_column_count: true, skip_records_with_error: true, bom: true }));
  parser.on('skip', () => counts.unreadable++);
  try {
    for await (const row of parser as AsyncIterable<string[]>) {
      const timeMs = parseLogTime(row[0] ?? '');
      if (row.length < 22 || Number.isNaN(timeMs)) {
        counts.unreadable++;
        continue;
      }
      yield {
        timeMs,
        user: row[1] ?? '',
        database: row[2] ?? '',
        sessionId: row[5] ?? '',
        severity: row[11] ?? '',
        sqlstate: row[12] ?? '',
        message: row[13] ?? '',
        detail: row[14] ?? '',
        context: row[18] ?? '',
        query: row[19] ?? '',
        application: row[22] ?? '',
        backendType: row[23] ?? '',
      };
    }
  } catch {
    // A record cut off at the end of a truncated file (an unclosed quote): counted, the rest stands.
    counts.unreadable++;
  }
}

/** The first CSV record of the file's head (it may span lines), or none if the head is not CSV. */
function firstCsvRecord(head: string): string[] {
  try {
    const rows = parseCsvSync(head, { to: 1, relax_column_count: true }) as string[][];
    return rows[0] ?? [];
  } catch {
    return [];
  }
}

async function firstLines(file: string, n: number): Promise<string[]> {
  const input = await openMaybeGzip(file, 'the log');
  const lines: string[] = [];
  const rl = createInterface({ input, crlfDelay: Infinity });
  for await (const line of rl) {
    lines.push(line);
    if (lines.length >= n) break;
  }
  rl.close();
  input.destroy();
  return lines;
}
