import { describe, expect, it } from 'vitest';
import { digitsOf, putInteger } from '../../src/dialects/integer-text.js';

const samples = (): number[] => {
  const values = [0, -0, 1, -1, 0x7fffffff, 0x80000000, -0x80000000, -0x80000001, Number.MAX_SAFE_INTEGER];
  values.push(Number.MIN_SAFE_INTEGER);
  for (let p = 1; p < 1e16; p *= 10) values.push(p - 1, p, p + 1, -p + 1, -p, -p - 1);
  let seed = 7;
  for (let i = 0; i < 5_000; i++) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    values.push(seed, -seed, seed * 4093 + i, -(seed * 4093) - i);
  }
  return values;
};

describe('a safe integer written as its decimal text', () => {
  it('has the length and the bytes of String(n)', () => {
    const buf = Buffer.alloc(40, 0x78);
    for (const n of samples()) {
      const text = String(n);
      expect(digitsOf(n), text).toBe(text.length);
      const end = putInteger(buf, 3, n);
      expect(end, text).toBe(3 + text.length);
      expect(buf.toString('latin1', 3, end), text).toBe(text);
      expect(buf[2], 'nothing written before it').toBe(0x78);
    }
  });
});
