/** schema/run.schema.json, and its check. */
import { readFileSync } from 'node:fs';
import { SchemaCheck } from './schema-check.js';

export const RUN_SCHEMA_FILE = new URL('../../schema/run.schema.json', import.meta.url);

export const runSchema = JSON.parse(readFileSync(RUN_SCHEMA_FILE, 'utf8')) as Readonly<{
  properties: { schemaVersion: { const: number } };
}>;

/** A compiled check of run.json against its schema (compile once, check many). */
export function runSchemaCheck(): SchemaCheck {
  return new SchemaCheck(runSchema);
}
