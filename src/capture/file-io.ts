/**
 * Reading and writing workload files: NDJSON, gzip when the name ends in `.gz` (written) or the
 * content starts with gzip's magic bytes (read). The writer writes a temporary file beside the
 * target and renames it when done, so a failed capture leaves no half-written workload behind.
 */
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { createGunzip, createGzip } from 'node:zlib';
import { UsageError } from '../errors.js';
import { WORKLOAD_FORMAT, WORKLOAD_VERSION, type HeaderRecord, type WorkloadRecord } from './format.js';

export class WorkloadWriter {
  private constructor(
    private readonly target: string,
    private readonly temp: string,
    private readonly file: WriteStream,
    private readonly out: Writable,
  ) {}

  static async create(target: string): Promise<WorkloadWriter> {
    const temp = `${target}.partial-${process.pid}`;
    const file = createWriteStream(temp);
    await new Promise<void>((resolve, reject) => {
      file.once('open', () => resolve());
      file.once('error', (err) =>
        reject(
          new UsageError(`cannot write the workload file ${target}: ${err.message}; choose another --out`),
        ),
      );
    });
    let out: Writable = file;
    if (target.endsWith('.gz')) {
      const gzip = createGzip();
      gzip.pipe(file);
      out = gzip;
    }
    return new WorkloadWriter(target, temp, file, out);
  }

  /** Writes one record, waiting when the stream is full. */
  async write(record: WorkloadRecord): Promise<void> {
    if (!this.out.write(JSON.stringify(record) + '\n')) {
      await new Promise<void>((resolve) => this.out.once('drain', () => resolve()));
    }
  }

  /** Flushes, fsyncs and moves the file into place. */
  async finish(): Promise<void> {
    const closed = new Promise<void>((resolve, reject) => {
      this.file.once('close', () => resolve());
      this.file.once('error', reject);
    });
    this.out.end();
    await closed;
    const handle = await open(this.temp, 'r+');
    await handle.sync().finally(() => handle.close());
    await rename(this.temp, this.target);
  }

  /** Gives up: the partial file is removed. */
  async abandon(): Promise<void> {
    this.out.destroy();
    this.file.destroy();
    await rm(this.temp, { force: true });
  }
}

/** A stream of the file's bytes, unzipped when it is gzip. */
export async function openMaybeGzip(file: string, what: string): Promise<Readable> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new UsageError(`cannot read ${what} ${file} (${code}); check the path`);
  }
  const magic = Buffer.alloc(2);
  const { bytesRead } = await handle.read(magic, 0, 2, 0);
  await handle.close();
  const raw = createReadStream(file);
  if (bytesRead === 2 && magic[0] === 0x1f && magic[1] === 0x8b) return raw.pipe(createGunzip());
  return raw;
}

/**
 * Streams a workload file's records. The header is checked first: a file that is not a workload,
 * or one written by a newer txbench, is refused with one line (exit 2) before anything else happens.
 */
export async function* readWorkload(file: string): AsyncGenerator<WorkloadRecord, void, undefined> {
  const lines = createInterface({
    input: await openMaybeGzip(file, 'the workload file'),
    crlfDelay: Infinity,
  });
  let lineNo = 0;
  try {
    for await (const line of lines) {
      lineNo++;
      if (line.trim() === '') continue;
      const record = parseLine(file, line, lineNo);
      if (lineNo === 1) checkHeader(file, record);
      yield record;
    }
  } catch (err) {
    if (err instanceof UsageError) throw err;
    // A truncated gzip stream ends with an error: what was read stands, and the reader says so.
    throw new UsageError(
      `the workload file ${file} is damaged after line ${lineNo} (${(err as Error).message}); capture it again`,
    );
  }
  if (lineNo === 0)
    throw new UsageError(`the workload file ${file} is empty; capture one with \`txbench capture\``);
}

function parseLine(file: string, line: string, lineNo: number): WorkloadRecord {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    value = undefined;
  }
  if (typeof value !== 'object' || value === null || typeof (value as { type?: unknown }).type !== 'string') {
    throw new UsageError(
      lineNo === 1
        ? `${file} is not a txbench workload file (its first line is not a workload header); capture one with \`txbench capture\``
        : `the workload file ${file} is damaged at line ${lineNo} (not a workload record); capture it again`,
    );
  }
  return value as WorkloadRecord;
}

/** Exported for the tests: the header's own checks. */
export function checkHeader(file: string, record: WorkloadRecord): asserts record is HeaderRecord {
  if (record.type !== 'header' || (record as Partial<HeaderRecord>).format !== WORKLOAD_FORMAT) {
    throw new UsageError(
      `${file} is not a txbench workload file (no ${WORKLOAD_FORMAT} header); capture one with \`txbench capture\``,
    );
  }
  const version = (record as Partial<HeaderRecord>).version;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    throw new UsageError(`${file} has no valid workload version; capture it again`);
  }
  if (version > WORKLOAD_VERSION) {
    throw new UsageError(
      `${file} is a version ${version} workload file, newer than this txbench reads (up to ${WORKLOAD_VERSION}); upgrade txbench`,
    );
  }
}
