/**
 * sysbench's random distributions (sb_rand.c's definitions, with its default parameters) and the
 * statements each oltp_* script issues per transaction, recorded from the event itself.
 */
import { describe, expect, it } from 'vitest';
import type {
  CallbackRoute,
  PreparedStatement,
  Session,
  StatementCallback,
} from '../../src/dialects/connections.js';
import { Rng } from '../../src/random/rng.js';
import { callbackEvents, stepsOf } from '../../src/workloads/sysbench/callback-event.js';
import { runEvent } from '../../src/workloads/sysbench/event.js';
import {
  C_TEMPLATE,
  PAD_TEMPLATE,
  RAND_TYPES,
  randFunction,
  randString,
} from '../../src/workloads/sysbench/rand.js';
import {
  SCRIPTS,
  countsOf,
  planOf,
  tableStatements,
  DEFAULT_COUNTS,
  type CountOptions,
  type ScriptName,
} from '../../src/workloads/sysbench/scripts.js';

const N = 200_000;

function draws(type: (typeof RAND_TYPES)[number], a: number, b: number): number[] {
  const rng = new Rng(42);
  const f = randFunction(type);
  return Array.from({ length: N }, () => f(rng, a, b));
}

const share = (xs: number[], p: (x: number) => boolean): number => xs.filter(p).length / xs.length;
const mean = (xs: number[]): number => xs.reduce((s, x) => s + x, 0) / xs.length;

describe('sysbench --rand-type', () => {
  for (const type of RAND_TYPES) {
    it(`${type} stays within [a, b] and gives integers`, () => {
      const xs = draws(type, 1, 10_000);
      expect(xs.reduce((m, x) => Math.min(m, x))).toBeGreaterThanOrEqual(1);
      expect(xs.reduce((m, x) => Math.max(m, x))).toBeLessThanOrEqual(10_000);
      expect(xs.every(Number.isInteger)).toBe(true);
    });
  }

  it('uniform: every value about equally often', () => {
    const xs = draws('uniform', 1, 10);
    for (let v = 1; v <= 10; v++) expect(share(xs, (x) => x === v)).toBeCloseTo(0.1, 2);
  });

  it('gaussian: the mean of 12 uniforms, centred with sd range/sqrt(144)', () => {
    const xs = draws('gaussian', 1, 10_000);
    const m = mean(xs);
    const sd = Math.sqrt(mean(xs.map((x) => (x - m) ** 2)));
    expect(m).toBeGreaterThan(4_950);
    expect(m).toBeLessThan(5_050);
    expect(sd).toBeGreaterThan(10_000 / 12 - 30);
    expect(sd).toBeLessThan(10_000 / 12 + 30);
  });

  it('special: 75% of the values in the middle 1% of the range', () => {
    const xs = draws('special', 1, 10_000);
    // rand-spec-pct=1: the middle 1% is [t/2 - t/200, t/2 + t/200] around the range's centre.
    const inMiddle = share(xs, (x) => x >= 4_950 && x <= 5_051);
    // The other 25% are gaussian over the range; a few of those land in the middle too.
    expect(inMiddle).toBeGreaterThan(0.75);
    expect(inMiddle).toBeLessThan(0.78);
  });

  it('pareto (h = 0.2): 80% of the values in the first 20% of the range', () => {
    const xs = draws('pareto', 1, 10_000);
    expect(share(xs, (x) => x <= 2_000)).toBeCloseTo(0.8, 2);
  });

  it('zipfian (exponent 0.8): P(k) proportional to k^-0.8', () => {
    const xs = draws('zipfian', 1, 1_000);
    const p1 = share(xs, (x) => x === 1);
    const p2 = share(xs, (x) => x === 2);
    const p10 = share(xs, (x) => x === 10);
    expect(p1 / p2).toBeCloseTo(2 ** 0.8, 1);
    expect(p1 / p10).toBeGreaterThan(10 ** 0.8 * 0.85);
    expect(p1 / p10).toBeLessThan(10 ** 0.8 * 1.15);
  });

  it("rand.string: oltp_common.lua's c and pad shapes", () => {
    const rng = new Rng(1);
    const c = randString(rng, C_TEMPLATE, Buffer.alloc(C_TEMPLATE.length));
    const pad = randString(rng, PAD_TEMPLATE, Buffer.alloc(PAD_TEMPLATE.length));
    expect(c).toHaveLength(119);
    expect(c).toMatch(/^\d{11}(-\d{11}){9}$/);
    expect(pad).toHaveLength(59);
    expect(pad).toMatch(/^\d{11}(-\d{11}){4}$/);
  });
});

// oltp_common.lua's defaults (sysbench-crosscheck.test.ts runs sysbench itself against them).
const DEFAULTS: CountOptions = DEFAULT_COUNTS;

/** A session that records the statements it is given (no database: the event's own sequence). */
function recorder(): { session: Session; log: string[] } {
  const log: string[] = [];
  const session: Session = {
    dialect: 'postgres',
    param: (i) => `$${i}`,
    query: async (sql) => (log.push(sql), []),
    execute: async (sql) => (log.push(sql), 1),
    begin: async () => void log.push('BEGIN'),
    commit: async () => void log.push('COMMIT'),
    rollback: async () => void log.push('ROLLBACK'),
  };
  return { session, log };
}

async function issued(script: ScriptName, options: CountOptions): Promise<string[]> {
  const { session, log } = recorder();
  await runEvent(session, new Rng(7), {
    plan: planOf(script, options),
    tables: [1, 2, 3].map((t) => tableStatements(t, (i) => `$${i}`)),
    tableSize: 1000,
    rangeSize: 100,
    rand: randFunction('uniform'),
  });
  return log.map((s) => s.replace(/sbtest\d/, 'sbtestN'));
}

describe('sysbench scripts: statements per transaction', () => {
  const expected: Record<ScriptName, { reads: number; writes: number; other: number }> = {
    oltp_read_write: { reads: 14, writes: 4, other: 2 },
    oltp_read_only: { reads: 14, writes: 0, other: 2 },
    oltp_write_only: { reads: 0, writes: 4, other: 2 },
    oltp_point_select: { reads: 1, writes: 0, other: 0 },
    oltp_update_index: { reads: 0, writes: 1, other: 0 },
    oltp_update_non_index: { reads: 0, writes: 1, other: 0 },
    oltp_insert: { reads: 0, writes: 1, other: 0 },
    oltp_delete: { reads: 0, writes: 1, other: 0 },
  };
  for (const script of SCRIPTS) {
    it(`${script} issues what sysbench 1.0.20's script issues`, async () => {
      const counts = countsOf(planOf(script, DEFAULTS));
      expect(counts).toEqual(expected[script]);
      const log = await issued(script, DEFAULTS);
      expect(log).toHaveLength(counts.reads + counts.writes + counts.other);
      expect(log.filter((s) => s.startsWith('SELECT'))).toHaveLength(counts.reads);
    });
  }

  it('oltp_read_write: 18 statements inside BEGIN/COMMIT, in oltp_common.lua order and text', async () => {
    const log = await issued('oltp_read_write', DEFAULTS);
    expect(log).toEqual([
      'BEGIN',
      ...Array<string>(10).fill('SELECT c FROM sbtestN WHERE id=$1'),
      'SELECT c FROM sbtestN WHERE id BETWEEN $1 AND $2',
      'SELECT SUM(k) FROM sbtestN WHERE id BETWEEN $1 AND $2',
      'SELECT c FROM sbtestN WHERE id BETWEEN $1 AND $2 ORDER BY c',
      'SELECT DISTINCT c FROM sbtestN WHERE id BETWEEN $1 AND $2 ORDER BY c',
      'UPDATE sbtestN SET k=k+1 WHERE id=$1',
      'UPDATE sbtestN SET c=$1 WHERE id=$2',
      'DELETE FROM sbtestN WHERE id=$1',
      'INSERT INTO sbtestN (id, k, c, pad) VALUES ($1, $2, $3, $4)',
      'COMMIT',
    ]);
  });

  it('the counts follow the options; --skip-trx drops BEGIN/COMMIT', async () => {
    const options = { ...DEFAULTS, pointSelects: 3, sumRanges: 0, deleteInserts: 2, skipTrx: true };
    expect(countsOf(planOf('oltp_read_write', options))).toEqual({ reads: 6, writes: 6, other: 0 });
    expect(await issued('oltp_read_write', options)).toHaveLength(12);
    // oltp_point_select always issues one point select, whatever --point-selects says.
    expect(countsOf(planOf('oltp_point_select', options))).toEqual({ reads: 1, writes: 0, other: 0 });
  });
});

/**
 * A session and a callback route that record each statement with its parameters: the callback
 * route must issue what the Session path issues, drawing the same random values in the same order.
 */
function paramRecorder(): { session: Session; route: CallbackRoute; log: string[] } {
  const log: string[] = [];
  const note = (sql: string, params: readonly unknown[] = []): void =>
    void log.push(`${sql} ${JSON.stringify(params.map(String))}`);
  const session: Session = {
    dialect: 'postgres',
    param: (i) => `$${i}`,
    query: async (sql, params) => (note(sql, params), []),
    execute: async (sql, params) => (note(sql, params), 1),
    begin: async () => note('BEGIN'),
    commit: async () => note('COMMIT'),
    rollback: async () => note('ROLLBACK'),
  };
  const prepared = new Map<string, PreparedStatement>();
  const answer = (done: StatementCallback): void =>
    void queueMicrotask(() => done(undefined, { rows: [], tag: '' }));
  const route: CallbackRoute = {
    prepare: async (sql) => {
      const p = { name: sql };
      prepared.set(sql, p);
      return p;
    },
    preparedFor: (sql) => prepared.get(sql),
    run: (statement, values, done) => (note(statement.name, values), answer(done)),
    count: (statement, values, done) => (note(statement.name, values), answer(done)),
    runText: (sql, done) => (note(sql.toUpperCase()), answer(done)),
  };
  return { session, route, log };
}

describe('sysbench on a callback route', () => {
  const counters0 = () => ({ reads: 0, writes: 0, other: 0 });
  const setupOf = (script: ScriptName, options: CountOptions, randType: (typeof RAND_TYPES)[number]) => {
    const plan = planOf(script, options);
    return {
      plan,
      tables: [1, 2, 3].map((t) => tableStatements(t, (i) => `$${i}`)),
      tableSize: 1000,
      rangeSize: 100,
      rand: randFunction(randType),
      steps: stepsOf(plan),
      perEvent: countsOf(plan),
    };
  };
  const cases: [ScriptName, CountOptions][] = [
    ...SCRIPTS.map((s): [ScriptName, CountOptions] => [s, DEFAULTS]),
    [
      'oltp_read_write',
      { ...DEFAULTS, pointSelects: 3, deleteInserts: 2, nonIndexUpdates: 2, skipTrx: true },
    ],
  ];
  for (const [script, options] of cases) {
    it(`${script} ${options === DEFAULTS ? '' : '(other counts) '}issues the Session path's statements and values, event after event`, async () => {
      for (const randType of ['uniform', 'special'] as const) {
        const setup = setupOf(script, options, randType);
        const viaSession = paramRecorder();
        const viaRoute = paramRecorder();
        const rngA = new Rng(11);
        const rngB = new Rng(11);
        const counters = { reads: 0, writes: 0, other: 0 };
        const runner = callbackEvents(setup)(viaRoute.route);
        for (let event = 0; event < 3; event++) {
          await runEvent(viaSession.session, rngA, setup);
          await new Promise<void>((resolve, reject) =>
            runner.start(rngB, counters, (err) => (err === undefined ? resolve() : reject(err))),
          );
        }
        expect(viaRoute.log).toEqual(viaSession.log);
        expect(viaRoute.log.length).toBeGreaterThan(0);
        const n = countsOf(setup.plan);
        expect(counters).toEqual({ reads: 3 * n.reads, writes: 3 * n.writes, other: 3 * n.other });
        // Both streams are where they would be after the same draws.
        expect(rngB.float()).toBe(rngA.float());
      }
    });
  }

  it("counts every SELECT's rows and reads none (sysbench's Lua reads none), and runs the writes", async () => {
    for (const script of SCRIPTS) {
      const setup = setupOf(script, DEFAULTS, 'uniform');
      const { route } = paramRecorder();
      const how: string[] = [];
      const watched: CallbackRoute = {
        ...route,
        run: (statement, values, done) => (
          how.push(`run ${statement.name}`),
          route.run(statement, values, done)
        ),
        count: (statement, values, done) => (
          how.push(`count ${statement.name}`),
          route.count(statement, values, done)
        ),
      };
      await new Promise((resolve) => callbackEvents(setup)(watched).start(new Rng(5), counters0(), resolve));
      expect(how.length, script).toBe(countsOf(setup.plan).reads + countsOf(setup.plan).writes);
      for (const call of how) expect(call, script).toMatch(/^(count SELECT|run (UPDATE|DELETE|INSERT)) /);
    }
  });

  it('stops at a failed statement and hands its error on, adding nothing to the tallies', async () => {
    const setup = setupOf('oltp_read_write', DEFAULTS, 'uniform');
    const { route, log } = paramRecorder();
    let calls = 0;
    const failingThird =
      (go: CallbackRoute['run']): CallbackRoute['run'] =>
      (statement, values, done) => {
        if (++calls === 3) return void queueMicrotask(() => done(new Error('boom'), { rows: [], tag: '' }));
        go(statement, values, done);
      };
    const failing: CallbackRoute = {
      ...route,
      run: failingThird(route.run),
      count: failingThird(route.count),
    };
    const counters = { reads: 0, writes: 0, other: 0 };
    const err = await new Promise<unknown>((resolve) =>
      callbackEvents(setup)(failing).start(new Rng(1), counters, resolve),
    );
    expect((err as Error).message).toBe('boom');
    expect(log).toHaveLength(3); // BEGIN and two point selects; the third failed
    expect(counters).toEqual({ reads: 0, writes: 0, other: 0 });
  });
});
