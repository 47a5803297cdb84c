/**
 * The JSON Schema of a plan file, made from the config file's schema
 * (schema/txbench-config.schema.json, generated from the commands' own flag tables): a step's
 * `options` are checked exactly as that command's section of a config file is, and a plan's
 * `targets` as a config file's. Every problem is one line, in the words of the flag's own check.
 */
import { readFileSync } from 'node:fs';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { configSchemaAjv } from '../config/config-schema-check.js';
import { CONFIG_SCHEMA_FILE } from '../config/config-file.js';
import { PLAN_COMMANDS } from './plan-types.js';

type Json = { [key: string]: unknown };

const STEP_KEYS = 'name, command, options, targets, continue, file';
const PLAN_KEYS = 'name, cost, targets, steps';

/** The plan schema, given the config schema (as parsed JSON). */
export function buildPlanSchema(config: Json): Json {
  const sections = config.properties as Record<string, Json>;
  const definitions = config.definitions as Record<string, Json>;
  const label = {
    type: 'string',
    pattern: '^[\\w.-]+$',
    errorMessage: 'must be a name of letters, digits, ".", "_" or "-"',
  };
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'txbench plan',
    type: 'object',
    additionalProperties: false,
    required: ['steps'],
    properties: {
      name: { ...label, description: 'the plan (default: the file name); names its directory' },
      cost: {
        type: 'string',
        minLength: 1,
        description: 'drive costs for the report (the YAML file of `txbench compare --cost`)',
        errorMessage: 'must be a file path',
      },
      targets: {
        type: 'array',
        minItems: 1,
        items: { $ref: '#/definitions/target' },
        errorMessage: 'must be a list of targets, each with a label and a url (or dataDir)',
      },
      steps: {
        type: 'array',
        minItems: 1,
        items: { $ref: '#/definitions/step' },
        errorMessage: 'must be a list of steps, each with a command',
      },
    },
    definitions: {
      target: definitions.target,
      step: {
        type: 'object',
        additionalProperties: false,
        required: ['command'],
        properties: {
          name: label,
          command: {
            enum: [...PLAN_COMMANDS],
            errorMessage: `must be one of ${PLAN_COMMANDS.join(', ')}`,
          },
          options: { type: 'object', errorMessage: 'must be a map of flag names to values' },
          targets: {
            type: 'array',
            minItems: 1,
            items: { type: 'string' },
            errorMessage: "must be a list of the plan's target labels",
          },
          continue: { type: 'boolean', errorMessage: 'must be true or false' },
          file: { type: 'string', minLength: 1, errorMessage: 'must be a file path' },
        },
        allOf: PLAN_COMMANDS.map((command) => ({
          if: { properties: { command: { const: command } }, required: ['command'] },
          then: { properties: { options: sections[command] } },
        })),
      },
    },
  };
}

/** The schema's complaints about `data`, one per place. */
export type SchemaCheck = (data: unknown) => { where: string; what: string }[];

/** A checker compiled from the shipped config schema. */
export function planSchemaCheck(): SchemaCheck {
  const config = JSON.parse(readFileSync(CONFIG_SCHEMA_FILE, 'utf8')) as Json;
  const ajv = configSchemaAjv();
  const validate: ValidateFunction = ajv.compile(buildPlanSchema(config));
  return (data) => {
    if (validate(data)) return [];
    const byPlace = new Map<string, { what: string; own: boolean }>();
    for (const e of validate.errors ?? []) {
      if (e.keyword === 'if') continue;
      const { where, what, own } = describe(e, data);
      const before = byPlace.get(where);
      if (before === undefined || (own && !before.own)) byPlace.set(where, { what, own });
    }
    return [...byPlace].map(([where, { what }]) => ({ where, what }));
  };
}

function describe(e: ErrorObject, data: unknown): { where: string; what: string; own: boolean } {
  const where = pathOf(e.instancePath);
  if (e.keyword === 'additionalProperties') {
    const key = String((e.params as { additionalProperty: string }).additionalProperty);
    const at = where === '' ? key : `${where}.${key}`;
    if (/^steps\[\d+\]\.options$/.test(where)) {
      const command = commandAt(data, where);
      return {
        where: at,
        what: `unknown flag --${key} of txbench ${command}; see \`txbench ${command} --help\``,
        own: true,
      };
    }
    const what = /^steps\[\d+\]$/.test(where)
      ? `unknown key; a step takes ${STEP_KEYS}`
      : where.startsWith('targets[')
        ? 'unknown key; a target takes label, url (or kind, host, port, user, database), dataDir, passwordEnv, passwordFile, nodeExporter, device'
        : `unknown key; a plan takes ${PLAN_KEYS}`;
    return { where: at, what, own: true };
  }
  if (e.keyword === 'required') {
    const missing = String((e.params as { missingProperty: string }).missingProperty);
    return { where, what: `needs ${missing}`, own: true };
  }
  const own = (e.parentSchema as { errorMessage?: string } | undefined)?.errorMessage;
  return { where, what: own ?? e.message ?? 'is not valid', own: own !== undefined };
}

function commandAt(data: unknown, where: string): string {
  const index = Number(/^steps\[(\d+)\]/.exec(where)?.[1]);
  const steps = (data as { steps?: { command?: unknown }[] }).steps;
  return String(steps?.[index]?.command ?? '?');
}

/** `/steps/2/options/warmup` → `steps[2].options.warmup`. */
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
