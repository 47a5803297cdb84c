/**
 * One sysbench event on a slot's callback route (`Session.callbacks`, PostgreSQL's wire path):
 * the statements of event.ts, with the same random draws in the same order, one round trip each
 * as sysbench issues them, but no promise per statement and no row turned into an object.
 * sysbench's Lua reads nothing of what its SELECTs return (oltp_common.lua's `execute_*` call
 * `execute()` and drop the result; its C driver only counts the rows), so nothing here reads a
 * row either: every SELECT's rows are only counted (`CallbackRoute.count`), none decoded.
 *
 * A runner per connection walks the event's steps from one answer to the next; its callback is
 * made once, so an event allocates no closure.
 */
import type {
  CallbackRoute,
  ParamValue,
  PreparedStatement,
  StatementCallback,
} from '../../dialects/connections.js';
import type { Rng } from '../../random/rng.js';
import type { EventSetup } from './event.js';
import { C_TEMPLATE, PAD_TEMPLATE, randString, uniform } from './rand.js';
import type { Plan, StatementCounts, TableStatements } from './scripts.js';

type Kind =
  | 'begin'
  | 'commit'
  | 'pointSelect'
  | 'simpleRange'
  | 'sumRange'
  | 'orderRange'
  | 'distinctRange'
  | 'indexUpdate'
  | 'nonIndexUpdate'
  | 'deletePair'
  | 'insertPair'
  | 'delete'
  | 'insertNew';

interface Step {
  readonly kind: Kind;
  /** The first statement of its kind: `get_table_num()` picks its table here. */
  readonly newTable: boolean;
}

/** The plan as the steps event.ts takes, in its order. */
export function stepsOf(plan: Plan): Step[] {
  const steps: Step[] = [];
  const repeat = (kind: Kind, times: number): void => {
    for (let i = 0; i < times; i++) steps.push({ kind, newTable: i === 0 });
  };
  if (plan.trx) steps.push({ kind: 'begin', newTable: false });
  repeat('pointSelect', plan.pointSelects);
  repeat('simpleRange', plan.simpleRanges);
  repeat('sumRange', plan.sumRanges);
  repeat('orderRange', plan.orderRanges);
  repeat('distinctRange', plan.distinctRanges);
  repeat('indexUpdate', plan.indexUpdates);
  repeat('nonIndexUpdate', plan.nonIndexUpdates);
  for (let i = 0; i < plan.deleteInserts; i++) {
    steps.push({ kind: 'deletePair', newTable: i === 0 }, { kind: 'insertPair', newTable: false });
  }
  repeat('delete', plan.deletes);
  repeat('insertNew', plan.inserts);
  if (plan.trx) steps.push({ kind: 'commit', newTable: false });
  return steps;
}

export interface CallbackEventSetup extends EventSetup {
  readonly steps: readonly Step[];
  /** What one event adds to the run's tallies. */
  readonly perEvent: StatementCounts;
}

/** The tallies a completed event adds to. */
export interface EventCounters {
  reads: number;
  writes: number;
  other: number;
}

export type EventDone = (err: unknown) => void;

/**
 * What a statement's rows are for: a SELECT's are only counted, which is all sysbench's driver
 * does with them (its Lua reads none of them, not even the point select's `c` or the sum), and
 * no check of txbench's reads them either; a write has none.
 */
const READ = true;
const COUNT = false;

export class CallbackEvent {
  private at = 0;
  private rng: Rng | undefined;
  private counters: EventCounters | undefined;
  private done: EventDone | undefined;
  private table: TableStatements | undefined;
  /** The row a DELETE of a delete/insert pair removed, and the k its INSERT puts back. */
  private row = 0;
  private k = 0;
  // Parameter arrays reused by every statement: a statement's values are written out before the
  // next step can run. Ids go as numbers, which the route writes without making their text.
  private readonly one: ParamValue[] = [null];
  private readonly two: ParamValue[] = [null, null];
  private readonly three: ParamValue[] = [null, null, null];
  private readonly four: ParamValue[] = [null, null, null, null];
  private readonly cBuf = Buffer.alloc(C_TEMPLATE.length);
  private readonly padBuf = Buffer.alloc(PAD_TEMPLATE.length);

  constructor(
    private readonly route: CallbackRoute,
    private readonly e: CallbackEventSetup,
  ) {}

  /** Runs one event; `done` is called once, with undefined when it completed or with its error. */
  start(rng: Rng, counters: EventCounters, done: EventDone): void {
    if (this.done !== undefined) {
      done(new Error('a sysbench event is already running on this connection'));
      return;
    }
    this.rng = rng;
    this.counters = counters;
    this.done = done;
    this.at = 0;
    this.issue();
  }

  private readonly answered: StatementCallback = (err) => {
    if (err !== undefined) return this.finish(err);
    this.at++;
    this.issue();
  };

  private finish(err: Error | undefined): void {
    const done = this.done!;
    if (err === undefined) {
      const c = this.counters!;
      const n = this.e.perEvent;
      c.reads += n.reads;
      c.writes += n.writes;
      c.other += n.other;
    }
    this.done = undefined;
    this.rng = undefined;
    this.counters = undefined;
    done(err);
  }

  private issue(): void {
    const step = this.e.steps[this.at];
    if (step === undefined) return this.finish(undefined);
    const rng = this.rng!;
    const e = this.e;
    if (step.newTable) this.table = e.tables[uniform(rng, 1, e.tables.length) - 1]!;
    const t = this.table!;
    switch (step.kind) {
      case 'begin':
        return this.route.runText('begin', this.answered);
      case 'commit':
        return this.route.runText('commit', this.answered);
      case 'pointSelect':
        return this.run(t.pointSelect, this.ids1(), COUNT);
      case 'simpleRange':
        return this.run(t.simpleRange, this.range(), COUNT);
      case 'sumRange':
        return this.run(t.sumRange, this.range(), COUNT);
      case 'orderRange':
        return this.run(t.orderRange, this.range(), COUNT);
      case 'distinctRange':
        return this.run(t.distinctRange, this.range(), COUNT);
      case 'indexUpdate':
        return this.run(t.indexUpdate, this.ids1());
      case 'nonIndexUpdate': {
        const v = this.two;
        v[0] = randString(rng, C_TEMPLATE, this.cBuf);
        v[1] = this.id();
        return this.run(t.nonIndexUpdate, v);
      }
      case 'deletePair':
        this.row = this.id();
        this.k = this.id();
        this.one[0] = this.row;
        return this.run(t.delete, this.one);
      case 'insertPair': {
        const v = this.four;
        v[0] = this.row;
        v[1] = this.k;
        v[2] = randString(rng, C_TEMPLATE, this.cBuf);
        v[3] = randString(rng, PAD_TEMPLATE, this.padBuf);
        return this.run(t.insert, v);
      }
      case 'delete':
        return this.run(t.delete, this.ids1());
      case 'insertNew': {
        const v = this.three;
        v[0] = this.id();
        v[1] = randString(rng, C_TEMPLATE, this.cBuf);
        v[2] = randString(rng, PAD_TEMPLATE, this.padBuf);
        return this.run(t.insertNew, v);
      }
    }
  }

  /** `get_id()`: 1..table-size from `--rand-type`. */
  private id(): number {
    return this.e.rand(this.rng!, 1, this.e.tableSize);
  }

  private ids1(): ParamValue[] {
    this.one[0] = this.id();
    return this.one;
  }

  /** A range from id to id + range-size - 1. */
  private range(): ParamValue[] {
    const from = this.id();
    this.two[0] = from;
    this.two[1] = from + this.e.rangeSize - 1;
    return this.two;
  }

  /**
   * Runs `sql`, prepared once on this connection (the first time, preparing costs a round trip);
   * with COUNT, its rows are counted and none is read.
   */
  private run(sql: string, values: readonly ParamValue[], rows = READ): void {
    const statement = this.route.preparedFor(sql);
    if (statement !== undefined) return this.send(statement, values, rows);
    this.route.prepare(sql).then(
      (prepared: PreparedStatement) => this.send(prepared, values, rows),
      (err: unknown) => this.finish(err instanceof Error ? err : new Error(String(err))),
    );
  }

  private send(statement: PreparedStatement, values: readonly ParamValue[], rows: boolean): void {
    if (rows === READ) this.route.run(statement, values, this.answered);
    else this.route.count(statement, values, this.answered);
  }
}

/** One runner per connection: a slot's connection runs one event at a time. */
export function callbackEvents(e: CallbackEventSetup): (route: CallbackRoute) => CallbackEvent {
  const runners = new WeakMap<CallbackRoute, CallbackEvent>();
  return (route) => {
    let runner = runners.get(route);
    if (runner === undefined) {
      runner = new CallbackEvent(route, e);
      runners.set(route, runner);
    }
    return runner;
  };
}
