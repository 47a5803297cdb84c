import { describe, expect, it } from 'vitest';
import { CopyBuffer, loadPools } from '../../src/workloads/tpcc/copy-buffer.js';
import { Rng } from '../../src/random/rng.js';
import { ALNUM, CharPool } from '../../src/workloads/tpcc/random.js';

/** Takes everything written so far as text. */
function text(b: CopyBuffer): string {
  return b.take().toString('latin1');
}

/** Reference rendering of a fixed-point value given in units of 10^-scale. */
function fixedRef(units: number, scale: number): string {
  const div = 10 ** scale;
  const whole = Math.floor(units / div);
  return `${whole}.${String(units - whole * div).padStart(scale, '0')}`;
}

describe('CopyBuffer.int', () => {
  it.each([
    [0, '0'],
    [1, '1'],
    [9, '9'],
    [10, '10'],
    [11, '11'],
    [99, '99'],
    [100, '100'],
    [3000, '3000'],
    [12345, '12345'],
    [100000, '100000'],
    [2147483647, '2147483647'],
  ])('%i -> %s', (n, expected) => {
    const b = new CopyBuffer();
    b.int(n);
    expect(b.length).toBe(expected.length);
    expect(text(b)).toBe(expected);
  });

  it('matches String(n) around every power of ten and for random values', () => {
    const b = new CopyBuffer();
    const values: number[] = [];
    for (let p = 1; p <= 1e15; p *= 10) values.push(p - 1, p, p + 1);
    const rng = new Rng(1);
    for (let i = 0; i < 2000; i++) values.push(rng.int(0, 2147483647), rng.int(0, 1000));
    for (const v of values) b.int(v).tab();
    expect(text(b)).toBe(values.map((v) => `${v}\t`).join(''));
  });

  it('appends after what is already in the buffer', () => {
    const b = new CopyBuffer();
    b.int(7).int(42).int(0).int(100);
    expect(text(b)).toBe('7420100');
  });
});

describe('CopyBuffer.fixed', () => {
  it.each([
    [0, 2, '0.00'],
    [5, 2, '0.05'],
    [10, 2, '0.10'],
    [99, 2, '0.99'],
    [100, 2, '1.00'],
    [1000, 2, '10.00'],
    [123456, 2, '1234.56'],
    [999999, 2, '9999.99'],
    [30000000, 2, '300000.00'],
    [5000000, 2, '50000.00'],
    [2000, 4, '0.2000'],
    [5000, 4, '0.5000'],
    [1, 4, '0.0001'],
    [10000, 4, '1.0000'],
    [1234, 4, '0.1234'],
    [7, 1, '0.7'],
  ])('%i at scale %i -> %s', (units, scale, expected) => {
    const b = new CopyBuffer();
    b.fixed(units, scale);
    expect(b.length).toBe(expected.length);
    expect(text(b)).toBe(expected);
  });

  it('matches a reference rendering for many random amounts (cents and 4-decimal rates)', () => {
    const rng = new Rng(2);
    const b = new CopyBuffer();
    const expected: string[] = [];
    for (let i = 0; i < 3000; i++) {
      const cents = rng.int(0, 99_999_999);
      const rate = rng.int(0, 5000);
      b.fixed(cents, 2).tab().fixed(rate, 4).endRow();
      expected.push(`${fixedRef(cents, 2)}\t${fixedRef(rate, 4)}\n`);
    }
    expect(text(b)).toBe(expected.join(''));
  });
});

describe('CopyBuffer text, null, tab, bytes and rows', () => {
  it('writes a row in COPY text format', () => {
    const b = new CopyBuffer();
    b.int(1).tab().text('abc').tab().null().tab().fixed(1000, 2).endRow();
    expect(b.rows).toBe(1);
    expect(text(b)).toBe('1\tabc\t\\N\t10.00\n');
  });

  it('null() is the two characters \\N', () => {
    const b = new CopyBuffer();
    b.null();
    const out = b.take();
    expect(out.length).toBe(2);
    expect(out.toString('latin1')).toBe('\\N');
    expect([...out]).toEqual([92, 78]);
  });

  it('tab() is one TAB byte and endRow() one LF byte', () => {
    const b = new CopyBuffer();
    b.tab();
    b.endRow();
    expect([...b.take()]).toEqual([9, 10]);
  });

  it('text() writes the string as-is and advances by its length', () => {
    const b = new CopyBuffer();
    b.text('OE').text('').text('GC').text('BARBARBAR');
    expect(b.length).toBe(13);
    expect(text(b)).toBe('OEGCBARBARBAR');
  });

  it('bytes() copies pre-encoded bytes', () => {
    const b = new CopyBuffer();
    const stamp = Buffer.from('2024-01-01 00:00:00', 'latin1');
    b.int(1).tab().bytes(stamp).endRow();
    expect(text(b)).toBe('1\t2024-01-01 00:00:00\n');
  });

  it('endRow() counts rows', () => {
    const b = new CopyBuffer();
    expect(b.rows).toBe(0);
    for (let i = 1; i <= 25; i++) {
      b.int(i).endRow();
      expect(b.rows).toBe(i);
    }
    const lines = text(b).split('\n');
    expect(lines).toHaveLength(26);
    expect(lines.at(-1)).toBe('');
  });
});

describe('CopyBuffer.random and dataString', () => {
  it('random() writes alphanumerics with a length in [min..max]', () => {
    const rng = new Rng(3);
    const b = new CopyBuffer();
    for (let i = 0; i < 500; i++) b.random(rng, 10, 20, ALNUM).endRow();
    const rows = text(b).split('\n').slice(0, -1);
    expect(rows).toHaveLength(500);
    for (const row of rows) expect(row).toMatch(/^[0-9A-Za-z]{10,20}$/);
    const lengths = new Set(rows.map((r) => r.length));
    expect(lengths.has(10) && lengths.has(20)).toBe(true);
  });

  it('random() with min == max writes exactly that many characters, from a custom alphabet', () => {
    const rng = new Rng(4);
    const b = new CopyBuffer();
    for (let i = 0; i < 100; i++) b.random(rng, 16, 16, Buffer.from('0123456789')).endRow();
    for (const row of text(b).split('\n').slice(0, -1)) expect(row).toMatch(/^[0-9]{16}$/);
  });

  it('alnum() and digits() take their characters from the pools, with the asked lengths', () => {
    const rng = new Rng(6);
    const b = new CopyBuffer(256 * 1024, loadPools(1));
    for (let i = 0; i < 500; i++) b.alnum(rng, 8, 16).tab().digits(rng, 4).endRow();
    const rows = text(b).split('\n').slice(0, -1);
    expect(rows).toHaveLength(500);
    for (const row of rows) expect(row).toMatch(/^[0-9A-Za-z]{8,16}\t[0-9]{4}$/);
    const lengths = new Set(rows.map((r) => r.split('\t')[0]!.length));
    expect(lengths.has(8) && lengths.has(16)).toBe(true);
    // Different offsets into the pool: the strings are not all the same.
    expect(new Set(rows).size).toBeGreaterThan(490);
  });

  it('the pool-based methods refuse to run without pools', () => {
    expect(() => new CopyBuffer().alnum(new Rng(1), 5, 5)).toThrow(/pool/);
  });

  it('dataString() writes [26..50] alphanumerics containing ORIGINAL exactly when asked', () => {
    const rng = new Rng(5);
    const b = new CopyBuffer(256 * 1024, loadPools(2));
    for (let i = 0; i < 1000; i++) b.dataString(rng, 26, 50, i % 2 === 0).endRow();
    const rows = text(b).split('\n').slice(0, -1);
    expect(rows).toHaveLength(1000);
    rows.forEach((row, i) => {
      expect(row).toMatch(/^[0-9A-Za-z]{26,50}$/);
      expect(row.includes('ORIGINAL')).toBe(i % 2 === 0);
    });
  });
});

describe('CharPool', () => {
  it('holds only the alphabet and never ORIGINAL, even when seeded with it', () => {
    const pool = new CharPool(new Rng(9), ALNUM, 1 << 16);
    expect(pool.bytes.toString('latin1')).toMatch(/^[0-9A-Za-z]+$/);
    expect(pool.bytes.includes('ORIGINAL')).toBe(false);
    const forced = new CharPool(new Rng(9), Buffer.from('ORIGINAL'), 4096);
    expect(forced.bytes.includes('ORIGINAL')).toBe(false);
  });

  it('writes slices of the pool starting anywhere, the last position included', () => {
    const pool = new CharPool(new Rng(10), ALNUM, 64);
    const out = Buffer.alloc(64);
    const starts = new Set<number>();
    const rng = new Rng(11);
    for (let i = 0; i < 5000; i++) {
      pool.write(rng, out, 0, 8);
      const at = pool.bytes.indexOf(out.subarray(0, 8));
      expect(at).toBeGreaterThanOrEqual(0);
      starts.add(at);
    }
    expect(starts.size).toBeGreaterThan(50);
    pool.write(rng, out, 0, 64);
    expect(out.equals(pool.bytes)).toBe(true);
  });
});

describe('CopyBuffer.take and full', () => {
  it('take() returns the written bytes and resets length and rows', () => {
    const b = new CopyBuffer();
    b.int(1).tab().text('x').endRow();
    b.int(2).tab().text('y').endRow();
    expect(b.length).toBe(8);
    expect(b.rows).toBe(2);
    const first = b.take();
    expect(first.toString('latin1')).toBe('1\tx\n2\ty\n');
    expect(b.length).toBe(0);
    expect(b.rows).toBe(0);
    expect(b.take()).toHaveLength(0);
  });

  it('a taken buffer is not overwritten by later writes', () => {
    const b = new CopyBuffer();
    b.text('first').endRow();
    const first = b.take();
    b.text('SECOND').endRow();
    const second = b.take();
    expect(first.toString('latin1')).toBe('first\n');
    expect(second.toString('latin1')).toBe('SECOND\n');
  });

  it('full becomes true once the chunk threshold is reached, and false again after take()', () => {
    const b = new CopyBuffer(16);
    expect(b.full).toBe(false);
    b.text('0123456789abcde'); // 15 bytes
    expect(b.full).toBe(false);
    b.tab(); // 16 bytes
    expect(b.full).toBe(true);
    b.text('row that goes past the threshold').endRow(); // headroom beyond the chunk size
    expect(b.full).toBe(true);
    expect(b.take().toString('latin1')).toBe('0123456789abcde\trow that goes past the threshold\n');
    expect(b.full).toBe(false);
    expect(b.length).toBe(0);
  });

  it('fills to the threshold with whole rows, and a flush loop loses nothing', () => {
    const b = new CopyBuffer(1024);
    const chunks: Buffer[] = [];
    const expected: string[] = [];
    let rows = 0;
    for (let i = 1; i <= 5000; i++) {
      b.int(i)
        .tab()
        .text('customer')
        .tab()
        .fixed(i * 7, 2)
        .endRow();
      expected.push(`${i}\tcustomer\t${fixedRef(i * 7, 2)}\n`);
      if (b.full) {
        rows += b.rows;
        chunks.push(b.take());
      }
    }
    rows += b.rows;
    chunks.push(b.take());
    expect(rows).toBe(5000);
    expect(chunks.length).toBeGreaterThan(50);
    for (const c of chunks.slice(0, -1)) {
      expect(c.length).toBeGreaterThanOrEqual(1024);
      expect(c.at(-1)).toBe(10); // every chunk ends on a row boundary
    }
    expect(Buffer.concat(chunks).toString('latin1')).toBe(expected.join(''));
  });
});
