/**
 * A replay's fidelity in the HTML report: the verdict, statements and transactions captured vs
 * replayed, lag behind schedule, errors by class, per-template counts and latency, and throughput
 * over time captured vs replayed, from run.json's `fidelity` (what `txbench replay` writes). It reads
 * the JSON defensively, like the rest of the report: a run.json from another version draws what it
 * has. Nothing here for a run without `fidelity`.
 */
import { millis, orNa, whole } from '../numbers.js';
import type { ChartSpec } from './model.js';

/** The same shape as sections.ts's Table (not imported from there: it imports this module). */
export interface FidelityTable {
  title: string;
  columns: string[];
  rows: string[][];
}

export interface FidelityParts {
  notes: string[];
  tables: FidelityTable[];
  charts: ChartSpec[];
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined;
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const list = (v: unknown): Json[] =>
  Array.isArray(v) ? v.map(obj).filter((x): x is Json => x !== undefined) : [];

/** Templates drawn in the latency chart: the most frequent, so that the bars stay readable. */
const CHART_TEMPLATES = 12;

export function fidelityParts(raw: Json | undefined, anchor: string): FidelityParts {
  const f = obj(raw?.fidelity);
  if (f === undefined) return { notes: [], tables: [], charts: [] };
  const notes: string[] = [];
  const verdict = typeof f.verdict === 'string' ? f.verdict : undefined;
  if (verdict !== undefined) notes.push(`replay fidelity: ${verdict}`);

  const statements = obj(f.statements);
  const transactions = obj(f.transactions);
  const lag = obj(f.lagMs);
  const speed = f.speed === 'max' ? 'max' : orNa(num(f.speed), (s) => `${s}x`);
  const count = (v: unknown): string => orNa(num(v), whole);
  const classes = Object.entries(obj(f.errorsByClass) ?? {}).filter(([, n]) => (num(n) ?? 0) > 0);
  const summary: FidelityTable = {
    title: `Replay fidelity (speed ${speed}, ${count(f.sessions)} sessions)`,
    columns: ['figure', 'captured', 'replayed'],
    rows: [
      ['statements', count(statements?.captured), count(statements?.replayed)],
      ['statements as captured', '', count(statements?.asCaptured)],
      ['new errors', '', count(statements?.unexpectedErrors)],
      ['failed in the capture, succeeded now', '', count(statements?.unexpectedSuccesses)],
      ['error rate %', '', orNa(num(f.errorRatePct), (x) => x.toFixed(2))],
      ['transactions', count(transactions?.captured), count(transactions?.replayed)],
      [
        'errors by class',
        '',
        classes.length === 0 ? 'none' : classes.map(([c, n]) => `${c} ${count(n)}`).join(', '),
      ],
      [
        'lag behind schedule p50 / p99 / max ms',
        '',
        lag === undefined
          ? 'n/a (--speed max keeps order, not time)'
          : [lag.p50, lag.p99, lag.max].map((x) => orNa(num(x), millis)).join(' / '),
      ],
    ],
  };

  const templates = list(f.templates)
    .map((t) => ({
      text: typeof t.text === 'string' ? t.text : String(t.id ?? '?'),
      captured: obj(t.captured) ?? {},
      replayed: obj(t.replayed) ?? {},
    }))
    .sort((a, b) => (num(b.captured.count) ?? 0) - (num(a.captured.count) ?? 0));
  const ms = (v: unknown): string => orNa(num(v), millis);
  const perTemplate: FidelityTable = {
    title: 'Replay fidelity per template (latency: capture = server duration, replay = client round trip)',
    columns: [
      'template',
      'captured',
      'replayed',
      'errors captured / replayed',
      'avg ms captured / replayed',
      'p95 ms captured / replayed',
    ],
    rows: templates.map((t) => [
      t.text,
      count(t.captured.count),
      // Failed statements were replayed too: the count that compares with the capture's.
      orNa((num(t.replayed.count) ?? 0) + (num(t.replayed.errors) ?? 0), whole),
      `${count(t.captured.errors)} / ${count(t.replayed.errors)}`,
      `${ms(t.captured.avgMs)} / ${ms(t.replayed.avgMs)}`,
      `${ms(t.captured.p95Ms)} / ${ms(t.replayed.p95Ms)}`,
    ]),
  };

  const charts: ChartSpec[] = [];
  const throughput = list(f.throughput).filter((p) => num(p.atS) !== undefined);
  if (throughput.length > 0) {
    charts.push({
      id: `${anchor}-fidelity-throughput`,
      title: 'Replay: statements per second over time, captured vs replayed',
      kind: 'line',
      x: { label: 'time since start (s)', values: throughput.map((p) => num(p.atS)!) },
      y: { label: 'statements per second' },
      series: [
        // At --speed max the capture has no timeline to set beside the replay: a gap, not zeros.
        { label: 'captured', values: throughput.map((p) => num(p.originalPerS) ?? null) },
        { label: 'replayed', values: throughput.map((p) => num(p.replayedPerS) ?? null) },
      ],
    });
  }
  const drawn = templates.filter((t) => !t.text.startsWith('(')).slice(0, CHART_TEMPLATES);
  if (drawn.length > 0) {
    charts.push({
      id: `${anchor}-fidelity-latency`,
      title: `Replay: average latency per template, captured vs replayed (the ${drawn.length} most frequent)`,
      kind: 'bars',
      x: {
        label: 'template',
        values: drawn.map((_, i) => i),
        categories: drawn.map((t) => (t.text.length > 40 ? `${t.text.slice(0, 39)}…` : t.text)),
      },
      y: { label: 'average latency (ms)' },
      series: [
        { label: 'captured avg ms', values: drawn.map((t) => num(t.captured.avgMs) ?? null) },
        { label: 'replayed avg ms', values: drawn.map((t) => num(t.replayed.avgMs) ?? null) },
      ],
    });
  }
  return { notes, tables: [summary, perTemplate], charts };
}
