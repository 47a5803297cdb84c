/** schema/run.schema.json compiled with ajv (strict: a mistake in the schema itself fails). */
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';

export const RUN_SCHEMA_FILE = new URL('../../schema/run.schema.json', import.meta.url);

export const runSchema = JSON.parse(readFileSync(RUN_SCHEMA_FILE, 'utf8')) as {
  properties: { schemaVersion: { const: number } };
};

export const validateRun: ValidateFunction = new Ajv({
  allErrors: true,
  strict: true,
  allowUnionTypes: true,
}).compile(runSchema);

/** The schema's complaints, one per line (empty when valid). */
export function schemaErrors(value: unknown): string[] {
  if (validateRun(value)) return [];
  return (validateRun.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);
}
