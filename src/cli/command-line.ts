/**
 * The command line a run was started with, as run.json records it (`commandLine`): so a report
 * can say exactly how to repeat the run. Passwords in connection URLs are replaced by ***. main()
 * makes it and hands it to the command, which passes it down to what writes run.json.
 */
import { redactUrl } from '../util/redact.js';

/** `argv` (what follows `txbench`) as one line a shell would split back into it, passwords hidden. */
export function commandLineOf(argv: readonly string[]): string {
  return ['txbench', ...argv].map((arg) => quote(redactArg(arg))).join(' ');
}

function redactArg(arg: string): string {
  // `--db=postgres://…` and bare URLs alike; anything else has no password in it.
  const eq = arg.indexOf('=');
  if (arg.startsWith('--') && eq > 0) return `${arg.slice(0, eq + 1)}${redactArg(arg.slice(eq + 1))}`;
  return arg.includes('://') || /(pass|secret|token)\w*\s*=/i.test(arg) ? redactUrl(arg) : arg;
}

function quote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}
