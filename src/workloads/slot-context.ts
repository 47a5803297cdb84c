/** What a transaction body is given on a slot: its session, and the transaction's terminal and tallies. */
import type { Counters } from '../engine/types.js';
import type { Rng } from '../random/rng.js';
import type { TransactionContext } from './workload.js';

/** One slot's context, replaced whenever the slot's connection is. */
export class SlotContext<S, C extends Counters> implements TransactionContext<S, C> {
  rng!: Rng;
  state!: S;
  terminal = -1;
  counters!: C;
  attempt = 0;
  /** What a callback body (`runWithCallback`) calls when done: bound to this context, made once. */
  finished!: (err: unknown) => void;

  constructor(
    readonly session: TransactionContext['session'],
    readonly conn: unknown,
  ) {}
}
