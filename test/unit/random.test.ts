import { describe, expect, it } from 'vitest';
import { deriveSeed, Rng } from '../../src/random/rng.js';
import {
  ALNUM,
  aString,
  chooseExactly,
  dataString,
  isValidCLastDelta,
  lastName,
  nString,
  nurand,
  permutation,
  randomLoadConstants,
  runConstants,
  SYLLABLES,
  writeDataString,
  zip,
} from '../../src/workloads/tpcc/random.js';

// ---------------------------------------------------------------------------------------------
// Statistics helpers. Every test uses a fixed seed, so results are deterministic; the bounds are
// generous (far in the tail for a correct generator) yet a broken rule overshoots them by orders
// of magnitude.
// ---------------------------------------------------------------------------------------------

/** Pearson's chi-square statistic of observed counts against expected counts (or one constant). */
function chiSquare(observed: ArrayLike<number>, expected: ArrayLike<number> | number): number {
  let sum = 0;
  for (let i = 0; i < observed.length; i++) {
    const e = typeof expected === 'number' ? expected : expected[i]!;
    const d = observed[i]! - e;
    sum += (d * d) / e;
  }
  return sum;
}

/** Roughly six standard deviations above the mean of a chi-square with `df` degrees of freedom. */
function chiSquareLimit(df: number): number {
  return df + 6 * Math.sqrt(2 * df);
}

/** Asserts that counts are consistent with a uniform distribution over their cells. */
function expectUniform(counts: ArrayLike<number>): void {
  let total = 0;
  for (let i = 0; i < counts.length; i++) total += counts[i]!;
  const stat = chiSquare(counts, total / counts.length);
  expect(stat).toBeLessThan(chiSquareLimit(counts.length - 1));
}

/** Draws `n` values and counts them in cells lo..hi (value v lands in cell v - lo). */
function histogram(n: number, lo: number, hi: number, draw: () => number): Float64Array {
  const counts = new Float64Array(hi - lo + 1);
  for (let i = 0; i < n; i++) {
    const v = draw();
    if (!Number.isInteger(v) || v < lo || v > hi) throw new Error(`value ${v} outside [${lo}..${hi}]`);
    counts[v - lo]!++;
  }
  return counts;
}

function mean(values: readonly number[]): number {
  return values.reduce((s, v) => s + v, 0) / values.length;
}

const ALNUM_CHARS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// ---------------------------------------------------------------------------------------------

describe('Rng', () => {
  it('int(lo, hi) stays inside [lo..hi], returns integers, and reaches both ends', () => {
    const rng = new Rng(1);
    for (const [lo, hi] of [
      [1, 6],
      [0, 1],
      [-5, 5],
      [1, 10],
      [5, 15],
      [1, 3000],
    ] as const) {
      let min = Infinity;
      let max = -Infinity;
      let nonIntegers = 0;
      for (let i = 0; i < 50_000; i++) {
        const v = rng.int(lo, hi);
        if (!Number.isInteger(v)) nonIntegers++;
        if (v < min) min = v;
        if (v > max) max = v;
      }
      expect(nonIntegers).toBe(0);
      expect(min).toBe(lo);
      expect(max).toBe(hi);
    }
  });

  it('int(lo, lo) always returns lo', () => {
    const rng = new Rng(2);
    for (let i = 0; i < 1000; i++) expect(rng.int(7, 7)).toBe(7);
  });

  it('int(1, 10) is uniform over all ten values (chi-square)', () => {
    const rng = new Rng(3);
    const counts = histogram(100_000, 1, 10, () => rng.int(1, 10));
    expectUniform(counts);
  });

  it('int(1, 100000) is uniform across the range (chi-square over 100 buckets, mean)', () => {
    const rng = new Rng(4);
    const n = 200_000;
    const buckets = new Float64Array(100);
    let sum = 0;
    for (let i = 0; i < n; i++) {
      const v = rng.int(1, 100_000);
      buckets[Math.floor((v - 1) / 1000)]!++;
      sum += v;
    }
    expectUniform(buckets);
    // Mean of uniform [1..100000] is 50000.5, sd about 28868; allow five standard errors.
    const se = 28868 / Math.sqrt(n);
    expect(Math.abs(sum / n - 50_000.5)).toBeLessThan(5 * se);
  });

  it('consecutive draws are independent (chi-square over pairs)', () => {
    const rng = new Rng(5);
    const pairs = new Float64Array(100);
    let prev = rng.int(0, 9);
    for (let i = 0; i < 200_000; i++) {
      const v = rng.int(0, 9);
      pairs[prev * 10 + v]!++;
      prev = v;
    }
    expectUniform(pairs);
  });

  it('float() is in [0, 1) with mean 1/2 and uniform deciles', () => {
    const rng = new Rng(6);
    const n = 100_000;
    const deciles = new Float64Array(10);
    let sum = 0;
    let min = Infinity;
    let max = -Infinity;
    for (let i = 0; i < n; i++) {
      const f = rng.float();
      if (f < min) min = f;
      if (f > max) max = f;
      sum += f;
      deciles[Math.floor(f * 10)]!++;
    }
    expect(min).toBeGreaterThanOrEqual(0);
    expect(max).toBeLessThan(1);
    expect(min).toBeLessThan(0.001);
    expect(max).toBeGreaterThan(0.999);
    const se = Math.sqrt(1 / 12 / n);
    expect(Math.abs(sum / n - 0.5)).toBeLessThan(5 * se);
    expectUniform(deciles);
  });

  it('next32() yields unsigned 32-bit integers with every bit set about half the time', () => {
    const rng = new Rng(7);
    const n = 50_000;
    const ones = new Float64Array(32);
    let bad = 0;
    for (let i = 0; i < n; i++) {
      const v = rng.next32();
      if (!(Number.isInteger(v) && v >= 0 && v < 2 ** 32)) bad++;
      for (let b = 0; b < 32; b++) if ((v >>> b) & 1) ones[b]!++;
    }
    // Binomial(n, 1/2): sd = sqrt(n)/2, about 112; allow six.
    expect(bad).toBe(0);
    const sd = Math.sqrt(n) / 2;
    for (let b = 0; b < 32; b++) expect(Math.abs(ones[b]! - n / 2)).toBeLessThan(6 * sd);
  });

  it('is deterministic for a seed', () => {
    const a = new Rng(12345);
    const b = new Rng(12345);
    for (let i = 0; i < 1000; i++) expect(a.next32()).toBe(b.next32());
    const c = new Rng(99);
    const d = new Rng(99);
    const xs = Array.from({ length: 100 }, () => c.int(1, 1000));
    const ys = Array.from({ length: 100 }, () => d.int(1, 1000));
    expect(xs).toEqual(ys);
  });

  it('gives different streams for different (even adjacent) seeds', () => {
    const streams = new Set<string>();
    for (let seed = 0; seed < 100; seed++) {
      const rng = new Rng(seed);
      streams.add(Array.from({ length: 4 }, () => rng.next32()).join(','));
    }
    expect(streams.size).toBe(100);
  });

  it('first draws across adjacent seeds are uniform (the warm-up decorrelates the seed)', () => {
    const counts = new Float64Array(16);
    for (let seed = 0; seed < 32_000; seed++) counts[new Rng(seed).int(0, 15)]!++;
    expectUniform(counts);
  });

  it('treats the seed as an unsigned 32-bit value', () => {
    const a = new Rng(-1);
    const b = new Rng(0xffffffff);
    for (let i = 0; i < 10; i++) expect(a.next32()).toBe(b.next32());
  });
});

describe('deriveSeed', () => {
  it('is deterministic and returns an unsigned 32-bit integer', () => {
    for (const parts of [[], [1], [1, 2], [7, 0, 3], [0xffffffff]]) {
      const s = deriveSeed(42, ...parts);
      expect(s).toBe(deriveSeed(42, ...parts));
      expect(Number.isInteger(s) && s >= 0 && s < 2 ** 32).toBe(true);
    }
  });

  it('without parts returns the seed itself (as uint32)', () => {
    expect(deriveSeed(42)).toBe(42);
    expect(deriveSeed(-1)).toBe(0xffffffff);
  });

  it('depends on the base seed, on every part, and on their order', () => {
    expect(deriveSeed(1, 2)).not.toBe(deriveSeed(2, 2));
    expect(deriveSeed(1, 2, 3)).not.toBe(deriveSeed(1, 2, 4));
    expect(deriveSeed(1, 2, 3)).not.toBe(deriveSeed(1, 3, 2));
    expect(deriveSeed(1, 2)).not.toBe(deriveSeed(1, 2, 0));
  });

  it('has no seed ^ part relation: seed 2 round 0 is not seed 3 round 1', () => {
    expect(deriveSeed(2, 0)).not.toBe(deriveSeed(3, 1));
    const seen = new Set<number>();
    for (let seed = 0; seed < 64; seed++)
      for (let part = 0; part < 64; part++) seen.add(deriveSeed(seed, part));
    expect(seen.size).toBe(64 * 64);
  });

  it('gives distinct seeds for many workers / warehouses / terminals', () => {
    const seen = new Set<number>();
    for (let w = 1; w <= 100; w++) for (let t = 0; t < 100; t++) seen.add(deriveSeed(2024, w, t));
    expect(seen.size).toBe(10_000);
  });

  it('derived streams are mutually uncorrelated (first draw uniform across parts)', () => {
    const counts = new Float64Array(10);
    for (let w = 0; w < 20_000; w++) counts[new Rng(deriveSeed(7, w)).int(0, 9)]!++;
    expectUniform(counts);
  });
});

describe('aString', () => {
  it('contains only the 62 alphanumerics', () => {
    const rng = new Rng(10);
    for (let i = 0; i < 2000; i++) expect(aString(rng, 10, 20)).toMatch(/^[0-9A-Za-z]{10,20}$/);
  });

  it('uses all 62 alphanumerics uniformly (chi-square)', () => {
    const rng = new Rng(11);
    const counts = new Float64Array(62);
    for (let i = 0; i < 5000; i++) {
      for (const ch of aString(rng, 24, 24)) counts[ALNUM_CHARS.indexOf(ch)]!++;
    }
    expect(counts.every((c) => c > 0)).toBe(true);
    expectUniform(counts);
  });

  it('ALNUM is exactly the 62 alphanumerics', () => {
    expect(ALNUM.toString('latin1')).toBe(ALNUM_CHARS);
  });

  it('has a length uniform over [min..max], both ends included', () => {
    const rng = new Rng(12);
    const counts = histogram(55_000, 10, 20, () => aString(rng, 10, 20).length);
    expect(counts[0]).toBeGreaterThan(0);
    expect(counts[10]).toBeGreaterThan(0);
    expectUniform(counts);
  });

  it('has mean length (min+max)/2, e.g. 400 for C_DATA a-str[300..500]', () => {
    const rng = new Rng(13);
    const lengths = Array.from({ length: 5000 }, () => aString(rng, 300, 500).length);
    expect(Math.min(...lengths)).toBeGreaterThanOrEqual(300);
    expect(Math.max(...lengths)).toBeLessThanOrEqual(500);
    // Uniform over 201 values: sd = sqrt((201^2 - 1) / 12), about 58.
    const se = Math.sqrt((201 * 201 - 1) / 12) / Math.sqrt(lengths.length);
    expect(Math.abs(mean(lengths) - 400)).toBeLessThan(5 * se);
  });

  it('min == max gives that exact length (OL_DIST_INFO, S_DIST_xx are exactly 24)', () => {
    const rng = new Rng(14);
    for (let i = 0; i < 100; i++) expect(aString(rng, 24, 24)).toHaveLength(24);
  });
});

describe('nString', () => {
  it('contains digits only, with lengths in [min..max]', () => {
    const rng = new Rng(20);
    for (let i = 0; i < 2000; i++) expect(nString(rng, 3, 9)).toMatch(/^[0-9]{3,9}$/);
  });

  it('C_PHONE: n-string of exactly 16 digits', () => {
    const rng = new Rng(21);
    for (let i = 0; i < 100; i++) expect(nString(rng, 16, 16)).toMatch(/^[0-9]{16}$/);
  });

  it('uses the ten digits uniformly and lengths uniformly', () => {
    const rng = new Rng(22);
    const digits = new Float64Array(10);
    const lengths = new Float64Array(5);
    for (let i = 0; i < 20_000; i++) {
      const s = nString(rng, 1, 5);
      lengths[s.length - 1]!++;
      for (const ch of s) digits[ch.charCodeAt(0) - 48]!++;
    }
    expectUniform(digits);
    expectUniform(lengths);
  });
});

describe('zip', () => {
  it('is a 4-digit n-string followed by 11111 (9 characters)', () => {
    const rng = new Rng(30);
    for (let i = 0; i < 2000; i++) {
      const z = zip(rng);
      expect(z).toHaveLength(9);
      expect(z).toMatch(/^[0-9]{4}11111$/);
    }
  });

  it('draws the 4-digit prefix uniformly from 0000..9999', () => {
    const rng = new Rng(31);
    const counts = new Float64Array(100); // bucket by the first two digits
    const distinct = new Set<string>();
    const n = 100_000;
    for (let i = 0; i < n; i++) {
      const prefix = zip(rng).slice(0, 4);
      distinct.add(prefix);
      counts[Number(prefix.slice(0, 2))]!++;
    }
    expectUniform(counts);
    // 100k draws from 10,000 values miss each value with probability e^-10: nearly all appear.
    expect(distinct.size).toBeGreaterThan(9990);
    expect(distinct.has('0000') || distinct.has('9999')).toBe(true);
  });
});

describe('writeDataString / dataString (I_DATA, S_DATA)', () => {
  it('without ORIGINAL: alphanumerics, length in [26..50], never contains ORIGINAL', () => {
    const rng = new Rng(40);
    for (let i = 0; i < 5000; i++) {
      const s = dataString(rng, 26, 50, false);
      expect(s).toMatch(/^[0-9A-Za-z]{26,50}$/);
      expect(s.includes('ORIGINAL')).toBe(false);
    }
  });

  it('with ORIGINAL: always contains it, length still in [26..50], otherwise alphanumerics', () => {
    const rng = new Rng(41);
    for (let i = 0; i < 5000; i++) {
      const s = dataString(rng, 26, 50, true);
      expect(s).toMatch(/^[0-9A-Za-z]{26,50}$/);
      expect(s).toContain('ORIGINAL');
    }
  });

  it('length is uniform over [26..50] whether or not ORIGINAL is inserted', () => {
    for (const original of [false, true]) {
      const rng = new Rng(original ? 42 : 43);
      const counts = histogram(50_000, 26, 50, () => dataString(rng, 26, 50, original).length);
      expect(counts[0]).toBeGreaterThan(0);
      expect(counts[24]).toBeGreaterThan(0);
      expectUniform(counts);
    }
  });

  it('puts ORIGINAL at a random position, including the very start and the very end', () => {
    const rng = new Rng(44);
    let atStart = 0;
    let atEnd = 0;
    const relative: number[] = [];
    for (let i = 0; i < 20_000; i++) {
      const s = dataString(rng, 26, 50, true);
      const at = s.indexOf('ORIGINAL');
      if (at === 0) atStart++;
      if (at === s.length - 8) atEnd++;
      relative.push(at / (s.length - 8));
    }
    expect(atStart).toBeGreaterThan(0);
    expect(atEnd).toBeGreaterThan(0);
    // Position uniform over [0..len-8] gives a relative position with mean 1/2.
    expect(Math.abs(mean(relative) - 0.5)).toBeLessThan(0.02);
    // Not always at the same place.
    expect(new Set(relative).size).toBeGreaterThan(100);
  });

  it('writeDataString writes at pos, returns pos + length, and touches nothing outside', () => {
    const rng = new Rng(45);
    for (let i = 0; i < 500; i++) {
      const out = Buffer.alloc(80, 0x7e); // '~' sentinel
      const pos = 10;
      const end = writeDataString(rng, out, pos, 26, 50, i % 2 === 0);
      expect(end - pos).toBeGreaterThanOrEqual(26);
      expect(end - pos).toBeLessThanOrEqual(50);
      const text = out.toString('latin1');
      expect(text.slice(0, pos)).toBe('~'.repeat(pos));
      expect(text.slice(end)).toBe('~'.repeat(80 - end));
      expect(text.slice(pos, end)).toMatch(/^[0-9A-Za-z]+$/);
      expect(text.slice(pos, end).includes('ORIGINAL')).toBe(i % 2 === 0);
    }
  });

  it('dataString matches writeDataString on the same seed', () => {
    const a = new Rng(46);
    const b = new Rng(46);
    for (let i = 0; i < 200; i++) {
      const original = i % 3 === 0;
      const buf = Buffer.alloc(50);
      const end = writeDataString(b, buf, 0, 26, 50, original);
      expect(dataString(a, 26, 50, original)).toBe(buf.toString('latin1', 0, end));
    }
  });
});

// ---------------------------------------------------------------------------------------------

/** NURand of clause 2.1.6, written out independently: the two random draws, OR, add C, wrap. */
function referenceNurand(rng: Rng, a: number, x: number, y: number, c: number): number {
  const r1 = rng.int(0, a);
  const r2 = rng.int(x, y);
  return (((r1 | r2) + c) % (y - x + 1)) + x;
}

/** The exact probability of every value of NURand(A, x, y) with constant C, by enumeration. */
function nurandExact(a: number, x: number, y: number, c: number): Float64Array {
  const n = y - x + 1;
  const p = new Float64Array(n);
  for (let i = 0; i <= a; i++) for (let r = x; r <= y; r++) p[((i | r) + c) % n]!++;
  for (let v = 0; v < n; v++) p[v]! /= (a + 1) * n;
  return p;
}

/** Chi-square against exact probabilities, pooling cells whose expected count is under 10. */
function chiSquareExact(counts: Float64Array, probs: Float64Array, total: number) {
  let stat = 0;
  let cells = 0;
  let pooledObs = 0;
  let pooledExp = 0;
  for (let v = 0; v < counts.length; v++) {
    const e = probs[v]! * total;
    if (e < 10) {
      pooledObs += counts[v]!;
      pooledExp += e;
      continue;
    }
    stat += ((counts[v]! - e) * (counts[v]! - e)) / e;
    cells++;
  }
  if (pooledExp > 0) {
    stat += ((pooledObs - pooledExp) * (pooledObs - pooledExp)) / pooledExp;
    cells++;
  }
  return { stat, df: cells - 1 };
}

describe('nurand', () => {
  const FIELDS = [
    { name: 'C_LAST', a: 255, x: 0, y: 999 },
    { name: 'C_ID', a: 1023, x: 1, y: 3000 },
    { name: 'OL_I_ID', a: 8191, x: 1, y: 100_000 },
  ] as const;

  it.each(FIELDS)('$name: stays in [x..y] for C in [0..A], and reaches both ends', ({ a, x, y }) => {
    const rng = new Rng(50);
    for (const c of [0, 1, Math.floor(a / 2), a]) {
      let min = Infinity;
      let max = -Infinity;
      let nonIntegers = 0;
      for (let i = 0; i < 50_000; i++) {
        const v = nurand(rng, a, x, y, c);
        if (!Number.isInteger(v)) nonIntegers++;
        if (v < min) min = v;
        if (v > max) max = v;
      }
      expect(nonIntegers).toBe(0);
      expect(min).toBeGreaterThanOrEqual(x);
      expect(max).toBeLessThanOrEqual(y);
    }
    // Both ends are reachable. (For OL_I_ID with C = 0 the value 1 has probability about 1e-7,
    // too rare to sample; there a value near each end is enough.)
    const slack = a === 8191 ? 100 : 0;
    let min = Infinity;
    let max = -Infinity;
    for (let i = 0; i < 1_000_000; i++) {
      const v = nurand(rng, a, x, y, 0);
      if (v < min) min = v;
      if (v > max) max = v;
    }
    expect(min).toBeLessThanOrEqual(x + slack);
    expect(max).toBeGreaterThanOrEqual(y - slack);
  });

  it.each(FIELDS)('$name: equals ((rand(0,A) | rand(x,y)) + C) % (y-x+1) + x draw for draw', (f) => {
    for (const c of [0, 17, f.a]) {
      const a = new Rng(51 + c);
      const b = new Rng(51 + c);
      const actual = Array.from({ length: 20_000 }, () => nurand(a, f.a, f.x, f.y, c));
      const expected = Array.from({ length: 20_000 }, () => referenceNurand(b, f.a, f.x, f.y, c));
      expect(actual).toEqual(expected);
    }
  });

  it('C shifts the distribution cyclically: NURand(C) = (NURand(0) - x + C) mod n + x', () => {
    const a = new Rng(52);
    const b = new Rng(52);
    for (let i = 0; i < 10_000; i++) {
      const base = nurand(a, 1023, 1, 3000, 0);
      expect(nurand(b, 1023, 1, 3000, 259)).toBe(((base - 1 + 259) % 3000) + 1);
    }
  });

  it('C_LAST NURand(255,0,999) follows the exact NURand distribution (chi-square)', () => {
    const rng = new Rng(53);
    const c = 157;
    const n = 300_000;
    const counts = histogram(n, 0, 999, () => nurand(rng, 255, 0, 999, c));
    const { stat, df } = chiSquareExact(counts, nurandExact(255, 0, 999, c), n);
    expect(stat).toBeLessThan(chiSquareLimit(df));
  });

  it('C_ID NURand(1023,1,3000) follows the exact NURand distribution (chi-square)', () => {
    const rng = new Rng(54);
    const c = 259;
    const n = 300_000;
    const counts = histogram(n, 1, 3000, () => nurand(rng, 1023, 1, 3000, c));
    const { stat, df } = chiSquareExact(counts, nurandExact(1023, 1, 3000, c), n);
    expect(stat).toBeLessThan(chiSquareLimit(df));
  });

  it('is strongly non-uniform with C fixed: hot values are drawn far more often than 1/n', () => {
    const rng = new Rng(55);
    const n = 200_000;
    const counts = histogram(n, 0, 999, () => nurand(rng, 255, 0, 999, 0));
    const sorted = Array.from(counts).sort((p, q) => q - p);
    const uniform = n / 1000;
    // NURand(255,0,999) with C=0 draws 255 with probability 3^8/256000, about 26 times 1/1000.
    expect(counts[255]! / uniform).toBeGreaterThan(15);
    expect(sorted[0]! / uniform).toBeGreaterThan(15);
    // The hottest 10% of values take well over 10% of draws; a uniform draw would give 10%.
    const top100 = sorted.slice(0, 100).reduce((s, v) => s + v, 0);
    expect(top100 / n).toBeGreaterThan(0.3);
    // And a uniform distribution fails the chi-square by a wide margin.
    expect(chiSquare(counts, uniform)).toBeGreaterThan(10 * chiSquareLimit(999));
  });

  it('OL_I_ID NURand(8191,1,100000) is skewed: the top 1% of items take several percent of draws', () => {
    const rng = new Rng(56);
    const n = 500_000;
    const counts = histogram(n, 1, 100_000, () => nurand(rng, 8191, 1, 100_000, 7911));
    const sorted = Array.from(counts).sort((p, q) => q - p);
    const top1000 = sorted.slice(0, 1000).reduce((s, v) => s + v, 0);
    expect(top1000 / n).toBeGreaterThan(0.03);
  });
});

describe('lastName', () => {
  it('matches the examples of clause 4.3.2.3', () => {
    expect(lastName(371)).toBe('PRICALLYOUGHT');
    expect(lastName(40)).toBe('BARPRESBAR');
    expect(lastName(0)).toBe('BARBARBAR');
    expect(lastName(999)).toBe('EINGEINGEING');
    expect(lastName(888)).toBe('ATIONATIONATION');
    expect(lastName(123)).toBe('OUGHTABLEPRI');
    expect(lastName(5)).toBe('BARBARESE');
    expect(lastName(60)).toBe('BARANTIBAR');
  });

  it('uses the syllables of the spec in digit order', () => {
    expect([...SYLLABLES]).toEqual([
      'BAR',
      'OUGHT',
      'ABLE',
      'PRI',
      'PRES',
      'ESE',
      'ANTI',
      'CALLY',
      'ATION',
      'EING',
    ]);
  });

  it('concatenates hundreds, tens and units syllables for every n in 0..999', () => {
    for (let n = 0; n <= 999; n++) {
      const [h, t, u] = String(n).padStart(3, '0').split('').map(Number);
      expect(lastName(n)).toBe(SYLLABLES[h!]! + SYLLABLES[t!]! + SYLLABLES[u!]!);
    }
  });

  it('gives 1000 distinct names of at most 15 characters, the longest exactly 15', () => {
    const names = Array.from({ length: 1000 }, (_, n) => lastName(n));
    expect(new Set(names).size).toBe(1000);
    expect(Math.max(...names.map((s) => s.length))).toBe(15);
    expect(names.every((s) => s.length <= 15 && s.length <= 16)).toBe(true);
  });

  it('throws a RangeError outside 0..999', () => {
    for (const bad of [-1, 1000, 1001, 1.5, NaN, Infinity]) expect(() => lastName(bad)).toThrow(RangeError);
  });
});

describe('permutation', () => {
  it('is a permutation of 1..n', () => {
    const rng = new Rng(60);
    for (const n of [1, 2, 3, 10, 3000]) {
      const p = permutation(rng, n);
      expect(p).toHaveLength(n);
      const sorted = Array.from(p).sort((x, y) => x - y);
      expect(sorted).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    }
    expect(permutation(rng, 0)).toHaveLength(0);
  });

  it('depends on the seed and is deterministic for a seed', () => {
    const a = Array.from(permutation(new Rng(61), 3000));
    const b = Array.from(permutation(new Rng(62), 3000));
    expect(a).not.toEqual(b);
    expect(Array.from(permutation(new Rng(61), 3000))).toEqual(a);
    // Actually shuffled: far from the identity.
    expect(a.filter((v, i) => v === i + 1).length).toBeLessThan(20);
  });

  it('puts each value first with equal probability (chi-square)', () => {
    const rng = new Rng(63);
    const counts = new Float64Array(10);
    for (let i = 0; i < 30_000; i++) counts[permutation(rng, 10)[0]! - 1]!++;
    expectUniform(counts);
  });

  it('every value is equally likely at every position (chi-square per position)', () => {
    const rng = new Rng(64);
    const n = 8;
    const counts = Array.from({ length: n }, () => new Float64Array(n));
    for (let i = 0; i < 24_000; i++) {
      const p = permutation(rng, n);
      for (let pos = 0; pos < n; pos++) counts[pos]![p[pos]! - 1]!++;
    }
    for (const row of counts) expectUniform(row);
  });

  it('all 6 orders of 1..3 are equally likely (catches biased shuffles)', () => {
    const rng = new Rng(65);
    const orders = ['1,2,3', '1,3,2', '2,1,3', '2,3,1', '3,1,2', '3,2,1'];
    const counts = new Float64Array(6);
    for (let i = 0; i < 60_000; i++) counts[orders.indexOf(Array.from(permutation(rng, 3)).join(','))]!++;
    expectUniform(counts);
  });
});

describe('chooseExactly', () => {
  it('marks exactly k of n positions with 0/1 values', () => {
    const rng = new Rng(70);
    for (const [n, k] of [
      [10, 1],
      [10, 5],
      [3000, 300],
      [100_000, 10_000],
      [7, 6],
    ] as const) {
      const marks = chooseExactly(rng, n, k);
      expect(marks).toHaveLength(n);
      expect(marks.every((m) => m === 0 || m === 1)).toBe(true);
      expect(marks.reduce((s, m) => s + m, 0)).toBe(k);
    }
  });

  it('k = 0 marks nothing and k = n marks everything', () => {
    const rng = new Rng(71);
    expect(chooseExactly(rng, 50, 0).every((m) => m === 0)).toBe(true);
    expect(chooseExactly(rng, 50, 50).every((m) => m === 1)).toBe(true);
    expect(chooseExactly(rng, 1, 1)).toEqual(new Uint8Array([1]));
    expect(chooseExactly(rng, 0, 0)).toHaveLength(0);
  });

  it('marks each position with probability k/n (chi-square over positions)', () => {
    const rng = new Rng(72);
    const n = 20;
    const counts = new Float64Array(n);
    for (let i = 0; i < 20_000; i++) {
      const marks = chooseExactly(rng, n, 5);
      for (let j = 0; j < n; j++) counts[j]! += marks[j]!;
    }
    expectUniform(counts);
  });

  it('all 10 subsets of size 2 of 5 positions are equally likely', () => {
    const rng = new Rng(73);
    const index = new Map<string, number>();
    const counts = new Float64Array(10);
    for (let i = 0; i < 50_000; i++) {
      const marks = chooseExactly(rng, 5, 2);
      const key = Array.from(marks).join('');
      if (!index.has(key)) index.set(key, index.size);
      counts[index.get(key)!]!++;
    }
    expect(index.size).toBe(10);
    expectUniform(counts);
  });

  it('depends on the seed', () => {
    const a = Array.from(chooseExactly(new Rng(74), 1000, 100));
    const b = Array.from(chooseExactly(new Rng(75), 1000, 100));
    expect(a).not.toEqual(b);
    expect(Array.from(chooseExactly(new Rng(74), 1000, 100))).toEqual(a);
  });
});

describe('isValidCLastDelta', () => {
  it('allows deltas 65..119 except 96 and 112, in both directions', () => {
    for (let delta = 0; delta <= 255; delta++) {
      const valid = delta >= 65 && delta <= 119 && delta !== 96 && delta !== 112;
      expect(isValidCLastDelta(0, delta)).toBe(valid);
      expect(isValidCLastDelta(delta, 0)).toBe(valid);
      expect(isValidCLastDelta(100, 100 + delta)).toBe(valid);
      expect(isValidCLastDelta(255, 255 - delta)).toBe(valid);
    }
  });

  it('boundaries and the two excluded values', () => {
    expect(isValidCLastDelta(100, 164)).toBe(false); // 64
    expect(isValidCLastDelta(100, 165)).toBe(true); // 65
    expect(isValidCLastDelta(0, 119)).toBe(true);
    expect(isValidCLastDelta(0, 120)).toBe(false);
    expect(isValidCLastDelta(0, 96)).toBe(false);
    expect(isValidCLastDelta(0, 112)).toBe(false);
    expect(isValidCLastDelta(0, 95)).toBe(true);
    expect(isValidCLastDelta(0, 97)).toBe(true);
    expect(isValidCLastDelta(0, 111)).toBe(true);
    expect(isValidCLastDelta(0, 113)).toBe(true);
    expect(isValidCLastDelta(157, 223)).toBe(true); // BenchBase's constants, delta 66
    expect(isValidCLastDelta(5, 5)).toBe(false);
  });
});

describe('randomLoadConstants / runConstants', () => {
  it('randomLoadConstants draws C_LAST in 0..255, C_ID in 0..1023, OL_I_ID in 0..8191, ends included', () => {
    const rng = new Rng(80);
    const seen = { cLast: [Infinity, -Infinity], cId: [Infinity, -Infinity], olIId: [Infinity, -Infinity] };
    let nonIntegers = 0;
    for (let i = 0; i < 200_000; i++) {
      const k = randomLoadConstants(rng);
      for (const key of ['cLast', 'cId', 'olIId'] as const) {
        if (!Number.isInteger(k[key])) nonIntegers++;
        seen[key][0] = Math.min(seen[key][0]!, k[key]);
        seen[key][1] = Math.max(seen[key][1]!, k[key]);
      }
    }
    expect(nonIntegers).toBe(0);
    expect(seen.cLast).toEqual([0, 255]);
    expect(seen.cId).toEqual([0, 1023]);
    expect(seen.olIId).toEqual([0, 8191]);
  });

  it('for every load-time C_LAST in 0..255 the run-time C_LAST obeys the delta rule', () => {
    const rng = new Rng(81);
    const violations: string[] = [];
    for (let cLoad = 0; cLoad <= 255; cLoad++) {
      for (let i = 0; i < 200; i++) {
        const run = runConstants(rng, { cLast: cLoad, cId: 0, olIId: 0 });
        // The delta rule written out independently of isValidCLastDelta.
        const delta = Math.abs(run.cLast - cLoad);
        const ok =
          Number.isInteger(run.cLast) &&
          run.cLast >= 0 &&
          run.cLast <= 255 &&
          delta >= 65 &&
          delta <= 119 &&
          delta !== 96 &&
          delta !== 112 &&
          Number.isInteger(run.cId) &&
          run.cId >= 0 &&
          run.cId <= 1023 &&
          Number.isInteger(run.olIId) &&
          run.olIId >= 0 &&
          run.olIId <= 8191;
        if (!ok) violations.push(`load ${cLoad} -> ${JSON.stringify(run)}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('run-time C_ID and OL_I_ID cover their whole ranges', () => {
    const rng = new Rng(82);
    const load = { cLast: 128, cId: 5, olIId: 5 };
    let cIdMin = Infinity;
    let cIdMax = -Infinity;
    let olMin = Infinity;
    let olMax = -Infinity;
    for (let i = 0; i < 200_000; i++) {
      const run = runConstants(rng, load);
      cIdMin = Math.min(cIdMin, run.cId);
      cIdMax = Math.max(cIdMax, run.cId);
      olMin = Math.min(olMin, run.olIId);
      olMax = Math.max(olMax, run.olIId);
    }
    expect([cIdMin, cIdMax]).toEqual([0, 1023]);
    expect([olMin, olMax]).toEqual([0, 8191]);
  });

  it('picks the run-time C_LAST uniformly among the valid values', () => {
    const rng = new Rng(83);
    // Load C = 0: valid run values are 65..119 without 96 and 112, i.e. 53 values.
    const counts = new Map<number, number>();
    for (let i = 0; i < 53_000; i++) {
      const c = runConstants(rng, { cLast: 0, cId: 0, olIId: 0 }).cLast;
      counts.set(c, (counts.get(c) ?? 0) + 1);
    }
    expect(counts.size).toBe(53);
    expectUniform([...counts.values()]);
    // Load C = 128: valid values lie on both sides (9..63 and 193..247); both sides are used.
    let below = 0;
    let above = 0;
    for (let i = 0; i < 2000; i++) {
      const c = runConstants(rng, { cLast: 128, cId: 0, olIId: 0 }).cLast;
      if (c < 128) below++;
      else above++;
    }
    expect(below).toBeGreaterThan(800);
    expect(above).toBeGreaterThan(800);
  });
});
