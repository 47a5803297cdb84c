/**
 * `--config FILE` for every command: the file's options for this command become flags placed
 * before the command line's, so every value is checked by the same code as a flag, and a flag on
 * the command line wins (the file's copy is left out). Top-level options apply to each command
 * that takes them, the command's section over them. `--target LABEL` picks targets of the file.
 */
import {
  readConfigFile,
  shardText,
  type ConfigFile,
  type ConfigOptions,
  type ConfigValue,
} from '../config/config-file.js';
import { UsageError } from '../errors.js';
import { DEFAULT_WORKLOAD, findWorkload } from '../api.js';
import type { OptionSpecs } from './args.js';
import { COMMAND_FLAGS, TARGET_FLAGS } from './commands.js';
import { workloadRefFrom } from './workload-flags.js';

/** Commands that drive several targets at once; the others take one. */
const SEVERAL_TARGETS: ReadonlySet<string> = new Set(['run']);

/** `argv` with `--config` and `--target` replaced by the flags they stand for. */
export async function withConfigFile(
  command: string,
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<string[]> {
  const { rest, config, targets: picked } = takeConfigFlags(argv);
  // --help shows the help, whatever the file holds (or whether it exists).
  if (rest.includes('--help') || rest.includes('-h')) return rest;
  if (config === undefined) {
    if (picked.length > 0)
      throw new UsageError('--target picks targets of a --config file; give --config FILE');
    return rest;
  }
  const spec = COMMAND_FLAGS[command];
  // A command missing from COMMAND_FLAGS is a slip in commands.ts (the config test names it).
  if (spec === undefined) throw new UsageError(`txbench ${command} does not read --config yet`);
  const file = readConfigFile(config, env);
  const given = flagsGiven(rest, spec.flags);
  const options = await optionsFor(command, file, rest);
  const tokens: string[] = [];
  for (const [name, value] of Object.entries(options)) {
    if (given.has(name)) continue;
    tokens.push(...flagTokens(name, value, spec.flags));
  }
  const cliTargets = TARGET_FLAGS.some((f) => given.has(f));
  if (spec.targets && !cliTargets) tokens.push(...targetTokens(command, file, picked, spec.flags));
  else if (picked.length > 0) {
    throw new UsageError(
      cliTargets
        ? '--target picks targets of the config file, which --db/--data-dir on the command line replace; give one or the other'
        : `--target: txbench ${command} takes no target`,
    );
  }
  return [...tokens, ...rest];
}

/** Takes `--config FILE` and every `--target LABEL` out of the arguments (not after `--`). */
function takeConfigFlags(argv: readonly string[]): { rest: string[]; config?: string; targets: string[] } {
  const rest: string[] = [];
  const targets: string[] = [];
  let config: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    const m = /^--(config|target)(?:=(.*))?$/.exec(arg);
    if (!m) {
      rest.push(arg);
      continue;
    }
    const value = m[2] ?? argv[++i];
    if (value === undefined || value === '' || (m[2] === undefined && value.startsWith('-'))) {
      throw new UsageError(
        `--${m[1]} needs a value: ${m[1] === 'config' ? 'the config file (YAML or JSON)' : "a target's label in the config file"}`,
      );
    }
    if (m[1] === 'target') targets.push(value);
    else if (config !== undefined) throw new UsageError('give --config once');
    else config = value;
  }
  return { rest, targets, ...(config === undefined ? {} : { config }) };
}

/** The long names of the flags on the command line (short aliases resolved). */
function flagsGiven(argv: readonly string[], flags: OptionSpecs): Set<string> {
  const shorts = new Map(
    Object.entries(flags)
      .filter(([, o]) => o.short !== undefined)
      .map(([name, o]) => [o.short!, name]),
  );
  const out = new Set<string>();
  for (const arg of argv) {
    if (arg === '--') break;
    const long = /^--([^=]+)/.exec(arg)?.[1];
    if (long !== undefined) out.add(long);
    else if (/^-[A-Za-z]/.test(arg)) {
      const name = shorts.get(arg[1]!);
      if (name !== undefined) out.add(name);
    }
  }
  return out;
}

/**
 * The file's options for `command`: the top-level ones it takes, then its section's. A top-level
 * workload option that the chosen workload does not declare is for another workload and is left
 * out; in the command's section it is passed on (and refused by the parser, naming the flag).
 */
async function optionsFor(
  command: string,
  file: ConfigFile,
  argv: readonly string[],
): Promise<ConfigOptions> {
  const spec = COMMAND_FLAGS[command]!;
  const section = file.sections[command] ?? {};
  const ref = argv.some((a) => /^--workload(=|$)/.test(a))
    ? workloadRefFrom(argv)
    : typeof section.workload === 'string'
      ? section.workload
      : typeof file.options.workload === 'string'
        ? file.options.workload
        : DEFAULT_WORKLOAD;
  const declared =
    spec.workload === 'options'
      ? new Set((await findWorkload(ref)).options.map((o) => o.name))
      : new Set<string>();
  const takes = (name: string): boolean =>
    Object.hasOwn(spec.flags, name) ||
    (name === 'workload' && spec.workload !== 'none') ||
    (spec.workload === 'options' && (declared.has(name) || name === 'workload-options'));
  const out: ConfigOptions = {};
  for (const [name, value] of Object.entries(file.options)) if (takes(name)) out[name] = value;
  for (const [name, value] of Object.entries(section)) out[name] = value;
  const own = out['workload-options'];
  delete out['workload-options'];
  if (typeof own === 'object' && !Array.isArray(own)) {
    for (const [name, value] of Object.entries(own)) out[name] ??= value;
  }
  return out;
}

/** One option as flags: a switch bare (or left out when false), a list repeated or comma-joined. */
function flagTokens(name: string, value: ConfigValue, flags: OptionSpecs): string[] {
  if (typeof value === 'boolean') {
    // `dashboard: true` is `--dashboard` alone: any free port.
    if (name === 'dashboard') return value ? ['--dashboard=0'] : [];
    return value ? [`--${name}`] : [];
  }
  if (name === 'shard') return [`--shard=${shardText(value)}`];
  if (Array.isArray(value)) {
    return flags[name]?.multiple === true
      ? value.map((v) => `--${name}=${String(v)}`)
      : [`--${name}=${value.map(String).join(',')}`];
  }
  return [`--${name}=${String(value)}`];
}

/** The file's targets (or those `--target` picks) as --db/--data-dir, --label, … flags. */
function targetTokens(
  command: string,
  file: ConfigFile,
  picked: readonly string[],
  flags: OptionSpecs,
): string[] {
  let targets = file.targets;
  if (picked.length > 0) {
    const labels = targets.map((t) => t.label);
    const unknown = picked.find((p) => !labels.includes(p));
    if (unknown !== undefined) {
      throw new UsageError(
        `--target "${unknown}" is not a label in ${file.file}; its targets are ${labels.filter(Boolean).join(', ') || '(none labelled)'}`,
      );
    }
    targets = targets.filter((t) => t.label !== undefined && picked.includes(t.label));
  }
  if (targets.length > 1 && !SEVERAL_TARGETS.has(command)) {
    throw new UsageError(
      `txbench ${command} takes one target and ${file.file} lists ${targets.length}; pick one with --target LABEL (${targets.map((t) => t.label).join(', ')})`,
    );
  }
  // load, check, drop, capture and replay watch no storage: a target's monitoring is run's.
  const attribute = (flag: string, value: string | undefined): string[] =>
    value === undefined || !Object.hasOwn(flags, flag) ? [] : [`--${flag}=${value}`];
  return targets.flatMap((t) => [
    t.url !== undefined ? `--db=${t.url}` : `--data-dir=${t.dataDir!}`,
    ...attribute('label', t.label),
    ...attribute('node-exporter', t.nodeExporter),
    ...attribute('device', t.device),
  ]);
}
