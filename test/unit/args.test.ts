import { describe, expect, it } from 'vitest';
import { parseCommand, parseIntFlag, TARGET_OPTIONS, withOptionalValues } from '../../src/cli/args.js';
import { LOAD_FLAGS, LOAD_HELP } from '../../src/cli/load.js';
import { parseRunOptions, RUN_FLAGS, RUN_OPTIONAL_VALUES } from '../../src/cli/run.js';
import { parseWithWorkload } from '../../src/cli/workload-flags.js';
import { ExitCode, UsageError } from '../../src/errors.js';

/** Runs `fn` and returns the UsageError it throws (failing the test otherwise). */
function usageError(fn: () => unknown): UsageError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return err as UsageError;
  }
  throw new Error('expected a UsageError, but nothing was thrown');
}

describe('parseIntFlag', () => {
  it.each([
    ['1', 1],
    ['  7 ', 7],
    ['10', 10],
    ['007', 7],
    ['1000000', 1000000],
    ['\t42\n', 42],
  ])('accepts %j as %i', (value, expected) => {
    expect(parseIntFlag('warehouses', value, 1)).toBe(expected);
  });

  it('accepts the bounds themselves', () => {
    expect(parseIntFlag('jobs', '1', 1, 256)).toBe(1);
    expect(parseIntFlag('jobs', '256', 1, 256)).toBe(256);
    expect(parseIntFlag('seed', '0', 0, 2 ** 31 - 1)).toBe(0);
    expect(parseIntFlag('seed', '2147483647', 0, 2 ** 31 - 1)).toBe(2147483647);
    expect(parseIntFlag('n', String(Number.MAX_SAFE_INTEGER), 0)).toBe(Number.MAX_SAFE_INTEGER);
  });

  it.each([
    ['0'],
    ['abc'],
    ['1.5'],
    ['-3'],
    ['+3'],
    [''],
    ['   '],
    ['1e3'],
    ['0x10'],
    ['12abc'],
    ['1 2'],
    ['99999999999999999999'],
    ['9007199254740992'], // 2^53: not a safe integer
    ['Infinity'],
    ['NaN'],
  ])('rejects %j with a UsageError naming the flag and the value', (value) => {
    const err = usageError(() => parseIntFlag('warehouses', value, 1));
    expect(err.exitCode).toBe(ExitCode.usage);
    expect(err.message).toContain('--warehouses');
    expect(err.message).toContain(`"${value}"`);
    expect(err.message).toContain('a whole number >= 1');
    expect(err.message).not.toContain('\n');
  });

  it('rejects values above max and below min, stating the range', () => {
    const above = usageError(() => parseIntFlag('jobs', '257', 1, 256));
    expect(above.message).toContain('--jobs');
    expect(above.message).toContain('from 1 to 256');
    const below = usageError(() => parseIntFlag('jobs', '0', 1, 256));
    expect(below.message).toContain('--jobs');
    expect(below.message).toContain('from 1 to 256');
  });

  it('the min bound is enforced as given (0 allowed when min is 0)', () => {
    expect(parseIntFlag('seed', '0', 0)).toBe(0);
    expect(() => parseIntFlag('warehouses', '0', 1)).toThrow(UsageError);
  });
});

describe('parseCommand', () => {
  const OPTIONS = {
    ...TARGET_OPTIONS,
    warehouses: { type: 'string', short: 'w' },
    replace: { type: 'boolean' },
  } as const;

  it('parses known flags, in both --flag value and --flag=value forms', () => {
    const { values } = parseCommand(
      'load',
      ['--db', 'postgres://h/db', '--warehouses=3', '--replace'],
      OPTIONS,
    );
    expect(values.db).toBe('postgres://h/db');
    expect(values.warehouses).toBe('3');
    expect(values.replace).toBe(true);
    expect(values.help).toBeUndefined();
  });

  it('parses short flags and the target options', () => {
    const { values } = parseCommand('load', ['-w', '5', '--data-dir', '/tmp/x', '--label', 'ssd'], OPTIONS);
    expect(values.warehouses).toBe('5');
    expect(values['data-dir']).toBe('/tmp/x');
    expect(values.label).toBe('ssd');
  });

  it('adds --help and -h to every command', () => {
    expect(parseCommand('drop', ['--help'], TARGET_OPTIONS).values.help).toBe(true);
    expect(parseCommand('drop', ['-h'], TARGET_OPTIONS).values.help).toBe(true);
    expect(parseCommand('drop', [], TARGET_OPTIONS).values.help).toBeUndefined();
  });

  it('rejects an unknown long flag with a UsageError naming it and pointing to --help', () => {
    const err = usageError(() => parseCommand('load', ['--warehouse', '3'], OPTIONS));
    expect(err.exitCode).toBe(ExitCode.usage);
    expect(err.message).toContain('--warehouse');
    expect(err.message).toContain('txbench load --help');
    expect(err.message).not.toContain('\n');
  });

  it('rejects an unknown short flag the same way', () => {
    const err = usageError(() => parseCommand('check', ['-x'], TARGET_OPTIONS));
    expect(err.message).toContain('-x');
    expect(err.message).toContain('txbench check --help');
  });

  it('names the command it was given in the hint', () => {
    const err = usageError(() => parseCommand('run', ['--bogus'], TARGET_OPTIONS));
    expect(err.message).toContain('--bogus');
    expect(err.message).toContain('txbench run --help');
  });

  it('rejects a string flag without a value, naming the flag', () => {
    const err = usageError(() => parseCommand('load', ['--db'], OPTIONS));
    expect(err.message).toContain('--db');
    expect(err.message).toContain('txbench load --help');
  });

  it('rejects positional arguments, naming them', () => {
    const err = usageError(() => parseCommand('load', ['--replace', 'stray'], OPTIONS));
    expect(err.message).toContain('stray');
    expect(err.message).toContain('txbench load --help');
  });
});

describe('--dashboard [PORT]: a flag whose value may be left out', () => {
  const optional = { dashboard: { bare: '0' } };

  it('takes the next argument as its value unless it is a flag or there is none', () => {
    expect(withOptionalValues(['--dashboard'], optional)).toEqual(['--dashboard=0']);
    expect(withOptionalValues(['--dashboard', '--db', 'x'], optional)).toEqual([
      '--dashboard=0',
      '--db',
      'x',
    ]);
    expect(withOptionalValues(['--dashboard', '8080', '--check'], optional)).toEqual([
      '--dashboard',
      '8080',
      '--check',
    ]);
    expect(withOptionalValues(['--dashboard=9'], optional)).toEqual(['--dashboard=9']);
    // Other flags' values are never touched, even when they look alike.
    expect(withOptionalValues(['--label', '--dashboard'], {})).toEqual(['--label', '--dashboard']);
    expect(withOptionalValues(['--', '--dashboard'], optional)).toEqual(['--', '--dashboard']);
  });

  const dashboardOf = async (
    command: 'run' | 'steps' | 'sweep',
    argv: string[],
  ): Promise<number | undefined> => {
    const { values, workload, ref, workloadOptions } = await parseWithWorkload(
      command,
      argv,
      { ...RUN_FLAGS, users: { type: 'string' }, set: { type: 'string' } },
      true,
      RUN_OPTIONAL_VALUES,
    );
    return parseRunOptions(values, workload, ref, workloadOptions).dashboard;
  };

  it.each(['run', 'steps', 'sweep'] as const)(
    '%s: alone, any free port; with a port, that port',
    async (command) => {
      expect(await dashboardOf(command, ['--dashboard'])).toBe(0);
      expect(await dashboardOf(command, ['--dashboard', '--duration', '5s'])).toBe(0);
      expect(await dashboardOf(command, ['--duration', '5s', '--dashboard'])).toBe(0);
      expect(await dashboardOf(command, ['--dashboard', '8080', '--duration', '5s'])).toBe(8080);
      expect(await dashboardOf(command, ['--dashboard=8081'])).toBe(8081);
      expect(await dashboardOf(command, ['--duration', '5s'])).toBeUndefined();
    },
  );

  it('a bad port is refused naming the flag', async () => {
    await expect(dashboardOf('run', ['--dashboard', 'eighty'])).rejects.toThrow(
      '--dashboard must be a whole number from 0 to 65535, not "eighty"',
    );
    await expect(dashboardOf('run', ['--dashboard', '70000'])).rejects.toThrow(
      '--dashboard must be a whole number from 0 to 65535, not "70000"',
    );
  });
});

describe('txbench load --help', () => {
  it('names every flag load takes', () => {
    const unnamed = Object.keys(LOAD_FLAGS).filter((f) => !new RegExp(`--${f}\\b`).test(LOAD_HELP));
    expect(unnamed).toEqual([]);
  });
});
