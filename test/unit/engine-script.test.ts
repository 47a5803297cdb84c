/**
 * Scripted terminals (a replayed capture's sessions): submissions in each terminal's own order, at
 * their scheduled offsets, lateness measured from the schedule when a terminal is still busy, more
 * than 256 types, and the window closing once every script is done (or, for one slice of a run
 * under a coordinator, saying so). A slice's terminals are known to the script by their ids in the
 * whole run.
 */
import { describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine/engine.js';
import type { EngineConfig, TerminalScript } from '../../src/engine/engine-config.js';
import type { Executor } from '../../src/engine/types.js';

type Counters = { n: number };

/** Each terminal's items: [type, due ms after start]. */
function script(items: [number, number][][]): TerminalScript & { cursor: number[] } {
  const cursor = items.map(() => -1);
  return {
    cursor,
    nextType(id) {
      cursor[id]!++;
      return items[id]![cursor[id]!]?.[0] ?? -1;
    },
    dueAtMs(id) {
      return items[id]![cursor[id]!]![1];
    },
  };
}

function config(terminals: number, s: TerminalScript, types: number): EngineConfig {
  return {
    terminals,
    transactions: Array.from({ length: types }, (_, i) => ({
      key: `t${i}`,
      name: `T${i}`,
      keyingS: 0,
      thinkMeanS: 0,
    })),
    deck: Array.from({ length: types }, () => 1),
    thinkScale: 0,
    warmupMs: 0,
    durationMs: Infinity,
    rampMs: 0,
    intervalMs: 10_000,
    drainMs: 1000,
    seed: 1,
    script: s,
  };
}

describe('scripted terminals', () => {
  it('run each terminal in order at its offsets and end when every script is done', async () => {
    const log: { terminal: number; type: number; at: number }[] = [];
    let t0 = 0;
    const executor: Executor<Counters> = {
      connections: 2,
      async execute(_slot, type, terminal) {
        log.push({ terminal: terminal.id, type, at: performance.now() - t0 });
        await new Promise((r) => setTimeout(r, 1));
        return 0;
      },
      classify: () => 'other',
    };
    const s = script([
      [
        [300, 0],
        [1, 60],
        [299, 120],
      ],
      [
        [2, 30],
        [3, 90],
      ],
    ]);
    const engine = new Engine(config(2, s, 301), executor, () => ({ n: 0 }));
    t0 = performance.now();
    const result = await engine.run();
    expect(result.status).toBe('completed');
    expect(log.filter((l) => l.terminal === 0).map((l) => l.type)).toEqual([300, 1, 299]);
    expect(log.filter((l) => l.terminal === 1).map((l) => l.type)).toEqual([2, 3]);
    // Interleaved by schedule, not terminal by terminal.
    expect(log.map((l) => l.type)).toEqual([300, 2, 1, 3, 299]);
    for (const [i, due] of [0, 30, 60, 90, 120].entries()) expect(log[i]!.at).toBeGreaterThanOrEqual(due - 1);
    expect(result.perType[300]!.count).toBe(1);
    expect(result.perType.reduce((a, t) => a + t.count, 0)).toBe(5);
  });

  it('a terminal still busy at its next offset submits as soon as it is free; the lag is its lateness', async () => {
    const executor: Executor<Counters> = {
      connections: 1,
      async execute(_slot, type) {
        await new Promise((r) => setTimeout(r, type === 0 ? 80 : 1));
        return 0;
      },
      classify: () => 'other',
    };
    // The second item is due at 10 ms, but the first takes 80 ms.
    const engine = new Engine(
      config(
        1,
        script([
          [
            [0, 0],
            [1, 10],
          ],
        ]),
        2,
      ),
      executor,
      () => ({ n: 0 }),
    );
    const result = await engine.run();
    expect(result.lateness.maxValue / 1000).toBeGreaterThanOrEqual(60);
    // Its response time runs from when it could start, not from the missed schedule.
    expect(result.perType[1]!.histogram.maxValue / 1000).toBeLessThan(60);
  });

  it('a terminal with nothing to do is done at once; no terminal at all ends the run', async () => {
    const executor: Executor<Counters> = {
      connections: 1,
      execute: () => Promise.resolve(0),
      classify: () => 'other',
    };
    const result = await new Engine(config(2, script([[], []]), 1), executor, () => ({ n: 0 })).run();
    expect(result.status).toBe('completed');
    expect(result.perType[0]!.count).toBe(0);
  });

  it("a slice of a run's terminals asks its script by their ids in the whole run", async () => {
    const ran: number[] = [];
    const executor: Executor<Counters> = {
      connections: 2,
      execute(_slot, _type, terminal) {
        ran.push(terminal.id);
        return Promise.resolve(0);
      },
      classify: () => 'other',
    };
    // Terminals 5 and 6 of 7: the script has items for those two only.
    const s = script([
      [],
      [],
      [],
      [],
      [],
      [
        [0, 0],
        [0, 5],
      ],
      [[0, 0]],
    ]);
    const asked = new Set<number>();
    const spied: TerminalScript = {
      ...s,
      nextType(id) {
        asked.add(id);
        return s.nextType(id);
      },
    };
    const result = await new Engine(
      { ...config(2, spied, 1), firstTerminal: 5, totalTerminals: 7 },
      executor,
      () => ({ n: 0 }),
    ).run();
    expect([...asked].sort()).toEqual([5, 6]);
    expect(ran.sort()).toEqual([5, 5, 6]);
    expect(result.perType[0]!.count).toBe(3);
  });

  it('a slice under a coordinator (externalPhases) says its scripts are done and leaves the window to it', async () => {
    const executor: Executor<Counters> = {
      connections: 1,
      execute: () => Promise.resolve(0),
      classify: () => 'other',
    };
    const engine = new Engine(
      { ...config(1, script([[[0, 0]]]), 1), externalPhases: true },
      executor,
      () => ({ n: 0 }),
    );
    const done = new Promise<string>((resolve) => engine.once('scriptsDone', () => resolve('scriptsDone')));
    const result = engine.run();
    expect(await Promise.race([done, result.then(() => 'closed its own window')])).toBe('scriptsDone');
    expect(engine.currentPhase).toBe('measure');
    engine.endWindow();
    const r = await result;
    expect(r.status).toBe('completed');
    expect(r.perType[0]!.count).toBe(1);
  });
});
