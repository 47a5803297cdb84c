/**
 * `--redact-literals`: every literal in the SQL text and every bind parameter becomes a typed
 * placeholder (`?int`, `?num`, `?str`, `?hex`, `?bool`, `?time`, `?array`), so that a workload file can leave
 * the building with its shape and timing but none of its data. NULL stays NULL: it tells nothing.
 */
import { scanSync } from 'libpg-query';
import type { SourceKind } from './format.js';
import { MSSQL_FLAVOR, MYSQL_FLAVOR, tokenize } from './sql-lexer.js';
import { ensureParser } from './fingerprint.js';

export type Placeholder = '?int' | '?num' | '?str' | '?hex' | '?bool' | '?time' | '?array';

/** The placeholder for a parameter given as text. */
export function placeholderFor(value: string): Placeholder {
  const v = value.trim();
  if (/^[+-]?\d+$/.test(v)) return '?int';
  if (/^[+-]?(\d+\.\d*|\.\d+|\d+)(e[+-]?\d+)?$/i.test(v)) return '?num';
  if (/^(t|f|true|false)$/i.test(v)) return '?bool';
  if (/^\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?([+-]\d{2}(:?\d{2})?|Z| UTC)?$/i.test(v))
    return '?time';
  if (/^\\x[0-9a-f]*$/i.test(v)) return '?hex';
  if (/^\{[\s\S]*\}$/.test(v)) return '?array';
  return '?str';
}

export function redactParams(params: readonly (string | null)[]): (string | null)[] {
  return params.map((p) => (p === null ? null : placeholderFor(p)));
}

/** The SQL text with its literals replaced; PostgreSQL text through the real parser's scanner. */
export async function redactSql(sql: string, kind: SourceKind): Promise<string> {
  if (kind === 'postgres') {
    await ensureParser();
    return redactPostgres(sql);
  }
  return redactLexed(sql, kind);
}

function redactPostgres(sql: string): string {
  let scanned;
  try {
    scanned = scanSync(sql);
  } catch {
    // Text the scanner cannot read: nothing of it may leave, so it is replaced whole.
    return '?unreadable';
  }
  let out = '';
  let at = 0;
  // Between tokens there is whitespace, or comments, which may hold anything: they go.
  const gap = (text: string): string => (/\S/.test(text) ? ' ' : text);
  for (const token of scanned.tokens) {
    const kind = pgLiteralKind(token.tokenName, token.text);
    const text = token.tokenName.endsWith('COMMENT') ? ' ' : (kind ?? token.text);
    out += gap(sql.slice(at, token.start)) + text;
    at = token.end;
  }
  return out + gap(sql.slice(at));
}

function pgLiteralKind(tokenName: string, text: string): Placeholder | undefined {
  switch (tokenName) {
    case 'ICONST':
      return '?int';
    case 'FCONST':
      return '?num';
    case 'SCONST':
    case 'USCONST':
      return '?str';
    case 'BCONST':
    case 'XCONST':
      return '?hex';
    default:
      // The scanner names bit-string constants by number in some builds: x'..' and b'..' by shape.
      return /^[bx]'/i.test(text) ? '?hex' : undefined;
  }
}

function redactLexed(sql: string, kind: SourceKind): string {
  const flavor = kind === 'mssql' ? MSSQL_FLAVOR : MYSQL_FLAVOR;
  return tokenize(sql, flavor)
    .map((t) => {
      if (t.kind === 'string') return '?str';
      if (t.kind === 'hex') return '?hex';
      if (t.kind === 'number') return /^\d+$/.test(t.text) ? '?int' : '?num';
      // Comments may hold anything (hints with values, user names): they go too.
      if (t.kind === 'comment') return ' ';
      return t.text;
    })
    .join('');
}
