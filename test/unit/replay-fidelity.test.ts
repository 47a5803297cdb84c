/**
 * The replay's verdict (report/fidelity.ts): FAITHFUL only when every statement was replayed with
 * the capture's outcome and the transactions of the whole replay are the whole capture's.
 */
import { describe, expect, it } from 'vitest';
import { assessFidelity, formatFidelity, type FidelityInput } from '../../src/report/fidelity.js';

/** Ten statements in ten autocommit transactions of one template, the 4th failed in the capture. */
function input(over: {
  statements?: Partial<FidelityInput['statements']>;
  transactions?: Partial<FidelityInput['transactions']>;
  replayedErrors?: number;
}): FidelityInput {
  const statements = {
    captured: 10,
    replayed: 10,
    asCaptured: 10,
    unexpectedErrors: 0,
    unexpectedSuccesses: 0,
    ...over.statements,
  };
  return {
    speed: 1,
    sessions: 1,
    statements,
    transactions: { captured: 10, replayed: 10, ...over.transactions },
    errorsByClass: {},
    templates: [
      {
        id: 't',
        text: 'select $1',
        captured: { count: 10, errors: 1, avgMs: 1, p95Ms: 1 },
        replayed: {
          count: 10 - (over.replayedErrors ?? 0),
          errors: over.replayedErrors ?? 0,
          avgMs: 1,
          p95Ms: 1,
        },
      },
    ],
    throughput: [],
    lagMs: { p50: 0.1, p99: 0.2, max: 0.3 },
    maxErrorRatePct: null,
  };
}

describe('replay fidelity verdict', () => {
  it('FAITHFUL when every statement had the capture’s outcome and every transaction was replayed', () => {
    const f = assessFidelity(input({}));
    expect(f.verdict).toMatch(/^FAITHFUL: 100\.0% of 10 statements replayed as captured/);
  });

  it('a statement that failed in the capture and succeeds now is a divergence, not “as captured”', () => {
    const f = assessFidelity(input({ statements: { asCaptured: 9, unexpectedSuccesses: 1 } }));
    expect(f.verdict).toMatch(/^DIVERGED: 90\.0% of 10 statements replayed as captured/);
    expect(f.verdict).toContain('1 statements that failed in the capture succeeded');
    expect(f.pass).toBe(true);
    expect(formatFidelity(f)).toContain('new errors 0, new successes 1');
  });

  it('the reverse, a statement that succeeded in the capture and fails now, diverges too', () => {
    const f = assessFidelity(
      input({ statements: { asCaptured: 9, unexpectedErrors: 1 }, replayedErrors: 1 }),
    );
    expect(f.verdict).toMatch(/^DIVERGED: 90\.0% of 10 statements replayed as captured, error rate 10\.0%/);
  });

  it('transactions replayed other than captured (over the same whole span) diverge', () => {
    const f = assessFidelity(input({ transactions: { replayed: 7 } }));
    expect(f.verdict).toMatch(/^DIVERGED: .*7 of 10 transactions replayed/);
  });
});
