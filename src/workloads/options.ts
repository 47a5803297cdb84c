/**
 * A workload's declared options as command-line flags: the parseArgs specs for them, and the
 * parsing and checking of their values (one line naming the flag and what it accepts).
 */
import { UsageError } from '../errors.js';
import type { OptionSpec, OptionValue, OptionValues, Workload } from './workload.js';

/** `table-size` → `tableSize`. */
export function optionKey(name: string): string {
  return name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** The node:util parseArgs declarations of a workload's flags. */
export function optionFlags(
  specs: readonly OptionSpec[],
): Record<string, { type: 'string' | 'boolean'; short?: string }> {
  const flags: Record<string, { type: 'string' | 'boolean'; short?: string }> = {};
  for (const s of specs) {
    flags[s.name] = {
      type: s.type === 'boolean' ? 'boolean' : 'string',
      ...(s.short ? { short: s.short } : {}),
    };
  }
  return flags;
}

/** One line listing a workload's options, for an unknown flag. */
export function describeOptions(workload: Pick<Workload, 'name' | 'options'>): string {
  return workload.options.length === 0
    ? `the ${workload.name} workload has no options of its own`
    : `the ${workload.name} workload's options are ${workload.options.map((o) => `--${o.name}`).join(', ')}`;
}

/**
 * The workload's options from the flags given (by flag name), defaults applied, each checked
 * against its declaration; then the workload's own `validate`.
 */
export function parseWorkloadOptions(
  workload: Pick<Workload, 'name' | 'options' | 'validate'>,
  given: Readonly<Record<string, string | boolean | string[] | undefined>>,
): OptionValues {
  const values: Record<string, OptionValue | undefined> = {};
  for (const spec of workload.options) {
    const raw = given[spec.name];
    const text = Array.isArray(raw) ? raw.at(-1) : raw;
    values[optionKey(spec.name)] = text === undefined ? spec.default : parseValue(spec, text);
  }
  workload.validate?.(values);
  return values;
}

/** Options not given on the command line, as their declarations' defaults (e.g. for an API caller). */
export function defaultOptions(workload: Pick<Workload, 'options'>): OptionValues {
  return Object.fromEntries(workload.options.map((s) => [optionKey(s.name), s.default]));
}

function parseValue(spec: OptionSpec, text: string | boolean): OptionValue {
  const flag = `--${spec.name}`;
  if (spec.type === 'boolean') {
    if (typeof text === 'boolean') return text;
    if (text === 'true' || text === 'false') return text === 'true';
    throw new UsageError(`${flag} takes no value (it is on when given), not "${text}"`);
  }
  if (typeof text === 'boolean') throw new UsageError(`${flag} needs a value`);
  switch (spec.type) {
    case 'string':
      return text;
    case 'choice': {
      const choices = spec.choices ?? [];
      if (!choices.includes(text))
        throw new UsageError(`${flag} must be one of ${choices.join(', ')}, not "${text}"`);
      return text;
    }
    case 'integer':
    case 'number': {
      const pattern = spec.type === 'integer' ? /^\s*-?\d+\s*$/ : /^\s*-?(\d+\.?\d*|\.\d+)\s*$/;
      const n = pattern.test(text) ? Number(text) : NaN;
      const min = spec.min ?? -Number.MAX_SAFE_INTEGER;
      const max = spec.max ?? Number.MAX_SAFE_INTEGER;
      if (
        !Number.isFinite(n) ||
        (spec.type === 'integer' && !Number.isSafeInteger(n)) ||
        n < min ||
        n > max
      ) {
        throw new UsageError(`${flag} must be ${rangeText(spec)}, not "${text}"`);
      }
      return n;
    }
  }
}

function rangeText(spec: OptionSpec): string {
  const what = spec.type === 'integer' ? 'a whole number' : 'a number';
  const { min, max } = spec;
  if (min !== undefined && max !== undefined) return `${what} from ${min} to ${max}`;
  if (min !== undefined) return `${what} >= ${min}`;
  if (max !== undefined) return `${what} <= ${max}`;
  return what;
}
