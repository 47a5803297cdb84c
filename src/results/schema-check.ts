/**
 * A JSON Schema compiled with ajv (strict: a mistake in the schema itself fails). An object, not a
 * module-level function: ajv records each call's complaints on the compiled function, so whoever
 * checks owns the compiled schema.
 */
import { Ajv, type ValidateFunction } from 'ajv';

export class SchemaCheck {
  private readonly validate: ValidateFunction;

  constructor(schema: object) {
    this.validate = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true }).compile(schema);
  }

  /** The schema's complaints, one per line (empty when valid). */
  errors(value: unknown): string[] {
    if (this.validate(value)) return [];
    return (this.validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);
  }
}
