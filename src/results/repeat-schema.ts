/** schema/repeat.schema.json, and its check. */
import { readFileSync } from 'node:fs';
import { SchemaCheck } from './schema-check.js';

/** A compiled check of repeat.json against its schema (compile once, check many). */
export function repeatSchemaCheck(): SchemaCheck {
  const schema = JSON.parse(
    readFileSync(new URL('../../schema/repeat.schema.json', import.meta.url), 'utf8'),
  ) as object;
  return new SchemaCheck(schema);
}
