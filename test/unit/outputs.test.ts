/**
 * A run's outputs (run/outputs.ts): each gets every event in order through its own queue; one
 * whose handler is slow or throws neither holds the others up nor stops the run, is told once
 * and detached. Checked by counts, never by time: the slow output's handler waits on a promise
 * the test holds (as a handler taking ten intervals would), while the run's events go on.
 */
import { describe, expect, it } from 'vitest';
import type { Output, RunEvent } from '../../src/results/run-events.js';
import type { IntervalRecord } from '../../src/results/interval.js';
import type { RunReport } from '../../src/results/run-file.js';
import { startOutputs } from '../../src/run/outputs.js';

const INTERVALS = 20;

function interval(i: number): RunEvent {
  const record = { atS: i, phase: 'measure', seconds: 1, tps: 10, perType: {}, errorsByClass: {} };
  return { kind: 'interval', target: 'pg', interval: record as unknown as IntervalRecord };
}

const summary: RunEvent = { kind: 'summary', target: 'pg', report: { status: 'completed' } as RunReport };

/** An output that records what it was given. */
function recording(name: string, handle?: (event: RunEvent) => void | Promise<void>) {
  const seen: RunEvent[] = [];
  let stopped = 0;
  const output: Output = {
    name,
    event: (event) => {
      seen.push(event);
      return handle?.(event);
    },
    stop: () => {
      stopped++;
    },
  };
  return { output, seen, stopped: () => stopped };
}

/** A handler that waits until the test lets it go (a handler far slower than the intervals). */
function gate(): { wait: () => Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { wait: () => opened, open: () => open() };
}

describe('run outputs', () => {
  it('a slow output holds up neither the others nor the end of the run, and is detached, told once', async () => {
    const told: string[] = [];
    const slowGate = gate();
    const slow = recording('slow', () => slowGate.wait());
    const fast = recording('fast');
    const alsoFast = recording('also fast', () => Promise.resolve());
    const outputs = startOutputs([slow.output, fast.output, alsoFast.output], (m) => told.push(m), {
      limit: 1000,
      stopGraceMs: 10,
    });
    for (let i = 0; i < INTERVALS; i++) outputs.emit(interval(i));
    outputs.emit(summary);
    // Synchronous handlers see each event as it is emitted.
    expect(fast.seen).toHaveLength(INTERVALS + 1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(alsoFast.seen.map((e) => e.kind)).toEqual([
      ...Array<string>(INTERVALS).fill('interval'),
      'summary',
    ]);
    expect((fast.seen.at(-1) as Extract<RunEvent, { kind: 'summary' }>).report.status).toBe('completed');
    // The slow one is still on its first interval: the rest wait in its queue, not in the run.
    expect(slow.seen).toHaveLength(1);
    await outputs.stop();
    expect(slow.seen).toHaveLength(1);
    expect(told).toEqual([
      `output slow was still ${INTERVALS} events behind at the end; detached, the run goes on`,
    ]);
    expect([fast.stopped(), alsoFast.stopped(), slow.stopped()]).toEqual([1, 1, 0]);
    slowGate.open();
  });

  it('an output that throws is detached and told once; the others get every event', async () => {
    const told: string[] = [];
    const failing = recording('failing', (e) => {
      if (e.kind === 'interval' && e.interval.atS === 3) throw new Error('disk gone');
    });
    const rejecting = recording('rejecting', () => Promise.reject(new Error('socket closed')));
    const fast = recording('fast');
    const outputs = startOutputs([failing.output, rejecting.output, fast.output], (m) => told.push(m));
    for (let i = 0; i < INTERVALS; i++) outputs.emit(interval(i));
    outputs.emit(summary);
    await outputs.stop();
    expect(fast.seen).toHaveLength(INTERVALS + 1);
    expect(failing.seen).toHaveLength(4);
    expect(rejecting.seen).toHaveLength(1);
    expect(told.sort()).toEqual([
      'output failing failed (disk gone); detached, the run goes on',
      'output rejecting failed (socket closed); detached, the run goes on',
    ]);
  });

  it('an output that falls `limit` events behind is detached, and the others go on', async () => {
    const told: string[] = [];
    const slowGate = gate();
    const slow = recording('slow', () => slowGate.wait());
    const fast = recording('fast');
    const outputs = startOutputs([slow.output, fast.output], (m) => told.push(m), {
      limit: 5,
      stopGraceMs: 10,
    });
    for (let i = 0; i < INTERVALS; i++) outputs.emit(interval(i));
    expect(told).toEqual(['output slow fell 5 events behind; detached, the run goes on']);
    expect(fast.seen).toHaveLength(INTERVALS);
    slowGate.open();
    await outputs.stop();
    // Detached: what was queued is dropped, not handled late.
    expect(slow.seen).toHaveLength(1);
    expect(told).toHaveLength(1);
  });

  it('an output that catches up in time is stopped after its last event', async () => {
    const told: string[] = [];
    const order: string[] = [];
    const output: Output = {
      name: 'async',
      event: async (e) => {
        await new Promise((resolve) => setImmediate(resolve));
        order.push(e.kind);
      },
      stop: () => void order.push('stop'),
    };
    const outputs = startOutputs([output], (m) => told.push(m), { limit: 100, stopGraceMs: 60_000 });
    for (let i = 0; i < 3; i++) outputs.emit(interval(i));
    outputs.emit(summary);
    await outputs.stop();
    expect(order).toEqual(['interval', 'interval', 'interval', 'summary', 'stop']);
    expect(told).toEqual([]);
  });

  it('settled waits, without a limit, for every output to handle what it has, and stops none', async () => {
    const slowGate = gate();
    const slow = recording('slow', () => slowGate.wait());
    const fast = recording('fast');
    const outputs = startOutputs([slow.output, fast.output], () => undefined, { limit: 100, stopGraceMs: 0 });
    const written: RunEvent = { kind: 'written', dir: '/results/run-1' };
    outputs.emit(written);
    let settled = false;
    const waiting = outputs.settled().then(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    slowGate.open();
    await waiting;
    expect([slow.seen, fast.seen]).toEqual([[written], [written]]);
    // Still attached: a second directory written is heard too.
    outputs.emit(written);
    await outputs.settled();
    expect(slow.seen).toHaveLength(2);
    expect([slow.stopped(), fast.stopped()]).toEqual([0, 0]);
  });

  it('asks for histograms only when an output wants them', () => {
    expect(startOutputs([recording('a').output], () => undefined).wantsHistograms).toBe(false);
    const wanting: Output = { name: 'metrics', wantsHistograms: true, event: () => undefined };
    expect(startOutputs([recording('a').output, wanting], () => undefined).wantsHistograms).toBe(true);
  });
});
