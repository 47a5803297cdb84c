/**
 * Commands that take operands (`txbench compare RUN...`): splits the operands from the flags,
 * then parses the flags with parseCommand so that flag errors read the same in every command.
 */
import { parseCommand, type OptionSpecs } from './args.js';

export function parseWithOperands<T extends OptionSpecs>(
  command: string,
  argv: readonly string[],
  options: T,
): Omit<ReturnType<typeof parseCommand<T>>, 'positionals'> & { positionals: string[] } {
  const flags: string[] = [];
  const operands: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      operands.push(...argv.slice(i + 1));
      break;
    }
    if (arg.startsWith('-') && arg !== '-') {
      flags.push(arg);
      const next = argv[i + 1];
      if (takesValue(options, arg) && next !== undefined) {
        flags.push(next);
        i++;
      }
    } else {
      operands.push(arg);
    }
  }
  return { ...parseCommand(command, flags, options), positionals: operands };
}

/** `--name` or `-n` (without `=value`) for an option of type string: the next word is its value. */
function takesValue(options: OptionSpecs, arg: string): boolean {
  if (arg.includes('=')) return false;
  if (arg.startsWith('--')) return options[arg.slice(2)]?.type === 'string';
  return arg.length === 2 && Object.values(options).some((o) => o.short === arg[1] && o.type === 'string');
}
