import { describe, expect, it } from 'vitest';
import { formatDuration, parseDurationMs } from '../../src/config/duration.js';
import { checkMixMinimums, parseMix, sharesBelowMinimums } from '../../src/config/mix.js';
import { parseRunOptions } from '../../src/cli/run.js';
import { ExitCode, UsageError } from '../../src/errors.js';
import { MIX_MINIMUMS, TPCC_DECK, TPCC_TRANSACTIONS } from '../../src/workloads/tpcc/profile.js';
import { findWorkload } from '../../src/workloads/registry.js';

const TPCC = await findWorkload('tpcc');

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

describe('checkMixMinimums (clause 5.2.3: Payment >= 43%, Order-Status, Delivery, Stock-Level >= 4%)', () => {
  const rules = { minimums: MIX_MINIMUMS, names: TPCC_TRANSACTIONS.map((t) => t.name) };

  it.each([[[45, 43, 4, 4, 4]], [[0, 88, 4, 4, 4]], [[10, 10, 1, 1, 1]], [TPCC_DECK]])(
    '%j meets every minimum (a deck of card counts too)',
    (mix) => {
      expect(sharesBelowMinimums(mix, rules)).toEqual([]);
      expect(checkMixMinimums(mix, rules, false)).toBe(false);
    },
  );

  it.each([
    [[50, 42, 4, 4, 0], 'Payment 42%', 'Stock-Level 0%'],
    [[100, 0, 0, 0, 0], 'Payment 0%', 'Delivery 0%'],
    [[47, 43, 3, 4, 3], 'Order-Status 3%', 'Stock-Level 3%'],
    [[48, 44, 4, 3, 1], 'Delivery 3%', 'Stock-Level 1%'],
  ])('%j is refused up front, naming the shares too low and the override', (mix, first, second) => {
    const err = usageError(() => checkMixMinimums(mix, rules, false));
    expect(err.exitCode).toBe(ExitCode.usage);
    expect(err.message).toContain(`--mix ${mix.join(',')}`);
    expect(err.message).toContain(first);
    expect(err.message).toContain(second);
    expect(err.message).toContain('--allow-nonstandard-mix');
    expect(err.message).not.toContain('\n');
  });

  it('names the minimum each share misses, and only the shares that miss', () => {
    const err = usageError(() => checkMixMinimums([49, 43, 4, 2, 2], rules, false));
    expect(err.message).toContain('Delivery 2% (minimum 4%)');
    expect(err.message).toContain('Stock-Level 2% (minimum 4%)');
    expect(err.message).not.toContain('Payment');
    expect(err.message).not.toContain('Order-Status');
  });

  it('with --allow-nonstandard-mix: accepted and reported as non-standard', () => {
    expect(checkMixMinimums([60, 30, 4, 3, 3], rules, true)).toBe(true);
    expect(checkMixMinimums([45, 43, 4, 4, 4], rules, true)).toBe(false);
  });

  it('a deck is judged by its shares: 9/10/1/1/1 cards are 45.45% Payment', () => {
    expect(sharesBelowMinimums([9, 10, 1, 1, 1], rules)).toEqual([]);
    // 10 of 24 cards is 41.67% Payment.
    expect(sharesBelowMinimums([11, 10, 1, 1, 1], rules)).toEqual([
      { name: 'Payment', share: (10 * 100) / 24, minimum: 43 },
    ]);
  });
});

describe('run options: --mix below the minimums', () => {
  const base = { duration: '1s' } as const;

  it('refuses a low mix with a one-line usage error', () => {
    const err = usageError(() => parseRunOptions({ ...base, mix: '60,30,4,3,3' }, TPCC, 'tpcc', {}));
    expect(err.exitCode).toBe(ExitCode.usage);
    expect(err.message).toMatch(/Payment 30% \(minimum 43%\).*--allow-nonstandard-mix/);
  });

  it('accepts it with --allow-nonstandard-mix, and passes the permission on', () => {
    const options = parseRunOptions(
      { ...base, mix: '60,30,4,3,3', 'allow-nonstandard-mix': true },
      TPCC,
      'tpcc',
      {},
    );
    expect(options.mix).toEqual([60, 30, 4, 3, 3]);
    expect(options.allowNonstandardMix).toBe(true);
  });

  it('leaves the default deck and standard mixes alone', () => {
    expect(parseRunOptions(base, TPCC, 'tpcc', {}).allowNonstandardMix).toBe(false);
    expect(parseRunOptions({ ...base, mix: '45,43,4,4,4' }, TPCC, 'tpcc', {}).mix).toEqual([45, 43, 4, 4, 4]);
  });
});
