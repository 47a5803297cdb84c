/**
 * A workload file read into what a replay runs: one scripted terminal per captured session (its
 * connection, its statements in order, its disconnection, each at its offset), statements grouped
 * into templates, and what the capture says about each template (for the fidelity report).
 * Statements are held in memory: the file streams, a replay's schedule does not.
 */
import { readWorkload } from '../capture/file-io.js';
import { ensureParser, templateOf } from '../capture/fingerprint.js';
import type { HeaderRecord, StatementRecord, TrailerRecord } from '../capture/format.js';
import { UsageError } from '../errors.js';
import { newHistogram, recordUs, type Histogram } from '../metrics/histogram.js';

export const CONNECT = 0;
export const DISCONNECT = 1;

export interface ReplayItem {
  /** Template number (CONNECT, DISCONNECT, or 2 + a statement template). */
  type: number;
  /** Offset from the capture start, ms. */
  atMs: number;
  statement?: StatementRecord | undefined;
}

export interface TemplateInfo {
  id: string;
  text: string;
  /** What the capture holds of it. */
  captured: { count: number; errors: number; durations: Histogram; timed: number };
}

export interface ReplayPlan {
  header: HeaderRecord;
  trailer: TrailerRecord | undefined;
  /** One per terminal (captured session), in session order. */
  sessions: ReplayItem[][];
  /** Indexed by type: connect, disconnect, then the statement templates in order of first appearance. */
  templates: TemplateInfo[];
  statements: number;
  /** Explicit transactions (commit or rollback boundaries) and autocommit statements in the capture. */
  transactions: number;
  /** Offsets of every statement, for the original throughput over time. */
  offsetsMs: Float64Array;
  lastMs: number;
}

export async function loadPlan(file: string): Promise<ReplayPlan> {
  let header: HeaderRecord | undefined;
  let trailer: TrailerRecord | undefined;
  const bySession = new Map<number, ReplayItem[]>();
  const openTx = new Set<number>();
  const templates: TemplateInfo[] = [pseudo('(connect)'), pseudo('(disconnect)')];
  const index = new Map<string, number>();
  const texts = new Map<string, string>();
  const offsets: number[] = [];
  let transactions = 0;
  let lastMs = 0;
  for await (const r of readWorkload(file)) {
    switch (r.type) {
      case 'header':
        header = r;
        refuseRedacted(r, file);
        if (r.source.kind === 'postgres') await ensureParser();
        break;
      case 'session':
        bySession.set(r.id, r.connectAtMs === null ? [] : [{ type: CONNECT, atMs: r.connectAtMs }]);
        break;
      case 'statement': {
        const items = bySession.get(r.session);
        if (!items) continue;
        if (items.length === 0) items.push({ type: CONNECT, atMs: r.atMs });
        // Texts repeat (every execution of a prepared statement): one string each.
        const sql = texts.get(r.sql) ?? r.sql;
        texts.set(sql, sql);
        r.sql = sql;
        let t = index.get(sql);
        if (t === undefined) {
          const tpl = templateOf(sql, header!.source.kind);
          t = templates.findIndex((x) => x.id === tpl.id);
          if (t < 0) {
            templates.push({
              ...tpl,
              captured: { count: 0, errors: 0, durations: newHistogram(), timed: 0 },
            });
            t = templates.length - 1;
          }
          index.set(sql, t);
        }
        const info = templates[t]!.captured;
        info.count++;
        if (r.outcome === 'error') info.errors++;
        if (r.durationMs !== null) {
          recordUs(info.durations, r.durationMs * 1000);
          info.timed++;
        }
        if (r.tx === 'begin') openTx.add(r.session);
        else if (r.tx === 'commit' || r.tx === 'rollback') {
          openTx.delete(r.session);
          transactions++;
        } else if (!openTx.has(r.session)) transactions++;
        items.push({ type: t, atMs: r.atMs, statement: r });
        offsets.push(r.atMs);
        lastMs = Math.max(lastMs, r.atMs);
        break;
      }
      case 'disconnect':
        bySession.get(r.session)?.push({ type: DISCONNECT, atMs: r.atMs });
        lastMs = Math.max(lastMs, r.atMs);
        break;
      case 'trailer':
        trailer = r;
        break;
    }
  }
  if (!header) throw new UsageError(`${file} has no workload header; capture it again`);
  const sessions = [...bySession.values()].filter((items) => items.length > 0);
  for (const items of sessions) {
    // A session still open at the end of the capture is closed after its last statement.
    if (items.at(-1)!.type !== DISCONNECT) items.push({ type: DISCONNECT, atMs: items.at(-1)!.atMs });
    // Offsets are start times of statements logged at their end: keep each session's own order.
    for (let i = 1; i < items.length; i++) items[i]!.atMs = Math.max(items[i]!.atMs, items[i - 1]!.atMs);
  }
  for (const t of templates.slice(0, 2)) t.captured.count = sessions.length;
  return {
    header,
    trailer,
    sessions,
    templates,
    statements: offsets.length,
    transactions,
    offsetsMs: Float64Array.from(offsets),
    lastMs,
  };
}

function refuseRedacted(header: HeaderRecord, file: string): void {
  if (header.redacted) {
    throw new UsageError(
      `${file} is redacted (its literals and parameters are placeholders), so it cannot be replayed; capture without --redact-literals`,
    );
  }
}

/**
 * Reads the file's header only and refuses what cannot be replayed (not a workload file, a newer
 * version, a redacted file), so that the refusal comes before a run directory is made for it.
 */
export async function checkReplayable(file: string): Promise<void> {
  for await (const r of readWorkload(file)) {
    if (r.type === 'header') refuseRedacted(r, file);
    return;
  }
}

function pseudo(text: string): TemplateInfo {
  return { id: text, text, captured: { count: 0, errors: 0, durations: newHistogram(), timed: 0 } };
}

/** The engine's script for the plan: session i's items in order, at offset / speed (0 for no waits). */
export class ReplayScript {
  readonly cursor: Int32Array;
  constructor(
    private readonly plan: ReplayPlan,
    /** Offsets are divided by this; Infinity = no waits (`--speed max`). */
    private readonly speed: number,
  ) {
    this.cursor = new Int32Array(plan.sessions.length).fill(-1);
  }

  nextType(id: number): number {
    const items = this.plan.sessions[id]!;
    const c = ++this.cursor[id]!;
    return c < items.length ? items[c]!.type : -1;
  }

  dueAtMs(id: number): number {
    if (this.speed === Infinity) return 0;
    return this.plan.sessions[id]![this.cursor[id]!]!.atMs / this.speed;
  }

  /** The item the terminal is on now. */
  current(id: number): ReplayItem {
    return this.plan.sessions[id]![this.cursor[id]!]!;
  }
}
