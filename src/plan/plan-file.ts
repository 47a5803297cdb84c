/**
 * Reads a plan file (YAML or JSON) and checks all of it before anything runs: the schema (each
 * step's options as its command's flags), then what a schema cannot say (target labels, step
 * names, each step's workload and the workload's options, files that must exist). Every problem
 * is collected and reported together, one line each (ConfigProblems, exit 2).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { isMap, parseDocument } from 'yaml';
import { ConfigProblems } from '../config/config-file.js';
import type { ConfigValue } from '../config/config-types.js';
import { interpolate } from '../config/interpolate.js';
import { errorMessage } from '../errors.js';
import { findWorkload } from '../workloads/registry.js';
import type { SchemaCheck } from './plan-schema.js';
import {
  PLAN_COMMANDS,
  type CommandTable,
  type Plan,
  type PlanCommand,
  type PlanStep,
} from './plan-types.js';

type Raw = Record<string, ConfigValue>;

/** Reads and checks `file`; throws ConfigProblems naming everything wrong with it. */
export async function readPlanFile(
  file: string,
  check: SchemaCheck,
  commands: CommandTable,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Plan> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new ConfigProblems([`plan ${file}: cannot read it (${code}); check the path`]);
  }
  return parsePlan(text, file, check, commands, env);
}

/** The plan in `text` (the file's contents), checked. */
export async function parsePlan(
  text: string,
  file: string,
  check: SchemaCheck,
  commands: CommandTable,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Plan> {
  const problems: string[] = [];
  const problem = (where: string, what: string): void => {
    problems.push(`plan ${file}: ${where === '' ? '' : `${where}: `}${what}`);
  };
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    for (const e of doc.errors) {
      const at = e.linePos?.[0];
      const message = e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
      problem(
        at === undefined ? '' : `line ${at.line}, column ${at.col}`,
        `${message} (YAML or JSON syntax)`,
      );
    }
    throw new ConfigProblems(problems);
  }
  if (!isMap(doc.contents)) {
    throw new ConfigProblems([
      `plan ${file}: must be a mapping with a list of steps, e.g. \`steps: [{command: run}]\``,
    ]);
  }
  const raw = doc.toJS() as Raw;
  const unset: string[] = [];
  const data = interpolate(raw, '', env, (where, what) => {
    unset.push(where);
    problem(where, what);
  });
  for (const line of check(data)) if (!unset.includes(line.where)) problem(line.where, line.what);

  // What the schema cannot say is checked too, on whatever is well-formed: every problem at once.
  const plan = data as Raw;
  const targets = listOfMaps(raw.targets);
  const resolvedTargets = listOfMaps(plan.targets);
  const labels = resolvedTargets.map((t) => (typeof t.label === 'string' ? t.label : undefined));
  labels.forEach((label, i) => {
    if (label === undefined) problem(`targets[${i}]`, 'needs a label: steps name their targets by label');
    else if (labels.indexOf(label) !== i) problem(`targets[${i}].label`, `"${label}" is used twice`);
  });
  const cost = typeof plan.cost === 'string' ? plan.cost : undefined;
  if (cost !== undefined && !existsSync(cost))
    problem('cost', `no file ${cost}; give the drive-cost YAML of \`txbench compare --cost\``);

  const rawSteps = Array.isArray(raw.steps) ? (raw.steps as unknown[]) : [];
  const steps: PlanStep[] = [];
  /** Each step's place in the file (a malformed step is left out of `steps`). */
  const indexes: number[] = [];
  const names = new Map<string, number>();
  const count = (c: string): number => rawSteps.filter((s) => isMap_(s) && s.command === c).length;
  for (const [i, s] of (Array.isArray(plan.steps) ? (plan.steps as unknown[]) : []).entries()) {
    const where = `steps[${i}]`;
    if (!isMap_(s) || !(PLAN_COMMANDS as readonly unknown[]).includes(s.command)) continue;
    const command = s.command as PlanCommand;
    const options = isMap_(s.options) ? s.options : {};
    const listed = Array.isArray(s.targets)
      ? s.targets.filter((t): t is string => typeof t === 'string')
      : undefined;
    const seen = (names.get(command) ?? 0) + 1;
    names.set(command, seen);
    const name = (s.name as string | undefined) ?? (count(command) > 1 ? `${command}-${seen}` : command);
    const stepTargets = listed ?? labels.filter((l): l is string => l !== undefined);
    for (const label of listed ?? []) {
      if (!labels.includes(label)) {
        problem(
          `${where}.targets`,
          labels.length === 0
            ? `unknown target "${label}": the plan lists no targets (add a targets: list)`
            : `unknown target "${label}"; the plan's targets are ${labels.join(', ')}`,
        );
      }
    }
    if (Object.hasOwn(options, 'out')) {
      problem(
        `${where}.options.out`,
        "is set by the plan: each step's runs go in its directory under the plan's --out",
      );
    }
    // What the command itself requires, said now rather than when the step comes.
    if (command === 'steps' && options.users === undefined)
      problem(`${where}.options`, 'needs users, e.g. [1, 20, 50, 100]');
    if (command === 'sweep' && options.set === undefined)
      problem(`${where}.options`, 'needs set, e.g. shared_buffers=128MB,256MB');
    if (command === 'replay' && s.file === undefined)
      problem(where, 'needs file: the workload file to replay');
    if (command !== 'replay' && s.file !== undefined)
      problem(`${where}.file`, 'only a replay step takes a file');
    if (typeof s.file === 'string' && !existsSync(s.file)) problem(`${where}.file`, `no file ${s.file}`);
    await checkWorkload(where, command, options, commands, problem);
    const used = targets.filter((_, t) => stepTargets.includes(labels[t] ?? ''));
    indexes.push(i);
    steps.push({
      name,
      command,
      options,
      targets: stepTargets,
      continueOnFailure: s.continue === true,
      ...(typeof s.file === 'string' ? { file: s.file } : {}),
      hash: sha256(stableJson({ step: rawSteps[i], targets: used })),
    });
  }
  const stepNames = steps.map((s) => s.name);
  stepNames.forEach((n, i) => {
    if (stepNames.indexOf(n) !== i)
      problem(`steps[${indexes[i]!}].name`, `"${n}" is used twice; give each step its own name`);
  });
  if (problems.length > 0) throw new ConfigProblems(onePerPlace(problems, file));
  return {
    name: (plan.name as string | undefined) ?? path.basename(file).replace(/\.(ya?ml|json)$/i, ''),
    file,
    hash: sha256(text),
    targets,
    ...(cost === undefined ? {} : { cost }),
    steps,
  };
}

/** The step's workload exists, and each option that is not the command's own is the workload's. */
async function checkWorkload(
  where: string,
  command: PlanCommand,
  options: Raw,
  commands: CommandTable,
  problem: (where: string, what: string) => void,
): Promise<void> {
  if (commands.workload(command) === 'none') return;
  const ref = typeof options.workload === 'string' ? options.workload : 'tpcc';
  let declared: string[];
  try {
    declared = (await findWorkload(ref)).options.map((o) => o.name);
  } catch (err) {
    problem(`${where}.options.workload`, errorMessage(err));
    return;
  }
  const own = new Set([...commands.flags(command), 'workload', 'workload-options']);
  for (const key of Object.keys(options)) {
    if (own.has(key)) continue;
    if (commands.workload(command) === 'name' || !declared.includes(key)) {
      problem(
        `${where}.options.${key}`,
        `unknown flag --${key} of txbench ${command} with workload ${ref}; see \`txbench ${command} --workload ${ref} --help\``,
      );
    }
  }
}

function isMap_(value: unknown): value is Raw {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function listOfMaps(value: unknown): Raw[] {
  return Array.isArray(value) ? value.filter(isMap_) : [];
}

/** One line per place: the schema's word on a value, not a second one from the checks after it. */
function onePerPlace(lines: readonly string[], file: string): string[] {
  const seen = new Set<string>();
  const prefix = `plan ${file}: `.length;
  return lines.filter((line) => {
    const place = line.slice(0, line.indexOf(': ', prefix));
    if (seen.has(place)) return false;
    seen.add(place);
    return true;
  });
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** JSON with every object's keys sorted, so a hash does not depend on the order they were written. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).sort(([a], [b]) => a.localeCompare(b));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
