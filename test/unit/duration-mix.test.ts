import { describe, expect, it } from 'vitest';
import { formatDuration, parseDurationMs } from '../../src/config/duration.js';
import { parseMix } from '../../src/config/mix.js';
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

describe('parseDurationMs', () => {
  it.each([
    ['30s', 30_000],
    ['5m', 300_000],
    ['2h', 7_200_000],
    ['1h30m', 5_400_000],
    ['1m30s', 90_000],
    ['2h15m10s', 8_110_000],
    ['500ms', 500],
    ['1s500ms', 1500],
    ['0s', 0],
    ['0', 0],
    ['2.5', 2500],
    ['90', 90_000],
    ['1.5m', 90_000],
    ['0.25s', 250],
    [' 30s ', 30_000],
  ])('%j is %d ms', (text, ms) => {
    expect(parseDurationMs('duration', text)).toBe(ms);
  });

  it.each(['abc', '5x', '-3s', '', ' ', 's', '3 s', '5S', '1h30', 'Infinity', '1e3', '+3s', '3s-'])(
    '%j throws a UsageError naming the flag',
    (text) => {
      const err = usageError(() => parseDurationMs('warmup', text));
      expect(err.exitCode).toBe(ExitCode.usage);
      expect(err.message).toContain('--warmup');
      expect(err.message).toContain(`"${text}"`);
      expect(err.message).not.toContain('\n');
    },
  );

  it('names whichever flag it parses', () => {
    expect(usageError(() => parseDurationMs('duration', 'abc')).message).toMatch(/^--duration /);
    expect(usageError(() => parseDurationMs('interval', 'abc')).message).toMatch(/^--interval /);
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '0s'],
    [500, '500ms'],
    [999, '999ms'],
    [1000, '1s'],
    [30_000, '30s'],
    [60_000, '1m'],
    [90_000, '1m30s'],
    [300_000, '5m'],
    [3_600_000, '1h'],
    [5_400_000, '1h30m'],
    [3_601_000, '1h1s'],
    [3_661_000, '1h1m1s'],
    [7_200_000, '2h'],
  ])('%d ms is %j', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it('rounds to whole seconds from 1 s up', () => {
    expect(formatDuration(1499)).toBe('1s');
    expect(formatDuration(1500)).toBe('2s');
    expect(formatDuration(59_600)).toBe('1m');
  });

  it('parseDurationMs reads back what formatDuration prints', () => {
    for (const ms of [0, 250, 1000, 45_000, 90_000, 600_000, 5_400_000, 3_661_000, 86_400_000]) {
      expect(parseDurationMs('duration', formatDuration(ms))).toBe(ms);
    }
  });
});

describe('parseMix', () => {
  it('accepts five whole percentages adding up to 100', () => {
    expect(parseMix('45,43,4,4,4', 5)).toEqual([45, 43, 4, 4, 4]);
    expect(parseMix(' 44, 44 ,4,4 , 4', 5)).toEqual([44, 44, 4, 4, 4]);
    expect(parseMix('100,0,0,0,0', 5)).toEqual([100, 0, 0, 0, 0]);
    expect(parseMix('60,40', 2)).toEqual([60, 40]);
  });

  it.each(['50,50,0,0,1', '45,43,4,4,3', '0,0,0,0,0', '100,100,0,0,0'])(
    '%j does not add up to 100',
    (text) => {
      const err = usageError(() => parseMix(text, 5));
      expect(err.exitCode).toBe(ExitCode.usage);
      expect(err.message).toContain('--mix');
      expect(err.message).toMatch(/add up to 100/);
    },
  );

  it.each(['45,43,4,8', '45,43,4,4,2,2', '100', '', '45,43,,4,4,4'])('%j has the wrong count', (text) => {
    const err = usageError(() => parseMix(text, 5));
    expect(err.message).toContain('--mix');
    expect(err.message).toMatch(/5 whole percentages/);
  });

  it.each(['45.5,42.5,4,4,4', '45,43,4,4,x', '-5,53,4,4,44', '45,43,4,4,4e0', '45;43;4;4;4', '45,43,4,4,'])(
    '%j is not whole percentages',
    (text) => {
      const err = usageError(() => parseMix(text, 5));
      expect(err.message).toContain('--mix');
      expect(err.message).not.toContain('\n');
    },
  );
});
