/** Rows of values as PostgreSQL COPY text (tab-separated, \N for NULL), the loaders' common format. */

const SPECIAL = /[\\\t\n\r]/g;
const ESCAPES: Readonly<Record<string, string>> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

function field(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  const text = typeof value === 'string' ? value : String(value);
  return text.replace(SPECIAL, (c) => ESCAPES[c]!);
}

/** Encodes rows into chunks of about `chunkBytes` each. */
export function* copyTextChunks(
  rows: Iterable<readonly unknown[]>,
  chunkBytes = 256 * 1024,
): Generator<Buffer> {
  let lines: string[] = [];
  let size = 0;
  for (const row of rows) {
    const line = row.map(field).join('\t') + '\n';
    lines.push(line);
    size += line.length;
    if (size >= chunkBytes) {
      yield Buffer.from(lines.join(''));
      lines = [];
      size = 0;
    }
  }
  if (lines.length > 0) yield Buffer.from(lines.join(''));
}
