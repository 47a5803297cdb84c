/**
 * Reads the PostgreSQL COPY text the loader generates (one row per line, tab-separated, `\N` for
 * NULL) into flat arrays of bind values. The generator never escapes anything (its values are
 * plain ASCII without tabs, newlines or backslashes), so neither does this.
 */

/** A run of rows as one flat array of values, `columns` per row, ready to bind. */
export interface ParsedRows {
  values: (string | null)[];
  rows: number;
}

/**
 * Splits COPY text into rows. Chunks may end in the middle of a line: the unfinished tail is
 * returned as `rest` and must be passed back, prefixed, with the next chunk (or flushed with a
 * final newline at the end of the stream).
 */
export function parseCopyText(text: string, columns: number): ParsedRows & { rest: string } {
  const values: (string | null)[] = [];
  let rows = 0;
  let start = 0;
  for (;;) {
    const end = text.indexOf('\n', start);
    if (end < 0) break;
    if (end > start) {
      const fields = text.slice(start, end).split('\t');
      if (fields.length !== columns) {
        throw new Error(
          `COPY row ${rows + 1} has ${fields.length} fields, expected ${columns}: ${text.slice(start, Math.min(end, start + 80))}`,
        );
      }
      for (const f of fields) values.push(f === '\\N' ? null : f);
      rows++;
    }
    start = end + 1;
  }
  return { values, rows, rest: text.slice(start) };
}
