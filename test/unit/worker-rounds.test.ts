/**
 * A worker thread's side of the coordinator's protocol (run/worker-rounds.ts), served in this
 * thread over a message channel, its engine driving a stand-in executor whose database goes away
 * for a while: the outage reaches the coordinator as it starts and as it ends, before the round's
 * result, and every interval says the phase it was cut in.
 */
import { MessageChannel } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import type { Counters, ErrorClass, Executor } from '../../src/engine/types.js';
import type { FromRunWorker, ToRunWorker } from '../../src/run/run-worker-protocol.js';
import { serveRounds } from '../../src/run/worker-rounds.js';
import { TPCC_DECK, TPCC_TRANSACTIONS } from '../../src/workloads/tpcc/profile.js';

const lost = Object.assign(new Error('connection reset'), { code: 'ECONNRESET' });

/** Completes each transaction on the next turn of the event loop; calls 20 to 29 find the database gone. */
class GoneForAWhile implements Executor<Counters> {
  readonly connections = 2;
  private calls = 0;
  execute(): Promise<number> {
    const call = this.calls++;
    return new Promise((resolve, reject) =>
      setImmediate(() => (call >= 20 && call < 30 ? reject(lost) : resolve(0))),
    );
  }
  classify(err: unknown): ErrorClass {
    return err === lost ? 'connection' : 'other';
  }
}

let channel: MessageChannel | undefined;
afterEach(() => {
  channel?.port2.close();
  channel = undefined;
});

describe('serveRounds', () => {
  it('sends an outage as it starts and as it ends, before the result; each interval with its phase', async () => {
    channel = new MessageChannel();
    const coordinator = channel.port2;
    const received: FromRunWorker[] = [];
    let waiting: { test: (m: FromRunWorker) => boolean; resolve: () => void } | undefined;
    const until = (test: (m: FromRunWorker) => boolean): Promise<void> =>
      received.some(test) ? Promise.resolve() : new Promise((resolve) => (waiting = { test, resolve }));
    coordinator.on('message', (m: FromRunWorker) => {
      received.push(m);
      if (waiting?.test(m)) waiting.resolve();
    });
    const send = (m: ToRunWorker): void => coordinator.postMessage(m);
    serveRounds(channel.port1, {
      slice: { first: 0, count: 2 },
      totalTerminals: 2,
      executor: new GoneForAWhile(),
      newCounters: () => ({}),
      faults: () => ({ reconnects: 0, reconnectFailures: 0, cancelled: 0, abandoned: 0 }),
      tallies: () => ({}),
      close: () => Promise.resolve(),
    });
    send({
      type: 'run',
      config: {
        transactions: TPCC_TRANSACTIONS,
        deck: TPCC_DECK,
        thinkScale: 0,
        warmupMs: 0,
        durationMs: Infinity,
        rampMs: 0,
        intervalMs: 1_000,
        drainMs: 2_000,
        seed: 1,
        stopOnLostConnection: false,
      },
    });
    // The round goes on until the coordinator closes the window: here, once the outage is over.
    await until((m) => m.type === 'outage' && m.edge === 'end');
    send({ type: 'tick', seq: 1 });
    send({ type: 'close', seq: 2, status: 'completed' });
    await until((m) => m.type === 'result');
    send({ type: 'end' });
    await until((m) => m.type === 'ended');

    const kinds = received.map((m) => (m.type === 'outage' ? `outage ${m.edge}` : m.type));
    expect(kinds.filter((k) => k.startsWith('outage'))).toEqual(['outage start', 'outage end']);
    expect(kinds.indexOf('outage end')).toBeLessThan(kinds.indexOf('result'));
    const result = received.find((m) => m.type === 'result');
    const told = received.flatMap((m) => (m.type === 'outage' ? [m] : []));
    if (result?.type !== 'result') throw new Error('no result');
    // Told on the clock its result uses, and ended as the result has it.
    expect(told.map((m) => m.startedAtWallMs)).toEqual([result.startedAtWallMs, result.startedAtWallMs]);
    expect(result.result.outages).toEqual([told[1]!.outage]);
    expect(told[1]!.outage).toMatchObject({ cause: 'connection', failed: 10, recovered: true });
    const phases = received.flatMap((m) => (m.type === 'interval' ? [m.phase] : []));
    expect(phases).toContain('measure');
    expect(phases.every((p) => p === 'measure' || p === 'drain')).toBe(true);
  });
});
