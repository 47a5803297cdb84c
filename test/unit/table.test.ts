import { describe, expect, it } from 'vitest';
import { csvField, formatTable, type Column } from '../../src/report/table.js';
import { amount, millis, orNa, twoDecimals, whole } from '../../src/report/numbers.js';

interface Row {
  name: string;
  value: number;
}
const COLUMNS: Column<Row>[] = [
  { header: 'name', align: 'left', text: (r) => r.name },
  { header: 'value', align: 'right', text: (r) => twoDecimals(r.value), csv: (r) => r.value },
];
const ROWS: Row[] = [
  { name: 'a', value: 1234.5 },
  { name: 'longer name', value: 7 },
];

describe('text tables', () => {
  it('pads each column to its widest cell, text left and numbers right, two spaces apart', () => {
    expect(formatTable(COLUMNS, ROWS, 'text')).toBe(
      ['name            value', 'a            1,234.50', 'longer name      7.00'].join('\n'),
    );
  });

  it('is as wide as the header when the cells are narrower, with no trailing spaces', () => {
    const cols: Column<Row>[] = [
      { header: 'a long header', align: 'left', text: (r) => r.name },
      { header: 'x', align: 'left', text: () => '' },
    ];
    expect(formatTable(cols, [{ name: 'a', value: 0 }], 'text')).toBe('a long header  x\na');
  });

  it('prints only the header for no rows', () => {
    expect(formatTable(COLUMNS, [], 'text')).toBe('name  value');
  });
});

describe('Markdown tables', () => {
  it('has a header, an alignment rule (numbers right) and one line per row', () => {
    expect(formatTable(COLUMNS, ROWS, 'markdown')).toBe(
      ['| name | value |', '| --- | ---: |', '| a | 1,234.50 |', '| longer name | 7.00 |'].join('\n'),
    );
  });

  it('escapes pipes and backslashes and flattens line breaks in cells', () => {
    const out = formatTable(COLUMNS, [{ name: 'a|b\\c\nd', value: 1 }], 'markdown');
    expect(out.split('\n')[2]).toBe('| a\\|b\\\\c d | 1.00 |');
  });
});

describe('CSV', () => {
  it('uses the raw values: full precision, no thousands separators', () => {
    expect(formatTable(COLUMNS, ROWS, 'csv')).toBe('name,value\na,1234.5\nlonger name,7');
  });

  it.each([
    ['plain', 'plain'],
    ['PX600, 64 GB', '"PX600, 64 GB"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['cr\r', '"cr\r"'],
    ['', ''],
  ])('quotes %j as %j', (value, expected) => {
    expect(csvField(value)).toBe(expected);
  });

  it('writes numbers as they are and null as an empty field', () => {
    expect(csvField(0.000156)).toBe('0.000156');
    expect(csvField(null)).toBe('');
  });
});

describe('numbers for people', () => {
  it('formats whole numbers, two decimals and milliseconds', () => {
    expect(whole(12615.66)).toBe('12,615');
    expect(twoDecimals(12615.656)).toBe('12,615.66');
    expect(millis(3.14159)).toBe('3.14');
    expect(millis(31.4159)).toBe('31.4');
    expect(millis(314.159)).toBe('314');
  });

  it('keeps three significant figures below 1 and two decimals from 1 up', () => {
    expect(amount(0)).toBe('0.00');
    expect(amount(1.171875)).toBe('1.17');
    expect(amount(4800)).toBe('4,800.00');
    expect(amount(0.78125)).toBe('0.781');
    expect(amount(0.00015625)).toBe('0.000156');
    expect(amount(3.3333e-7)).toBe('3.33e-7');
  });

  it('says n/a for null, undefined and non-finite figures', () => {
    expect(orNa(null, whole)).toBe('n/a');
    expect(orNa(undefined, whole)).toBe('n/a');
    expect(orNa(Infinity, whole)).toBe('n/a');
    expect(orNa(5, whole)).toBe('5');
  });
});
