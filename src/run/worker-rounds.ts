/**
 * A worker thread's side of the coordinator's protocol (run-worker-protocol.ts), for any executor:
 * one engine per round over the worker's slice, its phases and intervals as commanded, its
 * intervals and results sent encoded. run-worker.ts serves it with a workload's executor; the
 * bench serves it with a stand-in, to measure the same path without a database.
 */
import type { MessagePort } from 'node:worker_threads';
import { Engine } from '../engine/engine.js';
import type { TerminalScript } from '../engine/engine-config.js';
import type { TerminalSlice } from '../engine/slice.js';
import type { Counters, Executor } from '../engine/types.js';
import { encodeInterval, encodeResult } from '../engine/wire.js';
import type { FaultCounts } from '../workloads/fault-policy.js';
import type { FromRunWorker, ToRunWorker } from './run-worker-protocol.js';

export interface WorkerSide {
  slice: TerminalSlice;
  totalTerminals: number;
  executor: Executor<Counters>;
  /** The slice's terminals are scripted (PreparedRun.script): a replay's sessions. */
  script?: TerminalScript | undefined;
  newCounters(): Counters;
  faults(): FaultCounts;
  tallies(): Record<string, number>;
  /** Closes what the worker opened (no more rounds). */
  close(): Promise<void>;
}

/** Answers the coordinator's messages on `port` until it sends `end`. */
export function serveRounds(port: MessagePort, side: WorkerSide): void {
  const send = (message: FromRunWorker): void => port.postMessage(message);
  let engine: Engine<Counters> | undefined;
  let engineDone = true;
  // Set while a phase command runs: the engine's window then closes because it was told to.
  let commanded = false;

  const startRound = (message: Extract<ToRunWorker, { type: 'run' }>): void => {
    const e = new Engine<Counters>(
      {
        ...message.config,
        terminals: side.slice.count,
        firstTerminal: side.slice.first,
        totalTerminals: side.totalTerminals,
        script: side.script,
        externalPhases: true,
      },
      side.executor,
      () => side.newCounters(),
    );
    engine = e;
    engineDone = false;
    const startedAtWallMs = Date.now();
    e.on('interval', (stats) =>
      send({ type: 'interval', phase: stats.phase, interval: encodeInterval(stats) }),
    );
    e.on('outage', (edge, outage) => send({ type: 'outage', edge, outage, startedAtWallMs }));
    e.on('scriptsDone', () => send({ type: 'scriptsDone' }));
    e.on('phase', (phase) => {
      // Only a lost connection (--on-error stop) closes the window uncommanded: the coordinator
      // then stops every other worker too; this one's result carries the reason.
      if (phase === 'drain' && !commanded) send({ type: 'stopped', status: 'failed' });
    });
    if (message.stop) e.stop(message.stop.status, message.stop.reason);
    void e.run().then((result) => {
      engineDone = true;
      send({
        type: 'result',
        result: encodeResult(result),
        startedAtWallMs,
        faults: { ...side.faults() },
        tallies: side.tallies(),
      });
    });
  };

  // A phase command runs on the live engine (none once it is done), then is acknowledged.
  const command = (seq: number, act: (e: Engine<Counters>) => void): void => {
    if (engine !== undefined && !engineDone) {
      commanded = true;
      try {
        act(engine);
      } finally {
        commanded = false;
      }
    }
    send({ type: 'ack', seq });
  };

  port.on('message', (message: ToRunWorker) => {
    switch (message.type) {
      case 'run':
        startRound(message);
        break;
      case 'open':
        command(message.seq, (e) => e.beginWindow());
        break;
      case 'tick':
        command(message.seq, (e) => e.takeInterval());
        break;
      case 'close':
        command(message.seq, (e) =>
          message.status === 'completed' ? e.endWindow() : e.stop(message.status, message.reason),
        );
        break;
      case 'end':
        void side.close().finally(() => {
          send({ type: 'ended' });
          port.close();
        });
        break;
    }
  });
  send({ type: 'ready' });
}
