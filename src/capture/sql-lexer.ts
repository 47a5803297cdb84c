/**
 * A small SQL tokenizer for MySQL/MariaDB and SQL Server text, enough to tell literals from
 * everything else (PostgreSQL text goes through the real parser's scanner instead). It never
 * fails: text it does not understand comes out as single-character tokens.
 */

export type TokenKind =
  'space' | 'comment' | 'string' | 'number' | 'hex' | 'ident' | 'word' | 'param' | 'punct';

export interface Token {
  kind: TokenKind;
  text: string;
}

export interface LexerFlavor {
  /** Backslash escapes inside quoted strings (MySQL without NO_BACKSLASH_ESCAPES). */
  backslashEscapes: boolean;
  /** "text" is a string (MySQL's default) rather than a quoted identifier (SQL Server, ANSI_QUOTES). */
  doubleQuotedStrings: boolean;
}

export const MYSQL_FLAVOR: LexerFlavor = { backslashEscapes: true, doubleQuotedStrings: true };
export const MSSQL_FLAVOR: LexerFlavor = { backslashEscapes: false, doubleQuotedStrings: false };

export function tokenize(sql: string, flavor: LexerFlavor): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const n = sql.length;
  const push = (kind: TokenKind, end: number): void => {
    tokens.push({ kind, text: sql.slice(i, end) });
    i = end;
  };
  while (i < n) {
    const c = sql[i]!;
    const next = sql[i + 1];
    if (/\s/.test(c)) {
      let j = i + 1;
      while (j < n && /\s/.test(sql[j]!)) j++;
      push('space', j);
    } else if ((c === '-' && next === '-') || c === '#') {
      const j = sql.indexOf('\n', i);
      push('comment', j < 0 ? n : j);
    } else if (c === '/' && next === '*') {
      const j = sql.indexOf('*/', i + 2);
      push('comment', j < 0 ? n : j + 2);
    } else if (c === "'" || (c === '"' && flavor.doubleQuotedStrings)) {
      push('string', quotedEnd(sql, i, c, flavor.backslashEscapes));
    } else if ((c === 'N' || c === 'n') && next === "'") {
      push('string', quotedEnd(sql, i + 1, "'", flavor.backslashEscapes));
    } else if ((c === 'x' || c === 'X' || c === 'b' || c === 'B') && next === "'") {
      push('hex', quotedEnd(sql, i + 1, "'", false));
    } else if (c === '0' && (next === 'x' || next === 'X') && /[0-9a-f]/i.test(sql[i + 2] ?? '')) {
      let j = i + 2;
      while (j < n && /[0-9a-f]/i.test(sql[j]!)) j++;
      push('hex', j);
    } else if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(next ?? ''))) {
      const m = /^(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?/i.exec(sql.slice(i))!;
      // 1abc is an identifier in MySQL, not a number followed by a word.
      const after = sql[i + m[0].length] ?? '';
      if (/[a-z_$]/i.test(after)) push('word', wordEnd(sql, i));
      else push('number', i + m[0].length);
    } else if (c === '`' || (c === '"' && !flavor.doubleQuotedStrings)) {
      push('ident', quotedEnd(sql, i, c, false));
    } else if (c === '[' && !flavor.doubleQuotedStrings) {
      const j = sql.indexOf(']', i);
      push('ident', j < 0 ? n : j + 1);
    } else if (c === '?') {
      push('param', i + 1);
    } else if (/[a-z_$@]/i.test(c) || c.charCodeAt(0) > 127) {
      push('word', wordEnd(sql, i));
    } else {
      push('punct', i + 1);
    }
  }
  return tokens;
}

function wordEnd(sql: string, from: number): number {
  let j = from + 1;
  while (j < sql.length && (/[a-z0-9_$@#]/i.test(sql[j]!) || sql.charCodeAt(j) > 127)) j++;
  return j;
}

/** The index just past a quoted run starting at `from` (the opening quote); doubled quotes stay inside. */
function quotedEnd(sql: string, from: number, quote: string, backslash: boolean): number {
  let j = from + 1;
  while (j < sql.length) {
    const c = sql[j]!;
    if (backslash && c === '\\') j += 2;
    else if (c === quote) {
      if (sql[j + 1] === quote) j += 2;
      else return j + 1;
    } else j++;
  }
  return sql.length;
}
