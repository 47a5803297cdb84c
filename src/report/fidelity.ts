/**
 * How faithful a replay was: statements and transactions captured vs replayed, errors by class
 * and by template, each template's latency in the capture (the server's own durations) and in the
 * replay (the client's, a network round trip more), throughput over time, how far the replay fell
 * behind its schedule, and a one-line verdict. Pure: it reads plain figures, no workload types.
 */

export interface LatencyFigures {
  count: number;
  avgMs: number | null;
  p95Ms: number | null;
}

export interface TemplateFidelity {
  id: string;
  text: string;
  captured: LatencyFigures & { errors: number };
  replayed: LatencyFigures & { errors: number };
}

export interface Fidelity {
  speed: number | 'max';
  statements: {
    captured: number;
    replayed: number;
    /** Replayed with the capture's outcome: succeeded where it succeeded, failed where it failed. */
    asCaptured: number;
    /** Failed now where the capture's succeeded (or did not say). */
    unexpectedErrors: number;
    /** Succeeded now where the capture's failed. */
    unexpectedSuccesses: number;
  };
  /** Both over the whole capture and the whole replay (warm-up included), as the statements are. */
  transactions: { captured: number; replayed: number };
  sessions: number;
  /** Unexpected errors (the capture's own failures excluded) per statement replayed, percent. */
  errorRatePct: number;
  errorsByClass: Record<string, number>;
  /** Templates whose replayed count differs from the captured count. */
  countMismatches: number;
  templates: TemplateFidelity[];
  /** Statements per second per interval: the capture's (at the replay's speed) and the replay's. */
  throughput: { atS: number; originalPerS: number | null; replayedPerS: number }[];
  /** How late statements started against their schedule, ms; null at --speed max (no schedule). */
  lagMs: { p50: number; p99: number; max: number } | null;
  maxErrorRatePct: number | null;
  pass: boolean;
  verdict: string;
}

export type FidelityInput = Omit<Fidelity, 'errorRatePct' | 'countMismatches' | 'pass' | 'verdict'>;

export function assessFidelity(input: FidelityInput): Fidelity {
  const { statements } = input;
  const errorRatePct =
    statements.replayed > 0 ? (100 * statements.unexpectedErrors) / statements.replayed : 0;
  const countMismatches = input.templates.filter(
    (t) => t.captured.count !== t.replayed.count + t.replayed.errors,
  ).length;
  const pass = input.maxErrorRatePct === null || errorRatePct <= input.maxErrorRatePct;
  const missing = statements.captured - statements.replayed;
  const parts = [
    `${pct(statements.captured > 0 ? (100 * statements.asCaptured) / statements.captured : 100)} of ${int(statements.captured)} statements replayed as captured`,
    `error rate ${pct(errorRatePct)}${input.maxErrorRatePct === null ? '' : ` (max ${pct(input.maxErrorRatePct)})`}`,
    countMismatches === 0 ? 'every template count equal' : `${countMismatches} templates with other counts`,
    statements.unexpectedSuccesses > 0
      ? `${int(statements.unexpectedSuccesses)} statements that failed in the capture succeeded`
      : '',
    missing > 0 ? `${int(missing)} statements not replayed` : '',
    input.transactions.replayed !== input.transactions.captured
      ? `${int(input.transactions.replayed)} of ${int(input.transactions.captured)} transactions replayed`
      : '',
    input.lagMs ? `lag p99 ${input.lagMs.p99.toFixed(1)} ms` : 'no schedule (--speed max)',
  ].filter((p) => p !== '');
  const word = !pass
    ? 'FAILED'
    : countMismatches === 0 &&
        missing === 0 &&
        errorRatePct === 0 &&
        statements.unexpectedSuccesses === 0 &&
        input.transactions.replayed === input.transactions.captured
      ? 'FAITHFUL'
      : 'DIVERGED';
  return { ...input, errorRatePct, countMismatches, pass, verdict: `${word}: ${parts.join(', ')}` };
}

/** The fidelity report as text: the verdict last, where the eye lands. */
export function formatFidelity(f: Fidelity, maxTemplates = 15): string {
  const lines: string[] = [];
  lines.push(
    `replay fidelity (speed ${f.speed === 'max' ? 'max' : `${f.speed}x`}, ${int(f.sessions)} sessions)`,
  );
  lines.push(
    `  statements: captured ${int(f.statements.captured)}, replayed ${int(f.statements.replayed)}, as captured ${int(f.statements.asCaptured)}, new errors ${int(f.statements.unexpectedErrors)}, new successes ${int(f.statements.unexpectedSuccesses)}`,
  );
  lines.push(
    `  transactions: captured ${int(f.transactions.captured)}, replayed ${int(f.transactions.replayed)}`,
  );
  const classes = Object.entries(f.errorsByClass).filter(([, n]) => n > 0);
  lines.push(
    `  errors by class: ${classes.length ? classes.map(([c, n]) => `${c} ${int(n)}`).join(', ') : 'none'}`,
  );
  lines.push(
    `  lag behind schedule: ${f.lagMs ? `p50 ${f.lagMs.p50.toFixed(2)} ms, p99 ${f.lagMs.p99.toFixed(2)} ms, max ${f.lagMs.max.toFixed(2)} ms` : 'n/a (--speed max keeps order, not time)'}`,
  );
  lines.push('  per template (latency: capture = server duration, replay = client round trip):');
  const header = ['template', 'captured', 'replayed', 'errors c/r', 'avg ms c/r', 'p95 ms c/r'];
  const rows = [...f.templates]
    .sort((a, b) => b.captured.count - a.captured.count)
    .slice(0, maxTemplates)
    .map((t) => [
      short(t.text, 48),
      int(t.captured.count),
      int(t.replayed.count + t.replayed.errors),
      `${int(t.captured.errors)}/${int(t.replayed.errors)}`,
      `${ms(t.captured.avgMs)}/${ms(t.replayed.avgMs)}`,
      `${ms(t.captured.p95Ms)}/${ms(t.replayed.p95Ms)}`,
    ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const fmt = (r: string[]): string =>
    '    ' + r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  lines.push(fmt(header));
  for (const r of rows) lines.push(fmt(r));
  if (f.templates.length > maxTemplates)
    lines.push(`    … ${f.templates.length - maxTemplates} more templates in run.json fidelity.templates`);
  const tp = f.throughput.filter((t) => t.originalPerS !== null);
  if (tp.length > 0) {
    lines.push(
      '  statements/s over time (capture → replay): ' +
        tp
          .map((t) => `${t.atS.toFixed(0)}s ${t.originalPerS!.toFixed(0)}→${t.replayedPerS.toFixed(0)}`)
          .join(', '),
    );
  }
  lines.push(f.verdict);
  return lines.join('\n');
}

function int(n: number): string {
  return n.toLocaleString('en-US');
}
function pct(n: number): string {
  return `${n.toFixed(n > 0 && n < 0.1 ? 3 : 1)}%`;
}
function ms(n: number | null): string {
  return n === null ? 'n/a' : n.toFixed(2);
}
function short(text: string, n: number): string {
  return text.length <= n ? text : `${text.slice(0, n - 1)}…`;
}
