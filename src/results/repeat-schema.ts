/** schema/repeat.schema.json compiled with ajv (strict: a mistake in the schema itself fails). */
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';

const schema = JSON.parse(
  readFileSync(new URL('../../schema/repeat.schema.json', import.meta.url), 'utf8'),
) as object;

const validate: ValidateFunction = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true }).compile(
  schema,
);

/** The schema's complaints about a repeat.json, one per line (empty when valid). */
export function repeatSchemaErrors(value: unknown): string[] {
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);
}
