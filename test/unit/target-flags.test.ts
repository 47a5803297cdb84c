import { describe, expect, it } from 'vitest';
import { targetOptionsFrom } from '../../src/cli/target.js';
import { UsageError } from '../../src/errors.js';

describe('targetOptionsFrom', () => {
  it('no target flags: one default target', () => {
    expect(targetOptionsFrom(['--terminals', '10'])).toEqual([{}]);
  });

  it('pairs each --label with the target before it, in order, mixing --db and --data-dir', () => {
    expect(
      targetOptionsFrom([
        '--db',
        'postgres://a/x',
        '--label',
        'vm1',
        '--data-dir=/d2',
        '--label=vm2',
        '--terminals',
        '5',
      ]),
    ).toEqual([
      { db: 'postgres://a/x', label: 'vm1' },
      { dataDir: '/d2', label: 'vm2' },
    ]);
  });

  it('a --label before any target names the first one', () => {
    expect(targetOptionsFrom(['--label', 'fast ssd', '--data-dir', '/d'])).toEqual([
      { dataDir: '/d', label: 'fast ssd' },
    ]);
  });

  it('refuses two labels for one target and duplicate labels across targets', () => {
    expect(() => targetOptionsFrom(['--db', 'postgres://a/x', '--label', 'a', '--label', 'b'])).toThrow(
      UsageError,
    );
    expect(() =>
      targetOptionsFrom(['--db', 'postgres://a/x', '--label', 'a', '--db', 'postgres://b/x', '--label', 'a']),
    ).toThrow(/two targets are labelled "a"/);
  });

  it('a flag without its value is a usage error', () => {
    expect(() => targetOptionsFrom(['--db'])).toThrow(/--db needs a value/);
  });
});
