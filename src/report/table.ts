/**
 * One table, three renderings: aligned text for the terminal, Markdown for a review, CSV for a
 * spreadsheet or a script. Each column says how to show a row (`text`) and, for CSV, the raw value
 * (`csv`: full precision, no thousands separators; `null` is an empty field).
 */

export type TableFormat = 'text' | 'markdown' | 'csv';
export const TABLE_FORMATS: readonly TableFormat[] = ['text', 'markdown', 'csv'];

export interface Column<R> {
  header: string;
  align: 'left' | 'right';
  text: (row: R) => string;
  csv?: (row: R) => string | number | null;
}

export function formatTable<R>(
  columns: readonly Column<R>[],
  rows: readonly R[],
  format: TableFormat,
): string {
  switch (format) {
    case 'text':
      return textTable(
        columns,
        rows.map((r) => columns.map((c) => c.text(r))),
      );
    case 'markdown':
      return markdownTable(
        columns,
        rows.map((r) => columns.map((c) => c.text(r))),
      );
    case 'csv':
      return [
        columns.map((c) => csvField(c.header)),
        ...rows.map((r) => columns.map((c) => csvField(c.csv ? c.csv(r) : c.text(r)))),
      ]
        .map((fields) => fields.join(','))
        .join('\n');
  }
}

/** Columns two spaces apart, each as wide as its widest cell; text left, numbers right. */
function textTable<R>(columns: readonly Column<R>[], cells: string[][]): string {
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((row) => row[i]!.length)));
  const line = (values: string[]): string =>
    values
      .map((v, i) => (columns[i]!.align === 'right' ? v.padStart(widths[i]!) : v.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.header)), ...cells.map(line)].join('\n');
}

function markdownTable<R>(columns: readonly Column<R>[], cells: string[][]): string {
  const line = (values: string[]): string => `| ${values.map(markdownCell).join(' | ')} |`;
  const rule = `|${columns.map((c) => (c.align === 'right' ? ' ---: ' : ' --- ')).join('|')}|`;
  return [line(columns.map((c) => c.header)), rule, ...cells.map(line)].join('\n');
}

/** A pipe would end the cell and a newline the row. */
function markdownCell(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

/** RFC 4180: a field holding a comma, a quote or a line break is quoted, its quotes doubled. */
export function csvField(value: string | number | null): string {
  if (value === null) return '';
  const s = String(value);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}
