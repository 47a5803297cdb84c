import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from '../errors.js';

export type OptionSpecs = NonNullable<ParseArgsConfig['options']>;

/** Flags every command that touches a database accepts. */
export const TARGET_OPTIONS = {
  db: { type: 'string' },
  'data-dir': { type: 'string' },
  label: { type: 'string' },
} as const satisfies OptionSpecs;

const HELP_OPTION = { help: { type: 'boolean', short: 'h' } } as const satisfies OptionSpecs;

/** Strict parsing: an unknown flag or a missing value is one line naming the flag and the fix. */
export function parseCommand<T extends OptionSpecs>(
  command: string,
  argv: string[],
  options: T,
  /** Said after an unknown flag (e.g. the workload's options). */
  unknownHint?: string,
): ReturnType<
  typeof parseArgs<{ args: string[]; options: T & typeof HELP_OPTION; strict: true; allowPositionals: false }>
> {
  try {
    return parseArgs({
      args: argv,
      options: { ...options, ...HELP_OPTION },
      strict: true,
      allowPositionals: false,
    });
  } catch (err) {
    const code = typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : '';
    const message = err instanceof Error ? err.message : String(err);
    // Node names a flag with a short alias as '-w, --warehouses <value>': keep the long name.
    const flag = /'(?:-\w, )?(--?[^' ,]+)/.exec(message)?.[1] ?? '';
    switch (code) {
      case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
        throw new UsageError(
          `unknown flag ${flag} for \`txbench ${command}\`; ${unknownHint ? `${unknownHint}; ` : ''}see \`txbench ${command} --help\``,
        );
      case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
        throw new UsageError(
          `unexpected argument ${/'([^']+)'/.exec(message)?.[1] ?? ''} for \`txbench ${command}\`; see \`txbench ${command} --help\``,
        );
      case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
        if (message.includes('does not take an argument')) {
          throw new UsageError(`${flag} does not take a value; see \`txbench ${command} --help\``);
        }
        throw new UsageError(`${flag || 'a flag'} needs a value; see \`txbench ${command} --help\``);
      default:
        throw new UsageError(`${message}; see \`txbench ${command} --help\``);
    }
  }
}

/** A whole number in [min, max], or a usage error naming the flag. */
export function parseIntFlag(
  flag: string,
  value: string,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const n = /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    const range =
      max === Number.MAX_SAFE_INTEGER ? `a whole number >= ${min}` : `a whole number from ${min} to ${max}`;
    throw new UsageError(`--${flag} must be ${range}, not "${value}"`);
  }
  return n;
}
