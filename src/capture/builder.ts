/**
 * Turns a source's events into workload records: numbers the sessions, makes times offsets from
 * the capture start, marks transaction boundaries, redacts literals when asked, and counts.
 */
import type { CaptureEvent, StatementEvent } from './events.js';
import type { WorkloadWriter } from './file-io.js';
import {
  emptyCounts,
  WORKLOAD_FORMAT,
  WORKLOAD_VERSION,
  type CaptureCounts,
  type HeaderRecord,
  type SourceKind,
  type StatementRecord,
} from './format.js';
import { redactParams, redactSql } from './redact.js';
import { txBoundary } from './sql-text.js';
import { toolVersion } from '../util/tool-version.js';

export interface BuilderOptions {
  kind: SourceKind;
  from: string;
  serverVersion?: string | undefined;
  redact: boolean;
  /** Offset 0 (epoch ms); default: the first event's time. */
  captureStartMs?: number | undefined;
}

export class CaptureBuilder {
  readonly counts: CaptureCounts = emptyCounts();
  private readonly sessions = new Map<string, number>();
  private startMs: number | undefined;
  private endMs = 0;

  constructor(
    private readonly writer: WorkloadWriter,
    private readonly options: BuilderOptions,
  ) {
    this.startMs = options.captureStartMs;
  }

  async add(event: CaptureEvent): Promise<void> {
    switch (event.kind) {
      case 'session':
        await this.openSession(event.key, event);
        return;
      case 'statement':
        await this.statement(event);
        return;
      case 'disconnect': {
        const id = this.sessions.get(event.key);
        // A session that did nothing we saw is not worth replaying a connection for.
        if (id === undefined) return;
        await this.writer.write({ type: 'disconnect', session: id, atMs: await this.offset(event.atMs) });
        this.sessions.delete(event.key);
        return;
      }
    }
  }

  /** Writes the trailer and moves the file into place. */
  async finish(): Promise<CaptureCounts> {
    if (this.startMs === undefined) await this.offset(Date.now());
    await this.writer.write({ type: 'trailer', counts: this.counts, endMs: round(this.endMs) });
    await this.writer.finish();
    return this.counts;
  }

  private async openSession(
    key: string,
    info: {
      user: string | null;
      database: string | null;
      application: string | null;
      atMs: number | null;
      startedBeforeCapture: boolean;
    },
  ): Promise<number> {
    const at = info.atMs === null ? null : await this.offset(info.atMs);
    const id = this.counts.sessions + 1;
    this.counts.sessions++;
    if (info.startedBeforeCapture) this.counts.sessionsBeforeCapture++;
    this.sessions.set(key, id);
    await this.writer.write({
      type: 'session',
      id,
      user: info.user,
      database: info.database,
      application: info.application,
      startedBeforeCapture: info.startedBeforeCapture,
      connectAtMs: at,
    });
    return id;
  }

  private async statement(event: StatementEvent): Promise<void> {
    // Before any session record: the header (written with the first offset) must come first.
    const atMs = await this.offset(event.startMs);
    let id = this.sessions.get(event.key);
    if (id === undefined) {
      // Its connection was not in the capture: it was open before the capture began.
      id = await this.openSession(event.key, {
        user: event.session?.user ?? null,
        database: event.session?.database ?? null,
        application: event.session?.application ?? null,
        atMs: null,
        startedBeforeCapture: true,
      });
    }
    const redact = this.options.redact;
    const record: StatementRecord = {
      type: 'statement',
      session: id,
      atMs,
      sql: redact ? await redactSql(event.sql, this.options.kind) : event.sql,
      ...(event.params && event.params.length > 0
        ? { params: redact ? redactParams(event.params) : event.params }
        : {}),
      ...(event.prepared ? { prepared: true } : {}),
      durationMs: event.durationMs === null ? null : round(event.durationMs),
      outcome: event.outcome,
      ...(event.error ? { error: redact ? { code: event.error.code, message: '' } : event.error } : {}),
    };
    const tx = txBoundary(event.sql);
    if (tx) record.tx = tx;
    this.counts.statements++;
    await this.writer.write(record);
  }

  /** ms since the capture start (never negative: a statement logged at its end may have begun just before it). */
  private async offset(epochMs: number): Promise<number> {
    if (this.startMs === undefined) {
      this.startMs = epochMs;
    }
    if (!this.headerWritten) await this.writeHeader();
    const at = Math.max(0, epochMs - this.startMs);
    this.endMs = Math.max(this.endMs, at);
    return round(at);
  }

  private headerWritten = false;

  private async writeHeader(): Promise<void> {
    this.headerWritten = true;
    const header: HeaderRecord = {
      type: 'header',
      format: WORKLOAD_FORMAT,
      version: WORKLOAD_VERSION,
      source: {
        kind: this.options.kind,
        from: this.options.from,
        ...(this.options.serverVersion ? { serverVersion: this.options.serverVersion } : {}),
      },
      captureStart: new Date(this.startMs!).toISOString(),
      redacted: this.options.redact,
      tool: `txbench ${toolVersion()}`,
    };
    await this.writer.write(header);
  }
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
