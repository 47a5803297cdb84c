/**
 * Statement templates: statements that differ only in their literals share one. PostgreSQL text
 * goes through the real PostgreSQL parser (libpg_query's fingerprint, which ignores constants,
 * parameter numbers and whitespace, and its normalised text for display). MySQL/MariaDB and SQL
 * Server text is fingerprinted the way pt-query-digest does it (Percona Toolkit): comments
 * dropped, literals and NULL replaced by `?`, IN and VALUES lists collapsed, case and whitespace
 * folded.
 */
import { createHash } from 'node:crypto';
import { fingerprintSync, loadModule, normalizeSync } from 'libpg-query';
import type { SourceKind } from './format.js';
import { MSSQL_FLAVOR, MYSQL_FLAVOR, tokenize, type LexerFlavor } from './sql-lexer.js';

export interface Template {
  /** Stable across runs and machines: the parser's fingerprint, or a hash of the normalised text. */
  id: string;
  /** The statement with its literals replaced, for reports. */
  text: string;
}

/**
 * The PostgreSQL parser is WebAssembly, loaded before the first synchronous call; libpg-query
 * loads it once per process and answers later calls from what it loaded.
 */
export function ensureParser(): Promise<void> {
  return loadModule();
}

const POSTGRES_FALLBACK: LexerFlavor = { backslashEscapes: false, doubleQuotedStrings: false };

/** The template of one statement. Call `ensureParser()` once before the first PostgreSQL statement. */
export function templateOf(sql: string, kind: SourceKind): Template {
  if (kind === 'postgres') {
    try {
      return { id: `pg-${fingerprintSync(sql)}`, text: oneLine(normalizeSync(sql)) };
    } catch {
      // Text the parser refuses (a statement that failed with a syntax error) still gets a template.
      const text = digestText(sql, POSTGRES_FALLBACK);
      return { id: `txt-${hash(text)}`, text };
    }
  }
  const text = digestText(sql, kind === 'mssql' ? MSSQL_FLAVOR : MYSQL_FLAVOR);
  return { id: `${kind === 'mssql' ? 'ms' : 'my'}-${hash(text)}`, text };
}

/** pt-query-digest's fingerprint, on tokens rather than regular expressions over raw text. */
export function digestText(sql: string, flavor: LexerFlavor): string {
  const parts: string[] = [];
  for (const t of tokenize(sql, flavor)) {
    switch (t.kind) {
      case 'comment':
      case 'space':
        if (parts.length > 0 && parts.at(-1) !== ' ') parts.push(' ');
        break;
      case 'string':
      case 'number':
      case 'hex':
      case 'param':
        parts.push('?');
        break;
      case 'word':
        parts.push(t.text.toLowerCase() === 'null' ? '?' : t.text.toLowerCase());
        break;
      default:
        parts.push(t.text);
    }
  }
  return parts
    .join('')
    .trim()
    .replace(/\s*;\s*$/, '')
    .replace(/\s*([),])/g, '$1')
    .replace(/([(,])\s*/g, '$1')
    .replace(/([=<>(,]\s?)-\?/g, '$1?')
    .replace(/\b(in|values)\s*\(\s*\?(?:\s*,\s*\?)*\s*\)(?:\s*,\s*\(\s*\?(?:\s*,\s*\?)*\s*\))*/g, '$1(?+)')
    .replace(/\s+/g, ' ');
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function hash(text: string): string {
  return createHash('sha1').update(text).digest('hex').slice(0, 16);
}
