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

/**
 * Flags whose value may be left out, by name: `--dashboard` alone, `--dashboard 8080` or
 * `--dashboard=8080`. node:util parseArgs has no such option type, so a bare one is rewritten to
 * `--flag=<bare>` before parsing. The next argument is its value unless it is a flag: these
 * commands take no positional arguments, so a word after the flag can only be meant as its value
 * (and a bad one is refused by the flag's own check, naming the flag).
 */
export type OptionalValues = Record<string, { bare: string }>;

export function withOptionalValues(argv: readonly string[], optional: OptionalValues): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    // Everything after `--` is positional, as parseArgs reads it.
    if (arg === '--') return [...out, ...argv.slice(i)];
    const name = arg.startsWith('--') ? arg.slice(2) : undefined;
    const next = argv[i + 1];
    if (name !== undefined && Object.hasOwn(optional, name) && (next === undefined || next.startsWith('-'))) {
      out.push(`${arg}=${optional[name]!.bare}`);
    } else out.push(arg);
  }
  return out;
}

/** Strict parsing: an unknown flag or a missing value is one line naming the flag and the fix. */
export function parseCommand<T extends OptionSpecs>(
  command: string,
  argv: string[],
  options: T,
  /** Said after an unknown flag (e.g. the workload's options). */
  unknownHint?: string,
  /** Flags among `options` (type string) whose value may be left out. */
  optional: OptionalValues = {},
): ReturnType<
  typeof parseArgs<{ args: string[]; options: T & typeof HELP_OPTION; strict: true; allowPositionals: false }>
> {
  try {
    return parseArgs({
      args: withOptionalValues(argv, optional),
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
