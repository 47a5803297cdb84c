/**
 * A config file's data checked against schema/txbench-config.schema.json (ajv), each problem one
 * line in the words the option's `errorMessage` gives (the same words an editor shows).
 */
import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';

export const CONFIG_SCHEMA_FILE = new URL('../../schema/txbench-config.schema.json', import.meta.url);

/** An ajv set up for the config schema (and schemas built from it): every error, its own keyword. */
export function configSchemaAjv(): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    verbose: true,
    strict: true,
    strictTypes: false,
    allowUnionTypes: true,
  });
  ajv.addKeyword({ keyword: 'errorMessage', schemaType: 'string' });
  return ajv;
}

/**
 * The config schema compiled, for one config file: compiling takes ajv a few milliseconds, and a
 * command reads one config file, so each reading compiles its own rather than sharing a cache.
 */
export class ConfigSchemaCheck {
  private readonly validate: ValidateFunction;
  /** The schema's per-command sections (`run`, `load`…): options under them apply to that command. */
  readonly sections: ReadonlySet<string>;

  constructor() {
    const json = JSON.parse(readFileSync(CONFIG_SCHEMA_FILE, 'utf8')) as {
      properties: Record<string, { type?: string; title?: string }>;
    };
    const ajv = configSchemaAjv();
    const sections = Object.entries(json.properties)
      .filter(([, s]) => s.type === 'object' && s.title?.startsWith('txbench '))
      .map(([k]) => k);
    this.validate = ajv.compile(json);
    this.sections = new Set(sections);
  }

  /** The schema's complaints, one per place, in the words of the flag's own check. */
  problems(data: unknown): { where: string; what: string }[] {
    const { validate } = this;
    if (validate(data)) return [];
    // One line per place: the option's own errorMessage where one of its complaints has it (a
    // oneOf's branches would only say "must be string"), else the first complaint.
    const byPlace = new Map<string, { what: string; own: boolean }>();
    for (const e of validate.errors ?? []) {
      const { where, what, own } = describe(e);
      const before = byPlace.get(where);
      if (before === undefined || (own && !before.own)) byPlace.set(where, { what, own });
    }
    return [...byPlace].map(([where, { what }]) => ({ where, what }));
  }
}

function describe(e: ErrorObject): { where: string; what: string; own: boolean } {
  const where = pathOf(e.instancePath);
  if (e.keyword === 'additionalProperties') {
    const key = String((e.params as { additionalProperty: string }).additionalProperty);
    const at = where === '' ? key : `${where}.${key}`;
    const section = where === '' ? 'any txbench command' : `txbench ${where.split('.')[0]}`;
    const what = where.startsWith('targets[')
      ? 'unknown key; a target takes label, url (or kind, host, port, user, database), dataDir, passwordEnv, passwordFile, nodeExporter, device'
      : `unknown key: not an option of ${section}; keys are long flag names such as think-scale`;
    return { where: at, what, own: true };
  }
  if (e.keyword === 'required') {
    const missing = String((e.params as { missingProperty: string }).missingProperty);
    return { where, what: `needs ${missing}`, own: false };
  }
  const parent = e.parentSchema as { errorMessage?: string } | undefined;
  const own = parent?.errorMessage;
  // Inside a oneOf branch the branch has no errorMessage; the option above it does.
  return { where, what: own ?? e.message ?? 'is not valid', own: own !== undefined };
}

/** `/run/terminals` → `run.terminals`; `/targets/0/url` → `targets[0].url`. */
function pathOf(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce(
      (out, part) => (/^\d+$/.test(part) ? `${out}[${part}]` : out === '' ? part : `${out}.${part}`),
      '',
    );
}
