/**
 * The JSON Schema of the config file (`--config txbench.yaml`), generated from the commands' flag
 * tables (commands.ts), the flags' value types (flag-docs.ts) and the built-in workloads' declared
 * options, so it cannot drift from what the commands accept. schema/txbench-config.schema.json is
 * this, written by `npm run config-schema`; a unit test asserts the two are equal.
 */
import type { OptionSpec, Workload } from '../api.js';
import { COMMAND_FLAGS, CONFIG_COMMANDS, configurableFlags } from './commands.js';
import { COMMAND_FLAG_DOCS, FLAG_DOCS, type FlagDoc, type JsonSchema } from './flag-docs.js';

export const CONFIG_SCHEMA_ID = 'https://unpkg.com/txbench/schema/txbench-config.schema.json';

/** The schema, from the given workloads' options (the built-in ones, in the shipped file). */
export function buildConfigSchema(workloads: readonly Workload[]): JsonSchema {
  const workloadOptions = workloadOptionSchemas(workloads);
  const sections: Record<string, JsonSchema> = {};
  const shared: Record<string, JsonSchema> = {};
  for (const command of CONFIG_COMMANDS) {
    const properties: Record<string, JsonSchema> = {};
    const names = Object.keys(configurableFlags(command));
    if (COMMAND_FLAGS[command] !== undefined && COMMAND_FLAGS[command].workload !== 'none')
      names.push('workload');
    for (const name of names.sort()) {
      const doc = flagDoc(command, name);
      properties[name] = { description: doc.description, ...doc.schema };
      const base = FLAG_DOCS[name];
      if (base !== undefined && !base.sectionOnly && shared[name] === undefined) {
        shared[name] = { description: base.description, ...base.schema };
      }
    }
    if (takesWorkloadOptions(command)) {
      Object.assign(properties, workloadOptions, { 'workload-options': WORKLOAD_OPTIONS_MAP });
    }
    sections[command] = {
      title: `txbench ${command}`,
      description: `Options for \`txbench ${command}\` only; they take precedence over the top-level ones.`,
      type: 'object',
      additionalProperties: false,
      properties,
    };
  }
  // A section-only option at the top level gets its own line, in the file and in the editor.
  for (const [name, doc] of Object.entries(FLAG_DOCS)) {
    if (doc.sectionOnly !== true || sections[name] !== undefined) continue;
    shared[name] = {
      not: {},
      description: `only in a command's section (run:, report:, …): ${doc.description}`,
      errorMessage: `goes in a command's section (run:, report:, …), not at the top level: it means different things to different commands`,
    };
  }
  const clash = Object.keys(shared).find((name) => sections[name] !== undefined);
  if (clash !== undefined)
    throw new Error(`top-level option ${clash} would be read as the ${clash} section; make it sectionOnly`);
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: CONFIG_SCHEMA_ID,
    title: 'txbench config file',
    description:
      "Options for txbench commands (keys are the long flag names: think-scale, warmup, ...). Top-level options apply to every command that takes them; a command's section (run:, load:, ...) overrides them for that command; flags on the command line override both. Values may name environment variables as ${NAME}.",
    type: 'object',
    additionalProperties: false,
    properties: {
      targets: {
        description:
          'The databases, driven together by run; load, check, drop, capture and replay take one (pick it with --target LABEL). A --db or --data-dir on the command line replaces them.',
        type: 'array',
        minItems: 1,
        items: { $ref: '#/definitions/target' },
        errorMessage: 'must be a list of targets, each with a url (or host) and a label',
      },
      ...sortedKeys({ ...shared, ...workloadOptions }),
      'workload-options': WORKLOAD_OPTIONS_MAP,
      ...sections,
    },
    definitions: { target: TARGET_SCHEMA },
  };
}

/** FLAG_DOCS entry of a command's flag; a flag without one is a mistake in the tables. */
function flagDoc(command: string, name: string): FlagDoc {
  const doc = COMMAND_FLAG_DOCS[command]?.[name] ?? FLAG_DOCS[name];
  if (doc === undefined) {
    throw new Error(`--${name} of txbench ${command} has no entry in src/cli/flag-docs.ts FLAG_DOCS`);
  }
  return doc;
}

function takesWorkloadOptions(command: string): boolean {
  return COMMAND_FLAGS[command]?.workload === 'options';
}

function workloadOptionSchemas(workloads: readonly Workload[]): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  const owners: Record<string, string[]> = {};
  for (const workload of workloads) {
    for (const spec of workload.options) {
      (owners[spec.name] ??= []).push(workload.name);
      const schema = optionSchema(spec);
      const before = out[spec.name];
      if (before !== undefined && JSON.stringify(stripDescription(before)) !== JSON.stringify(schema)) {
        throw new Error(
          `workload option --${spec.name} has different types in ${owners[spec.name]!.join(', ')}`,
        );
      }
      out[spec.name] = { description: `${spec.help} (workload ${owners[spec.name]!.join(', ')})`, ...schema };
    }
  }
  return out;
}

function stripDescription(schema: JsonSchema): JsonSchema {
  const { description: _, ...rest } = schema;
  return rest;
}

function optionSchema(spec: OptionSpec): JsonSchema {
  const range = {
    ...(spec.min === undefined ? {} : { minimum: spec.min }),
    ...(spec.max === undefined ? {} : { maximum: spec.max }),
  };
  const between =
    spec.min !== undefined && spec.max !== undefined
      ? ` from ${spec.min} to ${spec.max}`
      : spec.min !== undefined
        ? ` >= ${spec.min}`
        : spec.max !== undefined
          ? ` <= ${spec.max}`
          : '';
  switch (spec.type) {
    case 'integer':
      return { type: 'integer', ...range, errorMessage: `must be a whole number${between}` };
    case 'number':
      return { type: 'number', ...range, errorMessage: `must be a number${between}` };
    case 'boolean':
      return { type: 'boolean', errorMessage: 'must be true or false' };
    case 'choice':
      return {
        type: 'string',
        enum: [...(spec.choices ?? [])],
        errorMessage: `must be one of ${(spec.choices ?? []).join(', ')}`,
      };
    case 'string':
      return { type: 'string', errorMessage: 'must be a text value' };
  }
}

function sortedKeys(record: Record<string, JsonSchema>): Record<string, JsonSchema> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}

/** A workload file's own options (not known to the schema), checked by the workload's declarations. */
const WORKLOAD_OPTIONS_MAP: JsonSchema = {
  description:
    "Options of a workload file's own (--workload ./kv.ts), by flag name; checked against the workload's declarations when it is loaded.",
  type: 'object',
  additionalProperties: { type: ['string', 'number', 'boolean'] },
  errorMessage: 'must be a map of option names to values',
};

const TARGET_SCHEMA: JsonSchema = {
  title: 'target',
  description:
    'One database: a url (or kind, host, port, user, database), or the dataDir of an embedded PostgreSQL. The password comes from passwordEnv or passwordFile, never inline.',
  type: 'object',
  additionalProperties: false,
  properties: {
    label: {
      type: 'string',
      minLength: 1,
      description: 'what the reports call it, e.g. "PX600, 64 GB"',
      errorMessage: 'must be a text value',
    },
    url: {
      type: 'string',
      pattern: '^[A-Za-z][A-Za-z0-9+.-]*:',
      description:
        'postgres://user@host:port/db, mysql:// or mariadb://, sqlite:path, mssql:// or sqlserver:// (without a password)',
      errorMessage: 'must be a database URL such as postgres://user@host:5432/db',
    },
    kind: {
      enum: ['postgres', 'mysql', 'mariadb', 'mssql'],
      description: 'with host: the kind of server (default postgres)',
      errorMessage: 'must be one of postgres, mysql, mariadb, mssql',
    },
    host: {
      type: 'string',
      minLength: 1,
      description: 'the server host name or address',
      errorMessage: 'must be a host name',
    },
    port: {
      type: 'integer',
      minimum: 1,
      maximum: 65535,
      description: "the server's port (default: the kind's)",
      errorMessage: 'must be a whole number from 1 to 65535',
    },
    user: {
      type: 'string',
      minLength: 1,
      description: 'the user name',
      errorMessage: 'must be a text value',
    },
    database: {
      type: 'string',
      minLength: 1,
      description: 'the database name',
      errorMessage: 'must be a text value',
    },
    dataDir: {
      type: 'string',
      minLength: 1,
      description: 'the data directory of an embedded PostgreSQL (instead of url or host)',
      errorMessage: 'must be a directory path',
    },
    passwordEnv: {
      type: 'string',
      pattern: '^[A-Za-z_][A-Za-z0-9_]*$',
      description: 'the environment variable that holds the password, e.g. PGPASSWORD_VM1',
      errorMessage: 'must be an environment variable name, e.g. PGPASSWORD_VM1',
    },
    passwordFile: {
      type: 'string',
      minLength: 1,
      description:
        'a file that holds the password (e.g. a mounted secret, /run/secrets/db); one trailing newline is dropped',
      errorMessage: 'must be a file path',
    },
    password: {
      not: {},
      description: 'refused: never put a password in the file; use passwordEnv or passwordFile',
      errorMessage:
        'an inline password is refused; name an environment variable (passwordEnv) or a file (passwordFile)',
    },
    nodeExporter: {
      type: 'string',
      pattern: '^https?://',
      description: "the database host's Prometheus node_exporter, e.g. http://db1:9100",
      errorMessage: 'must be an http:// or https:// URL, e.g. http://db1:9100',
    },
    device: {
      type: 'string',
      pattern: '^[\\w.-]+$',
      description: 'the disk to watch, by kernel name, e.g. nvme0n1',
      errorMessage: 'must be a kernel disk name such as nvme0n1',
    },
  },
};
