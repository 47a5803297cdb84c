/**
 * The binary COPY rows the loader writes, read back with this file's own decoder of the format
 * (the COPY reference's "Binary Format"), against the text format of the same calls.
 */
import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/random/rng.js';
import { BinaryCopyBuffer, binaryTimestamp } from '../../src/workloads/tpcc/copy-binary.js';
import { CopyBuffer, loadPools, type RowBuffer } from '../../src/workloads/tpcc/copy-buffer.js';

type Field = Buffer | null;

/** Splits whole binary rows into their fields. */
function rows(chunk: Buffer): Field[][] {
  const out: Field[][] = [];
  let p = 0;
  while (p < chunk.length) {
    const n = chunk.readInt16BE(p);
    p += 2;
    const row: Field[] = [];
    for (let i = 0; i < n; i++) {
      const len = chunk.readInt32BE(p);
      p += 4;
      if (len < 0) row.push(null);
      else {
        row.push(chunk.subarray(p, p + len));
        p += len;
      }
    }
    out.push(row);
  }
  expect(p).toBe(chunk.length);
  return out;
}

/** A binary numeric as decimal text with its display scale, as PostgreSQL prints it. */
function numericText(f: Buffer): string {
  const ndigits = f.readInt16BE(0);
  const weight = f.readInt16BE(2);
  const sign = f.readUInt16BE(4);
  const dscale = f.readInt16BE(6);
  expect(f.length).toBe(8 + 2 * ndigits);
  let intPart = '';
  let fracPart = '';
  for (let i = 0; i < ndigits; i++) {
    const d = f.readInt16BE(8 + 2 * i);
    expect(d).toBeGreaterThanOrEqual(0);
    expect(d).toBeLessThan(10_000);
    const pos = weight - i;
    if (pos >= 0) intPart += intPart === '' ? String(d) : String(d).padStart(4, '0');
    else fracPart += String(d).padStart(4, '0');
  }
  // Zero digit groups between the last digit and the point.
  if (ndigits > 0) for (let pos = weight - ndigits; pos >= 0; pos--) intPart += '0000';
  // Zero groups between the point and the first fractional digit.
  if (weight < -1) fracPart = '0000'.repeat(-1 - weight) + fracPart;
  if (intPart === '') intPart = '0';
  fracPart = fracPart.padEnd(dscale, '0').slice(0, dscale);
  const text = dscale > 0 ? `${intPart}.${fracPart}` : intPart;
  return (sign === 0x4000 ? '-' : '') + text;
}

describe('BinaryCopyBuffer', () => {
  it('writes numerics PostgreSQL reads as the text format writes them', () => {
    const values: [number, number][] = [
      [0, 0],
      [0, 2],
      [0, 4],
      [1000, 2],
      [-1000, 2],
      [30_000_000, 2],
      [3_000_000, 2],
      [5_000_000, 2],
      [1, 2],
      [10, 2],
      [100, 2],
      [99_999_999, 2],
      [1, 4],
      [10_000, 4],
      [1234, 4],
      [5000, 4],
      [2000, 4],
      [123_456_789_012, 2],
      [100_000_000, 2],
      [1_000_000_000_000, 2],
      [7, 1],
      [-5, 2],
    ];
    const rng = new Rng(3);
    for (let i = 0; i < 3000; i++) {
      values.push([rng.int(0, 999_999), 2], [rng.int(0, 5000), 4], [rng.int(0, 99_999_999), 0]);
      values.push([-rng.int(1, 99_999_999), 2]);
    }
    const binary = new BinaryCopyBuffer(1 << 22);
    const text = new CopyBuffer(1 << 22);
    for (const [units, scale] of values) {
      binary.fixed(units, scale).endRow();
      text.fixed(units, scale).endRow();
    }
    const decoded = rows(binary.take()).map((r) => numericText(r[0]!));
    expect(decoded).toEqual(text.take().toString('latin1').trimEnd().split('\n'));
  });

  it('writes int4 big-endian, NULL as length -1, text as its bytes, and counts each row', () => {
    const pools = loadPools(9);
    const b = new BinaryCopyBuffer(1024, pools, '2026-12-02 21:50:00.123');
    const rng = new Rng(5);
    b.int(7).tab().int(2_147_483_647).tab().int(-10).tab().null().tab().bytes(Buffer.from('OE')).endRow();
    b.alnum(rng, 8, 16).tab().digits(rng, 16).tab().zip(rng).tab().time().endRow();
    const [first, second] = rows(b.take());
    expect(first!.slice(0, 3).map((f) => f!.readInt32BE(0))).toEqual([7, 2_147_483_647, -10]);
    expect(first![3]).toBeNull();
    expect(first![4]!.toString()).toBe('OE');
    expect(second!).toHaveLength(4);
    expect(second![0]!.toString()).toMatch(/^[0-9A-Za-z]{8,16}$/);
    expect(second![1]!.toString()).toMatch(/^\d{16}$/);
    expect(second![2]!.toString()).toMatch(/^\d{4}11111$/);
    expect(second![3]!.readBigInt64BE(0)).toBe(
      BigInt(Date.UTC(2026, 11, 2, 21, 50, 0, 123) - Date.UTC(2000, 0, 1)) * 1000n,
    );
  });

  it('hands over whole rows only, and starts the next buffer afresh', () => {
    const b = new BinaryCopyBuffer(64);
    let taken: Buffer[] = [];
    for (let i = 0; i < 100; i++) {
      b.int(i)
        .tab()
        .int(i * 2)
        .endRow();
      if (b.full) taken.push(b.take());
    }
    if (b.length > 0) taken.push(b.take());
    const all = taken.flatMap(rows);
    expect(all.map((r) => [r[0]!.readInt32BE(0), r[1]!.readInt32BE(0)])).toEqual(
      Array.from({ length: 100 }, (_, i) => [i, i * 2]),
    );
    taken = [];
    expect(b.length).toBe(0);
  });

  it('gives the same rows as the text format for the same calls (one RowBuffer, two formats)', () => {
    const write = (out: RowBuffer): void => {
      const rng = new Rng(11);
      for (let i = 0; i < 50; i++) {
        out.int(i).tab().alnum(rng, 5, 9).tab().fixed(rng.int(0, 9999), 2).tab();
        if (i % 3 === 0) out.null();
        else out.int(rng.int(1, 10));
        out
          .tab()
          .dataString(rng, 26, 50, i % 10 === 0)
          .endRow();
      }
    };
    const pools = loadPools(4);
    const binary = new BinaryCopyBuffer(1 << 16, pools);
    const text = new CopyBuffer(1 << 16, pools);
    write(binary);
    write(text);
    const fromBinary = rows(binary.take()).map((r) =>
      [
        String(r[0]!.readInt32BE(0)),
        r[1]!.toString(),
        numericText(r[2]!),
        r[3] ? String(r[3].readInt32BE(0)) : '\\N',
        r[4]!.toString(),
      ].join('\t'),
    );
    expect(fromBinary).toEqual(text.take().toString('latin1').trimEnd().split('\n'));
  });

  it('refuses a load time it cannot read and a scale beyond 4', () => {
    expect(() => binaryTimestamp('yesterday')).toThrow(/not a load time/);
    expect(() => new BinaryCopyBuffer().fixed(1, 5)).toThrow(/scale 5/);
  });
});
