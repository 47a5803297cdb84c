/**
 * The config file (`--config txbench.yaml`, YAML or JSON): read, `${NAME}` references replaced
 * from the environment, checked against schema/txbench-config.schema.json and for what a schema
 * cannot say (one address per target, passwords that exist and are not inline), with every
 * problem collected and reported together, one line each. Turning the options into a command's
 * flags is the CLI's business (src/cli/config-intake.ts).
 */
import { readFileSync } from 'node:fs';
import { isMap, parseDocument } from 'yaml';
import { UsageError } from '../errors.js';
import { ConfigSchemaCheck } from './config-schema-check.js';
import { resolveTarget } from './config-target.js';
import { interpolate } from './interpolate.js';
import type { ConfigFile, ConfigOptions, ConfigValue } from './config-types.js';

export type { ConfigFile, ConfigOptions, ConfigTarget, ConfigValue } from './config-types.js';

export { CONFIG_SCHEMA_FILE } from './config-schema-check.js';

/** A config file's problems, each a line `config FILE: PATH: what is wrong` (exit 2). */
export class ConfigProblems extends UsageError {
  constructor(readonly lines: readonly string[]) {
    super(lines.join('\n'));
    this.name = 'ConfigProblems';
  }
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
  const schema = new ConfigSchemaCheck();
  for (const line of schema.problems(data))
    if (!covered(line.where)) problems.push(problem(line.where, line.what));
  if (typeof data !== 'object' || data === null) throw new ConfigProblems(problems);

  const options: ConfigOptions = {};
  const sections: Record<string, ConfigOptions> = {};
  const raw = data as Record<string, ConfigValue>;
  const sectionNames = schema.sections;
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
