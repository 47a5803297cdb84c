/** The replay fidelity part of the HTML report, from the fidelity object `txbench replay` writes. */
import { describe, expect, it } from 'vitest';
import { assessFidelity, type TemplateFidelity } from '../../src/report/fidelity.js';
import { fidelityParts } from '../../src/report/html/fidelity-section.js';
import { runSection } from '../../src/report/html/sections.js';

const template = (id: string, captured: number, replayed: number, errors = 0): TemplateFidelity => ({
  id,
  text: id,
  captured: { count: captured, errors: 0, avgMs: 0.5, p95Ms: 1.25 },
  replayed: { count: replayed, errors, avgMs: 0.75, p95Ms: 2 },
});

function fidelity(speed: number | 'max'): ReturnType<typeof assessFidelity> {
  return assessFidelity({
    speed,
    sessions: 3,
    statements: { captured: 30, replayed: 30, asCaptured: 29, unexpectedErrors: 1, unexpectedSuccesses: 0 },
    transactions: { captured: 10, replayed: 10 },
    errorsByClass: { constraint: 1 },
    templates: [
      template('(connect)', 3, 3),
      template('begin', 10, 10),
      template('select * from item where i_id = $1', 20, 19, 1),
    ],
    throughput: [
      { atS: 1, originalPerS: speed === 'max' ? null : 12, replayedPerS: 11 },
      { atS: 2, originalPerS: speed === 'max' ? null : 18, replayedPerS: 19 },
    ],
    lagMs: speed === 'max' ? null : { p50: 0.4, p99: 3.5, max: 7 },
    maxErrorRatePct: 5,
  });
}

describe('HTML report: replay fidelity', () => {
  it('says the verdict, and tabulates statements, transactions, errors and lag captured vs replayed', () => {
    const parts = fidelityParts({ fidelity: fidelity(1) }, 'run-x');
    expect(parts.notes).toEqual([`replay fidelity: ${fidelity(1).verdict}`]);
    const [summary, perTemplate] = parts.tables;
    expect(summary!.title).toBe('Replay fidelity (speed 1x, 3 sessions)');
    expect(summary!.rows).toContainEqual(['statements', '30', '30']);
    expect(summary!.rows).toContainEqual(['transactions', '10', '10']);
    expect(summary!.rows).toContainEqual(['errors by class', '', 'constraint 1']);
    expect(summary!.rows).toContainEqual([
      'lag behind schedule p50 / p99 / max ms',
      '',
      '0.40 / 3.50 / 7.00',
    ]);
    // Most frequent first; a template's failed replays count as replayed, as in the text report.
    expect(perTemplate!.rows[0]).toEqual([
      'select * from item where i_id = $1',
      '20',
      '20',
      '0 / 1',
      '0.50 / 0.75',
      '1.25 / 2.00',
    ]);
  });

  it('charts throughput captured vs replayed over time, and latency per template without the pseudo-templates', () => {
    const [throughput, latency] = fidelityParts({ fidelity: fidelity(1) }, 'run-x').charts;
    expect(throughput!.id).toBe('run-x-fidelity-throughput');
    expect(throughput!.x.values).toEqual([1, 2]);
    expect(throughput!.series).toEqual([
      { label: 'captured', values: [12, 18] },
      { label: 'replayed', values: [11, 19] },
    ]);
    expect(latency!.kind).toBe('bars');
    expect(latency!.x.categories).toEqual(['select * from item where i_id = $1', 'begin']);
    expect(latency!.series.map((s) => s.values)).toEqual([
      [0.5, 0.5],
      [0.75, 0.75],
    ]);
  });

  it('at --speed max: no lag, and gaps (not zeros) for the capture over time', () => {
    const parts = fidelityParts({ fidelity: fidelity('max') }, 'run-x');
    expect(parts.tables[0]!.title).toContain('speed max');
    expect(parts.tables[0]!.rows.at(-1)![2]).toMatch(/^n\/a/);
    expect(parts.charts[0]!.series[0]!.values).toEqual([null, null]);
  });

  it('is part of a replay run section, and absent from other runs', () => {
    const loaded = (raw: Record<string, unknown>) => ({
      id: 'run-1',
      dir: '/nowhere',
      record: undefined,
      raw,
      intervals: [],
      histograms: undefined,
      missing: [],
    });
    const replay = runSection(loaded({ workload: 'replay', fidelity: fidelity(1) }));
    expect(replay.tables.map((t) => t.title)).toContain('Replay fidelity (speed 1x, 3 sessions)');
    expect(replay.charts.map((c) => c.id)).toContain('run-run-1-fidelity-throughput');
    expect(replay.notes.some((n) => n.startsWith('replay fidelity: '))).toBe(true);
    const other = runSection(loaded({ workload: 'tpcc' }));
    expect(other.tables.some((t) => t.title.startsWith('Replay'))).toBe(false);
    expect(fidelityParts(undefined, 'a')).toEqual({ notes: [], tables: [], charts: [] });
  });
});
