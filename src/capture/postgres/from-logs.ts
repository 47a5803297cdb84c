/** `txbench capture --from-log FILE…`: PostgreSQL csvlog/jsonlog files into a workload file. */
import { UsageError } from '../../errors.js';
import { CaptureBuilder } from '../builder.js';
import { WorkloadWriter } from '../file-io.js';
import type { CaptureCounts } from '../format.js';
import { detectFormat, readLogRecords, type PgLogFormat } from './log-records.js';
import { PgLogParser } from './log-parser.js';

export interface LogCaptureOptions {
  redact: boolean;
  /** Offset 0, epoch ms; default: the first record's time. */
  captureStartMs?: number | undefined;
  /** Only records at or after this time (epoch ms) count: a live capture's window in a shared log. */
  sinceMs?: number | undefined;
  /** …and before this one. */
  untilMs?: number | undefined;
  /** Records of sessions with this application name are left out (the capture's own connection). */
  skipApplication?: string | undefined;
  serverVersion?: string | undefined;
}

/** Reads the logs in the order given (oldest first, as rotation names them) and writes the workload. */
export async function captureFromLogs(
  files: readonly string[],
  out: string,
  options: LogCaptureOptions,
): Promise<CaptureCounts> {
  if (files.length === 0) throw new UsageError('--from-log needs at least one log file');
  const formats: PgLogFormat[] = [];
  for (const file of files) formats.push(await detectFormat(file));
  const kinds = new Set(formats);
  if (kinds.size > 1) {
    throw new UsageError(
      'the logs mix csvlog and jsonlog files; give one format (the server writes the same records to both)',
    );
  }
  const writer = await WorkloadWriter.create(out);
  const builder = new CaptureBuilder(writer, {
    kind: 'postgres',
    from: formats[0]!,
    redact: options.redact,
    captureStartMs: options.captureStartMs,
    serverVersion: options.serverVersion,
  });
  const parser = new PgLogParser();
  const read = { unreadable: 0 };
  try {
    for (let i = 0; i < files.length; i++) {
      for await (const record of readLogRecords(files[i]!, formats[i]!, read)) {
        if (options.sinceMs !== undefined && record.timeMs < options.sinceMs) continue;
        if (options.untilMs !== undefined && record.timeMs > options.untilMs) continue;
        if (options.skipApplication !== undefined && record.application === options.skipApplication) continue;
        for (const event of parser.feed(record)) await builder.add(event);
      }
    }
    for (const event of parser.end()) await builder.add(event);
    builder.counts.unreadableRecords = read.unreadable;
    builder.counts.otherRecords = parser.counts.otherRecords;
    builder.counts.errorsWithoutParameters = parser.counts.errorsWithoutParameters;
    return await builder.finish();
  } catch (err) {
    await writer.abandon();
    throw err;
  }
}
