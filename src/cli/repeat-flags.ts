/** `--repeat N` and `--reload` on `run`, `steps` and `sweep`: the flags (run/repetitions.ts runs them). */
import { UsageError } from '../errors.js';
import type { RepeatFlags } from '../api.js';
import { parseIntFlag } from './args.js';
import type { FlagValues } from './workload-flags.js';

export const REPEAT_FLAGS = {
  repeat: { type: 'string' },
  reload: { type: 'boolean' },
} as const;

/** The most repetitions one command runs: more is a script's job, not a flag's. */
export const MAX_REPEAT = 1000;

export const REPEAT_HELP = `  --repeat N         measure N times, one after another (each with its own warm-up), each kept
                     as a run directory rep-1 ... rep-N under one parent with repeat.json: every
                     figure as mean ± 95% interval (Student's t over the N values), min ... max
                     and each value; steps and sweep repeat their whole sequence N times
  --reload           load the database again before each repetition (or before the run, without
                     --repeat): the same scale with the same seed as the load that is there`;

export function parseRepeatFlags(values: FlagValues): RepeatFlags {
  const text = values.repeat;
  return {
    count: typeof text === 'string' ? parseIntFlag('repeat', text, 1, MAX_REPEAT) : undefined,
    reload: values.reload === true,
  };
}

/** --repeat with what it cannot repeat: several targets at once, or a shard of a larger run. */
export function refuseRepeatWith(flags: RepeatFlags, targets: number, shard: boolean): void {
  if (flags.count === undefined) return;
  if (targets > 1) throw new UsageError('--repeat drives one target; give one --db or --data-dir');
  if (shard) throw new UsageError('--repeat cannot repeat a shard (--shard): repeat the merged run instead');
}
