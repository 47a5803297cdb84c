/**
 * The config file (`--config txbench.yaml`, YAML or JSON): read, `${NAME}` references replaced
 * from the environment, checked against schema/txbench-config.schema.json and for what a schema
 * cannot say (one address per target, passwords that exist and are not inline), with every
 * problem collected and reported together, one line each. Turning the options into a command's
 * flags is the CLI's business (src/cli/config-intake.ts).
 */
import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { isMap, parseDocument, parse as parseYaml } from 'yaml';
import { UsageError } from '../errors.js';

export const CONFIG_SCHEMA_FILE = new URL('../../schema/txbench-config.schema.json', import.meta.url);

/** A config file's problems, each a line `config FILE: PATH: what is wrong` (exit 2). */
export class ConfigProblems extends UsageError {
  constructor(readonly lines: readonly string[]) {
    super(lines.join('\n'));
    this.name = 'ConfigProblems';
  }
}

export type ConfigScalar = string | number | boolean;
export type ConfigValue = ConfigScalar | ConfigValue[] | { [key: string]: ConfigValue };
export type ConfigOptions = Record<string, ConfigValue>;

/** A target with its password in hand: `url` holds it, so it is never printed (use `label`). */
export interface ConfigTarget {
  label?: string | undefined;
  url?: string | undefined;
  dataDir?: string | undefined;
  nodeExporter?: string | undefined;
  device?: string | undefined;
}

export interface ConfigFile {
  file: string;
  /** The top-level options, for every command that takes them. */
  options: ConfigOptions;
  /** Each command's own section, by command name. */
  sections: Record<string, ConfigOptions>;
  targets: ConfigTarget[];
}

/** Reads and checks `file`; throws ConfigProblems listing everything wrong with it. */
export function readConfigFile(file: string, env: NodeJS.ProcessEnv = process.env): ConfigFile {
  const problem = (where: string, what: string): string =>
    `config ${file}: ${where === '' ? '' : `${where}: `}${what}`;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new ConfigProblems([problem('', `cannot read it (${code}); check the path given to --config`)]);
  }
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    throw new ConfigProblems(
      doc.errors.map((e) => {
        const at = e.linePos?.[0];
        const where = at === undefined ? '' : `line ${at.line}, column ${at.col}`;
        const message = e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
        return problem(where, `${message} (YAML or JSON syntax)`);
      }),
    );
  }
  if (doc.contents === null)
    throw new ConfigProblems([problem('', 'is empty; give options such as `terminals: 10`')]);
  if (!isMap(doc.contents)) {
    throw new ConfigProblems([
      problem('', 'must be a mapping of option names to values, e.g. `terminals: 10`'),
    ]);
  }
  const problems: string[] = [];
  const unset: string[] = [];
  const data = interpolate(doc.toJS() as unknown, '', env, (where, what) => {
    unset.push(where);
    problems.push(problem(where, what));
  });
  // A value whose variable is unset is reported once, for that, not again for its form.
  const covered = (where: string): boolean =>
    unset.some((u) => u === where || u.startsWith(`${where}.`) || u.startsWith(`${where}[`));
  for (const line of schemaProblems(data))
    if (!covered(line.where)) problems.push(problem(line.where, line.what));
  if (typeof data !== 'object' || data === null) throw new ConfigProblems(problems);

  const options: ConfigOptions = {};
  const sections: Record<string, ConfigOptions> = {};
  const raw = data as Record<string, ConfigValue>;
  const sectionNames = sectionsOfSchema();
  for (const [key, value] of Object.entries(raw)) {
    if (key === 'targets') continue;
    if (sectionNames.has(key)) sections[key] = value as ConfigOptions;
    else options[key] = value;
  }
  const listed = Array.isArray(raw.targets) ? raw.targets : [];
  const targets = listed.map((t, i) =>
    typeof t === 'object' && !Array.isArray(t)
      ? resolveTarget(t, `targets[${i}]`, env, (where, what) => problems.push(problem(where, what)))
      : {},
  );
  const labels = targets.map((t) => t.label);
  if (targets.length > 1) {
    labels.forEach((label, i) => {
      if (label === undefined)
        problems.push(problem(`targets[${i}]`, 'needs a label when there are several targets'));
      else if (labels.indexOf(label) !== i)
        problems.push(problem(`targets[${i}].label`, `"${label}" is used twice`));
    });
  }
  for (const [where, options_] of [['', options], ...Object.entries(sections)] as [string, ConfigOptions][]) {
    if (typeof options_ !== 'object' || options_ === null) continue;
    const shard = options_.shard;
    if (typeof shard === 'object' && !Array.isArray(shard)) {
      const { index, base = 1, count } = shard as { index: unknown; base?: unknown; count: unknown };
      if (typeof index !== 'number' || typeof base !== 'number' || typeof count !== 'number') continue;
      if (index < base || index >= base + count) {
        problems.push(
          problem(
            `${where === '' ? '' : `${where}.`}shard.index`,
            `${index} is outside ${base}..${base + count - 1} (base ${base}, count ${count})`,
          ),
        );
      }
    }
  }
  // One line per place: the schema's word on a value, not a second one from the checks after it.
  const seen = new Set<string>();
  const lines = problems.filter((line) => {
    const place = line.slice(0, line.indexOf(': ', `config ${file}: `.length));
    if (seen.has(place)) return false;
    seen.add(place);
    return true;
  });
  if (lines.length > 0) throw new ConfigProblems(lines);
  return { file, options, sections, targets };
}

/** `{index, base, count}` or "I/N" as `--shard`'s 1-based "I/N". */
export function shardText(value: ConfigValue): string {
  if (typeof value !== 'object' || Array.isArray(value)) return String(value).replace(/\s+/g, '');
  const { index, base = 1, count } = value as { index: number; base?: number; count: number };
  return `${index - base + 1}/${count}`;
}

const REFERENCE = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * Replaces each `${NAME}` in a string value by the variable's value (`$${` is a literal `${`).
 * A value that is one reference and nothing else takes the type YAML gives the variable's text,
 * so `terminals: ${TERMINALS}` is a number and `index: ${JOB_COMPLETION_INDEX}` an integer.
 */
function interpolate(
  value: unknown,
  where: string,
  env: NodeJS.ProcessEnv,
  report: (where: string, what: string) => void,
): unknown {
  if (typeof value === 'string') {
    if (!value.includes('${')) return value;
    let missing = false;
    const replaced = value.replace(REFERENCE, (whole, name: string | undefined) => {
      if (name === undefined) return '${';
      const v = env[name];
      if (v === undefined || v === '') {
        report(where, `\${${name}} is not set in the environment; set it or write the value`);
        missing = true;
        return whole;
      }
      return v;
    });
    if (missing) return value;
    const whole = /^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/.test(value);
    if (whole) {
      try {
        const typed: unknown = parseYaml(replaced);
        if (typeof typed === 'number' || typeof typed === 'boolean') return typed;
      } catch {
        // Not a YAML scalar: it stays text.
      }
    }
    return replaced;
  }
  if (Array.isArray(value)) return value.map((v, i) => interpolate(v, `${where}[${i}]`, env, report));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        interpolate(v, where === '' ? k : `${where}.${k}`, env, report),
      ]),
    );
  }
  return value;
}

let compiled: { validate: ValidateFunction; sections: Set<string> } | undefined;

function schema(): { validate: ValidateFunction; sections: Set<string> } {
  if (compiled === undefined) {
    const json = JSON.parse(readFileSync(CONFIG_SCHEMA_FILE, 'utf8')) as {
      properties: Record<string, { type?: string; title?: string }>;
    };
    const ajv = new Ajv({
      allErrors: true,
      verbose: true,
      strict: true,
      strictTypes: false,
      allowUnionTypes: true,
    });
    ajv.addKeyword({ keyword: 'errorMessage', schemaType: 'string' });
    const sections = Object.entries(json.properties)
      .filter(([, s]) => s.type === 'object' && s.title?.startsWith('txbench '))
      .map(([k]) => k);
    compiled = { validate: ajv.compile(json), sections: new Set(sections) };
  }
  return compiled;
}

function sectionsOfSchema(): Set<string> {
  return schema().sections;
}

/** The schema's complaints, one per place, in the words of the flag's own check. */
function schemaProblems(data: unknown): { where: string; what: string }[] {
  const { validate } = schema();
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

/** One `targets:` entry as a URL (with the password read), or a data directory. */
function resolveTarget(
  t: Record<string, ConfigValue>,
  where: string,
  env: NodeJS.ProcessEnv,
  report: (where: string, what: string) => void,
): ConfigTarget {
  const str = (k: string): string | undefined => (typeof t[k] === 'string' ? t[k] : undefined);
  const given = (['url', 'host', 'dataDir'] as const).filter((k) => t[k] !== undefined);
  const out: ConfigTarget = {
    label: str('label'),
    nodeExporter: str('nodeExporter'),
    device: str('device'),
  };
  if (given.length !== 1) {
    report(
      where,
      given.length === 0
        ? 'needs a url, a host or a dataDir'
        : `give one of ${given.join(', ')}, not several`,
    );
    return out;
  }
  const passwordEnv = str('passwordEnv');
  const passwordFile = str('passwordFile');
  if (passwordEnv !== undefined && passwordFile !== undefined) {
    report(where, 'give passwordEnv or passwordFile, not both');
    return out;
  }
  if (given[0] === 'dataDir') {
    if (passwordEnv !== undefined || passwordFile !== undefined) {
      report(where, 'an embedded PostgreSQL (dataDir) takes no password; drop passwordEnv/passwordFile');
    }
    return { ...out, dataDir: str('dataDir') };
  }
  for (const k of ['kind', 'port', 'user', 'database'] as const) {
    if (given[0] === 'url' && t[k] !== undefined)
      report(`${where}.${k}`, 'goes with host, not with url; put it in the url');
  }
  let url: URL;
  try {
    url = given[0] === 'url' ? new URL(str('url')!) : urlFromParts(t);
  } catch {
    report(`${where}.${given[0]}`, 'is not a valid URL (check its form: postgres://user@host:5432/db)');
    return out;
  }
  const inline = url.password !== '' || [...url.searchParams.keys()].some((k) => /pass(word)?|pwd/i.test(k));
  if (inline) {
    report(
      `${where}.url`,
      'has a password in it, which is refused; take it out and name passwordEnv or passwordFile',
    );
    return out;
  }
  let password: string | undefined;
  if (passwordEnv !== undefined) {
    password = env[passwordEnv];
    if (password === undefined || password === '') {
      report(`${where}.passwordEnv`, `${passwordEnv} is not set in the environment`);
      return out;
    }
  } else if (passwordFile !== undefined) {
    try {
      password = readFileSync(passwordFile, 'utf8').replace(/\r?\n$/, '');
    } catch (err) {
      report(
        `${where}.passwordFile`,
        `cannot read ${passwordFile} (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
      );
      return out;
    }
  }
  if (password !== undefined) {
    if (url.host === '') {
      report(where, `a ${url.protocol} target takes no password; drop passwordEnv/passwordFile`);
      return out;
    }
    // The URL setter percent-encodes what a password may hold (@, /, :).
    url.password = password;
  }
  return { ...out, url: url.toString() };
}

const DEFAULT_PORTS: Readonly<Record<string, number>> = {
  postgres: 5432,
  mysql: 3306,
  mariadb: 3306,
  mssql: 1433,
};

function urlFromParts(t: Record<string, ConfigValue>): URL {
  const kind = typeof t.kind === 'string' ? t.kind : 'postgres';
  const url = new URL(`${kind}://${String(t.host)}`);
  url.port = String(typeof t.port === 'number' ? t.port : DEFAULT_PORTS[kind]);
  if (typeof t.user === 'string') url.username = t.user;
  if (typeof t.database === 'string') url.pathname = `/${encodeURIComponent(t.database)}`;
  return url;
}
